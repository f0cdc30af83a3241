import type { FastifyInstance } from 'fastify';
import type { Principal } from '../../../domain/auth/principal';
import { EVENT_CATALOG } from '../../../domain/events/catalog';
import { createWebhook, deleteWebhook, getWebhook, listWebhooks, rotateWebhookSecret, updateWebhook, type DeliveryStatus, type WebhookUpdate } from '../../../domain/webhooks';
import { listOwnWebhookDeliveries, replayDelivery } from '../../../domain/webhooks/replay';
import { pageParams, paginate } from '../../pagination';
import { envelope, errorResponses, paginatedEnvelope } from '../../schemas';
import { principalOf } from '../../types';
import { presentNewDelivery, presentWebhook } from '../../operations/webhooks/presenters';
import { createBody, deliveriesQuery, deliverySchema, emptyBody, eventTypeSchema, idParams, pageQuery, replayParams, rotateBody, TAGS, updateBody, webhookSchema } from '../../operations/webhooks/schemas';

const owner = (p: Principal) => ({ userId: p.userId, environment: p.environment });

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
          'X-Webhook-Signature-V2: t=<unix>,v1=<HMAC of "<t>.<body>">; refuse a t older than 5 minutes). The secret is generated (whsec_...) when not given, ' +
          'is shown only in this answer and is stored encrypted (AES-256-GCM). ' +
          "The webhook belongs to the key's environment. Unknown event names, non-https URLs and URLs resolving to private addresses are 422.",
        body: createBody,
        response: { 201: envelope(webhookSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const { webhook, secret } = await createWebhook(owner(principalOf(request)), request.body);
      return reply.code(201).send({ data: presentWebhook(webhook, secret) });
    },
  );

  app.get<{ Querystring: { page?: number; per_page?: number } }>(
    '/api/v2/webhooks',
    {
      schema: {
        tags: TAGS,
        summary: "The caller's webhook endpoints in the key's environment",
        querystring: pageQuery,
        response: { 200: paginatedEnvelope(webhookSchema), ...errorResponses },
      },
    },
    async (request) => {
      const pp = pageParams(request.query);
      const { items, total } = await listWebhooks(owner(principalOf(request)), pp);
      return paginate(request, items.map((w) => presentWebhook(w)), total, pp);
    },
  );

  app.get<{ Params: { id: string } }>(
    '/api/v2/webhooks/:id',
    { schema: { tags: TAGS, summary: 'One webhook endpoint', params: idParams, response: { 200: envelope(webhookSchema), ...errorResponses } } },
    async (request) => {
      const w = await getWebhook(owner(principalOf(request)), request.params.id);
      return { data: presentWebhook(w) };
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
        body: updateBody,
        response: { 200: envelope(webhookSchema), ...errorResponses },
      },
    },
    async (request) => {
      const w = await updateWebhook(owner(principalOf(request)), request.params.id, request.body);
      return { data: presentWebhook(w) };
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
      return { data: presentWebhook(w) };
    },
  );

  app.post<{ Params: { id: string }; Body: { grace_hours?: number } | null }>(
    '/api/v2/webhooks/:id/rotate-secret',
    {
      schema: {
        tags: TAGS,
        summary: 'Replace the signing secret',
        description:
          'The new secret (shown only in this answer) signs every attempt from now on, including retries of earlier events. ' +
          'The replaced secret keeps signing beside it until previous_secret_expires_at (grace_hours, default WEBHOOK_SECRET_ROTATION_GRACE_HOURS, 24): ' +
          'meanwhile each signature header carries two values, the new secret\'s first (X-Webhook-Signature: "<hex>,<hex>"; X-Webhook-Signature-V2: "t=<unix>,v1=<hex>,v1=<hex>"). ' +
          'Rotating again during a grace period ends the older secret at once. A grace_hours above the setting is 422 INVALID_GRACE_PERIOD.',
        params: idParams,
        body: rotateBody,
        response: { 201: envelope(webhookSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const r = await rotateWebhookSecret(owner(principalOf(request)), request.params.id, { graceHours: request.body?.grace_hours });
      return reply.code(201).send({ data: presentWebhook(r.webhook, r.secret) });
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
        querystring: deliveriesQuery,
        response: { 200: paginatedEnvelope(deliverySchema), ...errorResponses },
      },
    },
    async (request) => {
      const pp = pageParams(request.query);
      const page = await listOwnWebhookDeliveries(owner(principalOf(request)), request.params.id, pp, { status: request.query.status, eventType: request.query.event_type });
      return paginate(request, page.items, page.total, pp);
    },
  );

  app.post<{ Params: { id: string; deliveryId: string } }>(
    '/api/v2/webhooks/:id/deliveries/:deliveryId/replay',
    {
      schema: {
        tags: TAGS,
        summary: 'Send a delivered (or failed) event again',
        description: 'Creates a new delivery of the same event (same body and event id) with its own retries; the answer is 202 with the new delivery.',
        params: replayParams,
        body: emptyBody,
        response: { 202: envelope(deliverySchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const d = await replayDelivery(owner(principalOf(request)), request.params.id, request.params.deliveryId, (err, delivery) => {
        // The delivery row exists; the dispatcher's sweep starts its workflow once Temporal is reachable.
        request.log.warn({ err, deliveryId: delivery.id }, 'replay recorded, workflow start deferred to the dispatcher sweep');
      });
      return reply.code(202).send({ data: presentNewDelivery(d) });
    },
  );
}
