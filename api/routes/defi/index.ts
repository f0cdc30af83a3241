/**
 * DeFi routes: each handler is caller -> one domain operation (domain/defi/operations.ts) ->
 * presenter (./presenters.ts); schemas in ./schemas.ts.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { FlashLoanOperationInput } from '../../../domain/defi/flash-loans';
import { defiPools, executeSwap, findFlashLoan, findSwap, quoteAndExecuteSwap, quoteSwap, runFlashLoan } from '../../../domain/defi/operations';
import { defiPortfolio } from '../../../domain/defi/portfolio';
import type { SandboxOutcome } from '../../../domain/defi/swaps';
import { caller } from '../caller';
import lendingRoutes from './lending';
import liquidityRoutes from './liquidity';
import stakingRoutes from './staking';
import { flashLoanFailed, presentDefiPortfolio, presentFlashLoan, presentPools, presentSubmitted, presentSwap, presentSwapQuote } from './presenters';
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
} from './schemas';

export default async function defiRoutes(app: FastifyInstance) {
  await app.register(liquidityRoutes);
  await app.register(stakingRoutes);
  await app.register(lendingRoutes);

  app.post<{ Body: { chain: string; token_in: string; token_out: string; amount_in: string; slippage_tolerance?: number; dex_sources?: string[] } }>(
    '/api/v1/defi/swap/quote',
    { schema: swapQuoteSchema },
    async (request, reply) => {
      const b = request.body;
      const q = await quoteSwap({
        ...caller(request),
        chain: b.chain,
        tokenIn: b.token_in,
        tokenOut: b.token_out,
        amountIn: b.amount_in,
        slippageTolerance: b.slippage_tolerance,
        dexSources: b.dex_sources,
        now: new Date(),
      });
      return reply.code(201).send({ data: presentSwapQuote(q) });
    },
  );

  app.get<{ Querystring: { from: string; to: string; amount: string; chain?: string; slippage_bps?: number; dex_sources?: string } }>(
    '/api/v2/defi/swap/quote',
    { schema: swapQuoteQuerySchema },
    async (request) => {
      const qs = request.query;
      const q = await quoteSwap({
        ...caller(request),
        chain: qs.chain,
        tokenIn: qs.from,
        tokenOut: qs.to,
        amountIn: qs.amount,
        slippageBps: qs.slippage_bps,
        // The query form lists DEX sources comma-separated.
        dexSources: qs.dex_sources ? qs.dex_sources.split(',').map((s) => s.trim()).filter(Boolean) : null,
        now: new Date(),
        pointers: { chain: '/chain', tokenIn: '/from', tokenOut: '/to', amount: '/amount', dexSources: '/dex_sources' },
      });
      return { data: presentSwapQuote(q) };
    },
  );

  app.post<{ Body: { quote_id: string; wallet_address: string; max_gas_price_gwei?: number; deadline_minutes?: number; account_id?: string; sandbox_outcome?: SandboxOutcome } }>(
    '/api/v1/defi/swap/execute',
    { schema: swapExecuteSchema },
    async (request, reply) => {
      const b = request.body;
      const s = await executeSwap({
        ...caller(request),
        quoteId: b.quote_id,
        walletAddress: b.wallet_address,
        maxGasPriceGwei: b.max_gas_price_gwei,
        deadlineMinutes: b.deadline_minutes,
        accountId: b.account_id,
        sandboxOutcome: b.sandbox_outcome,
      });
      return reply.code(201).send({ data: presentSubmitted(s) });
    },
  );

  app.post<{
    Body: {
      from_token: string;
      to_token: string;
      amount: string;
      slippage_bps?: number;
      chain?: string;
      dex_sources?: string[];
      wallet_address?: string;
      max_gas_price_gwei?: number;
      deadline_minutes?: number;
      account_id?: string;
      sandbox_outcome?: SandboxOutcome;
    };
  }>('/api/v2/defi/swap/execute', { schema: quoteAndExecuteSchema }, async (request, reply) => {
    const b = request.body;
    const { quote, swap } = await quoteAndExecuteSwap(
      {
        ...caller(request),
        chain: b.chain,
        tokenIn: b.from_token,
        tokenOut: b.to_token,
        amountIn: b.amount,
        slippageBps: b.slippage_bps,
        dexSources: b.dex_sources,
        now: new Date(),
        pointers: { chain: '/chain', tokenIn: '/from_token', tokenOut: '/to_token', amount: '/amount', dexSources: '/dex_sources' },
      },
      {
        walletAddress: b.wallet_address,
        maxGasPriceGwei: b.max_gas_price_gwei,
        deadlineMinutes: b.deadline_minutes,
        accountId: b.account_id,
        sandboxOutcome: b.sandbox_outcome,
      },
    );
    return reply.code(201).send({ data: { ...presentSubmitted(swap), quote: presentSwapQuote(quote) } });
  });

  const getSwap = async (request: FastifyRequest<{ Params: { swap_id: string } }>) => ({ data: presentSwap(await findSwap(request.params.swap_id, caller(request))) });
  app.get<{ Params: { swap_id: string } }>('/api/v1/defi/swap/:swap_id', { schema: getSwapSchema }, getSwap);
  app.get<{ Params: { swap_id: string } }>('/api/v2/defi/swaps/:swap_id', { schema: getSwapSchema }, getSwap);

  app.post<{ Body: { token: string; amount: string; operations: FlashLoanOperationInput[]; chain?: string; account_id?: string } }>(
    '/api/v2/defi/flash-loan',
    { schema: flashLoanSchema },
    async (request, reply) => {
      const b = request.body;
      const r = await runFlashLoan({ ...caller(request), accountId: b.account_id, chain: b.chain, token: b.token, amount: b.amount, operations: b.operations });
      if (!r.ok) throw flashLoanFailed(r);
      return reply.code(201).send({ data: presentFlashLoan(r.loan) });
    },
  );

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
