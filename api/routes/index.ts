import type { FastifyInstance } from 'fastify';
import accountRoutes from './accounts';
import apiKeyRoutes from './api-keys';
import authRoutes from './auth';
import operatorRoutes from './operators';
import iso20022Routes from './iso20022';
import ledgerRoutes from './ledger';
import systemRoutes from './system';
import transactionRoutes from './transactions';
import transferRoutes from './transfers';
import webhookRoutes from './webhooks';
import liveDashboardRoutes from './live-dashboard';
import metricsRoutes from './metrics';
import paymentRailRoutes from './payment-rails';
import interledgerRoutes from './interledger';
import crosschainRoutes from './crosschain';
import defiRoutes from './defi';
import crosschainSwapRoutes from './crosschain/swap';
import basketRoutes from './baskets';
import gcuRoutes from './gcu';
import regtechRoutes from './regtech';
import mobileRoutes from './mobile';
import partnerRoutes from './partner';

/** Every route area of the API. Each lives in api/routes/<area>/index.ts. */
export async function registerRoutes(app: FastifyInstance): Promise<void> {
  await app.register(systemRoutes);
  await app.register(authRoutes);
  await app.register(apiKeyRoutes);
  await app.register(operatorRoutes);
  await app.register(accountRoutes);
  await app.register(transferRoutes);
  await app.register(transactionRoutes);
  await app.register(ledgerRoutes);
  await app.register(iso20022Routes, { prefix: '/api/v1/iso20022' });
  await app.register(webhookRoutes);
  await app.register(liveDashboardRoutes);
  await app.register(metricsRoutes);
  await app.register(paymentRailRoutes, { prefix: '/api/v1/payment-rails' });
  await app.register(interledgerRoutes, { prefix: '/api/v1/interledger' });
  await app.register(crosschainRoutes);
  await app.register(defiRoutes);
  await app.register(crosschainSwapRoutes);
  await app.register(basketRoutes);
  await app.register(gcuRoutes);
  await app.register(regtechRoutes);
  await app.register(mobileRoutes);
  await app.register(partnerRoutes);
}
