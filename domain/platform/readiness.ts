import { getPool } from '../db/pool';
import { pingTemporal } from '../temporal/client';

export interface ReadinessCheck {
  name: 'database' | 'temporal';
  ok: boolean;
  error?: string;
}

/** Readiness: whether the database and Temporal answer now (checked in parallel). */
export async function checkReadiness(): Promise<ReadinessCheck[]> {
  return Promise.all([
    getPool()
      .query('SELECT 1')
      .then((): ReadinessCheck => ({ name: 'database', ok: true }))
      .catch((e: Error): ReadinessCheck => ({ name: 'database', ok: false, error: e.message })),
    pingTemporal()
      .then((): ReadinessCheck => ({ name: 'temporal', ok: true }))
      .catch((e: Error): ReadinessCheck => ({ name: 'temporal', ok: false, error: e.message })),
  ]);
}
