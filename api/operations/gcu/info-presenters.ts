/**
 * Wire shapes of GET /gcu, /gcu/composition and /gcu/value-history. The domain hands decimal
 * strings; fields the spec types `number` (Basket composition record) become JSON numbers here
 * and only here.
 */
import type { CompositionView } from '../../../domain/baskets/composition';
import type { ValueHistory } from '../../../domain/baskets/history';

const num = (s: string) => Number(s);
const numOrNull = (s: string | null | undefined) => (s === null || s === undefined ? null : Number(s));
const iso = (d: Date | null) => d?.toISOString() ?? null;

export const GCU_LINKS = {
  self: '/api/v2/gcu',
  composition: '/api/v2/gcu/composition',
  value_history: '/api/v2/gcu/value-history',
  voting: '/api/v2/gcu/voting/proposals',
};

export function presentComposition(v: CompositionView) {
  const perf = v.performance;
  const changes = Object.fromEntries(
    (['24h', '7d', '30d'] as const).flatMap((p) => [
      [`${p}_change_usd`, numOrNull(perf.changes[p]?.changeUsd)],
      [`${p}_change_percent`, numOrNull(perf.changes[p]?.changePercent)],
    ]),
  );
  return {
    basket_code: v.basket.code,
    environment: v.basket.environment,
    version: v.basket.version,
    last_updated: v.lastUpdated.toISOString(),
    total_value_usd: num(v.totalValueUsd),
    value_usd: v.valuation.valueUsd,
    units_per_usd: v.valuation.unitsPerUsd,
    composition: v.components.map((c) => ({
      asset_code: c.assetCode,
      asset_name: c.assetName,
      asset_type: c.assetType,
      amount: c.amount,
      target_weight: c.targetWeight,
      weight: num(c.weight),
      current_price_usd: num(c.priceUsd),
      value_contribution_usd: num(c.valueContributionUsd),
      percentage_of_basket: num(c.percentage),
      '24h_change': numOrNull(c.change24h),
      '7d_change': numOrNull(c.change7d),
      rate_as_of: c.rateAsOf.toISOString(),
    })),
    rebalancing: {
      frequency: v.rebalancing.frequency,
      last_rebalanced: iso(v.rebalancing.lastRebalanced),
      next_rebalance: iso(v.rebalancing.nextRebalance),
      automatic: v.rebalancing.automatic,
    },
    performance: { ...changes, as_of: iso(perf.asOf) },
  };
}

export function presentInfo(v: CompositionView) {
  const b = v.basket;
  return {
    code: b.code,
    name: b.name,
    description: b.description,
    environment: b.environment,
    precision: b.precision,
    version: b.version,
    value_usd: v.valuation.valueUsd,
    units_per_usd: v.valuation.unitsPerUsd,
    outstanding_units: b.outstanding,
    component_count: b.components.length,
    rebalance_frequency: b.rebalanceFrequency,
    last_valuation_at: iso(v.performance.asOf),
    last_updated: v.lastUpdated.toISOString(),
  };
}

export function presentHistory(h: ValueHistory) {
  return {
    data: h.buckets.map((b) => ({
      timestamp: b.start.toISOString(),
      period_start: b.start.toISOString(),
      period_end: b.end.toISOString(),
      open: b.open,
      high: b.high,
      low: b.low,
      close: b.close,
      value: b.value,
      samples: b.samples,
    })),
    meta: {
      basket_code: h.basketCode,
      environment: h.environment,
      period: h.period,
      interval: h.interval,
      aggregation: 'ohlc',
      from: iso(h.from),
      to: h.to.toISOString(),
      buckets: h.buckets.length,
    },
  };
}
