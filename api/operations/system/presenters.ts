/** Wire shapes of the system area. */
import type { ReadinessCheck } from '../../../domain/platform/readiness';

export const presentHealth = (startedAt: number, now = Date.now()) => ({ status: 'ok', uptime_seconds: Math.floor((now - startedAt) / 1000) });

function errorOf(c: ReadinessCheck) {
  if (c.status === 'saturated') {
    return {
      status: '503',
      code: 'DATABASE_SATURATED',
      title: 'Service Unavailable',
      detail: `${c.name} is saturated: no pooled connection became free in time`,
      meta: { component: c.name },
    };
  }
  return { status: '503', code: 'DEPENDENCY_UNAVAILABLE', title: 'Service Unavailable', detail: `${c.name} is not reachable`, meta: { component: c.name } };
}

/**
 * Readiness as an answer: 200 with every component up, else 503 with one error object per
 * component not up (DATABASE_SATURATED when the pool gave no connection in time, else
 * DEPENDENCY_UNAVAILABLE) and meta.components; the database pool's figures either way.
 */
export function presentReadiness(checks: ReadinessCheck[], requestId: string): { status: 200 | 503; body: unknown } {
  const components = Object.fromEntries(checks.map((c) => [c.name, c.status]));
  const pool = checks.find((c) => c.name === 'database')?.pool;
  const databasePool = pool ? { database_pool: pool } : {};
  const down = checks.filter((c) => !c.ok);
  if (down.length === 0) return { status: 200, body: { data: { status: 'ready', components, ...databasePool } } };
  return {
    status: 503,
    body: {
      data: null,
      errors: down.map(errorOf),
      meta: { components, ...databasePool, request_id: requestId },
    },
  };
}
