/** Wire shape of a basket buy. */
import type { BasketBuy } from '../../../domain/baskets/buy';
import { DecimalMoney as D } from '../../../domain/money/amount';

export function presentBuy(b: BasketBuy) {
  return {
    id: b.id,
    status: b.status,
    account_uuid: b.accountId,
    basket_code: b.basketCode,
    spend_asset: b.spendAsset,
    amount: b.units,
    quoted_price: b.quotedPrice,
    max_price: b.maxPrice,
    slippage_bps: b.slippageBps,
    fee_bps: b.feeBps,
    quoted_cost: b.quotedCost,
    quoted_fee: b.quotedFee,
    reserved_amount: b.reservedAmount,
    execution_price: b.executionPrice,
    cost: b.cost,
    fee: b.fee,
    total: b.cost !== null && b.fee !== null ? new D(b.cost).plus(b.fee).toFixed(b.spendPrecision) : null,
    value_usd: b.valueUsd,
    quote_expires_at: b.quoteExpiresAt.toISOString(),
    workflow_id: b.workflowId,
    reservation_entry_id: b.reservationEntryId,
    settlement_entry_id: b.settlementEntryId,
    failure: b.failureCode ? { code: b.failureCode, reason: b.failureReason ?? '', compensation: b.compensation ?? 'none' } : null,
    created_at: b.createdAt.toISOString(),
    completed_at: b.completedAt?.toISOString() ?? null,
    failed_at: b.failedAt?.toISOString() ?? null,
  };
}
