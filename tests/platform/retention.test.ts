/**
 * Retention (domain/platform/retention.ts): the daily workflow purges login attempts, the AI query
 * log and rotated refresh tokens past their retention, keeps everything younger, never purges a
 * login attempt still inside a throttling window, and is registered as a daily schedule.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPool } from '../../domain/db/pool';
import { newId } from '../../domain/platform/ids';
import { DATA_RETENTION_SCHEDULE_ID, ensureDataRetentionSchedule, purgeExpiredData } from '../../domain/platform/retention';
import { getTemporalClient } from '../../domain/temporal/client';
import { createTestApp, createTestUser, type TestApp } from '../helpers/app';
import { startTestWorker, type TestWorker } from '../helpers/worker';

let t: TestApp;
let w: TestWorker;
beforeAll(async () => {
  t = await createTestApp();
  w = await startTestWorker();
});
afterAll(async () => {
  await w?.stop();
  await t?.close();
});

const DAY = 86_400_000;
const ago = (days: number) => new Date(Date.now() - days * DAY);

async function loginAttempt(email: string, at: Date) {
  await getPool().query('INSERT INTO login_attempts (email, ip, succeeded, attempted_at) VALUES ($1, $2, false, $3)', [email, '192.0.2.7', at]);
}

async function aiQuery(userId: string, at: Date): Promise<string> {
  const id = newId('aiq');
  await getPool().query(
    `INSERT INTO ai_queries (id, environment, user_id, kind, query, interpreter, confidence, interpreted, total_results, result, created_at)
     VALUES ($1, 'sandbox', $2, 'transactions', 'largest deposit', 'parser', 0.9, '{}', 0, '{}', $3)`,
    [id, userId, at],
  );
  return id;
}

/** A session expiring at `expires` with one rotated refresh token. */
async function rotatedToken(userId: string, expires: Date): Promise<string> {
  const session = newId('sess');
  await getPool().query(`INSERT INTO user_sessions (id, user_id, environment, refresh_token_hash, expires_at) VALUES ($1, $2, 'sandbox', $3, $4)`, [
    session,
    userId,
    randomBytes(32).toString('hex'),
    expires,
  ]);
  const hash = randomBytes(32).toString('hex');
  await getPool().query('INSERT INTO user_session_rotated_tokens (token_hash, session_id) VALUES ($1, $2)', [hash, session]);
  return hash;
}

const count = async (sql: string, params: unknown[]) => (await getPool().query<{ n: number }>(sql, params)).rows[0].n;

describe('data retention', () => {
  it('the daily workflow purges what is past its retention and keeps the rest', async () => {
    const u = await createTestUser();
    const email = `retention-${u.userId}@example.test`;
    await loginAttempt(email, ago(120));
    await loginAttempt(email, ago(91));
    await loginAttempt(email, ago(10));
    const oldQuery = await aiQuery(u.userId, ago(400));
    const newQuery = await aiQuery(u.userId, ago(30));
    const longExpired = await rotatedToken(u.userId, ago(45));
    const recentlyExpired = await rotatedToken(u.userId, ago(5));
    const live = await rotatedToken(u.userId, new Date(Date.now() + 10 * DAY));

    const client = await getTemporalClient();
    const report = await client.workflow.execute('dataRetentionWorkflow', { taskQueue: w.taskQueue, workflowId: `data-retention-test-${Date.now()}`, args: [] });
    expect(report).toEqual({ login_attempts: 2, ai_queries: 1, rotated_refresh_tokens: 1 });

    expect(await count('SELECT count(*)::int AS n FROM login_attempts WHERE email = $1', [email])).toBe(1);
    expect((await getPool().query('SELECT id FROM ai_queries WHERE user_id = $1', [u.userId])).rows.map((r) => r.id)).toEqual([newQuery]);
    expect(oldQuery).not.toBe(newQuery);
    const kept = (await getPool().query('SELECT token_hash FROM user_session_rotated_tokens WHERE token_hash = ANY($1)', [[longExpired, recentlyExpired, live]])).rows.map((r) => r.token_hash);
    expect(kept.sort()).toEqual([recentlyExpired, live].sort());

    // Again: nothing more to do.
    expect(await purgeExpiredData()).toEqual({ login_attempts: 0, ai_queries: 0, rotated_refresh_tokens: 0 });
  });

  it('a login attempt inside a throttling window stays, whatever the retention setting says', async () => {
    const email = `window-${Date.now()}@example.test`;
    await loginAttempt(email, ago(2));
    const before = { days: process.env.LOGIN_ATTEMPTS_RETENTION_DAYS, window: process.env.LOGIN_FAILURE_WINDOW_SECONDS };
    process.env.LOGIN_ATTEMPTS_RETENTION_DAYS = '1';
    process.env.LOGIN_FAILURE_WINDOW_SECONDS = String(3 * 86_400);
    try {
      await purgeExpiredData();
      expect(await count('SELECT count(*)::int AS n FROM login_attempts WHERE email = $1', [email])).toBe(1);
      process.env.LOGIN_FAILURE_WINDOW_SECONDS = String(86_400);
      expect((await purgeExpiredData()).login_attempts).toBeGreaterThanOrEqual(1);
      expect(await count('SELECT count(*)::int AS n FROM login_attempts WHERE email = $1', [email])).toBe(0);
    } finally {
      for (const [k, v] of [['LOGIN_ATTEMPTS_RETENTION_DAYS', before.days], ['LOGIN_FAILURE_WINDOW_SECONDS', before.window]] as const) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });

  it('runs every day from a schedule of its own', async () => {
    const handle = (await getTemporalClient()).schedule.getHandle(DATA_RETENTION_SCHEDULE_ID);
    try {
      await ensureDataRetentionSchedule();
      const d = await handle.describe();
      expect(d.action).toMatchObject({ type: 'startWorkflow', workflowType: 'dataRetentionWorkflow' });
      expect(d.spec.calendars?.[0]).toMatchObject({ hour: [{ start: 3, end: 3, step: 1 }], minute: [{ start: 30, end: 30, step: 1 }] });
    } finally {
      // The run's Temporal server is shared by every file: leave no schedule behind.
      await handle.delete().catch(() => undefined);
    }
  });
});
