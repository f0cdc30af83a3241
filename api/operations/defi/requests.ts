/**
 * Each DeFi swap and flash-loan request as its REST body (or query) reaches the domain: one mapping,
 * used by the REST routes (./index.ts) and by GraphQL (api/graphql/areas/defi.ts, after checking its
 * input against the same schema).
 */
import type { FlashLoanOperationInput } from '../../../domain/defi/flash-loans';
import { executeSwap, quoteAndExecuteSwap, quoteSwap, runFlashLoan } from '../../../domain/defi/operations';
import type { SandboxOutcome } from '../../../domain/defi/swaps';
import type { Environment } from '../../../domain/platform/environment';

type Who = { userId: string; environment: Environment };

export type QuoteBody = { chain: string; token_in: string; token_out: string; amount_in: string; slippage_tolerance?: number; dex_sources?: string[] };
export type QuoteQuery = { from: string; to: string; amount: string; chain?: string; slippage_bps?: number; dex_sources?: string };
export type ExecuteBody = { quote_id: string; wallet_address: string; max_gas_price_gwei?: number; deadline_minutes?: number; account_id?: string; sandbox_outcome?: SandboxOutcome };
export type QuoteAndExecuteBody = {
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
export type FlashLoanBody = { token: string; amount: string; operations: FlashLoanOperationInput[]; chain?: string; account_id?: string };

export const quoteFromBody = (who: Who, b: QuoteBody) =>
  quoteSwap({ ...who, chain: b.chain, tokenIn: b.token_in, tokenOut: b.token_out, amountIn: b.amount_in, slippageTolerance: b.slippage_tolerance, dexSources: b.dex_sources, now: new Date() });

/** The v2 query form; `dexSources` already split (REST takes them comma-separated, GraphQL as a list); none or empty: every DEX. */
export const quoteFromQuery = (who: Who, q: QuoteQuery, dexSources: string[] | null) =>
  quoteSwap({
    ...who,
    chain: q.chain,
    tokenIn: q.from,
    tokenOut: q.to,
    amountIn: q.amount,
    slippageBps: q.slippage_bps,
    dexSources: dexSources?.length ? dexSources : null,
    now: new Date(),
    pointers: { chain: '/chain', tokenIn: '/from', tokenOut: '/to', amount: '/amount', dexSources: '/dex_sources' },
  });

/** `requestKey`: the request's Idempotency-Key as the swap records it (api/plugins/idempotency.ts requestKeyOf). */
export const executeFromBody = (who: Who, b: ExecuteBody, requestKey?: string) =>
  executeSwap({ ...who, quoteId: b.quote_id, walletAddress: b.wallet_address, maxGasPriceGwei: b.max_gas_price_gwei, deadlineMinutes: b.deadline_minutes, accountId: b.account_id, sandboxOutcome: b.sandbox_outcome, requestKey });

export const quoteAndExecuteFromBody = (who: Who, b: QuoteAndExecuteBody, requestKey?: string) =>
  quoteAndExecuteSwap(
    {
      ...who,
      chain: b.chain,
      tokenIn: b.from_token,
      tokenOut: b.to_token,
      amountIn: b.amount,
      slippageBps: b.slippage_bps,
      dexSources: b.dex_sources,
      now: new Date(),
      pointers: { chain: '/chain', tokenIn: '/from_token', tokenOut: '/to_token', amount: '/amount', dexSources: '/dex_sources' },
    },
    { walletAddress: b.wallet_address, maxGasPriceGwei: b.max_gas_price_gwei, deadlineMinutes: b.deadline_minutes, accountId: b.account_id, sandboxOutcome: b.sandbox_outcome, requestKey },
  );

export const flashLoanFromBody = (who: Who, b: FlashLoanBody) => runFlashLoan({ ...who, accountId: b.account_id, chain: b.chain, token: b.token, amount: b.amount, operations: b.operations });
