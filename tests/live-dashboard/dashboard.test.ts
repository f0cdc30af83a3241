import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatchAndRecord } from '../../domain/events/dispatcher';
import { createTestApp, createTestUser, type TestApp, type TestUser } from '../helpers/app';
import { startTestWorker, type TestWorker } from '../helpers/worker';
import { startReceiver, type Receiver } from '../webhooks/receiver';

let t: TestApp;
let w: TestWorker;
let admin: TestUser;
let rx: Receiver;
beforeAll(async () => {
  process.env.WEBHOOK_ALLOW_PRIVATE_URLS = 'true';
  process.env.WEBHOOK_ALLOW_HTTP = 'true';
  t = await createTestApp();
  w = await startTestWorker();
  admin = await createTestUser({ admin: true });
  rx = await startReceiver((n) => (n % 2 === 0 ? 500 : 200));
});
afterAll(async () => {
  await rx.close();
  await w.stop();
  await t.close();
});

const get = async (path: string, headers = admin.headers) => {
  const r = await t.app.inject({ method: 'GET', url: path, headers });
  expect(r.statusCode, `${path}: ${r.body}`).toBe(200);
  return r.json().data;
};

describe('live dashboard', () => {
  it('is for platform operators only', async () => {
    for (const path of ['metrics', 'domain-health', 'event-throughput', 'stream-status', 'projector-lag']) {
      expect((await t.app.inject({ method: 'GET', url: `/api/v1/live-dashboard/${path}`, headers: t.headers })).statusCode).toBe(403);
      expect((await t.app.inject({ method: 'GET', url: `/api/v1/live-dashboard/${path}` })).statusCode).toBe(401);
    }
    expect((await t.app.inject({ method: 'GET', url: '/api/metrics', headers: t.headers })).statusCode).toBe(403);
  });

  it('reports measured numbers that move when events flow, are published and delivered', async () => {
    const before = await get('/api/v1/live-dashboard/metrics');
    const lagBefore = await get('/api/v1/live-dashboard/projector-lag');
    const dispatcherBefore = lagBefore.projectors.find((p: { name: string }) => p.name === 'outbox-relay');

    await t.app.inject({ method: 'POST', url: '/api/v2/webhooks', headers: t.headers, payload: { url: rx.url, events: ['account.created'] } });
    for (let i = 0; i < 4; i++) await t.app.inject({ method: 'POST', url: '/api/v2/accounts', headers: t.headers, payload: { name: `dash ${i}` } });

    const written = await get('/api/v1/live-dashboard/metrics');
    expect(written.events.total - before.events.total).toBe(4);
    expect(written.events.by_domain.account - (before.events.by_domain.account ?? 0)).toBe(4);
    expect(written.events.by_type['account.created'] - (before.events.by_type['account.created'] ?? 0)).toBe(4);
    expect(written.events.pending).toBeGreaterThanOrEqual(4);
    expect(written.events.last_60s).toBeGreaterThanOrEqual(4);
    expect(written.uptime_seconds).toBeGreaterThanOrEqual(0);
    const lag = await get('/api/v1/live-dashboard/projector-lag');
    const pending = lag.projectors.find((p: { name: string }) => p.name === 'outbox-relay');
    expect(pending.pending).toBeGreaterThanOrEqual(4);
    expect(pending.oldest_pending_at).not.toBeNull();
    expect(pending.lag_seconds).toBeGreaterThanOrEqual(0);
    expect(dispatcherBefore.state).toBe('never_run');

    // The relay publishes them to the stream (and records its heartbeat); the consumers read them.
    for (;;) if ((await dispatchAndRecord()).events === 0) break;
    await rx.waitFor(4);

    const throughput = await get('/api/v1/live-dashboard/event-throughput');
    const account = throughput.domains.find((d: { domain: string }) => d.domain === 'account');
    expect(account.published_last_60s).toBeGreaterThanOrEqual(4);
    expect(account.processing_latency.count).toBeGreaterThanOrEqual(4);
    expect(account.processing_latency.p50_ms).toBeGreaterThanOrEqual(0);
    expect(account.processing_latency.p99_ms).toBeGreaterThanOrEqual(account.processing_latency.p50_ms);
    expect(throughput.total.published_per_second).toBeGreaterThan(0);
    expect(throughput.total.events_per_second).toBeGreaterThan(0);

    const stream = await get('/api/v1/live-dashboard/stream-status');
    expect(stream.connectivity.database).toMatchObject({ connected: true });
    expect(stream.connectivity.temporal).toMatchObject({ connected: true });
    expect(stream.connectivity.broker).toMatchObject({ connected: true, error: null });
    const dispatcher = stream.consumer_groups.find((c: { name: string }) => c.name === 'outbox-relay');
    expect(dispatcher).toMatchObject({ kind: 'outbox_relay', state: 'running', pending: 0, lag_seconds: 0 });
    expect(dispatcher.runs).toBeGreaterThanOrEqual(1);
    expect(dispatcher.processed_total).toBeGreaterThanOrEqual(4);
    // The broker's own figures: the stream holds the events, and each durable consumer acknowledged them.
    expect(stream.broker.stream.messages).toBeGreaterThanOrEqual(4);
    expect(stream.broker.stream.last_seq).toBe(stream.broker.stream.messages);
    for (const name of ['webhook-dispatcher', 'dashboard-projector']) {
      const c = stream.consumer_groups.find((x: { name: string }) => x.name === name);
      expect(c, name).toMatchObject({ kind: 'stream_consumer', pending: 0, ack_pending: 0, lag_messages: 0, lag_seconds: 0 });
      expect(c.processed_total).toBe(stream.broker.stream.last_seq);
    }
    expect(stream.pending).toMatchObject({ outbox_events: 0, stream_messages: 0, stream_ack_pending: 0 });
    expect(stream.memory.rss_bytes).toBeGreaterThan(0);
    expect(stream.memory.heap_used_bytes).toBeGreaterThan(0);
    expect(stream.memory.jetstream_memory_bytes).toBeGreaterThan(0);

    const health = await get('/api/v1/live-dashboard/domain-health');
    const acc = health.domains.find((d: { domain: string }) => d.domain === 'account');
    expect(acc).toMatchObject({ event_store: { connected: true }, projector: { name: 'outbox-relay', state: 'running' }, events_pending: 0 });
    expect(acc.event_store.latency_ms).toBeGreaterThanOrEqual(0);

    // Half of the receiver's answers are 500: the error figures show it. An attempt is recorded when
    // it starts and its outcome when the answer is in, so wait for four attempts none of them in flight.
    const deadline = Date.now() + 10_000;
    let m = await get('/api/v1/live-dashboard/metrics');
    while ((m.deliveries.attempts_last_hour < 4 || m.deliveries.in_flight_attempts > 0) && Date.now() < deadline) m = await get('/api/v1/live-dashboard/metrics');
    expect(m.deliveries.in_flight_attempts).toBe(0);
    expect(m.deliveries.attempts_last_hour).toBe(4);
    expect(m.errors.failed_attempts_last_hour).toBe(2);
    expect(m.errors.delivery_attempt_error_rate_last_hour).toBe(0.5);
    expect(m.deliveries.by_status).toMatchObject({ succeeded: 2, retrying: 2 });
    const health2 = await get('/api/v1/live-dashboard/domain-health');
    expect(health2.domains.find((d: { domain: string }) => d.domain === 'account').recent_errors.delivery_errors_last_hour).toBe(2);

    // Prometheus text carries the same figures.
    const prom = await t.app.inject({ method: 'GET', url: '/api/metrics', headers: admin.headers });
    expect(prom.statusCode).toBe(200);
    expect(prom.headers['content-type']).toMatch(/^text\/plain/);
    const total = m.events.by_type['account.created'];
    expect(prom.body).toContain(`banking_events_total{domain="account",type="account.created"} ${total}`);
    expect(prom.body).toContain('banking_webhook_deliveries{status="retrying"} 2');
    expect(prom.body).toContain('banking_webhook_delivery_attempts_last_hour{result="failed"} 2');
    expect(prom.body).toMatch(/banking_consumer_lag_seconds\{consumer="outbox-relay"\} 0\n/);
    expect(prom.body).toMatch(/banking_event_processing_latency_seconds\{domain="account",quantile="0.99"\} [0-9.e-]+\n/);
    expect(prom.body).toMatch(/banking_process_memory_bytes\{kind="rss"\} \d+/);
  });
});
