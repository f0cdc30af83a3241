/**
 * The DeFi routes' wire shapes (snake_case): the domain returns records, these present them. A
 * flash loan's failed step becomes its 422 here (flashLoanFailed).
 */
import type { DefiPools } from '../../../domain/defi/operations';
import type { DefiPortfolio } from '../../../domain/defi/portfolio';
import { lpShares, type LiquidityPosition } from '../../../domain/defi/liquidity';
import type { ValuedPosition } from '../../../domain/defi/liquidity/value';
import type { FlashLoan, FlashLoanResult } from '../../../domain/defi/flash-loans';
import { fromBaseUnits } from '../../../domain/defi/swaps/pricing';
import type { SwapQuote } from '../../../domain/defi/swaps/quotes';
import { amountReceived, type Swap } from '../../../domain/defi/swaps';
import { DecimalMoney as D } from '../../../domain/money/amount';
import { ApiError, type ErrorObject } from '../../errors';
import { presentLendingPosition } from './lending-presenters';
import { presentStakingPosition } from './staking-presenters';

/** The spec's Swap quote record (plus the minimum, slippage, gas price and network fee). */
export function presentSwapQuote(q: SwapQuote) {
  return {
    quote_id: q.id,
    chain: q.chain,
    token_in: q.tokenIn,
    token_out: q.tokenOut,
    amount_in: q.amountIn,
    estimated_output: q.estimatedOutput,
    price_impact_percent: q.priceImpactPercent,
    estimated_gas_usd: q.estimatedGasUsd,
    best_route: { dex: q.route.dex, path: q.route.path, pools: q.route.pools, fee_tier: q.route.fee_tier },
    alternative_routes: q.alternatives.map((a) => ({
      dex: a.dex,
      estimated_output: a.estimated_output,
      price_impact_percent: a.price_impact_percent,
      path: a.path,
      pools: a.pools,
      fee_tier: a.fee_tier,
      estimated_gas_usd: a.estimated_gas_usd,
    })),
    minimum_output: q.minimumOutput,
    slippage_bps: q.slippageBps,
    network_fee: q.networkFee,
    gas_price_gwei: q.gasPriceGwei,
    dex_sources: q.dexSources,
    quote_expires_at: q.expiresAt.toISOString(),
    created_at: q.createdAt.toISOString(),
  };
}

/** The spec's Swap execution record, with the outcome fields once known. */
export function presentSwap(s: Swap) {
  return {
    swap_id: s.id,
    quote_id: s.quoteId,
    status: s.status,
    tx_hash: s.txHash,
    chain: s.chain,
    token_in: s.tokenIn,
    token_out: s.tokenOut,
    dex: s.dex,
    amount_in: s.amountIn,
    expected_output: s.expectedOutput,
    minimum_output: s.minimumOutput,
    actual_output: s.actualOutput,
    network_fee: s.networkFee,
    amount_received: amountReceived(s),
    gas_price_gwei: s.gasPriceGwei,
    gas_used: s.gasUsed,
    block_number: s.blockNumber === null ? null : Number(s.blockNumber),
    route: { dex: s.route.dex, path: s.route.path, pools: s.route.pools, fee_tier: s.route.fee_tier },
    account_id: s.accountId,
    wallet_address: s.walletAddress,
    max_gas_price_gwei: s.maxGasPriceGwei,
    deadline_at: s.deadlineAt.toISOString(),
    workflow_id: s.workflowId,
    failure: s.failureCode ? { code: s.failureCode, reason: s.failureReason ?? '' } : null,
    compensation_executed: s.compensationExecuted,
    created_at: s.createdAt.toISOString(),
    completed_at: s.completedAt?.toISOString() ?? null,
    failed_at: s.failedAt?.toISOString() ?? null,
  };
}

/**
 * The execute answer: the swap as it was when its transaction was submitted (the spec's
 * 'submitted' with tx_hash), even if a fast chain has already included or settled it by the time
 * the answer is written; GET shows the progress. A swap that failed before submission, or is
 * still pending when the wait ends, is shown as it is.
 */
export function presentSubmitted(s: Swap) {
  const v = presentSwap(s);
  if (!s.txHash) return v;
  return { ...v, status: 'submitted' as const, actual_output: null, network_fee: null, amount_received: null, gas_used: null, block_number: null, failure: null, compensation_executed: false, completed_at: null, failed_at: null };
}

export function presentFlashLoan(l: FlashLoan) {
  return {
    id: l.id,
    status: 'completed',
    chain: l.chain,
    lending_pool: l.lendingPoolId,
    token: l.token,
    amount: l.amount,
    fee: l.fee,
    operations: l.operations,
    final_amount: l.finalAmount,
    network_fee: l.networkFee,
    profit: l.profit,
    account_id: l.accountId,
    entry_id: l.entryId,
    workflow_id: l.workflowId,
    created_at: l.createdAt,
  };
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

/** A flash loan that failed inside (nothing happened): 422 naming the failing step (pointer and meta). */
export function flashLoanFailed(r: Extract<FlashLoanResult, { ok: false }>): ApiError {
  const pointer = r.step === 'operation' ? `/operations/${r.operationIndex}` : r.step === 'borrow' ? '/amount' : '/operations';
  return new FlashLoanFailed(r.code, r.step === 'operation' ? `Operation ${r.operationIndex} failed: ${r.reason}` : r.reason, pointer, {
    failed_step: r.step,
    operation_index: r.operationIndex,
    rolled_back: true,
  });
}

export function presentDefiPortfolio(p: DefiPortfolio) {
  return {
    total_usd_value: p.totalUsdValue,
    chains: p.chains.map((c) => ({ chain: c.chain, usd_value: c.usdValue })),
    holdings: p.holdings.map((h) => ({
      account_id: h.accountId,
      chain: h.chain,
      asset_code: h.assetCode,
      token: h.token,
      available_balance: h.availableBalance,
      reserved_balance: h.reservedBalance,
      total_balance: h.totalBalance,
      usd_value: h.usdValue,
    })),
    swaps: p.swaps.map(presentSwap),
    flash_loans: p.flashLoans.map(presentFlashLoan),
    lending_positions: p.lendingPositions.map(presentLendingPosition),
    staking_positions: p.stakingPositions.map(presentStakingPosition),
    liquidity_positions: p.liquidityPositions.map(presentLiquidityPosition),
    yield_positions: p.yieldPositions.map((y) => ({
      position_id: y.positionId,
      position_type: y.positionType,
      source: y.source,
      chain: y.chain,
      protocol: y.protocol,
      asset_codes: y.assetCodes,
      amount: y.amount,
      annual_rate: y.annualRate,
      pending_rewards: y.pendingRewards,
      usd_value: y.usdValue,
    })),
    note: p.note,
  };
}

export function presentPools(p: DefiPools) {
  return {
    dexes: p.dexes,
    pools: p.pools.map((pool) => ({
      id: pool.id,
      chain: pool.chain,
      dex: pool.dex,
      kind: pool.kind,
      address: pool.address,
      fee_tier: `${new D(pool.feePpm).div(10_000).toFixed()}%`,
      amplification: pool.amplification,
      weights: pool.weights,
      tokens: pool.tokens.map((t, i) => ({ asset_code: t, decimals: pool.decimals[i], reserve: fromBaseUnits(pool.reserves[i], pool.decimals[i]) })),
      swap_count: pool.swapCount,
      updated_at: pool.updatedAt.toISOString(),
    })),
    lending_pools: p.lendingPools.map((l) => ({
      id: l.id,
      chain: l.chain,
      protocol: l.protocol,
      asset_code: l.token,
      liquidity: fromBaseUnits(l.liquidity, l.decimals),
      flash_loan_fee: `${new D(l.feePpm).div(10_000).toFixed()}%`,
      loan_count: l.loanCount,
    })),
  };
}

export function presentLiquidityPosition(p: LiquidityPosition | ValuedPosition) {
  const v = 'valuation' in p ? p.valuation : null;
  return {
    position_id: p.id,
    position_type: 'liquidity' as const,
    status: p.status,
    account_id: p.accountId,
    chain: p.chain,
    dex: p.dex,
    pool_id: p.poolId,
    tokens: p.tokens,
    deposited: p.deposited,
    withdrawn: p.withdrawn,
    shares: lpShares(p.shares),
    shares_minted: lpShares(p.sharesMinted),
    open_entry_id: p.openEntryId,
    close_entry_id: p.closeEntryId,
    valuation: v && {
      amounts: v.amounts,
      hold_amounts: v.holdAmounts,
      pool_share_percent: v.poolSharePercent,
      usd_value: v.usdValue,
      hold_usd_value: v.holdUsdValue,
      impermanent_loss_usd: v.impermanentLossUsd,
      impermanent_loss_percent: v.impermanentLossPercent,
    },
    created_at: p.createdAt.toISOString(),
    closed_at: p.closedAt ? p.closedAt.toISOString() : null,
  };
}

export function presentLiquidityRemoval(r: { position: LiquidityPosition; amounts: string[]; sharesBurnt: bigint; entryId: string }) {
  return { position: presentLiquidityPosition(r.position), amounts: r.amounts, shares_burnt: lpShares(r.sharesBurnt), entry_id: r.entryId };
}
