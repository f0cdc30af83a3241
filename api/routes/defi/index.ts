/**
 * DeFi routes: each handler is caller -> one domain operation (domain/defi/operations.ts) ->
 * presenter (./presenters.ts); schemas in ./schemas.ts.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { defiPools, findFlashLoan, findSwap } from '../../../domain/defi/operations';
import { defiPortfolio } from '../../../domain/defi/portfolio';
import { requestKeyOf } from '../../plugins/idempotency';
import { caller } from '../../operations/caller';
import lendingRoutes from './lending';
import liquidityRoutes from './liquidity';
import stakingRoutes from './staking';
import {
  executeFromBody,
  flashLoanFromBody,
  quoteAndExecuteFromBody,
  quoteFromBody,
  quoteFromQuery,
  type ExecuteBody,
  type FlashLoanBody,
  type QuoteAndExecuteBody,
  type QuoteBody,
  type QuoteQuery,
} from '../../operations/defi/requests';
import { flashLoanFailed, presentDefiPortfolio, presentFlashLoan, presentPools, presentSubmitted, presentSwap, presentSwapQuote } from '../../operations/defi/presenters';
import {
  flashLoanGetSchema,
  flashLoanSchema,
  getSwapSchema,
  poolsSchema,
  portfolioSchema,
  quoteAndExecuteSchema,
  swapExecuteSchema,
  swapQuoteQuerySchema,
  swapQuoteSchema,
} from '../../operations/defi/schemas';

export default async function defiRoutes(app: FastifyInstance) {
  await app.register(liquidityRoutes);
  await app.register(stakingRoutes);
  await app.register(lendingRoutes);

  app.post<{ Body: QuoteBody }>('/api/v1/defi/swap/quote', { schema: swapQuoteSchema }, async (request, reply) =>
    reply.code(201).send({ data: presentSwapQuote(await quoteFromBody(caller(request), request.body)) }),
  );

  app.get<{ Querystring: QuoteQuery }>('/api/v2/defi/swap/quote', { schema: swapQuoteQuerySchema }, async (request) => {
    const qs = request.query;
    // The query form lists DEX sources comma-separated.
    const sources = qs.dex_sources ? qs.dex_sources.split(',').map((s) => s.trim()).filter(Boolean) : null;
    return { data: presentSwapQuote(await quoteFromQuery(caller(request), qs, sources)) };
  });

  app.post<{ Body: ExecuteBody }>('/api/v1/defi/swap/execute', { schema: swapExecuteSchema }, async (request, reply) =>
    reply.code(201).send({ data: presentSubmitted(await executeFromBody(caller(request), request.body, requestKeyOf(request))) }),
  );

  app.post<{ Body: QuoteAndExecuteBody }>('/api/v2/defi/swap/execute', { schema: quoteAndExecuteSchema }, async (request, reply) => {
    const { quote, swap } = await quoteAndExecuteFromBody(caller(request), request.body, requestKeyOf(request));
    return reply.code(201).send({ data: { ...presentSubmitted(swap), quote: presentSwapQuote(quote) } });
  });

  const getSwap = async (request: FastifyRequest<{ Params: { swap_id: string } }>) => ({ data: presentSwap(await findSwap(request.params.swap_id, caller(request))) });
  app.get<{ Params: { swap_id: string } }>('/api/v1/defi/swap/:swap_id', { schema: getSwapSchema }, getSwap);
  app.get<{ Params: { swap_id: string } }>('/api/v2/defi/swaps/:swap_id', { schema: getSwapSchema }, getSwap);

  app.post<{ Body: FlashLoanBody }>('/api/v2/defi/flash-loan', { schema: flashLoanSchema }, async (request, reply) => {
    const r = await flashLoanFromBody(caller(request), request.body);
    if (!r.ok) throw flashLoanFailed(r);
    return reply.code(201).send({ data: presentFlashLoan(r.loan) });
  });

  app.get<{ Params: { id: string } }>('/api/v2/defi/flash-loans/:id', { schema: flashLoanGetSchema }, async (request) => ({
    data: presentFlashLoan(await findFlashLoan(request.params.id, caller(request))),
  }));

  app.get('/api/v2/defi/portfolio', { schema: portfolioSchema }, async (request) => {
    const { userId, environment } = caller(request);
    return { data: presentDefiPortfolio(await defiPortfolio(userId, environment)) };
  });

  app.get<{ Querystring: { chain?: string } }>('/api/v2/defi/pools', { schema: poolsSchema }, async (request) => ({
    data: presentPools(await defiPools(caller(request).environment, request.query.chain)),
  }));
}
