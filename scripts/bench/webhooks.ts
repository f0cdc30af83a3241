// Webhook deliveries end to end: events written to the outbox (real account.created events), the
// dispatcher loop fanning them out, one Temporal workflow per delivery POSTing signed bodies to a
// local HTTP receiver. Own throw-away database and Temporal dev server; worker in process.
// Prints deliveries per second and outbox-to-delivery latency (event occurred_at to the
// receiver's arrival) p50/p99. Run: npx tsx scripts/bench/webhooks.ts
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { createAccount } from '../../domain/accounts';
import { registerUser } from '../../domain/auth/users';
import { closePrisma } from '../../domain/db/prisma';
import { getPool } from '../../domain/db/pool';
import { startEventDispatcher } from '../../domain/events/dispatcher';
import { findTemporalCli } from '../../domain/temporal/binaries';
import { ALL_SEARCH_ATTRIBUTES } from '../../domain/temporal/search-attributes';
import { createWebhook } from '../../domain/webhooks';
import { createWorker } from '../../worker';
import { installQuietTemporalRuntime, percentile, withBenchDatabase } from './common';

const EVENTS = Number.parseInt(process.env.BENCH_EVENTS ?? '100', 10);
// Each endpoint receives every event; at most 100 per endpoint keeps the run under the ceiling.
const ENDPOINTS = Number.parseInt(process.env.BENCH_ENDPOINTS ?? '20', 10);
const WRITERS = 16;

export async function benchWebhooks(): Promise<void> {
  await installQuietTemporalRuntime();
  const cli = findTemporalCli();
  if (!cli) throw new Error('Temporal CLI not found (npm ci installs it)');
  process.env.WEBHOOK_ALLOW_PRIVATE_URLS = 'true';
  process.env.WEBHOOK_ALLOW_HTTP = 'true';
  process.env.WEBHOOK_MAX_PER_USER = String(Math.max(ENDPOINTS, 20));

  const arrivals = new Map<string, number[]>();
  let received = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const id = String(req.headers['x-webhook-id']);
      arrivals.set(id, [...(arrivals.get(id) ?? []), Date.now()]);
      received++;
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;

  const env = await TestWorkflowEnvironment.createLocal({
    server: { executable: { type: 'existing-path', path: cli }, searchAttributes: ALL_SEARCH_ATTRIBUTES, log: { format: 'json', level: 'error' } },
  });
  try {
    await withBenchDatabase(async () => {
      const taskQueue = `bench-webhooks-${randomBytes(3).toString('hex')}`;
      process.env.TEMPORAL_TASK_QUEUE = taskQueue;
      const worker = await createWorker({ connection: env.nativeConnection, namespace: 'default', taskQueue, maxConcurrentActivityTaskExecutions: 200 });
      const running = worker.run();
      const user = await registerUser('Bench', `bench.${Date.now()}@example.test`, 'correct horse battery staple');
      const owner = { userId: user!.id, environment: 'sandbox' as const };
      for (let i = 0; i < ENDPOINTS; i++) await createWebhook(owner, { url: `http://127.0.0.1:${port}/hook/${i}`, events: ['account.created'] });
      const dispatcher = startEventDispatcher({ client: env.client, taskQueue, intervalMs: 20 });

      const expected = EVENTS * ENDPOINTS;
      const t0 = Date.now();
      let next = 0;
      await Promise.all(
        Array.from({ length: WRITERS }, async () => {
          while (next < EVENTS) {
            next++;
            await createAccount({ ...owner, name: 'bench' });
          }
        }),
      );
      const writtenMs = Date.now() - t0;
      const deadline = Date.now() + 300_000;
      while (received < expected && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      const seconds = (Date.now() - t0) / 1000;

      const { rows } = await getPool().query<{ id: string; occurred_at: Date }>(`SELECT id, occurred_at FROM platform_events WHERE type = 'account.created'`);
      const latencies: number[] = [];
      for (const e of rows) for (const at of arrivals.get(e.id) ?? []) latencies.push(at - e.occurred_at.getTime());
      latencies.sort((a, b) => a - b);
      const { rows: failed } = await getPool().query<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_delivery_attempts WHERE succeeded = false`);
      console.log(
        `webhook deliveries: ${received}/${expected} delivered in ${seconds.toFixed(1)} s  ->  ${(received / seconds).toFixed(0)} deliveries/s ` +
          `(${EVENTS} events x ${ENDPOINTS} endpoints; events written in ${(writtenMs / 1000).toFixed(1)} s; failed attempts ${failed[0].n})`,
      );
      console.log(
        `outbox-to-delivery latency: p50 ${percentile(latencies, 50).toFixed(0)} ms   p99 ${percentile(latencies, 99).toFixed(0)} ms   max ${latencies.at(-1)} ms`,
      );
      await dispatcher.stop();
      worker.shutdown();
      await running;
      await closePrisma();
    }, 30);
  } finally {
    await env.teardown();
    await new Promise<void>((r) => server.close(() => r()));
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  benchWebhooks().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
