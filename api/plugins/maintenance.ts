import type { FastifyInstance } from 'fastify';
import { activeMaintenance } from '../../domain/platform/maintenance-windows';
import { ApiError } from '../errors';

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);
// Logging in and operators' own routes (ending or extending the window, operator-only actions) stay open.
const OPEN = [/^\/api(\/v\d+)?\/auth\//, /^\/api\/v\d+\/operators\//];

/**
 * During a maintenance window of the caller's environment (domain/platform/maintenance-windows.ts),
 * writes are answered 503 MAINTENANCE with Retry-After (seconds until the window ends); reads,
 * auth and operator routes work. The window comes from a 2-second in-process cache.
 */
export function registerMaintenanceGate(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    if (READS.has(request.method)) return;
    const p = request.principal;
    if (!p) return;
    const path = request.url.split('?', 1)[0];
    const config = request.routeOptions.config as { admin?: boolean; graphql?: boolean } | undefined;
    // GraphQL posts queries too: its mutations check the window themselves (api/graphql/context.ts).
    if (OPEN.some((r) => r.test(path)) || config?.admin || config?.graphql) return;
    const w = await activeMaintenance(p.environment);
    if (!w) return;
    const retryAfter = Math.max(1, Math.ceil((w.endsAt.getTime() - Date.now()) / 1000));
    throw new ApiError(503, 'MAINTENANCE', `Planned maintenance until ${w.endsAt.toISOString()}: ${w.message}`, {
      headers: { 'retry-after': String(retryAfter) },
    });
  });
}
