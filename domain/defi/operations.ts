/**
 * The DeFi operations as every transport calls them (REST today; GraphQL or MCP would call the
 * same): one function per operation, taking the caller's user and environment. An operation that
 * starts a workflow records first, then starts it; when Temporal refuses, the record fails with
 * nothing moved (./workflow.ts) and the caller gets WORKFLOW_UNAVAILABLE.
 */
import { custodyAddress } from '../chains/custody';
import { findChain, findToken, getChain } from '../chains/registry';
import { getPool as getDb } from '../db/pool';
import { DecimalMoney as D } from '../money/amount';
import type { Environment } from '../platform/environment';
import { DomainError } from '../platform/errors';
import { newId } from '../platform/ids';
import { resolveAccount } from './accounts';
import { createCrosschainSwap, crosschainSwapLegs, getCrosschainSwap, type CrosschainSwap, type CrosschainSwapInput, type CrosschainSwapLegs } from './swaps/crosschain';
import { getFlashLoan, validateFlashLoan, type FlashLoan, type FlashLoanOperationInput, type FlashLoanResult } from './flash-loans';
import { DEX_INFO, DEX_NAMES, listLendingPools, listPools, type DexName, type DexPool, type LendingPool } from './pools';
import { createSwapQuote, DEFAULT_SLIPPAGE_BPS, getSwapQuote, type QuoteInput, type SwapQuote } from './swaps/quotes';
import { createSwap, findSwapByRequestKey, getSwap, waitForSubmission, type SandboxOutcome, type Swap } from './swaps/index';
import { runFlashLoanWorkflow, startCrosschainSwapWorkflow, startSwapWorkflow } from './workflow';

export interface Caller {
  userId: string;
  environment: Environment;
}

// ---------------------------------------------------------------------------------------------
// Numbers given as JSON numbers
// ---------------------------------------------------------------------------------------------

/** A JSON number (gas price, slippage) as a decimal string without float noise; 422 INVALID_NUMBER otherwise. */
export function decimalFromNumber(n: number, pointer: string, maxDecimals: number): string {
  const s = String(n);
  if (!Number.isFinite(n) || n < 0 || /e/i.test(s) || (s.split('.')[1]?.length ?? 0) > maxDecimals) {
    throw new DomainError('INVALID_NUMBER', `must be a non-negative number with at most ${maxDecimals} decimals`, pointer);
  }
  return s;
}

/** slippage_tolerance is a fraction (0.005 = 0.5 %), at basis-point resolution, at most 0.5; default 50 bps. */
export function slippageBpsOfFraction(fraction: number | undefined, pointer = '/slippage_tolerance'): number {
  if (fraction === undefined) return DEFAULT_SLIPPAGE_BPS;
  const bps = new D(decimalFromNumber(fraction, pointer, 4)).times(10_000);
  if (bps.gt(5000)) throw new DomainError('INVALID_SLIPPAGE', 'slippage_tolerance is a fraction between 0 and 0.5 (0.005 = 0.5 %)', pointer);
  return bps.toNumber();
}

// ---------------------------------------------------------------------------------------------
// Swaps
// ---------------------------------------------------------------------------------------------

export type SwapQuoteInput = Omit<QuoteInput, 'slippageBps' | 'chain'> & {
  /** Default ethereum. */
  chain?: unknown;
  /** Basis points; default 50. */
  slippageBps?: number;
  /** Or a fraction (0.005 = 0.5 %), as POST /api/v1/defi/swap/quote takes it. */
  slippageTolerance?: number;
};

/** Prices and stores a swap quote (./quotes.ts). */
export function quoteSwap(input: SwapQuoteInput): Promise<SwapQuote> {
  const { slippageTolerance, slippageBps, chain, ...rest } = input;
  return createSwapQuote({ ...rest, chain: chain ?? 'ethereum', slippageBps: slippageTolerance !== undefined ? slippageBpsOfFraction(slippageTolerance) : (slippageBps ?? DEFAULT_SLIPPAGE_BPS) });
}

export interface ExecuteSwapInput extends Caller {
  quoteId: string;
  /** Without it: the paying account's custodied address on the quote's chain. */
  walletAddress?: string;
  /** Gwei, as given (a JSON number); checked at gwei resolution (9 decimals). */
  maxGasPriceGwei?: number;
  deadlineMinutes?: number;
  accountId?: string;
  sandboxOutcome?: SandboxOutcome;
  /** The request's Idempotency-Key as its scope records it (CreateSwapInput.requestKey). */
  requestKey?: string;
}

/** 409 IDEMPOTENCY_CONFLICT: the request's key made another swap (the middleware's answer is gone after 24 hours, the swap's key is not). */
function keyReused(s: Swap): DomainError {
  return new DomainError('IDEMPOTENCY_CONFLICT', 'This Idempotency-Key was already used for another swap', undefined, { swap_id: s.id });
}

/**
 * A request that ran before (its Idempotency-Key taken over after a crash) gets its first run's
 * swap as it is now; its workflow is started again if still pending (same id: a running one is left
 * as it is, one the first run died before starting starts now; a refusal leaves the swap pending).
 */
async function replaySwap(s: Swap): Promise<Swap> {
  if (s.status === 'pending') {
    await startSwapWorkflow(s, { failOnRefusal: false }).catch(() => {
      throw new DomainError('WORKFLOW_UNAVAILABLE', 'The swap is recorded but its workflow could not be confirmed. Retry later.');
    });
  }
  return waitForSubmission(s.id);
}

/**
 * Spends the quote, records the swap, starts its workflow and answers once the transaction is
 * submitted (or the swap failed before): the swap as it is then. With a request key a swap holds
 * already: that swap (the same quote, else 409 IDEMPOTENCY_CONFLICT).
 */
export function executeSwap(input: ExecuteSwapInput): Promise<Swap> {
  return execute(input, (s) => s.quoteId === input.quoteId && s.userId === input.userId && s.environment === input.environment);
}

/** executeSwap, with what makes a swap found by the request key this request's (else 409). */
async function execute(input: ExecuteSwapInput, sameRequest: (s: Swap) => boolean): Promise<Swap> {
  if (input.requestKey) {
    const known = await findSwapByRequestKey(input.requestKey);
    if (known) {
      if (!sameRequest(known)) throw keyReused(known);
      return replaySwap(known);
    }
  }
  const maxGasPriceGwei = input.maxGasPriceGwei === undefined ? null : decimalFromNumber(input.maxGasPriceGwei, '/max_gas_price_gwei', 9);
  const now = new Date();
  let wallet = input.walletAddress;
  let accountId = input.accountId;
  if (!wallet) {
    // No wallet named: the account's custodied address on the chain (the account createSwap will pick).
    const q = await getSwapQuote(input.quoteId, { userId: input.userId });
    if (q) {
      accountId = (await resolveAccount({ userId: input.userId, environment: input.environment, accountId: input.accountId, assetCode: q.assetIn, chain: q.chain, needed: q.amountIn })).accountId;
      wallet = custodyAddress(accountId, q.chain);
    }
  }
  const s = await createSwap({
    userId: input.userId,
    environment: input.environment,
    quoteId: input.quoteId,
    walletAddress: wallet ?? '',
    maxGasPriceGwei,
    deadlineMinutes: input.deadlineMinutes ?? 20,
    accountId,
    sandboxOutcome: input.sandboxOutcome,
    requestKey: input.requestKey,
    now,
  });
  if (s.replayed) {
    // Another run of the same request recorded its swap first.
    if (!sameRequest(s)) throw keyReused(s);
    return replaySwap(s);
  }
  await startSwapWorkflow(s).catch(() => {
    throw new DomainError('WORKFLOW_UNAVAILABLE', 'The swap could not be started; nothing was moved. Retry with a new quote later.');
  });
  return waitForSubmission(s.id);
}

/**
 * Quotes and executes at once; the answer carries both. With a request key a swap holds already
 * (the request ran before): that swap and its quote, no new quote (a key reused for another pair
 * or amount: 409 IDEMPOTENCY_CONFLICT).
 */
export async function quoteAndExecuteSwap(
  quote: SwapQuoteInput,
  executeInput: Omit<ExecuteSwapInput, 'userId' | 'environment' | 'quoteId'>,
): Promise<{ quote: SwapQuote; swap: Swap }> {
  const same = (s: Swap) => sameTrade(s, quote);
  if (executeInput.requestKey) {
    const known = await findSwapByRequestKey(executeInput.requestKey);
    if (known) {
      if (!same(known)) throw keyReused(known);
      return { quote: (await getSwapQuote(known.quoteId))!, swap: await replaySwap(known) };
    }
  }
  const q = await quoteSwap(quote);
  const swap = await execute({ ...executeInput, userId: quote.userId, environment: quote.environment, quoteId: q.id }, same);
  // A swap of another run of the same request (recorded while this one quoted) comes with its own quote.
  return { quote: swap.quoteId === q.id ? q : (await getSwapQuote(swap.quoteId))!, swap };
}

/** Whether a swap is the trade this quote request asks for (caller, chain, tokens and amount). */
function sameTrade(s: Swap, quote: SwapQuoteInput): boolean {
  let sameAmount = false;
  try {
    sameAmount = new D(s.amountIn).eq(String(quote.amountIn));
  } catch {
    sameAmount = false;
  }
  const chain = findChain(quote.chain ?? 'ethereum');
  return (
    sameAmount &&
    s.userId === quote.userId &&
    s.environment === quote.environment &&
    chain?.id === s.chain &&
    findToken(chain.id, quote.tokenIn)?.symbol === s.tokenIn &&
    findToken(chain.id, quote.tokenOut)?.symbol === s.tokenOut
  );
}

/** The caller's swap (404 NOT_FOUND for anyone else's). */
export async function findSwap(id: string, caller: Caller): Promise<Swap> {
  const s = await getSwap(id, { userId: caller.userId, environment: caller.environment });
  if (!s) throw new DomainError('NOT_FOUND', 'Swap not found');
  return s;
}

// ---------------------------------------------------------------------------------------------
// Flash loans
// ---------------------------------------------------------------------------------------------

export interface FlashLoanInput extends Caller {
  accountId?: string | null;
  chain?: string | null;
  token: unknown;
  amount: unknown;
  operations: FlashLoanOperationInput[];
}

/**
 * Checks the request, runs the loan's workflow and waits for it: the loan, or which step failed
 * and why (nothing happened then). A refusal raised inside the workflow is a DomainError with its
 * code; Temporal not answering is WORKFLOW_UNAVAILABLE.
 */
export async function runFlashLoan(input: FlashLoanInput): Promise<FlashLoanResult> {
  const req = await validateFlashLoan({
    loanId: newId('fl'),
    userId: input.userId,
    environment: input.environment,
    accountId: input.accountId,
    chain: input.chain,
    token: input.token,
    amount: input.amount,
    operations: input.operations,
  });
  try {
    return await runFlashLoanWorkflow(req);
  } catch (err) {
    if (err instanceof DomainError) throw err; // a refusal inside the workflow, by its code (./workflow.ts)
    throw new DomainError('WORKFLOW_UNAVAILABLE', 'The flash loan could not be run; nothing happened. Retry later.');
  }
}

/** The caller's flash loan (404 NOT_FOUND for anyone else's). */
export async function findFlashLoan(id: string, caller: Caller): Promise<FlashLoan> {
  const l = await getFlashLoan(id, { userId: caller.userId, environment: caller.environment });
  if (!l) throw new DomainError('NOT_FOUND', 'Flash loan not found');
  return l;
}

// ---------------------------------------------------------------------------------------------
// Cross-chain swaps
// ---------------------------------------------------------------------------------------------

export interface CrosschainSwapView {
  record: CrosschainSwap;
  legs: CrosschainSwapLegs;
}

/** Checks and records the cross-chain swap, then starts its workflow; the record with its legs. */
export async function startCrosschainSwap(input: CrosschainSwapInput): Promise<CrosschainSwapView> {
  const x = await createCrosschainSwap(input);
  await startCrosschainSwapWorkflow(x, input.sandboxOutcome ?? null).catch(() => {
    throw new DomainError('WORKFLOW_UNAVAILABLE', 'The operation could not be started; nothing was moved. Retry later.');
  });
  return { record: x, legs: await crosschainSwapLegs(x) };
}

/** The caller's cross-chain swap with its legs (404 NOT_FOUND for anyone else's). */
export async function findCrosschainSwap(id: string, caller: Caller): Promise<CrosschainSwapView> {
  const x = await getCrosschainSwap(id, { userId: caller.userId, environment: caller.environment });
  if (!x) throw new DomainError('NOT_FOUND', 'Cross-chain swap not found');
  return { record: x, legs: await crosschainSwapLegs(x) };
}

// ---------------------------------------------------------------------------------------------
// Pools
// ---------------------------------------------------------------------------------------------

export interface DefiPools {
  dexes: Array<{ dex: DexName; name: string; model: string }>;
  pools: DexPool[];
  lendingPools: LendingPool[];
}

/** The DEXes, their pools and the flash-loan lenders in the environment (one chain when given; unknown chain: 422 at /chain). */
export async function defiPools(environment: Environment, chainInput?: string): Promise<DefiPools> {
  const chain = chainInput ? getChain(chainInput, '/chain').id : undefined;
  const [pools, lendingPools] = await Promise.all([listPools(getDb(), environment, chain), listLendingPools(getDb(), environment, chain)]);
  return { dexes: DEX_NAMES.map((d) => ({ dex: d, ...DEX_INFO[d] })), pools, lendingPools };
}
