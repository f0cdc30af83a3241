import type { FastifyInstance } from 'fastify';
import { getChain } from '../../../domain/chains/registry';
import { resolveAccount } from '../../../domain/defi/accounts';
import { validateFlashLoan, presentFlashLoan, getFlashLoan, type FlashLoanOperationInput } from '../../../domain/defi/flash-loans';
import { custodyAddress } from '../../../domain/chains/custody';
import { DEX_INFO, DEX_NAMES, listLendingPools, listPools } from '../../../domain/defi/pools';
import { defiPortfolio } from '../../../domain/defi/portfolio';
import { fromBaseUnits } from '../../../domain/defi/pricing';
import { createSwapQuote, DEFAULT_SLIPPAGE_BPS, presentQuote, type QuoteInput } from '../../../domain/defi/quotes';
import { createSwap, getSwap, presentSubmitted, presentSwap, waitForSubmission, type SandboxOutcome, type Swap } from '../../../domain/defi/swaps';
import { runFlashLoanWorkflow, startSwapWorkflow } from '../../../domain/defi/workflow';
import { getPool } from '../../../domain/db/pool';
import { DecimalMoney as D } from '../../../domain/money/amount';
import type { Principal } from '../../../domain/auth/principal';
import { DomainError } from '../../../domain/platform/errors';
import { newId } from '../../../domain/platform/ids';
import { ApiError, notFound, type ErrorObject } from '../../errors';
import { decimalString, envelope, errorResponses, timestamp } from '../../schemas';
import { principalOf } from '../../types';

const TAG = 'Decentralized finance';

const routeSchema = {
  type: 'object',
  properties: { dex: { type: 'string' }, path: { type: 'array', items: { type: 'string' } }, pools: { type: 'array', items: { type: 'string' } }, fee_tier: { type: 'string' } },
};

const quoteSchema = {
  type: 'object',
  properties: {
    quote_id: { type: 'string' },
    chain: { type: 'string' },
    token_in: { type: 'string' },
    token_out: { type: 'string' },
    amount_in: { type: 'string' },
    estimated_output: { type: 'string' },
    price_impact_percent: { type: 'string' },
    estimated_gas_usd: { type: 'string' },
    best_route: routeSchema,
    alternative_routes: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          dex: { type: 'string' },
          estimated_output: { type: 'string' },
          price_impact_percent: { type: 'string' },
          path: { type: 'array', items: { type: 'string' } },
          pools: { type: 'array', items: { type: 'string' } },
          fee_tier: { type: 'string' },
          estimated_gas_usd: { type: 'string' },
        },
      },
    },
    minimum_output: { type: 'string' },
    slippage_bps: { type: 'integer' },
    network_fee: { type: 'string' },
    gas_price_gwei: { type: 'string' },
    dex_sources: { type: 'array', items: { type: 'string' } },
    quote_expires_at: timestamp,
    created_at: timestamp,
  },
};

const nullableString = { type: ['string', 'null'] };
const swapSchema = {
  type: 'object',
  properties: {
    swap_id: { type: 'string' },
    quote_id: { type: 'string' },
    status: { type: 'string', enum: ['pending', 'submitted', 'included', 'completed', 'failed'] },
    tx_hash: nullableString,
    chain: { type: 'string' },
    token_in: { type: 'string' },
    token_out: { type: 'string' },
    dex: { type: 'string' },
    amount_in: { type: 'string' },
    expected_output: { type: 'string' },
    minimum_output: { type: 'string' },
    actual_output: nullableString,
    network_fee: nullableString,
    amount_received: nullableString,
    gas_price_gwei: nullableString,
    gas_used: nullableString,
    block_number: { type: ['integer', 'null'] },
    route: routeSchema,
    account_id: { type: 'string' },
    wallet_address: { type: 'string' },
    max_gas_price_gwei: nullableString,
    deadline_at: timestamp,
    workflow_id: { type: 'string' },
    failure: { type: ['object', 'null'], properties: { code: { type: 'string' }, reason: { type: 'string' } } },
    compensation_executed: { type: 'boolean' },
    created_at: timestamp,
    completed_at: nullableString,
    failed_at: nullableString,
    quote: quoteSchema,
  },
};

const loanSchema = { type: 'object', additionalProperties: true };
const dexSourcesSchema = { type: 'array', maxItems: 10, items: { type: 'string', minLength: 1, maxLength: 32 } };
const sandboxOutcomeSchema = { type: 'string', enum: ['revert', 'drop'], description: 'Sandbox keys only: make the sandbox chain revert or drop the swap transaction' };
const tokenSchema = { type: 'string', minLength: 1, maxLength: 64 };
const chainSchema = { type: 'string', minLength: 1, maxLength: 64 };

/** JSON numbers for gas prices and slippage become decimal strings without float noise. */
function numberString(n: number, pointer: string, maxDecimals: number): string {
  const s = String(n);
  if (!Number.isFinite(n) || n < 0 || /e/i.test(s) || (s.split('.')[1]?.length ?? 0) > maxDecimals) {
    throw new ApiError(422, 'INVALID_NUMBER', `must be a non-negative number with at most ${maxDecimals} decimals`, { source: { pointer } });
  }
  return s;
}

/** slippage_tolerance is a fraction (0.005 = 0.5 %), at basis-point resolution, at most 0.5. */
function slippageBps(fraction: number | undefined): number {
  if (fraction === undefined) return DEFAULT_SLIPPAGE_BPS;
  const bps = new D(numberString(fraction, '/slippage_tolerance', 4)).times(10_000);
  if (bps.gt(5000)) throw new ApiError(422, 'INVALID_SLIPPAGE', 'slippage_tolerance is a fraction between 0 and 0.5 (0.005 = 0.5 %)', { source: { pointer: '/slippage_tolerance' } });
  return bps.toNumber();
}

class FlashLoanFailed extends ApiError {
  constructor(
    code: string,
    detail: string,
    pointer: string,
    private readonly meta: Record<string, unknown>,
  ) {
    super(422, code, detail, { source: { pointer } });
  }
  override toErrorObjects(): ErrorObject[] {
    const [first, ...rest] = super.toErrorObjects();
    return [{ ...first, meta: this.meta }, ...rest];
  }
}

interface ExecuteOptions {
  quoteId: string;
  walletAddress?: string;
  maxGasPriceGwei?: string | null;
  deadlineMinutes?: number;
  accountId?: string;
  sandboxOutcome?: SandboxOutcome;
}

/** Spends the quote, starts the workflow and answers once the transaction is submitted (or the swap failed before). */
async function execute(pr: Principal, o: ExecuteOptions): Promise<Swap> {
  const now = new Date();
  let wallet = o.walletAddress;
  let accountId = o.accountId;
  if (!wallet) {
    // No wallet named: the account's custodied address on the chain (the account createSwap will pick).
    const q = (await getPool().query<{ chain: string; asset_in: string; amount_in: string }>('SELECT chain, asset_in, amount_in::text FROM defi_swap_quotes WHERE id = $1 AND user_id = $2', [o.quoteId, pr.userId])).rows[0];
    if (q) {
      accountId = (await resolveAccount({ userId: pr.userId, environment: pr.environment, accountId: o.accountId, assetCode: q.asset_in, chain: q.chain, needed: q.amount_in })).accountId;
      wallet = custodyAddress(accountId, q.chain);
    }
  }
  const s = await createSwap({
    userId: pr.userId,
    environment: pr.environment,
    quoteId: o.quoteId,
    walletAddress: wallet ?? '',
    maxGasPriceGwei: o.maxGasPriceGwei ?? null,
    deadlineMinutes: o.deadlineMinutes ?? 20,
    accountId,
    sandboxOutcome: o.sandboxOutcome,
    now,
  });
  await startSwapWorkflow(s).catch(() => {
    throw new ApiError(503, 'WORKFLOW_UNAVAILABLE', 'The swap could not be started; nothing was moved. Retry with a new quote later.');
  });
  return waitForSubmission(s.id);
}

export default async function defiRoutes(app: FastifyInstance) {
  app.post<{ Body: { chain: string; token_in: string; token_out: string; amount_in: string; slippage_tolerance?: number; dex_sources?: string[] } }>(
    '/api/v1/defi/swap/quote',
    {
      schema: {
        tags: [TAG],
        summary: 'Quote a swap: best route across DEX sources',
        description:
          'Prices every one- and two-hop route (A -> B, A -> X -> B) on each requested DEX (default: all on the chain) with the pools\' exact ' +
          'contract math at their current reserves, and picks the highest output net of gas. price_impact_percent excludes LP fees; ' +
          'estimated_gas_usd prices the route\'s gas at the chain\'s gas price and the native coin\'s USD rate; the network fee (that gas, in ' +
          'token_out) is deducted from the output at settlement. slippage_tolerance is a fraction (default 0.005): minimum_output = ' +
          'estimated_output x (1 - slippage). The quote expires after 30 seconds and can be executed once, by its owner.',
        body: {
          type: 'object',
          required: ['chain', 'token_in', 'token_out', 'amount_in'],
          additionalProperties: false,
          properties: {
            chain: chainSchema,
            token_in: tokenSchema,
            token_out: tokenSchema,
            amount_in: decimalString,
            slippage_tolerance: { type: 'number', minimum: 0, maximum: 0.5 },
            dex_sources: dexSourcesSchema,
          },
        },
        response: { 201: envelope(quoteSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const pr = principalOf(request);
      const b = request.body;
      const q = await createSwapQuote({
        userId: pr.userId,
        environment: pr.environment,
        chain: b.chain,
        tokenIn: b.token_in,
        tokenOut: b.token_out,
        amountIn: b.amount_in,
        slippageBps: slippageBps(b.slippage_tolerance),
        dexSources: b.dex_sources,
        now: new Date(),
      });
      return reply.code(201).send({ data: presentQuote(q) });
    },
  );

  app.get<{ Querystring: { from: string; to: string; amount: string; chain?: string; slippage_bps?: number; dex_sources?: string } }>(
    '/api/v2/defi/swap/quote',
    {
      schema: {
        tags: [TAG],
        summary: 'Best quote across exchanges (query form)',
        description: 'Same pricing as POST /api/v1/defi/swap/quote; chain defaults to ethereum, slippage_bps to 50, dex_sources (comma-separated) to all. The quote is stored and can be executed.',
        querystring: {
          type: 'object',
          required: ['from', 'to', 'amount'],
          additionalProperties: false,
          properties: {
            from: tokenSchema,
            to: tokenSchema,
            amount: decimalString,
            chain: chainSchema,
            slippage_bps: { type: 'integer', minimum: 0, maximum: 5000 },
            dex_sources: { type: 'string', maxLength: 200 },
          },
        },
        response: { 200: envelope(quoteSchema), ...errorResponses },
      },
    },
    async (request) => {
      const pr = principalOf(request);
      const qs = request.query;
      const input: QuoteInput = {
        userId: pr.userId,
        environment: pr.environment,
        chain: qs.chain ?? 'ethereum',
        tokenIn: qs.from,
        tokenOut: qs.to,
        amountIn: qs.amount,
        slippageBps: qs.slippage_bps ?? DEFAULT_SLIPPAGE_BPS,
        dexSources: qs.dex_sources ? qs.dex_sources.split(',').map((s) => s.trim()).filter(Boolean) : null,
        now: new Date(),
        pointers: { chain: '/chain', tokenIn: '/from', tokenOut: '/to', amount: '/amount', dexSources: '/dex_sources' },
      };
      return { data: presentQuote(await createSwapQuote(input)) };
    },
  );

  app.post<{ Body: { quote_id: string; wallet_address: string; max_gas_price_gwei?: number; deadline_minutes?: number; account_id?: string; sandbox_outcome?: SandboxOutcome } }>(
    '/api/v1/defi/swap/execute',
    {
      schema: {
        tags: [TAG],
        summary: 'Execute a swap quote',
        description:
          'Spends the quote (once, by its owner, before it expires: else 422 QUOTE_NOT_FOUND / QUOTE_ALREADY_USED / QUOTE_EXPIRED) and runs the swap ' +
          'workflow: check quote and deadline, reserve token_in on the account\'s chain book, submit (refused when the chain\'s gas price is above ' +
          'max_gas_price_gwei), wait for inclusion until the deadline, execute against the pools at their current reserves (refused below the ' +
          'minimum output), settle in one ledger entry. The answer comes once the transaction is submitted: status submitted with tx_hash (or ' +
          'failed, with the reason, when it failed before). account_id defaults to the caller\'s first account holding enough token_in on the chain.',
        body: {
          type: 'object',
          required: ['quote_id', 'wallet_address'],
          additionalProperties: false,
          properties: {
            quote_id: { type: 'string', minLength: 1, maxLength: 64 },
            wallet_address: { type: 'string', minLength: 1, maxLength: 128 },
            max_gas_price_gwei: { type: 'number', minimum: 0.000000001, description: 'Gwei, at least 1 wei (0.000000001)' },
            deadline_minutes: { type: 'integer', minimum: 1, maximum: 1440, default: 20 },
            account_id: { type: 'string', minLength: 1, maxLength: 64 },
            sandbox_outcome: sandboxOutcomeSchema,
          },
        },
        response: { 201: envelope(swapSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const pr = principalOf(request);
      const b = request.body;
      const s = await execute(pr, {
        quoteId: b.quote_id,
        walletAddress: b.wallet_address,
        maxGasPriceGwei: b.max_gas_price_gwei === undefined ? null : numberString(b.max_gas_price_gwei, '/max_gas_price_gwei', 9),
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
  }>(
    '/api/v2/defi/swap/execute',
    {
      schema: {
        tags: [TAG],
        summary: 'Quote and execute a swap in one call',
        description:
          'Quotes (chain defaults to ethereum) and executes at once with the same workflow as POST /api/v1/defi/swap/execute. The wallet defaults ' +
          'to the account\'s custodied address on the chain. The answer carries the swap and its quote.',
        body: {
          type: 'object',
          required: ['from_token', 'to_token', 'amount'],
          additionalProperties: false,
          properties: {
            from_token: tokenSchema,
            to_token: tokenSchema,
            amount: decimalString,
            slippage_bps: { type: 'integer', minimum: 0, maximum: 5000, default: DEFAULT_SLIPPAGE_BPS },
            chain: chainSchema,
            dex_sources: dexSourcesSchema,
            wallet_address: { type: 'string', minLength: 1, maxLength: 128 },
            max_gas_price_gwei: { type: 'number', minimum: 0.000000001, description: 'Gwei, at least 1 wei (0.000000001)' },
            deadline_minutes: { type: 'integer', minimum: 1, maximum: 1440, default: 20 },
            account_id: { type: 'string', minLength: 1, maxLength: 64 },
            sandbox_outcome: sandboxOutcomeSchema,
          },
        },
        response: { 201: envelope(swapSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const pr = principalOf(request);
      const b = request.body;
      const q = await createSwapQuote({
        userId: pr.userId,
        environment: pr.environment,
        chain: b.chain ?? 'ethereum',
        tokenIn: b.from_token,
        tokenOut: b.to_token,
        amountIn: b.amount,
        slippageBps: b.slippage_bps ?? DEFAULT_SLIPPAGE_BPS,
        dexSources: b.dex_sources,
        now: new Date(),
        pointers: { chain: '/chain', tokenIn: '/from_token', tokenOut: '/to_token', amount: '/amount', dexSources: '/dex_sources' },
      });
      const s = await execute(pr, {
        quoteId: q.id,
        walletAddress: b.wallet_address,
        maxGasPriceGwei: b.max_gas_price_gwei === undefined ? null : numberString(b.max_gas_price_gwei, '/max_gas_price_gwei', 9),
        deadlineMinutes: b.deadline_minutes,
        accountId: b.account_id,
        sandboxOutcome: b.sandbox_outcome,
      });
      return reply.code(201).send({ data: { ...presentSubmitted(s), quote: presentQuote(q) } });
    },
  );

  const getSwapRoute = async (request: { params: { swap_id: string }; principal?: Principal }) => {
    const pr = principalOf(request);
    const s = await getSwap(request.params.swap_id, { userId: pr.userId, environment: pr.environment });
    if (!s) throw notFound('Swap');
    return { data: presentSwap(s) };
  };
  const getSwapSchema = {
    tags: [TAG],
    summary: 'A swap with its status, transaction and outcome',
    params: { type: 'object', required: ['swap_id'], properties: { swap_id: { type: 'string', maxLength: 64 } } },
    response: { 200: envelope(swapSchema), ...errorResponses },
  };
  app.get<{ Params: { swap_id: string } }>('/api/v1/defi/swap/:swap_id', { schema: getSwapSchema }, getSwapRoute);
  app.get<{ Params: { swap_id: string } }>('/api/v2/defi/swaps/:swap_id', { schema: getSwapSchema }, getSwapRoute);

  app.post<{ Body: { token: string; amount: string; operations: FlashLoanOperationInput[]; chain?: string; account_id?: string } }>(
    '/api/v2/defi/flash-loan',
    {
      schema: {
        tags: [TAG],
        summary: 'Flash loan: borrow, run operations, repay, keep the profit - atomically',
        description:
          'Borrows `amount` of `token` from the chain\'s lending pool (fee 0.09 %), runs the operations in order (type swap: everything held of ' +
          '`from` into `to` on the best direct pool of `dex`), repays amount + fee and books the profit minus the network fee on the account\'s ' +
          'chain book. All in one database transaction: if an operation fails or the end balance cannot repay, nothing happens (no ledger entry, ' +
          'pools unchanged) and the 422 names the failing step (source.pointer /operations/<index>, meta.operation_index). chain defaults to ethereum.',
        body: {
          type: 'object',
          required: ['token', 'amount', 'operations'],
          additionalProperties: false,
          properties: {
            token: tokenSchema,
            amount: decimalString,
            chain: chainSchema,
            account_id: { type: 'string', minLength: 1, maxLength: 64 },
            operations: {
              type: 'array',
              minItems: 1,
              maxItems: 10,
              items: {
                type: 'object',
                required: ['type', 'from', 'to', 'dex'],
                additionalProperties: false,
                properties: { type: { type: 'string', minLength: 1, maxLength: 32 }, from: tokenSchema, to: tokenSchema, dex: { type: 'string', minLength: 1, maxLength: 32 } },
              },
            },
          },
        },
        response: { 201: envelope(loanSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const pr = principalOf(request);
      const b = request.body;
      const req = await validateFlashLoan({
        loanId: newId('fl'),
        userId: pr.userId,
        environment: pr.environment,
        accountId: b.account_id,
        chain: b.chain,
        token: b.token,
        amount: b.amount,
        operations: b.operations,
      });
      let r;
      try {
        r = await runFlashLoanWorkflow(req);
      } catch (err) {
        if (err instanceof DomainError) throw err; // a refusal inside the workflow, by its code (domain/defi/workflow.ts)
        throw new ApiError(503, 'WORKFLOW_UNAVAILABLE', 'The flash loan could not be run; nothing happened. Retry later.');
      }
      if (!r.ok) {
        const pointer = r.step === 'operation' ? `/operations/${r.operationIndex}` : r.step === 'borrow' ? '/amount' : '/operations';
        throw new FlashLoanFailed(r.code, r.step === 'operation' ? `Operation ${r.operationIndex} failed: ${r.reason}` : r.reason, pointer, {
          failed_step: r.step,
          operation_index: r.operationIndex,
          rolled_back: true,
        });
      }
      return reply.code(201).send({ data: presentFlashLoan(r.loan) });
    },
  );

  app.get<{ Params: { id: string } }>(
    '/api/v2/defi/flash-loans/:id',
    {
      schema: {
        tags: [TAG],
        summary: 'A completed flash loan',
        params: { type: 'object', required: ['id'], properties: { id: { type: 'string', maxLength: 64 } } },
        response: { 200: envelope(loanSchema), ...errorResponses },
      },
    },
    async (request) => {
      const pr = principalOf(request);
      const l = await getFlashLoan(request.params.id, { userId: pr.userId, environment: pr.environment });
      if (!l) throw notFound('Flash loan');
      return { data: presentFlashLoan(l) };
    },
  );

  app.get(
    '/api/v2/defi/portfolio',
    {
      schema: {
        tags: [TAG],
        summary: 'DeFi portfolio: holdings per chain, swaps, flash loans, positions',
        description:
          'Token holdings per chain and asset from the ledger\'s chain books with USD values, the latest swaps and flash loans. The platform offers ' +
          'no lending, staking, liquidity or yield products: those position lists are empty (see note).',
        response: { 200: envelope({ type: 'object', additionalProperties: true }), ...errorResponses },
      },
    },
    async (request) => {
      const pr = principalOf(request);
      return { data: await defiPortfolio(pr.userId, pr.environment) };
    },
  );

  app.get<{ Querystring: { chain?: string } }>(
    '/api/v2/defi/pools',
    {
      schema: {
        tags: [TAG],
        summary: 'DEX pools and flash-loan lenders with their current reserves',
        querystring: { type: 'object', additionalProperties: false, properties: { chain: chainSchema } },
        response: { 200: envelope({ type: 'object', additionalProperties: true }), ...errorResponses },
      },
    },
    async (request) => {
      const pr = principalOf(request);
      const chain = request.query.chain ? getChain(request.query.chain, '/chain').id : undefined;
      const [pools, lenders] = await Promise.all([listPools(getPool(), pr.environment, chain), listLendingPools(getPool(), pr.environment, chain)]);
      return {
        data: {
          dexes: DEX_NAMES.map((d) => ({ dex: d, ...DEX_INFO[d] })),
          pools: pools.map((p) => ({
            id: p.id,
            chain: p.chain,
            dex: p.dex,
            kind: p.kind,
            address: p.address,
            fee_tier: `${new D(p.feePpm).div(10_000).toFixed()}%`,
            amplification: p.amplification,
            weights: p.weights,
            tokens: p.tokens.map((t, i) => ({ asset_code: t, decimals: p.decimals[i], reserve: fromBaseUnits(p.reserves[i], p.decimals[i]) })),
            swap_count: p.swapCount,
            updated_at: p.updatedAt.toISOString(),
          })),
          lending_pools: lenders.map((l) => ({
            id: l.id,
            chain: l.chain,
            protocol: l.protocol,
            asset_code: l.token,
            liquidity: fromBaseUnits(l.liquidity, l.decimals),
            flash_loan_fee: `${new D(l.feePpm).div(10_000).toFixed()}%`,
            loan_count: l.loanCount,
          })),
        },
      };
    },
  );
}
