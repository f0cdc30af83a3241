import type pg from 'pg';
import { EVENT_TYPES } from '../events/catalog';
import { getPool, withTransaction, type Queryable } from '../db/pool';
import type { Environment } from '../platform/environment';
import { DomainError } from '../platform/errors';
import { newId, randomToken } from '../platform/ids';
import { webhookConfig } from './config';
import { sealWebhookSecret } from './secrets';
import { assertSafeWebhookUrl } from './url-safety';
import { partnerWebhookSecret } from '../partner/webhook-secret';

export interface Owner {
  userId: string;
  environment: Environment;
}

export interface Webhook {
  id: string;
  userId: string;
  environment: Environment;
  url: string;
  events: string[];
  description: string | null;
  active: boolean;
  consecutiveFailures: number;
  disabledAt: Date | null;
  disabledReason: string | null;
  secretRotatedAt: Date | null;
  /** Until when the secret replaced by the last rotation still signs deliveries (null: no grace running). */
  previousSecretExpiresAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

interface WebhookRow {
  id: string;
  user_id: string;
  environment: Environment;
  url: string;
  events: string[];
  description: string | null;
  /** Sealed (domain/webhooks/secrets.ts); never read here but by the delivery attempt. */
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Date | null;
  active: boolean;
  consecutive_failures: number;
  disabled_at: Date | null;
  disabled_reason: string | null;
  secret_rotated_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

function toWebhook(r: WebhookRow): Webhook {
  return {
    id: r.id,
    userId: r.user_id,
    environment: r.environment,
    url: r.url,
    events: r.events,
    description: r.description,
    active: r.active,
    consecutiveFailures: r.consecutive_failures,
    disabledAt: r.disabled_at,
    disabledReason: r.disabled_reason,
    secretRotatedAt: r.secret_rotated_at,
    // An expired grace is no grace: the old secret no longer signs anything.
    previousSecretExpiresAt: r.previous_secret_expires_at && r.previous_secret_expires_at.getTime() > Date.now() ? r.previous_secret_expires_at : null,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** active; disabled (switched off after consecutive failed deliveries); inactive (switched off by its owner). */
export function webhookStatus(w: Pick<Webhook, 'active' | 'disabledAt'>): 'active' | 'inactive' | 'disabled' {
  return w.active ? 'active' : w.disabledAt ? 'disabled' : 'inactive';
}

export function toPublicWebhook(w: Webhook, secret?: string) {
  return {
    id: w.id,
    url: w.url,
    events: w.events,
    description: w.description,
    active: w.active,
    status: webhookStatus(w),
    environment: w.environment,
    consecutive_failures: w.consecutiveFailures,
    disabled_at: w.disabledAt?.toISOString() ?? null,
    disabled_reason: w.disabledReason,
    secret_rotated_at: w.secretRotatedAt?.toISOString() ?? null,
    previous_secret_expires_at: w.previousSecretExpiresAt?.toISOString() ?? null,
    created_at: w.createdAt.toISOString(),
    updated_at: w.updatedAt.toISOString(),
    ...(secret !== undefined ? { secret } : {}),
  };
}

export function generateSecret(): string {
  return `whsec_${randomToken(32)}`;
}

/** Names from the catalog, or the wildcard alone; duplicates collapse. */
export function normalizeEvents(events: string[]): string[] {
  if (!Array.isArray(events) || events.length === 0) throw new DomainError('INVALID_EVENTS', 'events must name at least one event type or be ["*"]', '/events');
  const unique = [...new Set(events)];
  if (unique.includes('*')) {
    if (unique.length > 1) throw new DomainError('INVALID_EVENTS', 'the wildcard "*" must be the only entry of events', '/events');
    return ['*'];
  }
  const unknown = unique.filter((e) => !EVENT_TYPES.has(e));
  if (unknown.length > 0) {
    throw new DomainError('UNKNOWN_EVENT_TYPE', `unknown event type(s): ${unknown.join(', ')} (GET /api/v2/webhooks/events lists them)`, '/events');
  }
  return unique.sort();
}

function checkSecret(secret: string): string {
  if (typeof secret !== 'string' || secret.length < 16 || secret.length > 256 || /\s/.test(secret)) {
    throw new DomainError('INVALID_SECRET', 'secret must be 16 to 256 characters without whitespace', '/secret');
  }
  return secret;
}

export interface WebhookInput {
  url: string;
  events: string[];
  description?: string | null;
  secret?: string;
  active?: boolean;
}

/** Registers an endpoint; the secret (given or generated) is returned here and on rotation only. */
export async function createWebhook(owner: Owner, input: WebhookInput): Promise<{ webhook: Webhook; secret: string }> {
  const events = normalizeEvents(input.events);
  const given = input.secret !== undefined ? checkSecret(input.secret) : null;
  const url = (await assertSafeWebhookUrl(input.url)).toString();
  return withTransaction(async (c) => {
    // A partner's webhooks sign with the secret its onboarding gave it (domain/partner/webhook-secret.ts).
    const secret = given ?? (await partnerWebhookSecret(c, owner.userId)) ?? generateSecret();
    // Serialises concurrent creations of one user so the per-user limit holds.
    await c.query('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [owner.userId]);
    const { rows: n } = await c.query<{ n: number }>('SELECT count(*)::int AS n FROM webhooks WHERE user_id = $1 AND environment = $2', [
      owner.userId,
      owner.environment,
    ]);
    const max = webhookConfig().maxPerUser;
    if (n[0].n >= max) throw new DomainError('WEBHOOK_LIMIT_REACHED', `at most ${max} webhooks per user and environment`);
    const id = newId('webhook');
    // Stored sealed only (never the readable secret).
    const { rows } = await c.query<WebhookRow>(
      `INSERT INTO webhooks (id, user_id, environment, url, events, description, secret_sealed, active)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *`,
      [id, owner.userId, owner.environment, url, events, input.description ?? null, sealWebhookSecret(id, secret), input.active ?? true],
    );
    return { webhook: toWebhook(rows[0]), secret };
  });
}

const webhookNotFound = () => new DomainError('NOT_FOUND', 'Webhook not found');

/** The owner's webhook (in the owner's environment); another's, or none, is NOT_FOUND. */
export async function getWebhook(owner: Owner, id: string, client: Queryable = getPool()): Promise<Webhook> {
  const { rows } = await client.query<WebhookRow>('SELECT * FROM webhooks WHERE id = $1 AND user_id = $2 AND environment = $3', [
    id,
    owner.userId,
    owner.environment,
  ]);
  if (!rows[0]) throw webhookNotFound();
  return toWebhook(rows[0]);
}

export async function listWebhooks(owner: Owner, page: { perPage: number; offset: number }): Promise<{ items: Webhook[]; total: number }> {
  const pool = getPool();
  const [items, count] = await Promise.all([
    pool.query<WebhookRow>('SELECT * FROM webhooks WHERE user_id = $1 AND environment = $2 ORDER BY created_at, id LIMIT $3 OFFSET $4', [
      owner.userId,
      owner.environment,
      page.perPage,
      page.offset,
    ]),
    pool.query<{ n: number }>('SELECT count(*)::int AS n FROM webhooks WHERE user_id = $1 AND environment = $2', [owner.userId, owner.environment]),
  ]);
  return { items: items.rows.map(toWebhook), total: count.rows[0].n };
}

export type WebhookUpdate = Partial<Omit<WebhookInput, 'secret'>>;

/** Replaces the given fields. Setting active true on a disabled endpoint re-enables it (failure count reset). Another's webhook is NOT_FOUND. */
export async function updateWebhook(owner: Owner, id: string, patch: WebhookUpdate): Promise<Webhook> {
  const events = patch.events !== undefined ? normalizeEvents(patch.events) : undefined;
  const url = patch.url !== undefined ? (await assertSafeWebhookUrl(patch.url)).toString() : undefined;
  return withTransaction(async (c) => {
    const { rows } = await c.query<WebhookRow>('SELECT * FROM webhooks WHERE id = $1 AND user_id = $2 AND environment = $3 FOR UPDATE', [
      id,
      owner.userId,
      owner.environment,
    ]);
    if (!rows[0]) throw webhookNotFound();
    const enabling = patch.active === true && !rows[0].active;
    const { rows: updated } = await c.query<WebhookRow>(
      `UPDATE webhooks SET
         url = coalesce($2, url),
         events = coalesce($3, events),
         description = CASE WHEN $4::boolean THEN $5 ELSE description END,
         active = coalesce($6, active),
         consecutive_failures = CASE WHEN $7::boolean THEN 0 ELSE consecutive_failures END,
         disabled_at = CASE WHEN $7::boolean THEN NULL ELSE disabled_at END,
         disabled_reason = CASE WHEN $7::boolean THEN NULL ELSE disabled_reason END,
         updated_at = now()
       WHERE id = $1 RETURNING *`,
      [id, url ?? null, events ?? null, patch.description !== undefined, patch.description ?? null, patch.active ?? null, enabling],
    );
    return toWebhook(updated[0]);
  });
}

/** Deletes the endpoint with its delivery history; running delivery workflows find it gone and stop. Another's is NOT_FOUND. */
export async function deleteWebhook(owner: Owner, id: string): Promise<Webhook> {
  const { rows } = await getPool().query<WebhookRow>('DELETE FROM webhooks WHERE id = $1 AND user_id = $2 AND environment = $3 RETURNING *', [
    id,
    owner.userId,
    owner.environment,
  ]);
  if (!rows[0]) throw webhookNotFound();
  return toWebhook(rows[0]);
}

/**
 * A new secret signs every attempt from now on (including retries of older events). The replaced
 * one keeps signing beside it (two signatures per header) for `graceHours`: at most
 * WEBHOOK_SECRET_ROTATION_GRACE_HOURS (the default), 0 for none. Only one replaced secret is kept:
 * rotating again during a grace ends the older secret's at once. Another's webhook is NOT_FOUND.
 */
export async function rotateWebhookSecret(owner: Owner, id: string, opts: { graceHours?: number } = {}): Promise<{ webhook: Webhook; secret: string }> {
  const maxGrace = webhookConfig().rotationGraceHours;
  const graceHours = opts.graceHours ?? maxGrace;
  if (!Number.isInteger(graceHours) || graceHours < 0 || graceHours > maxGrace) {
    throw new DomainError('INVALID_GRACE_PERIOD', `grace_hours must be an integer from 0 to ${maxGrace} (WEBHOOK_SECRET_ROTATION_GRACE_HOURS)`, '/grace_hours');
  }
  const secret = generateSecret();
  return withTransaction(async (c) => {
    const { rows: found } = await c.query<WebhookRow>('SELECT * FROM webhooks WHERE id = $1 AND user_id = $2 AND environment = $3 FOR UPDATE', [
      id,
      owner.userId,
      owner.environment,
    ]);
    const row = found[0];
    if (!row) throw webhookNotFound();
    // The replaced secret keeps its sealed value (bound to this webhook's id, so still valid here).
    const previous = graceHours === 0 ? null : row.secret_sealed;
    const { rows } = await c.query<WebhookRow>(
      `UPDATE webhooks SET secret_sealed = $2, previous_secret_sealed = $3,
         previous_secret_expires_at = CASE WHEN $3::text IS NULL THEN NULL ELSE now() + make_interval(hours => $4) END,
         secret_rotated_at = now(), updated_at = now()
       WHERE id = $1 RETURNING *`,
      [id, sealWebhookSecret(id, secret), previous, graceHours],
    );
    return { webhook: toWebhook(rows[0]), secret };
  });
}

// ---------------------------------------------------------------------------------------------
// Deliveries
// ---------------------------------------------------------------------------------------------

export type DeliveryStatus = 'pending' | 'retrying' | 'succeeded' | 'failed' | 'cancelled';

export interface DeliveryRow {
  id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  payload: string;
  status: DeliveryStatus;
  attempt_count: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: Date | null;
  replay_of: string | null;
  workflow_id: string;
  workflow_started_at: Date | null;
  event_occurred_at: Date;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
}

export interface AttemptRow {
  delivery_id: string;
  attempt_no: number;
  scheduled_at: Date;
  attempted_at: Date;
  duration_ms: number | null;
  status_code: number | null;
  error: string | null;
  succeeded: boolean | null;
  next_retry_at: Date | null;
}

export function deliveryWorkflowId(deliveryId: string): string {
  return `webhook-delivery-${deliveryId}`;
}

export function presentDelivery(d: DeliveryRow, attempts: AttemptRow[]) {
  return {
    id: d.id,
    webhook_id: d.webhook_id,
    event_id: d.event_id,
    event_type: d.event_type,
    status: d.status,
    attempt_count: d.attempt_count,
    last_status_code: d.last_status_code,
    last_error: d.last_error,
    next_attempt_at: d.next_attempt_at?.toISOString() ?? null,
    replay_of: d.replay_of,
    workflow_id: d.workflow_id,
    created_at: d.created_at.toISOString(),
    completed_at: d.completed_at?.toISOString() ?? null,
    attempts: attempts.map((a) => ({
      attempt: a.attempt_no,
      scheduled_at: a.scheduled_at.toISOString(),
      attempted_at: a.attempted_at.toISOString(),
      status_code: a.status_code,
      duration_ms: a.duration_ms,
      // null while the attempt is in flight
      succeeded: a.succeeded,
      error: a.error,
      next_retry_at: a.next_retry_at?.toISOString() ?? null,
    })),
    request: { body: JSON.parse(d.payload) as Record<string, unknown> },
  };
}

export async function attemptsOf(deliveryIds: string[], client: Queryable = getPool()): Promise<Map<string, AttemptRow[]>> {
  const { rows } = await client.query<AttemptRow>(
    `SELECT delivery_id, attempt_no, scheduled_at, attempted_at, duration_ms, status_code, error, succeeded, next_retry_at
     FROM webhook_delivery_attempts WHERE delivery_id = ANY($1::text[]) ORDER BY delivery_id, attempt_no`,
    [deliveryIds],
  );
  const map = new Map<string, AttemptRow[]>();
  for (const r of rows) map.set(r.delivery_id, [...(map.get(r.delivery_id) ?? []), r]);
  return map;
}

/** A webhook's deliveries, newest first, each with its attempts. */
export async function listDeliveries(
  webhookId: string,
  page: { perPage: number; offset: number },
  filter: { status?: DeliveryStatus; eventType?: string } = {},
): Promise<{ items: ReturnType<typeof presentDelivery>[]; total: number }> {
  const pool = getPool();
  const where = 'webhook_id = $1 AND ($2::text IS NULL OR status = $2) AND ($3::text IS NULL OR event_type = $3)';
  const args = [webhookId, filter.status ?? null, filter.eventType ?? null];
  const [items, count] = await Promise.all([
    pool.query<DeliveryRow>(`SELECT * FROM webhook_deliveries WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT $4 OFFSET $5`, [
      ...args,
      page.perPage,
      page.offset,
    ]),
    pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE ${where}`, args),
  ]);
  const attempts = await attemptsOf(items.rows.map((d) => d.id));
  return { items: items.rows.map((d) => presentDelivery(d, attempts.get(d.id) ?? [])), total: count.rows[0].n };
}

export async function getDelivery(webhookId: string, deliveryId: string, client: Queryable = getPool()): Promise<DeliveryRow | null> {
  const { rows } = await client.query<DeliveryRow>('SELECT * FROM webhook_deliveries WHERE id = $1 AND webhook_id = $2', [deliveryId, webhookId]);
  return rows[0] ?? null;
}

/**
 * A new delivery of the same event (same body, same event id, so receivers that already have it
 * can dedupe) to an active endpoint. The caller starts its workflow.
 */
export async function createReplay(owner: Owner, webhookId: string, deliveryId: string): Promise<DeliveryRow> {
  return withTransaction(async (c: pg.PoolClient) => {
    const webhook = await getWebhook(owner, webhookId, c);
    const original = await getDelivery(webhookId, deliveryId, c);
    if (!original) throw new DomainError('NOT_FOUND', 'Delivery not found');
    if (!webhook.active) throw new DomainError('WEBHOOK_INACTIVE', 'the webhook is not active; enable it (PUT active: true) before replaying');
    const id = newId('whdel');
    const { rows } = await c.query<DeliveryRow>(
      `INSERT INTO webhook_deliveries (id, webhook_id, event_id, event_type, payload, replay_of, workflow_id, event_occurred_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *`,
      [id, webhookId, original.event_id, original.event_type, original.payload, original.replay_of ?? original.id, deliveryWorkflowId(id), original.event_occurred_at],
    );
    return rows[0];
  });
}
