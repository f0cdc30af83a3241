/** Wire schemas of the webhooks area. */
import { paginationQuery } from '../../schemas';

export const TAGS = ['Webhooks'];

const nullableTime = { type: ['string', 'null'], format: 'date-time' };

export const webhookSchema = {
  type: 'object',
  properties: {
    id: { type: 'string', description: 'webhook_...' },
    url: { type: 'string' },
    events: { type: 'array', items: { type: 'string' } },
    description: { type: ['string', 'null'] },
    active: { type: 'boolean' },
    status: { type: 'string', enum: ['active', 'inactive', 'disabled'], description: 'disabled: switched off after consecutive failed deliveries' },
    environment: { type: 'string', enum: ['sandbox', 'production'] },
    consecutive_failures: { type: 'integer' },
    disabled_at: nullableTime,
    disabled_reason: { type: ['string', 'null'] },
    secret_rotated_at: nullableTime,
    previous_secret_expires_at: { ...nullableTime, description: 'Until when the secret replaced by the last rotation still signs deliveries beside the current one; null when no grace period is running' },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
    secret: { type: 'string', description: 'Signing secret: only in the answers of create and rotate-secret' },
  },
};

export const attemptSchema = {
  type: 'object',
  properties: {
    attempt: { type: 'integer' },
    scheduled_at: { type: 'string', format: 'date-time', description: 'When the attempt was due (back-off schedule or end of a rate wait)' },
    attempted_at: { type: 'string', format: 'date-time' },
    status_code: { type: ['integer', 'null'] },
    duration_ms: { type: ['integer', 'null'] },
    succeeded: { type: ['boolean', 'null'], description: 'null while the attempt is in flight' },
    error: { type: ['string', 'null'] },
    next_retry_at: nullableTime,
  },
};

export const deliverySchema = {
  type: 'object',
  properties: {
    id: { type: 'string', description: 'whdel_...' },
    webhook_id: { type: 'string' },
    event_id: { type: 'string' },
    event_type: { type: 'string' },
    status: { type: 'string', enum: ['pending', 'retrying', 'succeeded', 'failed', 'cancelled'] },
    attempt_count: { type: 'integer' },
    last_status_code: { type: ['integer', 'null'] },
    last_error: { type: ['string', 'null'] },
    next_attempt_at: nullableTime,
    replay_of: { type: ['string', 'null'] },
    workflow_id: { type: 'string' },
    created_at: { type: 'string', format: 'date-time' },
    completed_at: nullableTime,
    attempts: { type: 'array', items: attemptSchema },
    request: { type: 'object', properties: { body: { type: 'object', additionalProperties: true } } },
  },
};

export const eventTypeSchema = {
  type: 'object',
  properties: {
    type: { type: 'string' },
    group: { type: 'string' },
    description: { type: 'string' },
    produced: { type: 'boolean', description: 'false: the producing area is not built yet' },
    producer: { type: 'string' },
    data_schema: { type: 'object', additionalProperties: true },
  },
};

export const urlField = { type: 'string', minLength: 1, maxLength: 2048, description: 'https URL; must not resolve to a private, loopback or link-local address' };
export const eventsField = {
  type: 'array',
  minItems: 1,
  maxItems: 100,
  items: { type: 'string', minLength: 1, maxLength: 100 },
  description: 'Event names from GET /webhooks/events, or ["*"] for all',
};
export const descriptionField = { type: ['string', 'null'], maxLength: 500 };

export const idParams = { type: 'object', required: ['id'], properties: { id: { type: 'string', maxLength: 64 } } };

export const createBody = {
  type: 'object',
  required: ['url', 'events'],
  additionalProperties: false,
  properties: {
    url: urlField,
    events: eventsField,
    description: descriptionField,
    secret: { type: 'string', minLength: 16, maxLength: 256 },
    active: { type: 'boolean', default: true },
  },
};

export const updateBody = {
  type: 'object',
  minProperties: 1,
  additionalProperties: false,
  properties: { url: urlField, events: eventsField, description: descriptionField, active: { type: 'boolean' } },
};

export const emptyBody = { type: ['object', 'null'], additionalProperties: false, properties: {} };

/** rotate-secret: no body as before, or the grace period of the replaced secret. */
export const rotateBody = {
  type: ['object', 'null'],
  additionalProperties: false,
  properties: {
    grace_hours: {
      type: 'integer',
      minimum: 0,
      maximum: 8760,
      description:
        'Hours the replaced secret keeps signing deliveries beside the new one (both signatures in each header). ' +
        'Default and upper bound: the WEBHOOK_SECRET_ROTATION_GRACE_HOURS setting (24); 0 ends the old secret at once.',
    },
  },
};

export const deliveriesQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ...paginationQuery,
    status: { type: 'string', enum: ['pending', 'retrying', 'succeeded', 'failed', 'cancelled'] },
    event_type: { type: 'string', maxLength: 100 },
  },
};

export const replayParams = {
  type: 'object',
  required: ['id', 'deliveryId'],
  properties: { id: { type: 'string', maxLength: 64 }, deliveryId: { type: 'string', maxLength: 64 } },
};

export const pageQuery = { type: 'object', properties: paginationQuery, additionalProperties: false };
