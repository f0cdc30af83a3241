import { quietTemporalRuntime } from '../helpers/worker';
import { createHmac } from 'node:crypto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { createActivities } from '../../activities';
import { createAccount } from '../../domain/accounts';
import { closePool, getPool } from '../../domain/db/pool';
import { closePrisma } from '../../domain/db/prisma';
import { dispatchOnce } from '../../domain/events/dispatcher';
import { findTemporalTestServer } from '../../domain/temporal/binaries';
import { createWebhook, deliveryWorkflowId } from '../../domain/webhooks';
import { RETRY_SCHEDULE_SECONDS } from '../../domain/webhooks/schedule';
import { createTestUser } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { startReceiver, type Receiver } from './receiver';

// Quiet before any Temporal environment or worker exists (expected failures log at WARN).
quietTemporalRuntime();

// Durable back-off timers and the per-endpoint rate window, on the time-skipping test server:
// the workflows' timers are skipped, so hours of retries take seconds.
let env: TestWorkflowEnvironment;
let worker: Worker;
let running: Promise<void>;
const taskQueue = 'webhook-retries';
const receivers: Receiver[] = [];

beforeAll(async () => {
  process.env.WEBHOOK_ALLOW_PRIVATE_URLS = 'true';
  process.env.WEBHOOK_ALLOW_HTTP = 'true';
  process.env.WEBHOOK_DISABLE_AFTER_FAILURES = '2';
  await useTestDatabase();
  env = await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: findTemporalTestServer()! } } });
  worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: { code: inject('workflowBundleCode') },
    activities: createActivities(),
    maxConcurrentActivityTaskExecutions: 200,
  });
  running = worker.run();
});
afterAll(async () => {
  for (const r of receivers) await r.close();
  worker?.shutdown();
  await running;
  await env?.teardown();
  await closePrisma();
  await closePool();
});

async function receiver(respond: Receiver['respond']) {
  const r = await startReceiver(respond);
  receivers.push(r);
  return r;
}

/** Drains the outbox; returns the deliveries created for the given user's endpoints, oldest first. */
async function dispatchAll(userId: string) {
  const before = await deliveriesOf(userId);
  for (;;) {
    const r = await dispatchOnce({ client: env.client, taskQueue, searchAttributes: false });
    if (r.events === 0) break;
  }
  return (await deliveriesOf(userId)).filter((id) => !before.includes(id));
}

async function deliveriesOf(userId: string) {
  const { rows } = await getPool().query<{ id: string }>(
    'SELECT d.id FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id WHERE w.user_id = $1 ORDER BY d.created_at, d.id',
    [userId],
  );
  return rows.map((r) => r.id);
}

async function attempts(deliveryId: string) {
  const { rows } = await getPool().query<{ attempt_no: number; scheduled_at: Date; attempted_at: Date; status_code: number | null; succeeded: boolean; next_retry_at: Date | null }>(
    'SELECT attempt_no, scheduled_at, attempted_at, status_code, succeeded, next_retry_at FROM webhook_delivery_attempts WHERE delivery_id = $1 ORDER BY attempt_no',
    [deliveryId],
  );
  return rows;
}

/** Seconds between consecutive attempts' due times. */
const gapsSeconds = (rows: Array<{ scheduled_at: Date }>) => rows.slice(1).map((r, i) => (r.scheduled_at.getTime() - rows[i].scheduled_at.getTime()) / 1000);

/** Each attempt ran when it was due (the test server may add a few seconds of task scheduling). */
function ranOnTime(rows: Array<{ scheduled_at: Date; attempted_at: Date; next_retry_at: Date | null }>) {
  rows.forEach((r, i) => {
    expect(r.attempted_at.getTime()).toBeGreaterThanOrEqual(r.scheduled_at.getTime());
    expect(r.attempted_at.getTime() - r.scheduled_at.getTime()).toBeLessThan(15_000);
    if (i < rows.length - 1) expect(r.next_retry_at?.getTime()).toBe(rows[i + 1].scheduled_at.getTime());
  });
}

describe('delivery retries (time-skipping)', () => {
  it('retries a failing endpoint on the back-off schedule until it answers 2xx; same signed body every time', async () => {
    const user = await createTestUser();
    const rx = await receiver((n) => (n <= 2 ? 500 : 200));
    const { webhook, secret } = await createWebhook({ userId: user.userId, environment: 'sandbox' }, { url: rx.url, events: ['account.created'] });
    await createAccount({ userId: user.userId, environment: 'sandbox', name: 'retry me' });
    const [deliveryId] = await dispatchAll(user.userId);
    const result = await env.client.workflow.getHandle(deliveryWorkflowId(deliveryId)).result();
    expect(result).toMatchObject({ status: 'succeeded', attempts: 3 });

    expect(rx.received).toHaveLength(3);
    expect(new Set(rx.received.map((r) => r.body)).size).toBe(1);
    expect(new Set(rx.received.map((r) => r.headers['x-webhook-id'])).size).toBe(1);
    for (const r of rx.received) expect(r.headers['x-webhook-signature']).toBe(createHmac('sha256', secret).update(r.body).digest('hex'));

    const a = await attempts(deliveryId);
    expect(a.map((x) => [x.status_code, x.succeeded])).toEqual([[500, false], [500, false], [200, true]]);
    expect(gapsSeconds(a)).toEqual([30, 60]);
    ranOnTime(a);
    expect(a[2].next_retry_at).toBeNull();
    const { rows } = await getPool().query('SELECT status, attempt_count, last_status_code, completed_at FROM webhook_deliveries WHERE id = $1', [deliveryId]);
    expect(rows[0]).toMatchObject({ status: 'succeeded', attempt_count: 3, last_status_code: 200 });
    expect(rows[0].completed_at).not.toBeNull();
    const hook = await getPool().query('SELECT consecutive_failures, active FROM webhooks WHERE id = $1', [webhook.id]);
    expect(hook.rows[0]).toMatchObject({ consecutive_failures: 0, active: true });
  });

  it('follows the whole schedule (30s, 1m, 5m, 15m, 1h, 3h, 6h, 12h), then fails; repeated failures disable the endpoint and notify the owner', async () => {
    const user = await createTestUser();
    const down = await receiver(() => 503);
    const notified = await receiver(() => 200);
    const owner = { userId: user.userId, environment: 'sandbox' as const };
    const { webhook } = await createWebhook(owner, { url: down.url, events: ['account.created'] });
    const { secret: notifySecret } = await createWebhook(owner, { url: notified.url, events: ['system.status_change'] });
    // One delivery after the other, each failing every attempt: the second crosses the threshold (2).
    const ids: string[] = [];
    const results = [];
    for (const name of ['one', 'two']) {
      await createAccount({ ...owner, name });
      const [id] = await dispatchAll(user.userId);
      ids.push(id);
      results.push(await env.client.workflow.getHandle(deliveryWorkflowId(id)).result());
    }
    expect(results.map((r) => r.status)).toEqual(['failed', 'failed']);
    expect(down.received).toHaveLength(18);

    for (const id of ids) {
      const a = await attempts(id);
      expect(a).toHaveLength(RETRY_SCHEDULE_SECONDS.length + 1);
      expect(a.every((x) => x.status_code === 503 && x.succeeded === false)).toBe(true);
      expect(gapsSeconds(a)).toEqual([...RETRY_SCHEDULE_SECONDS]);
      ranOnTime(a);
      expect(a.at(-1)!.next_retry_at).toBeNull();
      // 80,490 s: about 22.4 hours of retries
      expect((a.at(-1)!.scheduled_at.getTime() - a[0].scheduled_at.getTime()) / 1000).toBe(80_490);
    }

    const hook = await getPool().query('SELECT active, disabled_at, disabled_reason, consecutive_failures FROM webhooks WHERE id = $1', [webhook.id]);
    expect(hook.rows[0]).toMatchObject({ active: false, consecutive_failures: 2 });
    expect(hook.rows[0].disabled_reason).toMatch(/2 consecutive deliveries failed/);
    const ev = await getPool().query(`SELECT type, user_id, data FROM platform_events WHERE type = 'system.status_change' AND user_id = $1`, [user.userId]);
    expect(ev.rows).toHaveLength(1);
    expect(ev.rows[0].data).toMatchObject({ resource: 'webhook', resource_id: webhook.id, status: 'disabled', previous_status: 'active' });

    // The notice reaches the owner's other endpoint; the disabled one gets nothing more.
    await createAccount({ ...owner, name: 'three' });
    const next = await dispatchAll(user.userId);
    expect(next).toHaveLength(1);
    await env.client.workflow.getHandle(deliveryWorkflowId(next[0])).result();
    expect(notified.received).toHaveLength(1);
    const body = JSON.parse(notified.received[0].body);
    expect(body).toMatchObject({ event_type: 'system.status_change', data: { resource_id: webhook.id, status: 'disabled' } });
    expect(notified.received[0].headers['x-webhook-signature']).toBe(createHmac('sha256', notifySecret).update(notified.received[0].body).digest('hex'));
    expect(down.received).toHaveLength(18);
  });

  it('holds an endpoint to 100 attempts in any 60 s window; the rest wait (durable timers) and all 150 are delivered', async () => {
    const user = await createTestUser();
    const rx = await receiver(() => 200);
    const owner = { userId: user.userId, environment: 'sandbox' as const };
    const { webhook } = await createWebhook(owner, { url: rx.url, events: ['account.created'] });
    for (let i = 0; i < 150; i++) await createAccount({ ...owner, name: `burst ${i}` });
    const ids = await dispatchAll(user.userId);
    expect(ids).toHaveLength(150);
    // One result() at a time: each holds the server's time-skipping unlocked while it waits.
    const results = [];
    for (const id of ids) results.push(await env.client.workflow.getHandle(deliveryWorkflowId(id)).result());
    expect(results.every((r) => r.status === 'succeeded')).toBe(true);
    expect(results.filter((r) => r.rate_limited_waits > 0).length).toBeGreaterThanOrEqual(50);
    expect(new Set(rx.received.map((r) => r.headers['x-webhook-id'])).size).toBe(150);

    const { rows } = await getPool().query<{ t: Date }>('SELECT attempted_at AS t FROM webhook_delivery_attempts WHERE webhook_id = $1 ORDER BY attempted_at', [webhook.id]);
    const times = rows.map((r) => r.t.getTime());
    let worst = 0;
    for (let i = 0; i < times.length; i++) {
      let j = i;
      while (j >= 0 && times[j] > times[i] - 60_000) j--;
      worst = Math.max(worst, i - j); // attempts in the 60 s window ending at attempt i
    }
    expect(rows).toHaveLength(150);
    expect(worst).toBe(100); // never above the ceiling, and the ceiling is used
    expect(times.at(-1)! - times[0]).toBeGreaterThanOrEqual(60_000); // the last 50 waited for the window
  });
});
