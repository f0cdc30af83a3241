/**
 * Microfinance (issue 22; mounted at /api/v1/microfinance): each concept's routes function is
 * called here in turn.
 */
import type { FastifyInstance } from 'fastify';
import { provisioningRoutes } from './provisioning';
import { tellerRoutes } from './teller';
import { loanRoutes } from './loans';

export default async function microfinanceRoutes(app: FastifyInstance) {
  provisioningRoutes(app);
  tellerRoutes(app);
  loanRoutes(app);
}
