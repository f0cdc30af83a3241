import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';

/**
 * Bodies are validated strictly (no type coercion, unknown fields refused) so that e.g. a
 * JSON number where a decimal string belongs is an error, not silently converted.
 * Query strings and path parameters are text by nature, so they are coerced.
 */
export function registerValidation(app: FastifyInstance): void {
  const common = { allErrors: true, useDefaults: true, removeAdditional: false as const, strict: false };
  const bodyAjv = new Ajv({ ...common, coerceTypes: false });
  const textAjv = new Ajv({ ...common, coerceTypes: 'array' });
  for (const ajv of [bodyAjv, textAjv]) {
    addFormats(ajv);
    ajv.addKeyword({ keyword: 'example' });
  }
  app.setValidatorCompiler(({ schema, httpPart }) => {
    const ajv = httpPart === 'body' ? bodyAjv : textAjv;
    return ajv.compile(schema) as ReturnType<Parameters<FastifyInstance['setValidatorCompiler']>[0]>;
  });
}
