// The chaos run's own infrastructure: a throw-away database, a Temporal dev server, an embedded
// nats-server (file storage in a temporary directory, so a restart keeps the stream), and the
// platform's API and worker as child processes that can be SIGKILLed and started again.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync, type WriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { migrate } from '../../domain/db/migrate';
import { closePool } from '../../domain/db/pool';
import { REPO_ROOT } from '../../domain/platform/config';
import { startEmbeddedNats, type EmbeddedNats } from '../../domain/platform/nats-server';
import { localServices } from '../lib/local-services';
import { findTemporalCli } from '../../domain/temporal/binaries';
import { ALL_SEARCH_ATTRIBUTES } from '../../domain/temporal/search-attributes';
import { freePort, installQuietTemporalRuntime } from '../bench/common';

/** The server the run makes its database on: CHAOS_DATABASE_URL or BENCH_DATABASE_URL, else an embedded one (startInfra). */
let ADMIN_URL = '';
export const CHAOS_DIR = path.join(REPO_ROOT, '.data', 'chaos');

const t0 = Date.now();
/** A log line with the wall-clock time and the seconds since the run started. */
export function log(msg: string): void {
  const s = ((Date.now() - t0) / 1000).toFixed(1).padStart(6);
  console.log(`${new Date().toISOString()} +${s}s ${msg}`);
}
export const elapsed = () => (Date.now() - t0) / 1000;
export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function urlFor(name: string): string {
  const u = new URL(ADMIN_URL);
  u.pathname = `/${name}`;
  return u.toString();
}

/** A platform process (API or worker) run by node with tsx as a loader, its output in a log file. */
export class PlatformProcess {
  child: ChildProcess | null = null;
  starts = 0;
  /** When the current process reported it was ready (the worker's "polling" line, the API's health). */
  readyAt: number | null = null;
  startedAt = 0;
  /** Exits nobody asked for (the process died by itself), with the end of its stderr. */
  readonly crashes: Array<{ at: string; exit: string; stderr: string }> = [];
  /** Start again after a crash (what a process supervisor does), so the run goes on. */
  restartOnCrash = true;
  private stderrTail = '';
  private killing = false;
  private out: WriteStream;

  constructor(
    readonly name: string,
    readonly script: string,
    readonly env: Record<string, string>,
    logFile: string,
    /** A line on stdout that says the process is ready. */
    private readyLine?: RegExp,
  ) {
    this.out = createWriteStream(logFile, { flags: 'a' });
  }

  start(): void {
    this.starts++;
    this.readyAt = null;
    this.startedAt = Date.now();
    this.out.write(`\n===== ${new Date().toISOString()} start #${this.starts} =====\n`);
    const child = spawn(process.execPath, ['--import', 'tsx', this.script], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...this.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    let partial = '';
    child.stdout!.on('data', (d: Buffer) => {
      this.out.write(d);
      if (this.readyLine && this.readyAt === null && this.child === child) {
        partial = (partial + d.toString('utf8')).slice(-4000);
        if (this.readyLine.test(partial)) this.readyAt = Date.now();
      }
    });
    this.stderrTail = '';
    child.stderr!.on('data', (d: Buffer) => {
      this.out.write(d);
      this.stderrTail = (this.stderrTail + d.toString('utf8')).slice(-3000);
    });
    child.once('exit', (code, signal) => {
      const exit = signal ?? `code ${code}`;
      this.out.write(`===== ${new Date().toISOString()} exit ${exit} =====\n`);
      if (this.child !== child) return;
      this.child = null;
      if (this.killing) return;
      const lines = this.stderrTail.split('\n').filter((l) => l.trim() && !l.startsWith('{'));
      const at = lines.findIndex((l) => /Error\b|error:/.test(l));
      const stderr = (at >= 0 ? lines.slice(at, at + 4) : lines.slice(-8)).join('\n');
      this.crashes.push({ at: new Date().toISOString(), exit, stderr });
      log(`CRASH: ${this.name} exited by itself (${exit}):\n${stderr}`);
      if (this.restartOnCrash) {
        log(`${this.name} started again after its crash`);
        this.start();
      }
    });
  }

  get running(): boolean {
    return this.child !== null && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Sends the signal and resolves once the process has exited (SIGKILL after 10 s for SIGTERM). */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    this.killing = true;
    try {
      child.kill(signal);
      const timer = signal === 'SIGKILL' ? undefined : setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      if (timer) clearTimeout(timer);
    } finally {
      this.killing = false;
    }
  }

  close(): void {
    this.out.end();
  }
}

export interface Infra {
  dbName: string;
  databaseUrl: string;
  temporal: TestWorkflowEnvironment;
  nats: EmbeddedNats;
  natsDir: string;
  taskQueue: string;
  stream: string;
  prefix: string;
  apiPort: number;
  base: string;
  /** The environment of the API and worker processes. */
  env: Record<string, string>;
  logDir: string;
  teardown(keepDatabase: boolean): Promise<void>;
}

/** Creates everything and sets this process's DATABASE_URL (and stream settings) to it. */
export async function startInfra(): Promise<Infra> {
  const id = randomBytes(4).toString('hex');
  const dbName = `chaos_${id}`;
  const cleanups: Array<() => Promise<void>> = [];
  const teardownAll = async () => {
    for (const c of cleanups.reverse()) await c().catch((err) => log(`teardown: ${(err as Error).message}`));
  };
  const services = await localServices({ databaseUrlFrom: ['CHAOS_DATABASE_URL', 'BENCH_DATABASE_URL'], log });
  ADMIN_URL = services.adminDatabaseUrl;
  if (services.started.length) log(services.started.join(', '));
  const embedded = services.started.length > 0;
  try {
    const admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${dbName}"`);
    await admin.end();
    const databaseUrl = urlFor(dbName);
    await migrate(databaseUrl);
    await closePool();
    log(`database ${dbName} created and migrated`);

    const cli = findTemporalCli();
    if (!cli) throw new Error('Temporal CLI not found (npm ci installs it into .data/tools/python)');
    await installQuietTemporalRuntime();
    const { TestWorkflowEnvironment } = await import('@temporalio/testing');
    const temporal = await TestWorkflowEnvironment.createLocal({
      server: { executable: { type: 'existing-path', path: cli }, searchAttributes: ALL_SEARCH_ATTRIBUTES, log: { format: 'json', level: 'never' } },
    });
    cleanups.push(async () => {
      await temporal.teardown();
      log('Temporal dev server stopped');
    });
    log(`Temporal dev server on ${temporal.address}`);

    const natsDir = mkdtempSync(path.join(tmpdir(), 'chaos-nats-'));
    const nats = await startEmbeddedNats({ dataDir: natsDir, port: 0, monitorPort: 0 });
    const infra = { nats } as { nats: EmbeddedNats };
    cleanups.push(async () => {
      await infra.nats.stop();
      rmSync(natsDir, { recursive: true, force: true });
      log('nats-server stopped');
    });
    log(`nats-server (JetStream, file storage in ${natsDir}) on ${nats.url}, monitoring ${nats.monitorUrl}`);

    const logDir = path.join(CHAOS_DIR, 'logs');
    rmSync(logDir, { recursive: true, force: true });
    mkdirSync(logDir, { recursive: true });
    // Bundled once, as `npm run worker:bundle` does: a restarted worker runs the same code without
    // bundling it again (seconds of CPU per restart, on the cores the load needs).
    // A bundle the caller already has (the test run's, WORKFLOW_BUNDLE_PATH) is used as it is.
    const given = process.env.WORKFLOW_BUNDLE_PATH;
    const workflowBundle = given && existsSync(given) ? given : path.join(logDir, 'workflow-bundle.js');
    if (workflowBundle !== given) {
      const { bundleWorkflows } = await import('../../worker');
      writeFileSync(workflowBundle, await bundleWorkflows());
    }
    const apiPort = await freePort();
    const taskQueue = `chaos-${id}`;
    const stream = `CHAOS_${id}`;
    const prefix = `chaos_${id}`;
    const env: Record<string, string> = {
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_TASK_QUEUE: taskQueue,
      NATS_URL: nats.url,
      NATS_MONITOR_URL: nats.monitorUrl,
      EVENTS_STREAM: stream,
      EVENTS_SUBJECT_PREFIX: prefix,
      EVENTS_STREAM_STORAGE: 'file',
      // Redeliveries after a kill come after 5 s rather than 30 s.
      EVENTS_ACK_WAIT_SECONDS: '5',
      WORKFLOW_BUNDLE_PATH: workflowBundle,
      PORT: String(apiPort),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      DB_POOL_MAX: '20',
      RATE_LIMIT_PER_MINUTE: '1000000000',
      RATE_LIMIT_PER_HOUR: '1000000000',
      GRAPHQL_RATE_LIMIT_PER_MINUTE: '1000000000',
      // The receiver takes every delivery at once (the per-endpoint window would pace them at 100 a minute).
      WEBHOOK_RATE_LIMIT_PER_MINUTE: '1000000000',
      TRANSFER_REVIEW_THRESHOLD_USD: '1000000000',
      TRANSFER_DAILY_LIMIT_USD: '1000000000000',
      JWT_SECRET: 'chaos-secret-chaos-secret-chaos-secret',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_ALLOW_HTTP: 'true',
      DATA_DIR: path.join(CHAOS_DIR, 'data'),
    };
    process.env.DATABASE_URL = databaseUrl;
    process.env.EVENTS_STREAM = stream;
    process.env.EVENTS_SUBJECT_PREFIX = prefix;
    process.env.NATS_URL = nats.url;
    process.env.TEMPORAL_ADDRESS = temporal.address;
    process.env.TEMPORAL_TASK_QUEUE = taskQueue;

    return {
      dbName,
      databaseUrl,
      temporal,
      get nats() {
        return infra.nats;
      },
      set nats(n: EmbeddedNats) {
        infra.nats = n;
      },
      natsDir,
      taskQueue,
      stream,
      prefix,
      apiPort,
      base: `http://127.0.0.1:${apiPort}`,
      env,
      logDir,
      async teardown(keepDatabase: boolean) {
        await closePool().catch(() => undefined);
        await teardownAll();
        if (embedded) {
          // The embedded server and its scratch cluster go with the run.
          if (keepDatabase) log('database not kept: it lived on the run\'s embedded PostgreSQL (set CHAOS_DATABASE_URL to keep one)');
          await services.stop();
          return;
        }
        if (keepDatabase) {
          log(`database kept: ${databaseUrl}`);
          return;
        }
        const a = new pg.Client({ connectionString: ADMIN_URL });
        await a.connect();
        await a.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
        await a.end();
      },
    };
  } catch (err) {
    await teardownAll();
    const a = new pg.Client({ connectionString: ADMIN_URL });
    await a.connect().then(() => a.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`)).catch(() => undefined);
    await a.end().catch(() => undefined);
    await services.stop();
    throw err;
  }
}
