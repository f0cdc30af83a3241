/**
 * The partner (banking-as-a-service) routes, one file per concept, registered in order. A plain
 * list of registers: each concept adds its own line.
 */
import type { FastifyInstance } from 'fastify';
import partnerAccountRoutes from './partners';
import partnerSdkRoutes from './sdk';
import sdkDownloadRoutes from './sdk-download';

export default async function partnerRoutes(app: FastifyInstance) {
  await app.register(partnerAccountRoutes);
  await app.register(partnerSdkRoutes);
  await app.register(sdkDownloadRoutes);
}
