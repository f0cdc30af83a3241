/** POST /api/v2/crosschain/swap (bridge + swap as one operation) and its status. docs/defi.md. */
import type { FastifyInstance } from 'fastify';
import { findCrosschainSwap } from '../../../domain/defi/operations';
import { swapAcrossChains, type CrosschainSwapBody } from '../../operations/crosschain/requests';
import { caller } from '../../operations/caller';
import { presentCrosschainSwap } from '../../operations/crosschain/presenters';
import { crosschainSwapCreateSchema, crosschainSwapGetSchema } from '../../operations/crosschain/schemas';

export default async function crosschainSwapRoutes(app: FastifyInstance) {
  app.post<{ Body: CrosschainSwapBody }>('/api/v2/crosschain/swap', { schema: crosschainSwapCreateSchema }, async (request, reply) =>
    reply.code(201).send({ data: presentCrosschainSwap(await swapAcrossChains(caller(request), request.body)) }),
  );

  app.get<{ Params: { id: string } }>('/api/v2/crosschain/swap/:id', { schema: crosschainSwapGetSchema }, async (request) => ({
    data: presentCrosschainSwap(await findCrosschainSwap(request.params.id, caller(request))),
  }));
}
