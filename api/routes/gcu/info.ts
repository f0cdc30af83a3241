/**
 * GET /gcu, /gcu/composition and /gcu/value-history: public reads in the caller's environment
 * (production without credentials). Each handler is environment → one domain call → presenter.
 */
import type { FastifyInstance } from 'fastify';
import { createCompositionService } from '../../../domain/baskets/composition';
import { PRIMARY_BASKET } from '../../../domain/baskets/definitions';
import { valueHistory } from '../../../domain/baskets/history';
import { readerEnvironment } from '../../operations/caller';
import { GCU_LINKS, presentComposition, presentHistory, presentInfo } from '../../operations/gcu/info-presenters';
import { compositionRouteSchema, historyRouteSchema, infoRouteSchema } from '../../operations/gcu/info-schemas';

const PUBLIC_READ = { public: true, optionalAuth: true } as const;

export default async function gcuInfoRoutes(app: FastifyInstance) {
  // One per app: each environment's view is computed at most once a second (domain/baskets/composition.ts).
  const compositions = createCompositionService();

  app.get('/api/v2/gcu', { config: PUBLIC_READ, schema: infoRouteSchema }, async (request) => ({
    data: presentInfo(await compositions.view(readerEnvironment(request))),
    links: GCU_LINKS,
  }));

  app.get('/api/v2/gcu/composition', { config: PUBLIC_READ, schema: compositionRouteSchema }, async (request) => ({
    data: presentComposition(await compositions.view(readerEnvironment(request))),
  }));

  app.get<{ Querystring: { period?: string; interval?: string } }>('/api/v2/gcu/value-history', { config: PUBLIC_READ, schema: historyRouteSchema }, async (request) =>
    presentHistory(await valueHistory({ basketCode: PRIMARY_BASKET, environment: readerEnvironment(request), period: request.query.period, interval: request.query.interval })),
  );
}
