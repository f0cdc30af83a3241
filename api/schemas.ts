/**
 * Schema fragments shared by every route: the envelope, errors, pagination, money.
 * Routes build their OpenAPI request/response schemas from these.
 */
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

/** Standard error responses documented on every route. */
export const errorResponses: Record<string, Schema> = Object.fromEntries(
  [400, 401, 403, 404, 409, 413, 422, 429, 500].map((s) => [String(s), { description: 'Error envelope', ...errorEnvelopeSchema }]),
);

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

export const paginationQuery: Schema = {
  page: { type: 'integer', minimum: 1, default: 1 },
  per_page: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
};

/** A positive decimal string; precision per asset is checked by domain/money. */
export const decimalString: Schema = {
  type: 'string',
  pattern: '^[0-9]+(\\.[0-9]+)?$',
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
