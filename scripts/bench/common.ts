// Shared pieces of the benchmarks: a throw-away database, a concurrent driver and the report line.
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';
import { migrate } from '../../domain/db/migrate';
import { closePool } from '../../domain/db/pool';
import { closeEventStream, eventStream } from '../../domain/events/stream';
import { freePort } from '../../domain/platform/ports';
export { freePort };

/** The server the bench makes its databases on: BENCH_DATABASE_URL, which index.ts sets to an embedded one when unset. */
export function adminUrl(): string {
  const url = process.env.BENCH_DATABASE_URL;
  if (!url) throw new Error('BENCH_DATABASE_URL is not set (npm run bench starts an embedded PostgreSQL when it is not)');
  return url;
}

export function urlFor(name: string): string {
  const u = new URL(adminUrl());
  u.pathname = `/${name}`;
  return u.toString();
}

/**
 * Creates and migrates a database of its own, makes it this process's DATABASE_URL, runs fn,
 * and drops it afterwards whatever happens.
 */
export async function withBenchDatabase<T>(fn: (url: string) => Promise<T>, poolMax?: number): Promise<T> {
  const name = `bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl() });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  const saved = { url: process.env.DATABASE_URL, max: process.env.DB_POOL_MAX, stream: process.env.EVENTS_STREAM, prefix: process.env.EVENTS_SUBJECT_PREFIX };
  try {
    await migrate(urlFor(name));
    await closePool();
    await closeEventStream();
    process.env.DATABASE_URL = urlFor(name);
    // An event stream of its own on the run's NATS (in memory, deleted afterwards), like its database.
    process.env.EVENTS_STREAM = name;
    process.env.EVENTS_SUBJECT_PREFIX = name;
    process.env.EVENTS_STREAM_STORAGE ??= 'memory';
    if (poolMax) process.env.DB_POOL_MAX = String(poolMax);
    return await fn(urlFor(name));
  } finally {
    await closePool();
    const h = await eventStream().catch(() => null);
    await h?.jsm.streams.delete(name).catch(() => false);
    await closeEventStream();
    for (const [k, v] of [['DATABASE_URL', saved.url], ['DB_POOL_MAX', saved.max], ['EVENTS_STREAM', saved.stream], ['EVENTS_SUBJECT_PREFIX', saved.prefix]] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end();
  }
}

export interface Run {
  ops: number;
  seconds: number;
  latenciesMs: number[];
}

/** Calls op from `concurrency` loops for `seconds`, recording each call's latency. */
export async function drive(concurrency: number, seconds: number, op: (i: number) => Promise<void>): Promise<Run> {
  const latenciesMs: number[] = [];
  const start = process.hrtime.bigint();
  const end = start + BigInt(Math.round(seconds * 1e9));
  let i = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (process.hrtime.bigint() < end) {
        const t0 = process.hrtime.bigint();
        await op(i++);
        latenciesMs.push(Number(process.hrtime.bigint() - t0) / 1e6);
      }
    }),
  );
  return { ops: latenciesMs.length, seconds: Number(process.hrtime.bigint() - start) / 1e9, latenciesMs };
}

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Prints one result line and returns the rate per second. */
export function report(label: string, run: Run): number {
  const sorted = [...run.latenciesMs].sort((a, b) => a - b);
  const rate = run.ops / run.seconds;
  console.log(
    `${label.padEnd(40)} ${rate.toFixed(0).padStart(7)} /s   p50 ${percentile(sorted, 50).toFixed(2)} ms   p99 ${percentile(sorted, 99).toFixed(2)} ms   (${run.ops} in ${run.seconds.toFixed(1)} s)`,
  );
  return rate;
}

/** The Temporal runtime can be installed once per process; several benches share it. */
let runtimeInstalled = false;
export async function installQuietTemporalRuntime(): Promise<void> {
  if (runtimeInstalled) return;
  const { DefaultLogger, Runtime } = await import('@temporalio/worker');
  Runtime.install({ logger: new DefaultLogger('WARN') });
  runtimeInstalled = true;
}

/** CPU time (ms) a Linux process has used so far; 0 where /proc is not available. */
export function processCpuMs(pid: number): number {
  try {
    // Fields after the command name: state is field 3, utime and stime are fields 14 and 15.
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(f[11]) + Number(f[12])) * (1000 / 100);
  } catch {
    return 0;
  }
}

/** Direct child processes of this process (the Temporal CLI, spawned API and worker). */
export function childPids(): Array<{ pid: number; command: string }> {
  const out: Array<{ pid: number; command: string }> = [];
  try {
    for (const d of readdirSync('/proc')) {
      if (!/^\d+$/.test(d)) continue;
      try {
        const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
        const ppid = Number(stat.split(') ')[1].split(' ')[1]);
        if (ppid === process.pid) out.push({ pid: Number(d), command: readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0').join(' ') });
      } catch {
        /* gone */
      }
    }
  } catch {
    /* no /proc */
  }
  return out;
}

/** A free loopback port for an API process of the bench's own. */

/** Waits until the API on `base` answers /api/health (30 s at most). */
export async function waitForHealth(base: string) {
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(`${base}/api/health`)).ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('API did not come up');
}

/**
 * A Temporal dev server of its own and a throw-away database for a bench whose work runs as
 * workflows: the platform's client points at the server and task queue while fn runs (fn builds
 * its worker there). Without the Temporal CLI the bench says it is skipped.
 */
export async function withBenchTemporal(label: string, taskQueue: string, fn: (address: string) => Promise<void>): Promise<void> {
  const [{ TestWorkflowEnvironment }, { findTemporalCli }, { closeTemporal }, { ALL_SEARCH_ATTRIBUTES }] = await Promise.all([
    import('@temporalio/testing'),
    import('../../domain/temporal/binaries'),
    import('../../domain/temporal/client'),
    import('../../domain/temporal/search-attributes'),
  ]);
  const cli = findTemporalCli();
  if (!cli) {
    console.log(`${label}: skipped (Temporal CLI not found)`);
    return;
  }
  await installQuietTemporalRuntime();
  const temporal = await TestWorkflowEnvironment.createLocal({
    server: { executable: { type: 'existing-path', path: cli }, searchAttributes: ALL_SEARCH_ATTRIBUTES, log: { format: 'json', level: 'error' } },
  });
  try {
    await withBenchDatabase(async () => {
      process.env.TEMPORAL_ADDRESS = temporal.address;
      process.env.TEMPORAL_TASK_QUEUE = taskQueue;
      await closeTemporal();
      try {
        await fn(temporal.address);
      } finally {
        await closeTemporal();
      }
    });
  } finally {
    await temporal.teardown();
  }
}

/** The whole API in this process for an in-process bench (Fastify inject): rate limits out of the way, its own limiter. */
export async function benchApp() {
  process.env.RATE_LIMIT_PER_MINUTE = '1000000000';
  process.env.RATE_LIMIT_PER_HOUR = '1000000000';
  process.env.JWT_SECRET ??= 'bench-secret-bench-secret-bench-secret';
  const { buildApp } = await import('../../api/app');
  const { MemoryRateLimiter } = await import('../../domain/platform/rate-limiter');
  const app = await buildApp({ logger: false, rateLimiter: new MemoryRateLimiter() });
  await app.ready();
  return app;
}
