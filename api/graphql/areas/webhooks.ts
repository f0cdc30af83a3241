/**
 * Webhooks over GraphQL (api/routes/webhooks): the event catalog, the caller's endpoints in its
 * environment (CRUD, secret rotation), their delivery history and replays. Each resolver is one
 * call of the domain function the REST route calls (domain/webhooks); the signing secret appears
 * only in the results of createWebhook and rotateWebhookSecret.
 */
import type { Principal } from '../../../domain/auth/principal';
import { EVENT_CATALOG } from '../../../domain/events/catalog';
import { createWebhook, deleteWebhook, getWebhook, listWebhooks, presentDelivery, rotateWebhookSecret, updateWebhook, webhookStatus, type DeliveryStatus, type Webhook } from '../../../domain/webhooks';
import { listOwnWebhookDeliveries, replayDelivery } from '../../../domain/webhooks/replay';
import { as, type GqlContext } from '../context';
import { PAGE_ARGS, pageOf, paginated, paginateList, paginatorOf, type PageArgs } from '../pagination';
import { createBody, rotateBody, updateBody } from '../../operations/webhooks/schemas';
import { restBody } from '../rest';
import type { GraphQLArea } from './types';

const typeDefs = /* GraphQL */ `
  "An event type a webhook can subscribe to."
  type WebhookEventType {
    type: String!
    group: String!
    description: String!
    "false: the producing area is not built yet."
    produced: Boolean!
    producer: String
    "JSON Schema of the event's data."
    dataSchema: JSON!
  }

  "A webhook endpoint of the caller's environment."
  type Webhook {
    "webhook_…"
    id: ID!
    url: String!
    "Event names, or [\\"*\\"] for all."
    events: [String!]!
    description: String
    active: Boolean!
    "active, inactive, or disabled (switched off after consecutive failed deliveries)."
    status: String!
    environment: String!
    consecutiveFailures: Int!
    disabledAt: DateTime
    disabledReason: String
    secretRotatedAt: DateTime
    "Until when the secret replaced by the last rotation still signs deliveries beside the current one (null: no grace period running)."
    previousSecretExpiresAt: DateTime
    createdAt: DateTime!
    updatedAt: DateTime!
    "The signing secret: only in the results of createWebhook and rotateWebhookSecret."
    secret: String
  }

  type WebhookDeliveryAttempt {
    attempt: Int!
    "When the attempt was due (back-off schedule or end of a rate wait)."
    scheduledAt: DateTime!
    attemptedAt: DateTime!
    statusCode: Int
    durationMs: Int
    "null while the attempt is in flight."
    succeeded: Boolean
    error: String
    nextRetryAt: DateTime
  }

  "One delivery of an event to a webhook, with every attempt."
  type WebhookDelivery {
    "whdel_…"
    id: ID!
    webhookId: ID!
    eventId: ID!
    eventType: String!
    "pending, retrying, succeeded, failed or cancelled."
    status: String!
    attemptCount: Int!
    lastStatusCode: Int
    lastError: String
    nextAttemptAt: DateTime
    "The original delivery when this one is a replay."
    replayOf: ID
    workflowId: String!
    createdAt: DateTime!
    completedAt: DateTime
    attempts: [WebhookDeliveryAttempt!]!
    "The JSON body POSTed: { id, event_type, created_at, data }."
    requestBody: JSON!
  }

  ${paginatorOf('WebhookEventType')}
  ${paginatorOf('Webhook')}
  ${paginatorOf('WebhookDelivery')}

  input CreateWebhookInput {
    "https URL; must not resolve to a private, loopback or link-local address."
    url: String!
    "Event names from webhookEventTypes, or [\\"*\\"] for all."
    events: [String!]!
    description: String
    "16 to 256 characters without whitespace; generated (whsec_…) when not given."
    secret: String
    "Default true."
    active: Boolean
  }

  "Fields given are replaced; others keep their value. active true re-enables a disabled endpoint."
  input UpdateWebhookInput {
    url: String
    events: [String!]
    description: String
    active: Boolean
  }

  extend type Query {
    "Event types a webhook can subscribe to."
    webhookEventTypes(${PAGE_ARGS}): WebhookEventTypePaginator!
    "The caller's webhook endpoints in its environment."
    webhooks(${PAGE_ARGS}): WebhookPaginator!
    webhook(id: ID!): Webhook!
    "Delivery history of a webhook, newest first, with every attempt."
    webhookDeliveries(webhookId: ID!, ${PAGE_ARGS}, status: String, eventType: String): WebhookDeliveryPaginator!
  }

  extend type Mutation {
    "Registers an endpoint; the secret (given or generated) is in secret, shown only here."
    createWebhook(input: CreateWebhookInput!): Webhook!
    updateWebhook(id: ID!, input: UpdateWebhookInput!): Webhook!
    "Deletes an endpoint and its delivery history."
    deleteWebhook(id: ID!): Webhook!
    "Replaces the signing secret; the new one is in secret, shown only here. The replaced one keeps signing beside it (two signatures per header) for graceHours: default and at most WEBHOOK_SECRET_ROTATION_GRACE_HOURS (24), 0 for none."
    rotateWebhookSecret(id: ID!, graceHours: Int): Webhook!
    "Sends a delivered (or failed) event again as a new delivery (same body and event id)."
    replayWebhookDelivery(webhookId: ID!, deliveryId: ID!): WebhookDelivery!
  }
`;

const TAG = 'Webhooks';

const owner = (p: Principal) => ({ userId: p.userId, environment: p.environment });

type Delivery = ReturnType<typeof presentDelivery>;
type Attempt = Delivery['attempts'][number];
type WebhookFields = { url?: string; events?: string[]; description?: string | null; secret?: string; active?: boolean };

export const webhooksArea = (): GraphQLArea => ({
  typeDefs,
  resolvers: {
    Query: {
      webhookEventTypes: async (_: unknown, args: PageArgs, ctx: GqlContext) => {
        await as(ctx, { tag: TAG });
        return paginateList([...EVENT_CATALOG], args);
      },
      webhooks: async (_: unknown, args: PageArgs, ctx: GqlContext) => {
        const c = await as(ctx, { tag: TAG });
        const p = pageOf(args);
        const { items, total } = await listWebhooks(owner(c.principal), p);
        return paginated(items, total, p);
      },
      webhook: async (_: unknown, args: { id: string }, ctx: GqlContext) => getWebhook(owner((await as(ctx, { tag: TAG })).principal), args.id),
      webhookDeliveries: async (_: unknown, args: PageArgs & { webhookId: string; status?: string | null; eventType?: string | null }, ctx: GqlContext) => {
        const c = await as(ctx, { tag: TAG });
        const p = pageOf(args);
        const page = await listOwnWebhookDeliveries(owner(c.principal), args.webhookId, p, {
          status: (args.status ?? undefined) as DeliveryStatus | undefined,
          eventType: args.eventType ?? undefined,
        });
        return paginated(page.items, page.total, p);
      },
    },
    Mutation: {
      createWebhook: async (_: unknown, { input }: { input: WebhookFields & { url: string; events: string[] } }, ctx: GqlContext) => {
        const c = await as(ctx, { permission: 'write', tag: TAG });
        const { webhook, secret } = await createWebhook(owner(c.principal), restBody(createBody, input));
        return { ...webhook, secret };
      },
      updateWebhook: async (_: unknown, { id, input }: { id: string; input: WebhookFields }, ctx: GqlContext) =>
        updateWebhook(owner((await as(ctx, { permission: 'write', tag: TAG })).principal), id, restBody(updateBody, input)),
      deleteWebhook: async (_: unknown, args: { id: string }, ctx: GqlContext) => deleteWebhook(owner((await as(ctx, { permission: 'delete', tag: TAG })).principal), args.id),
      rotateWebhookSecret: async (_: unknown, args: { id: string; graceHours?: number | null }, ctx: GqlContext) => {
        const c = await as(ctx, { permission: 'write', tag: TAG });
        // The REST body's check (grace_hours bounds), null or absent meaning the default.
        const body = restBody<{ grace_hours?: number }>(rotateBody, args.graceHours === null || args.graceHours === undefined ? {} : { grace_hours: args.graceHours });
        const r = await rotateWebhookSecret(owner(c.principal), args.id, { graceHours: body.grace_hours });
        return { ...r.webhook, secret: r.secret };
      },
      replayWebhookDelivery: async (_: unknown, args: { webhookId: string; deliveryId: string }, ctx: GqlContext) => {
        const c = await as(ctx, { permission: 'write', tag: TAG });
        // A replay whose workflow cannot start yet is still recorded: the dispatcher's sweep starts it.
        return presentDelivery(await replayDelivery(owner(c.principal), args.webhookId, args.deliveryId), []);
      },
    },
    WebhookEventType: {
      dataSchema: (e: { data_schema: unknown }) => e.data_schema,
    },
    Webhook: {
      status: (w: Webhook) => webhookStatus(w),
      secret: (w: Webhook & { secret?: string }) => w.secret ?? null,
    },
    WebhookDelivery: {
      webhookId: (d: Delivery) => d.webhook_id,
      eventId: (d: Delivery) => d.event_id,
      eventType: (d: Delivery) => d.event_type,
      attemptCount: (d: Delivery) => d.attempt_count,
      lastStatusCode: (d: Delivery) => d.last_status_code,
      lastError: (d: Delivery) => d.last_error,
      nextAttemptAt: (d: Delivery) => d.next_attempt_at,
      replayOf: (d: Delivery) => d.replay_of,
      workflowId: (d: Delivery) => d.workflow_id,
      createdAt: (d: Delivery) => d.created_at,
      completedAt: (d: Delivery) => d.completed_at,
      requestBody: (d: Delivery) => d.request.body,
    },
    WebhookDeliveryAttempt: {
      scheduledAt: (a: Attempt) => a.scheduled_at,
      attemptedAt: (a: Attempt) => a.attempted_at,
      statusCode: (a: Attempt) => a.status_code,
      durationMs: (a: Attempt) => a.duration_ms,
      nextRetryAt: (a: Attempt) => a.next_retry_at,
    },
  },
});
