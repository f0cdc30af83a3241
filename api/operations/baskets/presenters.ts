/** Wire shapes of baskets and basket operations (snake_case; money as decimal strings). */
import type { BasketOperation, BasketView } from '../../../domain/baskets';

export function presentBasket(v: BasketView) {
  const { basket: b, valuation } = v;
  const valued = new Map(valuation?.components.map((c) => [c.assetCode, c]) ?? []);
  return {
    code: b.code,
    name: b.name,
    description: b.description,
    type: 'basket' as const,
    is_primary: b.isPrimary,
    precision: b.precision,
    environment: b.environment,
    version: b.version,
    rebalance_frequency: b.rebalanceFrequency,
    last_rebalanced_at: b.lastRebalancedAt?.toISOString() ?? null,
    outstanding_units: b.outstanding,
    value_usd: valuation?.valueUsd ?? null,
    components: b.components.map((c) => ({
      asset_code: c.assetCode,
      amount: c.amount,
      target_weight: c.targetWeight,
      current_weight: valued.get(c.assetCode)?.weight ?? null,
      usd_equivalent: valued.get(c.assetCode)?.usdEquivalent ?? null,
    })),
    created_at: b.createdAt.toISOString(),
  };
}

export function presentOperation(op: BasketOperation) {
  return {
    id: op.id,
    type: op.kind,
    account_uuid: op.accountId,
    basket_code: op.basketCode,
    amount: op.units,
    version: op.version,
    components: op.components.map((c) => ({ asset_code: c.assetCode, amount: c.amount })),
    entry_id: op.entryId,
    created_at: op.createdAt.toISOString(),
  };
}
