import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import { ApiError, titleFor, type ErrorObject } from '../errors';
import { compileOncePerSchema } from './schema-memo';

/**
 * Bodies are validated strictly (no type coercion, unknown fields refused) so that e.g. a
 * JSON number where a decimal string belongs is an error, not silently converted.
 * Query strings and path parameters are text by nature, so they are coerced.
 */
export function registerValidation(app: FastifyInstance): void {
  const common = { allErrors: true, useDefaults: true, removeAdditional: false as const, strict: false };
  const bodyAjv = new Ajv({ coerceTypes: false, ...common });
  const textAjv = new Ajv({ coerceTypes: 'array', ...common });
  for (const ajv of [bodyAjv, textAjv]) {
    addFormats(ajv);
    ajv.addKeyword({ keyword: 'example' });
  }
  // One validator per distinct schema and strictness (many routes share parameter and query schemas).
  type Compiler = Parameters<FastifyInstance['setValidatorCompiler']>[0];
  const compile: Compiler = compileOncePerSchema<Parameters<Compiler>[0], ReturnType<Compiler>>(
    ({ schema, httpPart }) => (httpPart === 'body' ? bodyAjv : textAjv).compile(schema as object) as ReturnType<Compiler>,
    ({ schema, httpPart }) => `${httpPart === 'body' ? 'body' : 'text'}:${JSON.stringify(schema)}`,
  );
  app.setValidatorCompiler(compile);
  registerTextGuards(app);
}

/** Path parameters longer than this are refused with 414 (ids here are at most 64 characters). */
export const MAX_PARAM_LENGTH = 100;

/**
 * The router accepts parameters far longer than MAX_PARAM_LENGTH (Node refuses longer URLs
 * itself, with 431), so that an over-long id goes through the hooks (rate limit, envelope) and is
 * refused by refuseBadText with a 414, not by the router's bare JSON.
 */
export const ROUTER_MAX_PARAM_LENGTH = 65_536;

/** Where a string (or an object key) holds U+0000, as JSON pointers below `base` (GraphQL's variables too: api/graphql/limits.ts). */
export function nullBytes(value: unknown, base: string, found: string[]): void {
  if (typeof value === 'string') {
    if (value.includes('\u0000')) found.push(base);
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => nullBytes(v, `${base}/${i}`, found));
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const pointer = `${base}/${k.replaceAll('~', '~0').replaceAll('/', '~1')}`;
      if (k.includes('\u0000')) found.push(pointer);
      else nullBytes(v, pointer, found);
    }
  }
}

function nulError(source: { pointer: string } | { parameter: string }, what: string): ErrorObject {
  return { status: '422', code: 'VALIDATION_ERROR', title: titleFor(422), detail: `${what} must not contain the null character (U+0000)`, source };
}

/**
 * Text PostgreSQL cannot store is refused before any route sees it: U+0000 in any JSON body string
 * or key, query string value or path parameter is a 422 VALIDATION_ERROR naming where it is (the
 * database would refuse it, SQLSTATE 22021/22P05, as a 500). A path parameter longer than
 * MAX_PARAM_LENGTH is a 414 URI_TOO_LONG. Runs as preValidation, after the rate limit has set its
 * headers, so these answers carry them and the envelope like any other.
 */
export function registerTextGuards(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    const params = (request.params ?? {}) as Record<string, unknown>;
    for (const [name, value] of Object.entries(params)) {
      if (typeof value === 'string' && value.length > MAX_PARAM_LENGTH) {
        throw new ApiError(414, 'URI_TOO_LONG', `${name} is longer than ${MAX_PARAM_LENGTH} characters`, {
          title: 'URI Too Long',
          source: { parameter: name },
        });
      }
    }
    const errors: ErrorObject[] = [];
    for (const [where, values] of [
      ['path', params],
      ['query', (request.query ?? {}) as Record<string, unknown>],
    ] as const) {
      for (const [name, value] of Object.entries(values)) {
        const found: string[] = [];
        nullBytes(value, '', found);
        if (found.length > 0 || name.includes('\u0000')) errors.push(nulError({ parameter: name }, `${where} parameter ${name}`));
      }
    }
    const found: string[] = [];
    nullBytes(request.body, '', found);
    for (const pointer of found) errors.push(nulError({ pointer: pointer || '/' }, pointer.replace(/^\//, '').replaceAll('/', '.') || 'body'));
    if (errors.length > 0) {
      const [first, ...extra] = errors;
      throw new ApiError(422, first.code, first.detail, { source: first.source, extra });
    }
  });
}
