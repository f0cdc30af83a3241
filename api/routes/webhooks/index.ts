import type { FastifyInstance } from 'fastify';
import { EVENT_CATALOG } from '../../../domain/events/catalog';
import type { Principal } from '../../../domain/auth/principal';
import {
  createReplay,
  createWebhook,
  deleteWebhook,
  getWebhook,
  listDeliveries,
  listWebhooks,
  presentDelivery,
  rotateWebhookSecret,
  toPublicWebhook,
  updateWebhook,
  type DeliveryStatus,
  type WebhookUpdate,
} from '../../../domain/webhooks';
import { startDeliveryWorkflows } from '../../../domain/webhooks/workflow';
import { notFound } from '../../errors';
import { pageParams, paginate } from '../../pagination';
import { envelope, errorResponses, paginatedEnvelope, paginationQuery } from '../../schemas';
import { principalOf } from '../../types';

const TAGS = ['Webhooks'];
const owner = (p: Principal) => ({ userId: p.userId, environment: p.environment });

const nullableTime = { type: ['string', 'null'], format: 'date-time' };

const webhookSchema = {
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
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
    secret: { type: 'string', description: 'Signing secret: only in the answers of create and rotate-secret' },
  },
};

const attemptSchema = {
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

const deliverySchema = {
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

const eventTypeSchema = {
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

const urlField = { type: 'string', minLength: 1, maxLength: 2048, description: 'https URL; must not resolve to a private, loopback or link-local address' };
const eventsField = {
  type: 'array',
  minItems: 1,
  maxItems: 100,
  items: { type: 'string', minLength: 1, maxLength: 100 },
  description: 'Event names from GET /webhooks/events, or ["*"] for all',
};
const descriptionField = { type: ['string', 'null'], maxLength: 500 };

const idParams = { type: 'object', required: ['id'], properties: { id: { type: 'string', maxLength: 64 } } };

export default async function webhookRoutes(app: FastifyInstance) {
  app.get(
    '/api/v2/webhooks/events',
    {
      schema: {
        tags: TAGS,
        summary: 'Event types a webhook can subscribe to',
        description: 'Every event type with its group, description, whether the platform produces it today, and the JSON Schema of its `data`.',
        response: { 200: envelope({ type: 'array', items: eventTypeSchema }), ...errorResponses },
      },
    },
    async () => ({ data: EVENT_CATALOG, meta: { total: EVENT_CATALOG.length } }),
  );

  app.post<{ Body: { url: string; events: string[]; description?: string | null; secret?: string; active?: boolean } }>(
    '/api/v2/webhooks',
    {
      schema: {
        tags: TAGS,
        summary: 'Register a webhook endpoint',
        description:
          "Deliveries are POSTed with JSON {id, event_type, created_at, data}, signed with the secret (X-Webhook-Signature: hex HMAC-SHA256 of the body; " +
          'X-Webhook-Signature-V2: t=<unix>,v1=<HMAC of "<t>.<body>">). The secret is generated (whsec_...) when not given and is shown only in this answer. ' +
          "The webhook belongs to the key's environment. Unknown event names, non-https URLs and URLs resolving to private addresses are 422.",
        body: {
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
        },
        response: { 201: envelope(webhookSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const { webhook, secret } = await createWebhook(owner(principalOf(request)), request.body);
      return reply.code(201).send({ data: toPublicWebhook(webhook, secret) });
    },
  );

  app.get<{ Querystring: { page?: number; per_page?: number } }>(
    '/api/v2/webhooks',
    {
      schema: {
        tags: TAGS,
        summary: "The caller's webhook endpoints in the key's environment",
        querystring: { type: 'object', properties: paginationQuery, additionalProperties: false },
        response: { 200: paginatedEnvelope(webhookSchema), ...errorResponses },
      },
    },
    async (request) => {
      const pp = pageParams(request.query);
      const { items, total } = await listWebhooks(owner(principalOf(request)), pp);
      return paginate(request, items.map((w) => toPublicWebhook(w)), total, pp);
    },
  );

  app.get<{ Params: { id: string } }>(
    '/api/v2/webhooks/:id',
    { schema: { tags: TAGS, summary: 'One webhook endpoint', params: idParams, response: { 200: envelope(webhookSchema), ...errorResponses } } },
    async (request) => {
      const w = await getWebhook(owner(principalOf(request)), request.params.id);
      if (!w) throw notFound('Webhook');
      return { data: toPublicWebhook(w) };
    },
  );

  app.put<{ Params: { id: string }; Body: WebhookUpdate }>(
    '/api/v2/webhooks/:id',
    {
      schema: {
        tags: TAGS,
        summary: 'Change a webhook endpoint',
        description: 'Fields given are replaced; others keep their value. active true re-enables a disabled endpoint (failure count reset). The secret changes only through rotate-secret.',
        params: idParams,
        body: {
          type: 'object',
          minProperties: 1,
          additionalProperties: false,
          properties: { url: urlField, events: eventsField, description: descriptionField, active: { type: 'boolean' } },
        },
        response: { 200: envelope(webhookSchema), ...errorResponses },
      },
    },
    async (request) => {
      const w = await updateWebhook(owner(principalOf(request)), request.params.id, request.body);
      if (!w) throw notFound('Webhook');
      return { data: toPublicWebhook(w) };
    },
  );

  app.delete<{ Params: { id: string } }>(
    '/api/v2/webhooks/:id',
    {
      schema: {
        tags: TAGS,
        summary: 'Delete a webhook endpoint and its delivery history',
        description: 'Deliveries still retrying stop at their next attempt.',
        params: idParams,
        response: { 200: envelope(webhookSchema), ...errorResponses },
      },
    },
    async (request) => {
      const w = await deleteWebhook(owner(principalOf(request)), request.params.id);
      if (!w) throw notFound('Webhook');
      return { data: toPublicWebhook(w) };
    },
  );

  app.post<{ Params: { id: string } }>(
    '/api/v2/webhooks/:id/rotate-secret',
    {
      schema: {
        tags: TAGS,
        summary: 'Replace the signing secret',
        description: 'The new secret (shown only in this answer) signs every attempt from now on, including retries of earlier events.',
        params: idParams,
        body: { type: ['object', 'null'], additionalProperties: false, properties: {} },
        response: { 201: envelope(webhookSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const r = await rotateWebhookSecret(owner(principalOf(request)), request.params.id);
      if (!r) throw notFound('Webhook');
      return reply.code(201).send({ data: toPublicWebhook(r.webhook, r.secret) });
    },
  );

  app.get<{ Params: { id: string }; Querystring: { page?: number; per_page?: number; status?: DeliveryStatus; event_type?: string } }>(
    '/api/v2/webhooks/:id/deliveries',
    {
      schema: {
        tags: TAGS,
        summary: 'Delivery history of a webhook, newest first, with every attempt',
        description: 'Each attempt has its time, HTTP status code, duration, error and the time of the next retry.',
        params: idParams,
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            ...paginationQuery,
            status: { type: 'string', enum: ['pending', 'retrying', 'succeeded', 'failed', 'cancelled'] },
            event_type: { type: 'string', maxLength: 100 },
          },
        },
        response: { 200: paginatedEnvelope(deliverySchema), ...errorResponses },
      },
    },
    async (request) => {
      const w = await getWebhook(owner(principalOf(request)), request.params.id);
      if (!w) throw notFound('Webhook');
      const pp = pageParams(request.query);
      const { items, total } = await listDeliveries(w.id, pp, { status: request.query.status, eventType: request.query.event_type });
      return paginate(request, items, total, pp);
    },
  );

  app.post<{ Params: { id: string; deliveryId: string } }>(
    '/api/v2/webhooks/:id/deliveries/:deliveryId/replay',
    {
      schema: {
        tags: TAGS,
        summary: 'Send a delivered (or failed) event again',
        description: 'Creates a new delivery of the same event (same body and event id) with its own retries; the answer is 202 with the new delivery.',
        params: {
          type: 'object',
          required: ['id', 'deliveryId'],
          properties: { id: { type: 'string', maxLength: 64 }, deliveryId: { type: 'string', maxLength: 64 } },
        },
        body: { type: ['object', 'null'], additionalProperties: false, properties: {} },
        response: { 202: envelope(deliverySchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const p = principalOf(request);
      const d = await createReplay(owner(p), request.params.id, request.params.deliveryId);
      await startDeliveryWorkflows([{ deliveryId: d.id, userId: p.userId, environment: p.environment }]).catch((err: Error) => {
        // The delivery row exists; the dispatcher's sweep starts its workflow once Temporal is reachable.
        request.log.warn({ err, deliveryId: d.id }, 'replay recorded, workflow start deferred to the dispatcher sweep');
      });
      return reply.code(202).send({ data: presentDelivery(d, []) });
    },
  );
}
