import type { FastifyInstance } from 'fastify';
import { accountRoutes } from './accounts';
import { consentRoutes } from './consents';
import { registerOpenBankingConventions } from './context';
import { customerRoutes } from './customer';
import { paymentRoutes } from './payments';
import { tppRoutes } from './tpps';

/**
 * Open banking (mounted at /api/v1/open-banking; docs/open-banking.md): Berlin Group NextGenPSD2
 * routes for TPPs (identified by their certificate: TPP registry, consents, account information,
 * payment initiation, SCA authorisations) and the customer's side (deciding SCA, their consents).
 * The redirect SCA page lives outside the API (page.ts).
 */
export default async function openBankingRoutes(app: FastifyInstance) {
  registerOpenBankingConventions(app);
  tppRoutes(app);
  consentRoutes(app);
  accountRoutes(app);
  paymentRoutes(app);
  customerRoutes(app);
}
