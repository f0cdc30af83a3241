/**
 * Schema fragments shared by every route: the envelope, errors, pagination, money.
 * Routes build their OpenAPI request/response schemas from these.
 */
import { AMOUNT_PATTERN } from '../domain/money/amount';

type Schema = Record<string, unknown>;

export const errorObjectSchema: Schema = {
  type: 'object',
  properties: {
    status: { type: 'string' },
    code: { type: 'string' },
    title: { type: 'string' },
    detail: { type: 'string' },
    source: {
      type: 'object',
      properties: { pointer: { type: 'string' }, parameter: { type: 'string' }, header: { type: 'string' } },
    },
    meta: { type: 'object', additionalProperties: true },
  },
};

export const errorEnvelopeSchema: Schema = {
  type: 'object',
  properties: {
    data: { type: 'null' },
    errors: { type: 'array', items: errorObjectSchema },
    meta: { type: 'object', properties: { request_id: { type: 'string' } }, additionalProperties: true },
  },
};

/**
 * Every status the conventions (README, "API conventions") can answer with, whichever route was
 * asked: the plugins (validation, auth, rate limits, idempotency, errors) and the router answer
 * these before or around any handler, always as the JSON error envelope.
 */
const ERROR_STATUSES: Record<number, string> = {
  400: 'Malformed request (the body is not valid JSON)',
  401: 'Missing, invalid, expired or revoked credentials (WWW-Authenticate: Bearer)',
  402: 'Payment required or refused (monetized GET routes, SMS send): the requirements are in the X-Payment-* and PAYMENT-REQUIRED headers (docs/x402.md)',
  403: 'Missing permission, operator-only route, or IP address not in the key\'s allow-list',
  404: 'Unknown resource, including another user\'s',
  405: 'Method not allowed on this path (Allow lists the methods that are)',
  409: 'Idempotency conflict: the same Idempotency-Key with a different body, or still in flight',
  413: 'Request body too large',
  414: 'Request URL, or a path parameter, too long',
  415: 'Unsupported Content-Type',
  422: 'Validation error (source names the field) or business rule refused',
  429: 'Rate limited (Retry-After and X-RateLimit-* headers)',
  500: 'Unexpected error; quote the request id (meta.request_id)',
  503: 'A dependency (database, Temporal, chain RPC) is unavailable, nothing was done; or DATABASE_SATURATED: no database connection came free in time (Retry-After). Retry later',
};

function errorResponse(status: number): Schema {
  return { description: ERROR_STATUSES[status], content: { 'application/json': { schema: errorEnvelopeSchema } } };
}

/** The error responses for these statuses, each as the JSON envelope (whatever the route's success type). */
export function errorResponsesFor(statuses: number[]): Record<string, Schema> {
  return Object.fromEntries(statuses.map((s) => [String(s), errorResponse(s)]));
}

/** Standard error responses documented on every route that takes credentials. */
export const errorResponses: Record<string, Schema> = errorResponsesFor(Object.keys(ERROR_STATUSES).map(Number));

/** Public routes without a body or path parameters (health, readiness): only what the conventions still apply. */
export const publicErrorResponses: Record<string, Schema> = errorResponsesFor([405, 414, 429, 500, 503]);

export function envelope(data: Schema, extra: Schema = {}): Schema {
  return {
    type: 'object',
    properties: { data, meta: { type: 'object', additionalProperties: true }, links: { type: 'object', additionalProperties: true }, ...extra },
  };
}

export const paginationMetaSchema: Schema = {
  type: 'object',
  properties: {
    current_page: { type: 'integer' },
    last_page: { type: 'integer' },
    per_page: { type: 'integer' },
    total: { type: 'integer' },
    from: { type: ['integer', 'null'] },
    to: { type: ['integer', 'null'] },
  },
  additionalProperties: true,
};

export const paginationLinksSchema: Schema = {
  type: 'object',
  properties: {
    first: { type: 'string' },
    last: { type: 'string' },
    prev: { type: ['string', 'null'] },
    next: { type: ['string', 'null'] },
  },
};

export function paginatedEnvelope(item: Schema): Schema {
  return {
    type: 'object',
    properties: { data: { type: 'array', items: item }, meta: paginationMetaSchema, links: paginationLinksSchema },
  };
}

/** page ≤ 1,000,000 and per_page ≤ 100 keep every offset (≤ 99,999,900) far inside bigint and JS safe integers. */
export const MAX_PAGE = 1_000_000;

export const paginationQuery: Schema = {
  page: { type: 'integer', minimum: 1, maximum: MAX_PAGE, default: 1 },
  per_page: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
};

/**
 * A positive decimal string; precision per asset is checked by domain/money. The pattern is the
 * domain's one amount spelling (AMOUNT_PATTERN in domain/money/amount.ts).
 */
export const decimalString: Schema = {
  type: 'string',
  pattern: AMOUNT_PATTERN,
  maxLength: 40,
  description: 'Decimal string, e.g. "100.50" (never a JSON number)',
};

export const timestamp: Schema = { type: 'string', format: 'date-time' };

export const metadataSchema: Schema = {
  type: 'object',
  maxProperties: 50,
  additionalProperties: { type: ['string', 'number', 'boolean', 'null'], maxLength: 500 },
  description: 'Free-form key/value map (at most 50 keys, values up to 500 characters)',
};

/**
 * OpenAPI security of a public read that takes an optional credential (route config
 * { public: true, optionalAuth: true }): anonymous, or a bearer credential that then selects the
 * environment (and can be refused: 401/403).
 */
export const optionalAuthSecurity: Array<Record<string, string[]>> = [{}, { bearerAuth: [] }];
