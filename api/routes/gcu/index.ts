/**
 * The GCU routes (spec "Basket currency unit and governance"), one file per concept, registered
 * in order: basket information, composition and value history; governance voting; buying GCU.
 */
import type { FastifyInstance } from 'fastify';
import gcuInfoRoutes from './info';
import gcuVotingRoutes from './voting';
import gcuBuyRoutes from './buy';

export default async function gcuRoutes(app: FastifyInstance) {
  await app.register(gcuInfoRoutes);
  await app.register(gcuVotingRoutes);
  await app.register(gcuBuyRoutes);
}
