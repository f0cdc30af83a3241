/**
 * Cross-chain bridge routes: each handler is caller -> one domain operation (domain/crosschain)
 * -> presenter (./presenters.ts); schemas in ./schemas.ts. The cross-chain swap is ./swap.ts.
 */
import type { FastifyInstance } from 'fastify';
import { bridgeFees, bridgeTransferWithHistory, crosschainPortfolio } from '../../../domain/crosschain';
import { bridgeInOneCall, quoteBridge, startBridge, type BridgeNowBody, type InitiateBody, type QuoteBody } from '../../operations/crosschain/requests';
import { caller } from '../../operations/caller';
import { presentBridgeFees, presentBridgeQuote, presentBridgeTransfer, presentBridgeWithHistory, presentCrosschainPortfolio } from '../../operations/crosschain/presenters';
import { bridgeFeesSchema, bridgeInitiateSchema, bridgeNowSchema, bridgeQuoteSchema, bridgeTransferGetSchema, portfolioSchema } from '../../operations/crosschain/schemas';

export default async function crosschainRoutes(app: FastifyInstance) {
  app.post<{ Body: QuoteBody }>('/api/v1/crosschain/bridge/quote', { schema: bridgeQuoteSchema }, async (request, reply) =>
    reply.code(201).send({ data: presentBridgeQuote(await quoteBridge(caller(request), request.body)) }),
  );

  app.post<{ Body: InitiateBody }>('/api/v1/crosschain/bridge/initiate', { schema: bridgeInitiateSchema }, async (request, reply) =>
    reply.code(201).send({ data: presentBridgeTransfer(await startBridge(caller(request), request.body)) }),
  );

  for (const prefix of ['/api/v1', '/api/v2']) {
    app.get<{ Params: { id: string } }>(`${prefix}/crosschain/bridge/:id`, { schema: bridgeTransferGetSchema }, async (request) => ({
      data: presentBridgeWithHistory(await bridgeTransferWithHistory(request.params.id, caller(request))),
    }));
  }

  app.post<{ Body: BridgeNowBody }>('/api/v2/crosschain/bridge', { schema: bridgeNowSchema }, async (request, reply) => {
    const { quote, transfer } = await bridgeInOneCall(caller(request), request.body);
    return reply.code(201).send({ data: { ...presentBridgeTransfer(transfer), quote: presentBridgeQuote(quote) } });
  });

  app.get<{ Querystring: { from: string; to: string; token: string; amount: string } }>('/api/v2/crosschain/bridge/fees', { schema: bridgeFeesSchema }, async (request) => ({
    data: presentBridgeFees(await bridgeFees(request.query)),
  }));

  app.get<{ Querystring: { account_id?: string } }>('/api/v2/crosschain/portfolio', { schema: portfolioSchema }, async (request) => ({
    data: presentCrosschainPortfolio(await crosschainPortfolio({ ...caller(request), accountId: request.query.account_id })),
  }));
}
