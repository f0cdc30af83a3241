/**
 * The mobile app's money routes: payment intents, P2P transfers, receipts, the activity feed with
 * notifications, receive details, devices and the customer's handle/phone. Each handler: caller →
 * one domain call → presenter (docs/mobile.md).
 */
import type { FastifyInstance } from 'fastify';
import { activityFeed, type FeedType } from '../../../domain/mobile/activity';
import { listDevices, registerDevice, removeDevice } from '../../../domain/mobile/devices';
import { cancelPaymentIntent, confirmPaymentIntent, createPaymentIntent, getPaymentIntent, listPaymentIntents, type CreateIntentInput, type IntentStatus } from '../../../domain/mobile/intents';
import { listNotifications, markNotificationRead } from '../../../domain/mobile/notifications';
import { getP2pTransfer, sendP2p, type P2pRequest } from '../../../domain/mobile/p2p';
import { getProfile, updateProfile } from '../../../domain/mobile/profiles';
import { getReceipt, renderReceiptHtml } from '../../../domain/mobile/receipts';
import { receiveDetails } from '../../../domain/mobile/receive';
import { paginate, pageParams } from '../../pagination';
import { requestKeyOf } from '../../plugins/idempotency';
import { decimalString, envelope, errorResponses, paginatedEnvelope, paginationQuery } from '../../schemas';
import { principalOf } from '../../types';
import { presentDevice, presentFeedItem, presentIntent, presentNotification, presentP2p, presentProfile, presentReceipt, presentReceive } from '../../operations/mobile/presenters';

const TAGS = ['Mobile'];
const obj = { type: 'object', additionalProperties: true };
const idParams = { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1, maxLength: 100 } } };
const INTENT_STATUSES = ['requires_confirmation', 'processing', 'succeeded', 'canceled', 'expired'];
const FEED_TYPES = ['transfer', 'payment', 'notification'];

export default async function mobilePaymentRoutes(app: FastifyInstance) {
  // Payment intents.
  app.post<{ Body: CreateIntentInput }>(
    '/api/v2/mobile/payments/intents',
    {
      schema: {
        tags: TAGS,
        summary: 'Create a payment intent: what the caller will pay whom, confirmed later',
        description:
          'recipient is another customer\'s email, phone (+E.164) or @handle. Status requires_confirmation until the payer confirms; expires after ' +
          'expires_in_minutes (default PAYMENT_INTENT_TTL_MINUTES, 30) with payment_intent.expired. requires_passkey is true at or above ' +
          'MOBILE_PASSKEY_THRESHOLD_USD (1,000): confirming then needs a passkey session. Nothing moves until confirmation.',
        body: {
          type: 'object',
          required: ['amount', 'currency', 'recipient'],
          additionalProperties: false,
          properties: {
            amount: decimalString,
            currency: { type: 'string', minLength: 1, maxLength: 12 },
            recipient: { type: 'string', minLength: 1, maxLength: 320 },
            description: { type: 'string', maxLength: 500 },
            expires_in_minutes: { type: 'integer', minimum: 1, maximum: 10080 },
          },
        },
        response: { 201: envelope(obj), ...errorResponses },
      },
    },
    async (request, reply) => {
      const p = principalOf(request);
      return reply.code(201).send({ data: presentIntent(await createPaymentIntent(p, request.body), p.userId) });
    },
  );

  app.get<{ Querystring: { status?: IntentStatus; page?: number; per_page?: number } }>(
    '/api/v2/mobile/payments/intents',
    {
      schema: {
        tags: TAGS,
        summary: "The caller's payment intents (as payer), newest first",
        querystring: { type: 'object', additionalProperties: false, properties: { status: { type: 'string', enum: INTENT_STATUSES }, ...paginationQuery } },
        response: { 200: paginatedEnvelope(obj), ...errorResponses },
      },
    },
    async (request) => {
      const p = principalOf(request);
      const pp = pageParams(request.query);
      const { items, total } = await listPaymentIntents(p, { status: request.query.status, limit: pp.perPage, offset: pp.offset });
      return paginate(request, items.map((i) => presentIntent(i, p.userId)), total, pp);
    },
  );

  app.get<{ Params: { id: string } }>(
    '/api/v2/mobile/payments/intents/:id',
    { schema: { tags: TAGS, summary: 'A payment intent (its payer, or its payee)', params: idParams, response: { 200: envelope(obj), ...errorResponses } } },
    async (request) => {
      const p = principalOf(request);
      return { data: presentIntent(await getPaymentIntent(p, request.params.id), p.userId) };
    },
  );

  app.post<{ Params: { id: string }; Body: { account_id?: string } }>(
    '/api/v2/mobile/payments/intents/:id/confirm',
    {
      schema: {
        tags: TAGS,
        summary: 'Confirm a payment intent (its payer): the money moves once, through the ledger',
        description:
          'From requires_confirmation only (409 PAYMENT_INTENT_STATE_CONFLICT otherwise, or once expired). Answers status processing; the intent ' +
          'becomes succeeded when the ledger entry posts, or goes back to requires_confirmation with last_error when the ledger refuses (funds). ' +
          'account_id: the paying account (default: the payer\'s first account holding the amount). 403 PASSKEY_REQUIRED when requires_passkey and ' +
          'the caller\'s session is not a passkey session.',
        params: idParams,
        body: { type: 'object', additionalProperties: false, properties: { account_id: { type: 'string', maxLength: 100 } } },
        response: { 200: envelope(obj), ...errorResponses },
      },
    },
    async (request) => {
      const p = principalOf(request);
      return { data: presentIntent(await confirmPaymentIntent(p, request.params.id, request.body ?? {}), p.userId) };
    },
  );

  app.post<{ Params: { id: string }; Body: { reason?: string } }>(
    '/api/v2/mobile/payments/intents/:id/cancel',
    {
      schema: {
        tags: TAGS,
        summary: 'Cancel a payment intent that waits for confirmation (its payer)',
        params: idParams,
        body: { type: 'object', additionalProperties: false, properties: { reason: { type: 'string', maxLength: 200 } } },
        response: { 200: envelope(obj), ...errorResponses },
      },
    },
    async (request) => {
      const p = principalOf(request);
      return { data: presentIntent(await cancelPaymentIntent(p, request.params.id, request.body ?? {}), p.userId) };
    },
  );

  // P2P.
  app.post<{ Body: P2pRequest }>(
    '/api/v2/mobile/transfers/p2p',
    {
      schema: {
        tags: TAGS,
        summary: 'Send money to another customer by email, phone or @handle',
        description:
          "Into the recipient's oldest active account (422 RECIPIENT_HAS_NO_ACCOUNT when they have none in this environment), as a transfer through " +
          'the transfers workflow: the fee schedule, daily limit and review apply. To oneself: 422 P2P_TO_SELF. Unknown recipient: 404 RECIPIENT_NOT_FOUND.',
        body: {
          type: 'object',
          required: ['to_user', 'amount', 'currency'],
          additionalProperties: false,
          properties: {
            to_user: { type: 'string', minLength: 1, maxLength: 320 },
            amount: decimalString,
            currency: { type: 'string', minLength: 1, maxLength: 12 },
            note: { type: 'string', maxLength: 280 },
            from_account: { type: 'string', maxLength: 100 },
          },
        },
        response: { 201: envelope(obj), ...errorResponses },
      },
    },
    async (request, reply) => reply.code(201).send({ data: presentP2p(await sendP2p(app.transfers, principalOf(request), request.body, requestKeyOf(request))) }),
  );

  app.get<{ Params: { id: string } }>(
    '/api/v2/mobile/transfers/p2p/:id',
    { schema: { tags: TAGS, summary: 'A P2P transfer the caller sent or received', params: idParams, response: { 200: envelope(obj), ...errorResponses } } },
    async (request) => ({ data: presentP2p(await getP2pTransfer(principalOf(request), request.params.id)) }),
  );

  // Receipts.
  app.get<{ Params: { id: string } }>(
    '/api/v2/mobile/receipts/:id',
    {
      schema: {
        tags: TAGS,
        summary: 'The receipt of a succeeded payment intent or completed P2P transfer (payer or payee)',
        description: 'id is rcpt_ followed by the intent or transfer id (receipt_id on those). The ledger lines shown are the caller\'s own side.',
        params: idParams,
        response: { 200: envelope(obj), ...errorResponses },
      },
    },
    async (request) => ({ data: presentReceipt(await getReceipt(principalOf(request), request.params.id)) }),
  );

  app.get<{ Params: { id: string } }>(
    '/api/v2/mobile/receipts/:id/html',
    {
      schema: {
        tags: TAGS,
        summary: 'The receipt as a printable HTML page',
        params: idParams,
        produces: ['text/html'],
        response: { 200: { description: 'The receipt page', content: { 'text/html': { schema: { type: 'string' } } } }, ...errorResponses },
      },
    },
    async (request, reply) => {
      const html = renderReceiptHtml(await getReceipt(principalOf(request), request.params.id));
      return reply.type('text/html; charset=utf-8').header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'").send(html);
    },
  );

  // Activity feed and notifications.
  app.get<{ Querystring: { type?: string; page?: number; per_page?: number } }>(
    '/api/v2/mobile/activity',
    {
      schema: {
        tags: TAGS,
        summary: "The caller's activity: transfers, payments and notifications, newest first",
        description: 'type: a comma list of transfer, payment, notification (default all). Ordered by time, then kind and id: pages never repeat an item.',
        querystring: { type: 'object', additionalProperties: false, properties: { type: { type: 'string', pattern: '^(transfer|payment|notification)(,(transfer|payment|notification))*$' }, ...paginationQuery } },
        response: { 200: paginatedEnvelope(obj), ...errorResponses },
      },
    },
    async (request) => {
      const pp = pageParams(request.query);
      const types = request.query.type ? ([...new Set(request.query.type.split(','))].filter((t) => FEED_TYPES.includes(t)) as FeedType[]) : undefined;
      const { items, total } = await activityFeed(principalOf(request), { types, limit: pp.perPage, offset: pp.offset });
      return paginate(request, items.map(presentFeedItem), total, pp);
    },
  );

  app.get<{ Querystring: { unread?: boolean; page?: number; per_page?: number } }>(
    '/api/v2/mobile/notifications',
    {
      schema: {
        tags: TAGS,
        summary: "The caller's notifications, newest first",
        querystring: { type: 'object', additionalProperties: false, properties: { unread: { type: 'boolean' }, ...paginationQuery } },
        response: { 200: paginatedEnvelope(obj), ...errorResponses },
      },
    },
    async (request) => {
      const pp = pageParams(request.query);
      const { items, total } = await listNotifications(principalOf(request), { unread: request.query.unread, limit: pp.perPage, offset: pp.offset });
      return paginate(request, items.map(presentNotification), total, pp);
    },
  );

  app.post<{ Params: { id: string } }>(
    '/api/v2/mobile/notifications/:id/read',
    { schema: { tags: TAGS, summary: 'Mark a notification read', params: idParams, response: { 200: envelope(obj), ...errorResponses } } },
    async (request) => ({ data: presentNotification(await markNotificationRead(principalOf(request), request.params.id)) }),
  );

  // Receive details.
  app.get<{ Querystring: { asset: string; account_id?: string; amount?: string; chain?: string } }>(
    '/api/v2/mobile/receive',
    {
      schema: {
        tags: TAGS,
        summary: 'Where others can send the caller an asset: addresses per chain and payment-request URIs for a QR code',
        description: 'EIP-681 on EVM chains, BIP-21 on Bitcoin, Solana Pay on Solana; and a platform pay link by @handle when the caller has one.',
        querystring: {
          type: 'object',
          required: ['asset'],
          additionalProperties: false,
          properties: { asset: { type: 'string', minLength: 1, maxLength: 12 }, account_id: { type: 'string', maxLength: 100 }, amount: decimalString, chain: { type: 'string', maxLength: 40 } },
        },
        response: { 200: envelope(obj), ...errorResponses },
      },
    },
    async (request) => ({ data: presentReceive(await receiveDetails(principalOf(request), request.query)) }),
  );

  // Devices.
  app.post<{ Body: { platform: 'ios' | 'android' | 'web'; push_token: string; name?: string } }>(
    '/api/v2/mobile/devices',
    {
      schema: {
        tags: TAGS,
        summary: "Register the caller's device and its push token",
        body: {
          type: 'object',
          required: ['platform', 'push_token'],
          additionalProperties: false,
          properties: { platform: { type: 'string', enum: ['ios', 'android', 'web'] }, push_token: { type: 'string', minLength: 1, maxLength: 4096 }, name: { type: 'string', maxLength: 100 } },
        },
        response: { 201: envelope(obj), ...errorResponses },
      },
    },
    async (request, reply) => reply.code(201).send({ data: presentDevice(await registerDevice(principalOf(request), request.body)) }),
  );

  app.get('/api/v2/mobile/devices', { schema: { tags: TAGS, summary: "The caller's devices", response: { 200: envelope({ type: 'array', items: obj }), ...errorResponses } } }, async (request) => ({
    data: (await listDevices(principalOf(request))).map(presentDevice),
  }));

  app.delete<{ Params: { id: string } }>(
    '/api/v2/mobile/devices/:id',
    { schema: { tags: TAGS, summary: 'Remove a device (no more pushes to it)', params: idParams, response: { 204: { type: 'null', description: 'Removed' }, ...errorResponses } } },
    async (request, reply) => {
      await removeDevice(principalOf(request), request.params.id);
      return reply.code(204).send();
    },
  );

  // Profile: how others find the caller.
  app.get('/api/v2/mobile/profile', { schema: { tags: TAGS, summary: "The caller's handle and phone", response: { 200: envelope(obj), ...errorResponses } } }, async (request) => ({
    data: presentProfile(await getProfile(principalOf(request).userId)),
  }));

  app.patch<{ Body: { handle?: string | null; phone?: string | null } }>(
    '/api/v2/mobile/profile',
    {
      schema: {
        tags: TAGS,
        summary: 'Set the @handle and phone others can pay the caller by (null clears)',
        body: {
          type: 'object',
          additionalProperties: false,
          minProperties: 1,
          properties: { handle: { type: ['string', 'null'], maxLength: 31 }, phone: { type: ['string', 'null'], maxLength: 32 } },
        },
        response: { 200: envelope(obj), ...errorResponses },
      },
    },
    async (request) => ({ data: presentProfile(await updateProfile(principalOf(request), request.body)) }),
  );
}
