/**
 * Retention of records kept for security and support only, purged by the daily 'data-retention-daily'
 * schedule (dataRetentionWorkflow, workflows/system-events.ts); safe to run any number of times:
 *  - login_attempts older than LOGIN_ATTEMPTS_RETENTION_DAYS (90), never before the login throttling
 *    windows (LOGIN_FAILURE_WINDOW_SECONDS, LOGIN_LOCK_SECONDS) are over for them;
 *  - ai_queries (the AI query log) older than AI_QUERY_RETENTION_DAYS (365);
 *  - user_session_rotated_tokens of sessions expired more than ROTATED_REFRESH_TOKEN_RETENTION_DAYS
 *    (30) ago: reuse detection matters only while a session can still be refreshed.
 * Money records (ledger, transfers, payments) are never purged here: they are the books.
 * Deletes go in batches, so no run holds locks on a large table for long.
 */
import type pg from 'pg';
import { getPool } from '../db/pool';
import { ensureDailySchedule, type DailyScheduleResult } from '../temporal/daily-schedule';
import { loadConfig } from './config';

export const DATA_RETENTION_SCHEDULE_ID = 'data-retention-daily';
export const DATA_RETENTION_WORKFLOW = 'dataRetentionWorkflow';
const BATCH = 5_000;
const DAY_MS = 86_400_000;

/** Creates or corrects the daily schedule (03:30 UTC); safe to call from every worker at every start. */
export async function ensureDataRetentionSchedule(): Promise<DailyScheduleResult> {
  return ensureDailySchedule({ id: DATA_RETENTION_SCHEDULE_ID, workflowType: DATA_RETENTION_WORKFLOW, hour: 3, minute: 30 });
}

export interface PurgeReport {
  login_attempts: number;
  ai_queries: number;
  rotated_refresh_tokens: number;
}

/** The cut-off times of each kind of record, as of `now`. */
export function retentionCutoffs(now: Date): { loginAttempts: Date; aiQueries: Date; sessionsExpiredBefore: Date } {
  const cfg = loadConfig();
  // A login attempt still inside a throttling window is kept whatever the setting says.
  const loginMs = Math.max(cfg.loginAttemptsRetentionDays * DAY_MS, cfg.loginFailureWindowSeconds * 1000, cfg.loginLockSeconds * 1000);
  return {
    loginAttempts: new Date(now.getTime() - loginMs),
    aiQueries: new Date(now.getTime() - cfg.aiQueryRetentionDays * DAY_MS),
    sessionsExpiredBefore: new Date(now.getTime() - cfg.rotatedRefreshTokenRetentionDays * DAY_MS),
  };
}

async function inBatches(pool: pg.Pool, sql: string, params: unknown[]): Promise<number> {
  let total = 0;
  for (;;) {
    const r = await pool.query(sql, [...params, BATCH]);
    total += r.rowCount ?? 0;
    if ((r.rowCount ?? 0) < BATCH) return total;
  }
}

/** Deletes what is past its retention as of `now`; returns how many rows of each kind went. */
export async function purgeExpiredData(now: Date = new Date(), pool: pg.Pool = getPool()): Promise<PurgeReport> {
  const cut = retentionCutoffs(now);
  return {
    login_attempts: await inBatches(pool, 'DELETE FROM login_attempts WHERE id IN (SELECT id FROM login_attempts WHERE attempted_at < $1 LIMIT $2)', [cut.loginAttempts]),
    ai_queries: await inBatches(pool, 'DELETE FROM ai_queries WHERE id IN (SELECT id FROM ai_queries WHERE created_at < $1 LIMIT $2)', [cut.aiQueries]),
    rotated_refresh_tokens: await inBatches(
      pool,
      `DELETE FROM user_session_rotated_tokens WHERE token_hash IN (
         SELECT t.token_hash FROM user_session_rotated_tokens t JOIN user_sessions s ON s.id = t.session_id WHERE s.expires_at < $1 LIMIT $2)`,
      [cut.sessionsExpiredBefore],
    ),
  };
}
