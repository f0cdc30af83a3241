import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';
import { loadConfig } from '../platform/config';

// NUMERIC and BIGINT come back as strings: money never passes through a JS number.
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => v);
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => v);

/**
 * An error the server answered with (ErrorResponse) below FATAL leaves the connection ready for the
 * next query; anything else (connection lost, protocol error, FATAL such as an administrator's
 * pg_terminate_backend) means the connection must be dropped. So must one whose named prepared
 * statements disagree with what the client believes it prepared (42P05 already exists, 26000 does
 * not exist): every later use of the name would fail the same way.
 */
export function connectionSurvives(err: unknown): boolean {
  return (
    err instanceof pg.DatabaseError &&
    err.severity !== 'FATAL' &&
    err.severity !== 'PANIC' &&
    err.code !== '42P05' &&
    err.code !== '26000'
  );
}

/**
 * A connection could not be had within DB_ACQUIRE_TIMEOUT_MS: every pooled connection is busy. The
 * request is answered 503 (api/plugins/errors.ts) instead of waiting for good.
 */
export class PoolExhaustedError extends Error {
  readonly code = 'DATABASE_SATURATED';
  constructor(readonly waitedMs: number) {
    super(`no database connection free within ${waitedMs} ms (all pooled connections busy)`);
    this.name = 'PoolExhaustedError';
  }
}

/** Retry-After of a saturation refusal: long enough for the busy connections to turn over. */
export const SATURATION_RETRY_AFTER_SECONDS = 2;

/**
 * The saturation refusal, however it arrives: as thrown by the pool, or re-thrown by Prisma (its
 * client wraps an adapter error that has a string code in a PrismaClientKnownRequestError with the
 * same code). One recognition for every transport: REST and GraphQL (api/plugins/errors.ts), MCP
 * (api/mcp/results.ts), the idempotency plugin. The message is fixed: Prisma's quotes the caller's source.
 */
export function saturationRefusalOf(err: unknown): { code: 'DATABASE_SATURATED'; message: string; retryAfterSeconds: number } | undefined {
  if (!(err instanceof PoolExhaustedError) && (err as { code?: unknown } | null)?.code !== 'DATABASE_SATURATED') return undefined;
  return {
    code: 'DATABASE_SATURATED',
    message: `The database is saturated: no connection became free in time. Retry after ${SATURATION_RETRY_AFTER_SECONDS} seconds.`,
    retryAfterSeconds: SATURATION_RETRY_AFTER_SECONDS,
  };
}

/** What the pool holds now: connections open, idle among them, requests waiting for one, and its size. */
export function poolFigures(p: pg.Pool = getPool()): { total: number; idle: number; waiting: number; max: number } {
  return { total: p.totalCount, idle: p.idleCount, waiting: p.waitingCount, max: p.options.max ?? 10 };
}

/**
 * Code that holds a pooled connection (inside withTransaction or withClient) and then asks the pool
 * for another waits on itself once the pool is exhausted: with DB_POOL_MAX=1 at once, with 20 under
 * load. The held connection is recorded in the async context; a second acquisition from the same
 * context is a defect. DB_NESTED_ACQUIRE=throw (the test suite) fails it loudly, `warn` logs each
 * call site once, `off` (default) does nothing and costs nothing.
 */
interface Holding {
  /** Cleared when the holder returns its connection (work it started may outlive it). */
  held: boolean;
  what: string;
}
const holding = new AsyncLocalStorage<Holding>();
const warnedSites = new Set<string>();

export class NestedAcquisitionError extends Error {
  constructor(what: string) {
    super(`a pooled database connection was requested while this async context holds one (${what}): pass the held client down instead`);
    this.name = 'NestedAcquisitionError';
  }
}

function nestedAcquireMode(): string {
  return process.env.DB_NESTED_ACQUIRE || 'off';
}

function checkNotHolding(): void {
  const h = holding.getStore();
  if (!h?.held) return;
  const mode = nestedAcquireMode();
  if (mode === 'off') return;
  const err = new NestedAcquisitionError(h.what);
  if (mode === 'throw') throw err;
  // The caller's frames, not the pool's own.
  const site = (err.stack ?? '').split('\n').filter((l) => l.startsWith('    at ') && !l.includes('/domain/db/pool.') && !l.includes('node:internal')).slice(0, 5).join('\n');
  if (warnedSites.has(site)) return;
  warnedSites.add(site);
  process.emitWarning(err.message + '\n' + site, 'NestedAcquisition');
}

/** Runs fn with the async context marked as holding a connection (see checkNotHolding). */
export async function holdingConnection<T>(what: string, fn: () => Promise<T>): Promise<T> {
  // Off (production's default): no async context at all. On Node 20 an AsyncLocalStorage in use
  // puts a hook on every promise: the sync transfer bench fell from 0.30 to 0.12 of its yardstick.
  if (nestedAcquireMode() === 'off') return fn();
  const h: Holding = { held: true, what };
  try {
    return await holding.run(h, fn);
  } finally {
    h.held = false;
  }
}

/**
 * pg-pool's `query` drops the connection after *any* error, so every bad request (an out-of-range
 * number, a refused constraint) costs a reconnect, and on the embedded database a new session.
 * This pool keeps the connection when the server merely refused the statement.
 */
class Pool extends pg.Pool {
  // @ts-expect-error pg.Pool['connect'] is overloaded; the promise form is checked here.
  override connect(cb?: unknown) {
    if (typeof cb === 'function') return (super.connect as (c: unknown) => void)(cb);
    try {
      checkNotHolding();
    } catch (err) {
      return Promise.reject(err);
    }
    const started = Date.now();
    return (super.connect as () => Promise<pg.PoolClient>)().catch((err: Error) => {
      // pg-pool's words when connectionTimeoutMillis passes while waiting for a free client.
      if (/timeout exceeded when trying to connect/i.test(err.message) && this.totalCount >= (this.options.max ?? 10)) {
        throw new PoolExhaustedError(Date.now() - started);
      }
      throw err;
    });
  }

  // @ts-expect-error pg.Pool['query'] is overloaded; the promise forms are handled here, the rest by pg-pool.
  override query(text: unknown, values?: unknown, cb?: unknown) {
    const callback = typeof values === 'function' || typeof cb === 'function';
    const submittable = typeof (text as { submit?: unknown })?.submit === 'function';
    if (callback || submittable || typeof text === 'function') {
      return (super.query as (...a: unknown[]) => unknown)(text, values, cb);
    }
    return this.queryKeepingConnection(text, values);
  }

  private async queryKeepingConnection(text: unknown, values: unknown) {
    const client = await (this.connect as () => Promise<pg.PoolClient>)();
    // A connection lost while checked out emits 'error' on the client; the query then rejects.
    const onError = () => undefined;
    client.on('error', onError);
    let failure: unknown;
    try {
      return await (client.query as (t: unknown, v: unknown) => Promise<pg.QueryResult>)(text, values);
    } catch (err) {
      failure = err;
      throw err;
    } finally {
      client.off('error', onError);
      client.release(failure === undefined || connectionSurvives(failure) ? undefined : (failure as Error));
    }
  }
}

let pool: pg.Pool | undefined;

export function getPool(): pg.Pool {
  if (!pool) {
    const cfg = loadConfig();
    if (!cfg.databaseUrl) throw new Error('DATABASE_URL is not set');
    pool = new Pool({
      connectionString: cfg.databaseUrl,
      max: cfg.dbPoolMax,
      idleTimeoutMillis: 30_000,
      // Nothing waits forever for a connection: past this a request is answered 503.
      connectionTimeoutMillis: cfg.dbAcquireTimeoutMs,
    }) as unknown as pg.Pool;
    // An idle client's error (server restart) must not crash the process.
    pool.on('error', () => undefined);
    // Nor may a checked-out one's: a connection killed while a transaction holds it idle (an
    // administrator's pg_terminate_backend, a failover) emits 'error' before any query is sent. The
    // transaction's next query rejects instead, and the release drops the connection.
    pool.on('connect', (client) => client.on('error', () => undefined));
  }
  return pool;
}

const poolClosedHooks = new Set<() => void>();

/**
 * For caches of what the process's database holds (maintenance windows, paid endpoints, partners):
 * dropped with the pool, since the next pool may be another database (a test file's own, a
 * reconfigured process). Entries keyed by the pool itself need no hook (the asset catalog).
 */
export function onPoolClosed(forget: () => void): void {
  poolClosedHooks.add(forget);
}

export async function closePool(): Promise<void> {
  if (pool) {
    const p = pool;
    pool = undefined;
    await p.end();
  }
  for (const forget of poolClosedHooks) forget();
}

export type Queryable = Pick<pg.PoolClient, 'query'>;

/** Runs fn in one READ COMMITTED transaction (on the given pool, else the process's); rolls back on any error. */
export async function withTransaction<T>(fn: (client: pg.PoolClient) => Promise<T>, pool: pg.Pool = getPool()): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const result = await holdingConnection('a transaction', () => fn(client));
    await client.query('COMMIT');
    return result;
  } catch (err) {
    if (err instanceof pg.DatabaseError && !connectionSurvives(err)) broken = err;
    await client.query('ROLLBACK').catch((e: Error) => (broken ??= e));
    throw err;
  } finally {
    client.release(broken);
  }
}

/** Runs fn with one pooled connection held for its whole duration (no transaction); released after. */
export async function withClient<T>(fn: (client: pg.PoolClient) => Promise<T>, pool: pg.Pool = getPool()): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    return await holdingConnection('a held client', () => fn(client));
  } catch (err) {
    if (err instanceof pg.DatabaseError && !connectionSurvives(err)) broken = err;
    throw err;
  } finally {
    client.release(broken);
  }
}
