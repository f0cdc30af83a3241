import type { FastifyInstance } from 'fastify';
import { achRoutes } from './ach';
import { catalogRoutes } from './catalog';
import { paymentRoutes } from './payments';
import { statusReportRoutes } from './status-reports';

/**
 * Payment rails (mounted at /api/v1/payment-rails), one file per concept: the rails catalog,
 * payments, ACH files and returns, status reports. Shapes in schemas.ts and presenters.ts.
 */
export default async function paymentRailRoutes(app: FastifyInstance) {
  catalogRoutes(app);
  paymentRoutes(app);
  achRoutes(app);
  statusReportRoutes(app);
}
