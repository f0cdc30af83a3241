import type { QueryConfig } from 'pg';
import { getPool, poolFigures, saturationRefusalOf } from '../db/pool';
import { pingTemporal } from '../temporal/client';
import { loadConfig } from './config';

export interface ReadinessCheck {
  name: 'database' | 'temporal';
  ok: boolean;
  /** 'saturated': the database answers, but no pooled connection came free within DB_ACQUIRE_TIMEOUT_MS. */
  status: 'up' | 'down' | 'saturated';
  error?: string;
  /** The database's pool when its check ended. */
  pool?: ReturnType<typeof poolFigures>;
}

/** p, or a rejection once ms have passed: the probe answers then, whatever p still waits on. */
function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/**
 * The database through the pool requests use: waiting for a connection is bounded by the pool's
 * acquire timeout (a pool that gives none in time is saturated, not down), the statement by the
 * same span, and the whole check by both together even if a bound were unset.
 */
async function checkDatabase(): Promise<ReadinessCheck> {
  const pool = getPool();
  const bound = loadConfig().dbAcquireTimeoutMs || 5000;
  try {
    await within(pool.query({ text: 'SELECT 1', query_timeout: bound } as QueryConfig), 2 * bound + 100, 'database');
    return { name: 'database', ok: true, status: 'up', pool: poolFigures(pool) };
  } catch (e) {
    const saturated = saturationRefusalOf(e) !== undefined;
    return { name: 'database', ok: false, status: saturated ? 'saturated' : 'down', error: (e as Error).message, pool: poolFigures(pool) };
  }
}

/** Readiness: whether the database and Temporal answer now (checked in parallel, each within a bound). */
export async function checkReadiness(): Promise<ReadinessCheck[]> {
  return Promise.all([
    checkDatabase(),
    pingTemporal()
      .then((): ReadinessCheck => ({ name: 'temporal', ok: true, status: 'up' }))
      .catch((e: Error): ReadinessCheck => ({ name: 'temporal', ok: false, status: 'down', error: e.message })),
  ]);
}
