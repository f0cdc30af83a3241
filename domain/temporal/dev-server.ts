// The Temporal CLI's dev server that `npm start` runs when TEMPORAL_ADDRESS is not set. Started here
// rather than through the SDK's TestWorkflowEnvironment so that it runs in its own process group:
// a Ctrl-C in the terminal reaches the platform only, which drains the worker (its activities
// report their results to this server) before it stops the server.
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { Connection } from '@temporalio/client';
/** A search attribute as defined with defineSearchAttributeKey (name and type). */
type SearchAttributeKey<T> = { name: string; type: T };
type SearchAttributeType = string;

export interface TemporalDevServerOptions {
  cli: string;
  ip: string;
  port: number;
  /** The web UI's port; no UI when undefined. */
  uiPort?: number;
  /** SQLite file keeping workflows across restarts; in memory when undefined. */
  dbFilename?: string;
  namespace: string;
  searchAttributes: ReadonlyArray<SearchAttributeKey<SearchAttributeType>>;
  /** The server's own output (appended). */
  logFile: string;
  timeoutMs?: number;
}

export interface TemporalDevServer {
  address: string;
  pid: number;
  /** SIGTERM, SIGKILL after graceMs; resolves once it has exited. Idempotent. */
  stop(graceMs?: number): Promise<void>;
}

const TYPE_FLAG: Record<string, string> = { KEYWORD: 'Keyword', KEYWORD_LIST: 'KeywordList', TEXT: 'Text', INT: 'Int', DOUBLE: 'Double', BOOL: 'Bool', DATETIME: 'Datetime' };

export async function startTemporalDevServer(opts: TemporalDevServerOptions): Promise<TemporalDevServer> {
  const args = [
    'server',
    'start-dev',
    '--ip',
    opts.ip,
    '--port',
    String(opts.port),
    '--namespace',
    opts.namespace,
    '--log-format',
    'json',
    '--log-level',
    'error',
    // The dynamic settings the SDK's own dev-server launcher passes: no version check calling out
    // to the internet, and workflow updates on.
    '--dynamic-config-value',
    'frontend.enableServerVersionCheck=false',
    '--dynamic-config-value',
    'frontend.enableUpdateWorkflowExecution=true',
    '--dynamic-config-value',
    'frontend.enableUpdateWorkflowExecutionAsyncAccepted=true',
    ...(opts.uiPort ? ['--ui-port', String(opts.uiPort)] : ['--headless']),
    ...(opts.dbFilename ? ['--db-filename', opts.dbFilename] : []),
    ...opts.searchAttributes.flatMap((k) => ['--search-attribute', `${k.name}=${TYPE_FLAG[k.type] ?? 'Keyword'}`]),
  ];
  const log = createWriteStream(opts.logFile, { flags: 'a' });
  log.on('error', () => undefined);
  const tail: string[] = [];
  const child = spawn(opts.cli, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const keep = (chunk: Buffer) => {
    log.write(chunk);
    tail.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    tail.splice(0, Math.max(0, tail.length - 30));
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  let gone = false;
  let spawnError: Error | undefined;
  child.once('error', (e) => (spawnError = e));
  const exited = new Promise<void>((r) => child.once('exit', () => ((gone = true), log.end(), r())));
  const onExit = () => !gone && child.kill('SIGKILL');
  process.on('exit', onExit);
  let stopping: Promise<void> | undefined;
  const stop = (graceMs = 10_000) =>
    (stopping ??= (async () => {
      if (!gone && !spawnError) {
        child.kill('SIGTERM');
        const t = setTimeout(() => !gone && child.kill('SIGKILL'), graceMs);
        await exited;
        clearTimeout(t);
      }
      process.off('exit', onExit);
    })());

  const address = `${opts.ip}:${opts.port}`;
  const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
  try {
    for (;;) {
      if (spawnError) throw new Error(`Temporal dev server could not be started (${opts.cli}): ${spawnError.message}`);
      if (gone) throw new Error(`Temporal dev server exited during start-up; its output:\n${tail.join('\n')}`);
      if (Date.now() > deadline) throw new Error(`Temporal dev server on ${address} did not answer in time; its output:\n${tail.join('\n')}`);
      if (await answers(address, opts.namespace)) break;
      await Promise.race([new Promise((r) => setTimeout(r, 100)), exited]);
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return { address, pid: child.pid!, stop };
}

/** Whether the frontend answers and the namespace exists (the server registers it at start). */
async function answers(address: string, namespace: string): Promise<boolean> {
  let conn: Connection | undefined;
  try {
    conn = await Connection.connect({ address, connectTimeout: '1s' });
    await conn.withDeadline(Date.now() + 2_000, () => conn!.workflowService.describeNamespace({ namespace }));
    return true;
  } catch {
    return false;
  } finally {
    await conn?.close().catch(() => undefined);
  }
}
