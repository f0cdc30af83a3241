/** POST /api/v2/crosschain/swap (bridge + swap as one operation) and its status. docs/defi.md. */
import type { FastifyInstance } from 'fastify';
import { findCrosschainSwap, startCrosschainSwap } from '../../../domain/defi/operations';
import type { SandboxOutcome } from '../../../domain/defi/swaps';
import { caller } from '../caller';
import { presentCrosschainSwap } from './presenters';
import { crosschainSwapCreateSchema, crosschainSwapGetSchema } from './schemas';

export default async function crosschainSwapRoutes(app: FastifyInstance) {
  app.post<{
    Body: { source_chain: string; destination_chain: string; from_token: string; to_token: string; amount: string; slippage_bps?: number; account_id?: string; sandbox_outcome?: SandboxOutcome };
  }>('/api/v2/crosschain/swap', { schema: crosschainSwapCreateSchema }, async (request, reply) => {
    const b = request.body;
    const x = await startCrosschainSwap({
      ...caller(request),
      sourceChain: b.source_chain,
      destinationChain: b.destination_chain,
      fromToken: b.from_token,
      toToken: b.to_token,
      amount: b.amount,
      slippageBps: b.slippage_bps ?? 50,
      accountId: b.account_id,
      sandboxOutcome: b.sandbox_outcome,
      now: new Date(),
    });
    return reply.code(201).send({ data: presentCrosschainSwap(x) });
  });

  app.get<{ Params: { id: string } }>('/api/v2/crosschain/swap/:id', { schema: crosschainSwapGetSchema }, async (request) => ({
    data: presentCrosschainSwap(await findCrosschainSwap(request.params.id, caller(request))),
  }));
}
