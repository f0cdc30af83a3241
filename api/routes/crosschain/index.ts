/**
 * Cross-chain bridge routes: each handler is caller -> one domain operation (domain/crosschain)
 * -> presenter (./presenters.ts); schemas in ./schemas.ts. The cross-chain swap is ./swap.ts.
 */
import type { FastifyInstance } from 'fastify';
import { bridgeFees, bridgeNow, bridgeTransferWithHistory, createBridgeQuote, crosschainPortfolio, initiateBridge } from '../../../domain/crosschain';
import { caller } from '../caller';
import { presentBridgeFees, presentBridgeQuote, presentBridgeTransfer, presentBridgeWithHistory, presentCrosschainPortfolio } from './presenters';
import { bridgeFeesSchema, bridgeInitiateSchema, bridgeNowSchema, bridgeQuoteSchema, bridgeTransferGetSchema, portfolioSchema } from './schemas';

export default async function crosschainRoutes(app: FastifyInstance) {
  app.post<{ Body: { source_chain: string; destination_chain: string; token: string; amount: string; preferred_bridge?: string } }>(
    '/api/v1/crosschain/bridge/quote',
    { schema: bridgeQuoteSchema },
    async (request, reply) => {
      const b = request.body;
      const q = await createBridgeQuote({
        ...caller(request),
        sourceChain: b.source_chain,
        destinationChain: b.destination_chain,
        token: b.token,
        amount: b.amount,
        protocol: b.preferred_bridge,
        protocolPointer: '/preferred_bridge',
        now: new Date(),
      });
      return reply.code(201).send({ data: presentBridgeQuote(q) });
    },
  );

  app.post<{ Body: { quote_id: string; sender_address: string; recipient_address: string; slippage_tolerance?: number; deadline_minutes?: number; account_id?: string } }>(
    '/api/v1/crosschain/bridge/initiate',
    { schema: bridgeInitiateSchema },
    async (request, reply) => {
      const b = request.body;
      const t = await initiateBridge({
        ...caller(request),
        quoteId: b.quote_id,
        accountId: b.account_id,
        senderAddress: b.sender_address,
        recipientAddress: b.recipient_address,
        slippageTolerance: b.slippage_tolerance,
        deadlineMinutes: b.deadline_minutes,
        now: new Date(),
      });
      return reply.code(201).send({ data: presentBridgeTransfer(t) });
    },
  );

  for (const prefix of ['/api/v1', '/api/v2']) {
    app.get<{ Params: { id: string } }>(`${prefix}/crosschain/bridge/:id`, { schema: bridgeTransferGetSchema }, async (request) => ({
      data: presentBridgeWithHistory(await bridgeTransferWithHistory(request.params.id, caller(request))),
    }));
  }

  app.post<{
    Body: {
      source_chain: string;
      destination_chain: string;
      token: string;
      amount: string;
      protocol: string;
      account_id?: string;
      sender_address?: string;
      recipient_address?: string;
      slippage_bps?: number;
      deadline_minutes?: number;
    };
  }>('/api/v2/crosschain/bridge', { schema: bridgeNowSchema }, async (request, reply) => {
    const b = request.body;
    const { quote, transfer } = await bridgeNow({
      ...caller(request),
      sourceChain: b.source_chain,
      destinationChain: b.destination_chain,
      token: b.token,
      amount: b.amount,
      protocol: b.protocol,
      protocolPointer: '/protocol',
      accountId: b.account_id,
      senderAddress: b.sender_address,
      recipientAddress: b.recipient_address,
      slippageBps: b.slippage_bps,
      deadlineMinutes: b.deadline_minutes,
      now: new Date(),
    });
    return reply.code(201).send({ data: { ...presentBridgeTransfer(transfer), quote: presentBridgeQuote(quote) } });
  });

  app.get<{ Querystring: { from: string; to: string; token: string; amount: string } }>('/api/v2/crosschain/bridge/fees', { schema: bridgeFeesSchema }, async (request) => ({
    data: presentBridgeFees(await bridgeFees(request.query)),
  }));

  app.get<{ Querystring: { account_id?: string } }>('/api/v2/crosschain/portfolio', { schema: portfolioSchema }, async (request) => ({
    data: presentCrosschainPortfolio(await crosschainPortfolio({ ...caller(request), accountId: request.query.account_id })),
  }));
}
