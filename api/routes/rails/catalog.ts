import type { FastifyInstance } from 'fastify';
import { railCatalog } from '../../../domain/rails/catalog';
import { errorResponses } from '../../schemas';
import { presentRail } from '../../operations/rails/presenters';
import { railsResponse, TAG } from '../../operations/rails/schemas';

/** GET /rails: the rails catalog. */
export function catalogRoutes(app: FastifyInstance) {
  app.get(
    '/rails',
    {
      schema: {
        tags: [TAG],
        summary: 'Rails offered, with limits, settlement, cut-offs, calendars and availability now',
        description:
          'Every rail: currencies, per-payment limits, settlement speed, cut-off windows in the rail\'s own time zone, the banking calendar ' +
          '(US Federal Reserve holidays for US rails, TARGET2 closing days for SEPA, UK bank holidays for the London SWIFT desk, and for SWIFT the ' +
          'calendar of each currency\'s market that sets the value date) for this and next year, and whether it accepts payments right now.',
        response: { 200: railsResponse, ...errorResponses },
      },
    },
    async () => ({ data: railCatalog(new Date()).map(presentRail) }),
  );
}
