import { getPool, withTransaction } from '../db/pool';
import { writeOutboxEvent } from '../events/outbox';
import type { Environment } from '../platform/environment';
import { webhookConfig } from './config';
import type { DeliveryRow } from './index';
import { openSigningSecrets, WebhookSecretUnavailableError, type SecretColumns } from './secrets';
import { senderFor } from './sender';
import { deliveryHeaders } from './signature';

export interface AttemptInput {
  deliveryId: string;
  attempt: number;
  /** Workflow time of the attempt (ms since epoch): the rate window uses it. */
  at: number;
  /** When the attempt was due (ms): the back-off schedule is kept on this. */
  scheduledAt: number;
  /** When the next attempt is due if this one fails (ms), or null for the last attempt. */
  nextRetryAt: number | null;
}

export type AttemptOutcome =
  | { outcome: 'delivered'; statusCode: number }
  | { outcome: 'retry'; statusCode: number | null; error: string }
  | { outcome: 'failed'; statusCode: number | null; error: string; webhookDisabled: boolean }
  | { outcome: 'cancelled'; reason: string }
  /** The endpoint's rate window is full: try again at `waitUntil` (ms). */
  | { outcome: 'wait'; waitUntil: number };

interface Claimed {
  delivery: DeliveryRow;
  url: string;
  /** The current secret, then the replaced one while its grace period lasts. */
  secrets: string[];
  userId: string;
  environment: Environment;
}

const WINDOW_MS = 60_000;

/**
 * Claims a slot in the endpoint's 60-second window (a row in webhook_delivery_attempts) under the
 * webhook row's lock, so concurrent workers never exceed the ceiling. Idempotent per (delivery,
 * attempt): a retried activity finds its slot, or the recorded result.
 */
async function claim(input: AttemptInput): Promise<AttemptOutcome | Claimed> {
  return withTransaction(async (c) => {
    const { rows } = await c.query<DeliveryRow & Omit<SecretColumns, 'id'> & { url: string; active: boolean; user_id: string; environment: Environment }>(
      `SELECT d.*, w.url, w.secret_sealed, w.active, w.user_id, w.environment,
              CASE WHEN w.previous_secret_expires_at > now() THEN w.previous_secret_sealed END AS previous_secret_sealed
       FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
       WHERE d.id = $1 FOR UPDATE OF w, d`,
      [input.deliveryId],
    );
    const d = rows[0];
    if (!d) return { outcome: 'cancelled', reason: 'the webhook was deleted' };
    if (d.status === 'succeeded') return { outcome: 'delivered', statusCode: d.last_status_code ?? 200 };
    if (d.status === 'failed') return { outcome: 'failed', statusCode: d.last_status_code, error: d.last_error ?? 'failed', webhookDisabled: false };
    if (d.status === 'cancelled') return { outcome: 'cancelled', reason: d.last_error ?? 'cancelled' };
    if (!d.active) {
      const reason = 'the webhook is not active';
      await c.query(
        `UPDATE webhook_deliveries SET status = 'cancelled', last_error = $2, next_attempt_at = NULL, completed_at = now(), updated_at = now() WHERE id = $1`,
        [d.id, reason],
      );
      return { outcome: 'cancelled', reason };
    }
    // Before taking a slot: a secret that does not open stops here, nothing sent (WebhookSecretUnavailableError).
    const secrets = openSigningSecrets({ id: d.webhook_id, secret_sealed: d.secret_sealed, previous_secret_sealed: d.previous_secret_sealed });
    const existing = await c.query<{ succeeded: boolean | null }>('SELECT succeeded FROM webhook_delivery_attempts WHERE delivery_id = $1 AND attempt_no = $2', [
      d.id,
      input.attempt,
    ]);
    if (existing.rows.length === 0) {
      const limit = webhookConfig().ratePerMinute;
      const at = new Date(input.at).toISOString();
      const { rows: window } = await c.query<{ attempted_at: Date }>(
        `SELECT attempted_at FROM webhook_delivery_attempts
         WHERE webhook_id = $1 AND attempted_at > $2::timestamptz - interval '60 seconds'
         ORDER BY attempted_at DESC OFFSET $3 - 1 LIMIT 1`,
        [d.webhook_id, at, limit],
      );
      // The limit-th most recent attempt is still inside the window: the window is full until it leaves.
      if (window[0]) return { outcome: 'wait', waitUntil: window[0].attempted_at.getTime() + WINDOW_MS + 1 };
      await c.query(
        `INSERT INTO webhook_delivery_attempts (delivery_id, webhook_id, attempt_no, scheduled_at, attempted_at) VALUES ($1, $2, $3, $4, $5)`,
        [d.id, d.webhook_id, input.attempt, new Date(input.scheduledAt), at],
      );
      await c.query('UPDATE webhook_deliveries SET attempt_count = $2, updated_at = now() WHERE id = $1', [d.id, input.attempt]);
    }
    // An attempt row without a result is one whose sender died mid-request: send again (at-least-once).
    return { delivery: d, url: d.url, secrets, userId: d.user_id, environment: d.environment };
  });
}

/**
 * One delivery attempt: claim a rate slot, POST the signed body, record the result. Retries and
 * the back-off are the workflow's; this never throws for an endpoint's failure (only for
 * infrastructure errors, which Temporal retries).
 */
export async function attemptDelivery(input: AttemptInput): Promise<AttemptOutcome> {
  let claimed: AttemptOutcome | Claimed;
  try {
    claimed = await claim(input);
  } catch (err) {
    // A platform fault, not the endpoint's: no attempt is used up and the endpoint keeps its failure
    // count. The activity fails (Temporal retries it, with the error in the worker log and the
    // workflow's pending activity) and the delivery shows the reason until a master key or the
    // sealed value is restored.
    if (err instanceof WebhookSecretUnavailableError) {
      await getPool().query(`UPDATE webhook_deliveries SET last_error = $2, updated_at = now() WHERE id = $1 AND status IN ('pending', 'retrying')`, [
        input.deliveryId,
        err.message.slice(0, 500),
      ]);
    }
    throw err;
  }
  if ('outcome' in claimed) return claimed;
  const { delivery: d } = claimed;
  const timestamp = Math.floor(Date.now() / 1000);
  const response = await senderFor(claimed.environment).send({
    url: claimed.url,
    body: d.payload,
    headers: deliveryHeaders({ secrets: claimed.secrets, body: d.payload, eventId: d.event_id, eventType: d.event_type, deliveryId: d.id, timestamp }),
  });
  const last = input.nextRetryAt === null;
  return withTransaction(async (c) => {
    const error = response.error?.slice(0, 500) ?? null;
    await c.query(
      `UPDATE webhook_delivery_attempts SET duration_ms = $3, status_code = $4, error = $5, succeeded = $6, next_retry_at = $7
       WHERE delivery_id = $1 AND attempt_no = $2`,
      [d.id, input.attempt, response.durationMs, response.statusCode, error, response.ok, response.ok || last ? null : new Date(input.nextRetryAt!)],
    );
    const { rows } = await c.query<{ id: string; url: string; active: boolean; consecutive_failures: number }>(
      'SELECT id, url, active, consecutive_failures FROM webhooks WHERE id = $1 FOR UPDATE',
      [d.webhook_id],
    );
    const webhook = rows[0];
    if (response.ok) {
      await c.query(
        `UPDATE webhook_deliveries SET status = 'succeeded', last_status_code = $2, last_error = NULL, next_attempt_at = NULL, completed_at = now(), updated_at = now() WHERE id = $1`,
        [d.id, response.statusCode],
      );
      if (webhook && webhook.consecutive_failures !== 0) await c.query('UPDATE webhooks SET consecutive_failures = 0 WHERE id = $1', [webhook.id]);
      return { outcome: 'delivered', statusCode: response.statusCode! };
    }
    if (!last) {
      await c.query(
        `UPDATE webhook_deliveries SET status = 'retrying', last_status_code = $2, last_error = $3, next_attempt_at = $4, updated_at = now() WHERE id = $1`,
        [d.id, response.statusCode, error, new Date(input.nextRetryAt!)],
      );
      return { outcome: 'retry', statusCode: response.statusCode, error: error ?? 'failed' };
    }
    await c.query(
      `UPDATE webhook_deliveries SET status = 'failed', last_status_code = $2, last_error = $3, next_attempt_at = NULL, completed_at = now(), updated_at = now() WHERE id = $1`,
      [d.id, response.statusCode, error],
    );
    let webhookDisabled = false;
    if (webhook) {
      const failures = webhook.consecutive_failures + 1;
      const threshold = webhookConfig().disableAfterFailures;
      if (failures >= threshold && webhook.active) {
        const reason = `${failures} consecutive deliveries failed every attempt`;
        await c.query(
          `UPDATE webhooks SET consecutive_failures = $2, active = false, disabled_at = now(), disabled_reason = $3, updated_at = now() WHERE id = $1`,
          [webhook.id, failures, reason],
        );
        // The owner learns of it through their other endpoints (and the event log).
        await writeOutboxEvent(c, {
          type: 'system.status_change',
          environment: claimed.environment,
          userId: claimed.userId,
          aggregateType: 'webhook',
          aggregateId: webhook.id,
          data: {
            resource: 'webhook',
            resource_id: webhook.id,
            url: webhook.url,
            previous_status: 'active',
            status: 'disabled',
            reason,
            consecutive_failures: failures,
          },
        });
        webhookDisabled = true;
      } else {
        await c.query('UPDATE webhooks SET consecutive_failures = $2 WHERE id = $1', [webhook.id, failures]);
      }
    }
    return { outcome: 'failed', statusCode: response.statusCode, error: error ?? 'failed', webhookDisabled };
  });
}
