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
 * pg-pool's `query` drops the connection after *any* error, so every bad request (an out-of-range
 * number, a refused constraint) costs a reconnect, and on the embedded database a new session.
 * This pool keeps the connection when the server merely refused the statement.
 */
class Pool extends pg.Pool {
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
    const client = await this.connect();
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
    pool = new Pool({ connectionString: cfg.databaseUrl, max: cfg.dbPoolMax, idleTimeoutMillis: 30_000 }) as unknown as pg.Pool;
    // An idle client's error (server restart) must not crash the process.
    pool.on('error', () => undefined);
    // Nor may a checked-out one's: a connection killed while a transaction holds it idle (an
    // administrator's pg_terminate_backend, a failover) emits 'error' before any query is sent. The
    // transaction's next query rejects instead, and the release drops the connection.
    pool.on('connect', (client) => client.on('error', () => undefined));
  }
  return pool;
}

export async function closePool(): Promise<void> {
  if (pool) {
    const p = pool;
    pool = undefined;
    await p.end();
  }
}

export type Queryable = Pick<pg.PoolClient, 'query'>;

/** Runs fn in one READ COMMITTED transaction (on the given pool, else the process's); rolls back on any error. */
export async function withTransaction<T>(fn: (client: pg.PoolClient) => Promise<T>, pool: pg.Pool = getPool()): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const result = await fn(client);
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
