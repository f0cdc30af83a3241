/** Wire shapes of the system area. */
import type { ReadinessCheck } from '../../../domain/platform/readiness';

export const presentHealth = (startedAt: number, now = Date.now()) => ({ status: 'ok', uptime_seconds: Math.floor((now - startedAt) / 1000) });

/**
 * Readiness as an answer: 200 with every component up, else 503 with one error object per
 * component down (DEPENDENCY_UNAVAILABLE) and meta.components.
 */
export function presentReadiness(checks: ReadinessCheck[], requestId: string): { status: 200 | 503; body: unknown } {
  const components = Object.fromEntries(checks.map((c) => [c.name, c.ok ? 'up' : 'down']));
  const down = checks.filter((c) => !c.ok);
  if (down.length === 0) return { status: 200, body: { data: { status: 'ready', components } } };
  return {
    status: 503,
    body: {
      data: null,
      errors: down.map((c) => ({
        status: '503',
        code: 'DEPENDENCY_UNAVAILABLE',
        title: 'Service Unavailable',
        detail: `${c.name} is not reachable`,
        meta: { component: c.name },
      })),
      meta: { components, request_id: requestId },
    },
  };
}
