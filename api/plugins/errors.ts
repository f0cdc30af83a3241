import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { refusalOf } from '../../domain/platform/refusal';
import { statusForCode } from '../error-status';
import { ApiError, titleFor, type ErrorObject } from '../errors';

/**
 * Business-logic refusals (the one mapping, domain/platform/refusal.ts) become envelope errors
 * without every route catching them; the status comes from the code. Also GraphQL's error
 * formatting (api/graphql/errors.ts).
 */
export function fromDomain(err: unknown): ApiError | undefined {
  const r = refusalOf(err);
  if (!r) return undefined;
  const status = statusForCode(r.code);
  return new ApiError(status, r.code, r.message, {
    source: r.pointer !== undefined ? { pointer: r.pointer } : undefined,
    headers: r.retryAfterSeconds ? { 'retry-after': String(r.retryAfterSeconds) } : undefined,
    // Further issues of the same refusal (each failed rule of a generated ISO 20022 message).
    extra: (r.issues ?? []).map((i) => ({ status: String(status), code: r.code, title: titleFor(status), detail: i.detail, meta: i.meta })),
  });
}

export interface AjvError {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
}

function pointerFor(e: AjvError): string {
  const base = e.instancePath || '';
  if (e.keyword === 'required') return `${base}/${String(e.params.missingProperty)}`;
  if (e.keyword === 'additionalProperties') return `${base}/${String(e.params.additionalProperty)}`;
  return base || '/';
}

function describe(e: AjvError, field: string): string {
  switch (e.keyword) {
    case 'required':
      return `${field} is required`;
    case 'additionalProperties':
      return `${field} is not an accepted field`;
    case 'enum':
      return `${field} must be one of: ${(e.params.allowedValues as unknown[]).join(', ')}`;
    case 'type':
      return `${field} must be of type ${String(e.params.type)}`;
    default:
      return `${field} ${e.message ?? 'is invalid'}`;
  }
}

export function validationErrors(validation: AjvError[], context: string | undefined): ErrorObject[] {
  return validation.map((e) => {
    const pointer = pointerFor(e);
    const field = pointer.replace(/^\//, '').replaceAll('/', '.') || context || 'request';
    const isBody = !context || context === 'body';
    return {
      status: '422',
      code: 'VALIDATION_ERROR',
      title: titleFor(422),
      detail: describe(e, field),
      source: isBody ? { pointer } : context === 'headers' ? { header: field } : { parameter: field },
    };
  });
}

/** The error envelope: the one shape of every refusal, whoever writes it (the handler, a hook's payload). */
export function errorEnvelope(requestId: string, errors: ErrorObject[]) {
  return { data: null, errors, meta: { request_id: requestId } };
}

/** One error object for a refusal code and message, with the status the code maps to. */
export function errorObject(status: number, code: string, detail: string): ErrorObject {
  return { status: String(status), code, title: titleFor(status), detail };
}

export function sendErrors(reply: FastifyReply, status: number, errors: ErrorObject[], headers?: Record<string, string>) {
  if (headers) reply.headers(headers);
  const body = isGraphQLRoute(reply.request) ? graphqlRefusal(reply.request.id, errors) : errorEnvelope(reply.request.id, errors);
  return reply.code(status).type('application/json; charset=utf-8').send(body);
}

/** The GraphQL endpoint's routes (config `graphql`): every answer there is a GraphQL response, refusals before execution included. */
function isGraphQLRoute(request: FastifyRequest): boolean {
  return (request.routeOptions?.config as { graphql?: boolean } | undefined)?.graphql === true;
}

/**
 * A refusal on the GraphQL endpoint before anything executed (authentication, rate limit, a body
 * that is not JSON), in the GraphQL response format that GraphQL clients read (GraphQL over HTTP: a
 * request error has `errors` with a `message` each and no `data`), carrying the REST code, status
 * and pointer in `extensions`, as resolver errors do (api/graphql/errors.ts).
 */
export function graphqlRefusal(requestId: string, errors: ErrorObject[]) {
  return {
    errors: errors.map((e) => ({
      message: e.detail ?? e.title,
      extensions: {
        code: e.code,
        status: Number(e.status),
        ...(e.source?.pointer ? { pointer: e.source.pointer } : {}),
        ...(e.source?.header ? { header: e.source.header } : {}),
        request_id: requestId,
      },
    })),
  };
}

const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/** Turns every failure into the envelope; nothing internal leaks from a 500. */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((raw: FastifyError | ApiError, request: FastifyRequest, reply: FastifyReply) => {
    const err = fromDomain(raw) ?? raw;
    if (err instanceof ApiError) {
      if (err.status >= 500) request.log.error({ err }, 'request failed');
      return sendErrors(reply, err.status, err.toErrorObjects(), err.headers);
    }
    // Backstop for text PostgreSQL cannot store (the null character, checked earlier by the
    // validation layer): SQLSTATE 22021 character_not_in_repertoire, 22P05 untranslatable_character.
    const sqlState = (raw as { code?: unknown })?.code;
    if (sqlState === '22021' || sqlState === '22P05') {
      return sendErrors(reply, 422, [
        { status: '422', code: 'VALIDATION_ERROR', title: titleFor(422), detail: 'The request contains text that cannot be stored (such as the null character U+0000)' },
      ]);
    }
    const fe = err as FastifyError & { validation?: AjvError[]; validationContext?: string };
    if (fe.validation) {
      return sendErrors(reply, 422, validationErrors(fe.validation, fe.validationContext));
    }
    const status = fe.statusCode ?? 500;
    if (status === 413 || fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return sendErrors(reply, 413, [
        { status: '413', code: 'PAYLOAD_TOO_LARGE', title: titleFor(413), detail: 'The request body is larger than the limit' },
      ]);
    }
    if (status === 415 || fe.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      return sendErrors(reply, 415, [
        {
          status: '415',
          code: 'UNSUPPORTED_MEDIA_TYPE',
          title: titleFor(415),
          detail: `Content-Type ${request.headers['content-type'] ?? '(none)'} is not accepted here`,
          source: { header: 'content-type' },
        },
      ]);
    }
    if (status >= 400 && status < 500) {
      const malformed = status === 400 && (err instanceof SyntaxError || String(fe.code ?? '').startsWith('FST_ERR_CTP'));
      return sendErrors(reply, status, [
        {
          status: String(status),
          code: malformed ? 'MALFORMED_BODY' : 'BAD_REQUEST',
          title: titleFor(status),
          detail: malformed ? 'The request body is not valid JSON' : fe.message,
        },
      ]);
    }
    request.log.error({ err }, 'unhandled error');
    return sendErrors(reply, 500, [
      {
        status: '500',
        code: 'INTERNAL_ERROR',
        title: titleFor(500),
        detail: `An unexpected error occurred. Quote request id ${request.id} when contacting support.`,
      },
    ]);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    // A known path called with a method it does not have: 405 with the methods it does have.
    const allowed = HTTP_METHODS.filter((method) => method !== request.method && app.findRoute({ method, url: path }) !== null);
    if (allowed.length > 0) {
      return sendErrors(
        reply,
        405,
        [{ status: '405', code: 'METHOD_NOT_ALLOWED', title: titleFor(405), detail: `${request.method} is not allowed on ${path}; allowed: ${allowed.join(', ')}` }],
        { allow: allowed.join(', ') },
      );
    }
    return sendErrors(reply, 404, [{ status: '404', code: 'ROUTE_NOT_FOUND', title: titleFor(404), detail: `No route ${request.method} ${path}` }]);
  });
}
