/**
 * system.api_key_expiring: every API key that is not revoked and expires within 7 days is announced
 * once (api_key_expiry_notices records it; the event is written in the same transaction). Run daily
 * by the 'api-key-expiry-daily' schedule (apiKeyExpiryWorkflow); safe to run any number of times.
 */
import type pg from 'pg';
import { getPool, withTransaction } from '../db/pool';
import { writeOutboxEvent } from '../events/outbox';
import { ensureDailySchedule, type DailyScheduleResult } from '../temporal/daily-schedule';
import type { Environment } from '../platform/environment';

export const API_KEY_EXPIRY_SCHEDULE_ID = 'api-key-expiry-daily';
export const API_KEY_EXPIRY_WORKFLOW = 'apiKeyExpiryWorkflow';
export const EXPIRY_NOTICE_DAYS = 7;

/** Creates or corrects the daily schedule (06:00 UTC); safe to call from every worker at every start. */
export async function ensureApiKeyExpirySchedule(): Promise<DailyScheduleResult> {
  return ensureDailySchedule({ id: API_KEY_EXPIRY_SCHEDULE_ID, workflowType: API_KEY_EXPIRY_WORKFLOW, hour: 6, minute: 0 });
}

/** Announces the keys expiring within 7 days not announced before; returns how many. */
export async function notifyExpiringApiKeys(pool: pg.Pool = getPool()): Promise<number> {
  return withTransaction(async (c) => {
    const { rows } = await c.query<{ id: string; user_id: string; environment: Environment; name: string; key_prefix: string; expires_at: Date; days: number }>(
      `WITH due AS (
         INSERT INTO api_key_expiry_notices (api_key_id, expires_at)
         SELECT id, expires_at FROM api_keys
          WHERE revoked_at IS NULL AND expires_at > now() AND expires_at <= now() + make_interval(days => $1)
         ORDER BY id
         ON CONFLICT (api_key_id) DO NOTHING
         RETURNING api_key_id)
       SELECT k.id, k.user_id, k.environment, k.name, k.key_prefix, k.expires_at,
              floor(EXTRACT(EPOCH FROM k.expires_at - now()) / 86400)::int AS days
         FROM due JOIN api_keys k ON k.id = due.api_key_id ORDER BY k.id`,
      [EXPIRY_NOTICE_DAYS],
    );
    for (const k of rows) {
      await writeOutboxEvent(c, {
        type: 'system.api_key_expiring',
        environment: k.environment,
        userId: k.user_id,
        aggregateType: 'api_key',
        aggregateId: k.id,
        data: { api_key_id: k.id, name: k.name, key_prefix: k.key_prefix, expires_at: k.expires_at.toISOString(), days_remaining: k.days },
      });
    }
    return rows.length;
  }, pool);
}
