import type { FastifyInstance } from 'fastify';
import { createCrosschainSwap, getCrosschainSwap, presentCrosschainSwap } from '../../../domain/defi/crosschain-swaps';
import type { SandboxOutcome } from '../../../domain/defi/swaps';
import { startCrosschainSwapWorkflow } from '../../../domain/defi/workflow';
import { ApiError, notFound } from '../../errors';
import { decimalString, envelope, errorResponses } from '../../schemas';
import { principalOf } from '../../types';

const TAG = 'Cross-chain';
const recordSchema = { type: 'object', additionalProperties: true };
const str = (max: number) => ({ type: 'string', minLength: 1, maxLength: max });

/** POST /api/v2/crosschain/swap (bridge + swap as one operation) and its status. docs/defi.md. */
export default async function crosschainSwapRoutes(app: FastifyInstance) {
  app.post<{
    Body: { source_chain: string; destination_chain: string; from_token: string; to_token: string; amount: string; slippage_bps?: number; account_id?: string; sandbox_outcome?: SandboxOutcome };
  }>(
    '/api/v2/crosschain/swap',
    {
      schema: {
        tags: [TAG],
        summary: 'Bridge and swap as one operation',
        description:
          'Bridges `amount` of `from_token` from `source_chain` to `destination_chain` (best protocol), then swaps what arrives for `to_token` there ' +
          '(best DEX route). Both legs run as child workflows of one workflow. If the swap fails after the bridge completed, the tokens are bridged ' +
          'back and both bridges\' fees refunded: the account ends with the original amount on the original chain. Route, amount, the swap leg and ' +
          'the funds are checked first (422 with a pointer). slippage_bps bounds the swap and the bridge. Sandbox keys may set sandbox_outcome ' +
          '(revert | drop) for the swap leg\'s transaction; bridge failures use the bridge magic amounts (docs/crosschain.md).',
        body: {
          type: 'object',
          required: ['source_chain', 'destination_chain', 'from_token', 'to_token', 'amount'],
          additionalProperties: false,
          properties: {
            source_chain: str(64),
            destination_chain: str(64),
            from_token: str(64),
            to_token: str(64),
            amount: decimalString,
            slippage_bps: { type: 'integer', minimum: 0, maximum: 5000, default: 50 },
            account_id: str(64),
            sandbox_outcome: { type: 'string', enum: ['revert', 'drop'] },
          },
        },
        response: { 201: envelope(recordSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const pr = principalOf(request);
      const b = request.body;
      const x = await createCrosschainSwap({
        userId: pr.userId,
        environment: pr.environment,
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
      await startCrosschainSwapWorkflow(x, b.sandbox_outcome ?? null).catch(() => {
        throw new ApiError(503, 'WORKFLOW_UNAVAILABLE', 'The operation could not be started; nothing was moved. Retry later.');
      });
      return reply.code(201).send({ data: await presentCrosschainSwap(x) });
    },
  );

  app.get<{ Params: { id: string } }>(
    '/api/v2/crosschain/swap/:id',
    {
      schema: {
        tags: [TAG],
        summary: 'A cross-chain swap with its bridge, swap and (when compensated) return bridge',
        params: { type: 'object', required: ['id'], properties: { id: { type: 'string', maxLength: 64 } } },
        response: { 200: envelope(recordSchema), ...errorResponses },
      },
    },
    async (request) => {
      const pr = principalOf(request);
      const x = await getCrosschainSwap(request.params.id, { userId: pr.userId, environment: pr.environment });
      if (!x) throw notFound('Cross-chain swap');
      return { data: await presentCrosschainSwap(x) };
    },
  );
}
