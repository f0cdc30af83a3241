/**
 * Settling a swap: the DEX executes the included transaction against the pools at their current
 * reserves and the ledger books the result in one entry (called by the swap workflow's activity).
 */
import type { ChainTx } from '../../chains/adapter';
import { getChain, getToken } from '../../chains/registry';
import { withTransaction } from '../../db/pool';
import { writeOutboxEvent } from '../../events/outbox';
import { postEntry, systemAccount, voidPending, workflowIdempotencyKey, type LineInput } from '../../ledger';
import { DecimalMoney as D } from '../../money/amount';
import { newId } from '../../platform/ids';
import { latestRate } from '../../rates';
import { dexSettlementAccount, ensureChainLedgerAccount } from '../accounts';
import { gasCostNative, nativeUsdPrice } from '../gas';
import { lockPools, saveReserves, type DexPool } from '../pools';
import { applySwap, floorToPrecision, fromBaseUnits, getAmountOut, PricingError, toBaseUnits } from './pricing';
import { amountReceived, lockSwap, updateSwap, type Swap } from './index';

export type SettleResult = { ok: true; swap: Swap } | { ok: false; code: string; reason: string };

/**
 * The DEX executes the included transaction: in ONE database transaction, lock the route's
 * pools, compute each hop's output from the CURRENT reserves (a swap executed in between makes
 * this one worse), refuse below the minimum (SLIPPAGE_EXCEEDED: nothing written), write the new
 * reserves, replace the reservation by the settlement entry (token_in to the DEX, token_out from
 * the DEX to the customer's chain book, the network fee to fee revenue), complete the swap and
 * write swap.completed.
 */
export async function settleSwap(swapId: string, workflowId: string, tx: ChainTx): Promise<SettleResult> {
  return withTransaction(async (c) => {
    const s = await lockSwap(c, swapId);
    if (s.status === 'completed') return { ok: true, swap: s };
    if (s.status === 'failed') return { ok: false, code: s.failureCode ?? 'SWAP_FAILED', reason: s.failureReason ?? 'failed' };
    const chain = getChain(s.chain);
    const tIn = getToken(chain.id, s.tokenIn);
    const tOut = getToken(chain.id, s.tokenOut);
    const pools = await lockPools(c, s.environment, s.route.pools);
    const { rows: prec } = await c.query<{ precision: number }>('SELECT precision FROM assets WHERE code = $1', [s.assetOut]);
    const precisionOut = prec[0].precision;

    let amount = toBaseUnits(s.amountIn, tIn.decimals);
    const changed: DexPool[] = [];
    const hops: Array<{ pool_id: string; amount_in: string; amount_out: string }> = [];
    try {
      for (let k = 0; k < s.route.hops.length; k++) {
        const h = s.route.hops[k];
        const pool = pools.get(h.pool_id);
        if (!pool) return { ok: false, code: 'POOL_UNAVAILABLE', reason: `pool ${h.pool_id} no longer exists` };
        let out = getAmountOut(pool, h.token_in, h.token_out, amount);
        if (k === s.route.hops.length - 1) out = floorToPrecision(out, pool.decimals[pool.tokens.indexOf(h.token_out)], precisionOut);
        if (out <= 0n) return { ok: false, code: 'INSUFFICIENT_LIQUIDITY', reason: `${pool.id} would return nothing` };
        const after = { ...applySwap(pool, h.token_in, h.token_out, amount, out), environment: pool.environment } as DexPool;
        pools.set(pool.id, after);
        changed.push(after);
        hops.push({ pool_id: pool.id, amount_in: amount.toString(), amount_out: out.toString() });
        amount = out;
      }
    } catch (err) {
      if (err instanceof PricingError) return { ok: false, code: 'INSUFFICIENT_LIQUIDITY', reason: err.message };
      throw err;
    }
    const actual = fromBaseUnits(amount, tOut.decimals, precisionOut);
    if (new D(actual).lt(s.minimumOutput)) {
      return {
        ok: false,
        code: 'SLIPPAGE_EXCEEDED',
        reason: `the pools would pay ${actual} ${s.tokenOut}, below the minimum of ${s.minimumOutput} (quoted ${s.expectedOutput}); the router reverted`,
      };
    }
    for (const p of changed) await saveReserves(c, p);

    // The network fee: the gas the transaction actually used, at its gas price, in token_out.
    // One after the other: they share the transaction's connection (pg runs one query at a time on it).
    const nativeUsd = await nativeUsdPrice(chain, c);
    const rateOut = await latestRate(s.assetOut, c);
    const gasUsd = gasCostNative(chain, tx.gasUsed, tx.gasPriceGwei).times(nativeUsd);
    let fee = rateOut ? gasUsd.div(rateOut.rate).toDecimalPlaces(precisionOut, D.ROUND_UP) : new D(0);
    if (fee.gt(actual)) fee = new D(actual);
    const received = new D(actual).minus(fee);

    const entryId = newId('je');
    if (s.reservationEntryId) {
      await voidPending(s.reservationEntryId, { idempotencyKey: workflowIdempotencyKey(workflowId, 'release-for-settlement'), reason: `superseded by settlement entry ${entryId}` }, c);
    }
    const bookIn = await ensureChainLedgerAccount(c, s.accountId, s.assetIn, s.chain);
    const bookOut = await ensureChainLedgerAccount(c, s.accountId, s.assetOut, s.chain);
    const dexIn = await dexSettlementAccount(s.environment, s.chain, s.dex, s.assetIn, c);
    const dexOut = await dexSettlementAccount(s.environment, s.chain, s.dex, s.assetOut, c);
    const lines: LineInput[] = [
      { accountId: bookIn, direction: 'debit', amount: s.amountIn },
      { accountId: dexIn, direction: 'credit', amount: s.amountIn },
      { accountId: dexOut, direction: 'debit', amount: actual },
    ];
    if (received.gt(0)) lines.push({ accountId: bookOut, direction: 'credit', amount: received.toFixed(precisionOut) });
    if (fee.gt(0)) {
      lines.push({ accountId: await systemAccount(s.environment, s.assetOut, 'fee_revenue', s.id, c), direction: 'credit', amount: fee.toFixed(precisionOut), transactionType: 'fee' });
    }
    const entry = await postEntry(
      {
        environment: s.environment,
        idempotencyKey: workflowIdempotencyKey(workflowId, 'settle'),
        entryId,
        type: 'swap',
        description: `Swap ${s.amountIn} ${s.tokenIn} for ${s.tokenOut} on ${s.dex} (${s.chain})`,
        reference: tx.hash,
        lines,
        userId: s.userId,
        metadata: { swap_id: s.id, quote_id: s.quoteId, chain: s.chain, dex: s.dex, pools: s.route.pools, tx_hash: tx.hash, hops, network_fee: fee.toFixed(precisionOut) },
      },
      c,
    );
    const done = await updateSwap(c, s.id, {
      status: 'completed',
      actual_output: actual,
      network_fee: fee.toFixed(precisionOut),
      gas_used: tx.gasUsed,
      gas_price_gwei: tx.gasPriceGwei,
      block_number: tx.blockNumber === null ? undefined : String(tx.blockNumber),
      settlement_entry_id: entry.id,
      completed_at: 'now',
    });
    await writeOutboxEvent(c, {
      type: 'swap.completed',
      environment: s.environment,
      userId: s.userId,
      aggregateType: 'swap',
      aggregateId: s.id,
      data: swapCompletedData(done),
    });
    return { ok: true, swap: done };
  });
}

export function swapCompletedData(s: Swap) {
  return {
    swap_id: s.id,
    quote_id: s.quoteId,
    account_id: s.accountId,
    chain: s.chain,
    dex: s.dex,
    pools: s.route.pools,
    token_in: s.tokenIn,
    token_out: s.tokenOut,
    amount_in: s.amountIn,
    amount_out: s.actualOutput!,
    network_fee: s.networkFee!,
    amount_received: amountReceived(s)!,
    tx_hash: s.txHash!,
    entry_id: s.settlementEntryId!,
    completed_at: (s.completedAt ?? new Date()).toISOString(),
  };
}
