/** Wire shapes of the lending routes (snake_case, money as decimal strings). */
import type { LendingMarket } from '../../../domain/defi/lending/markets';
import { marketRates, totalBorrowed, totalSupplied } from '../../../domain/defi/lending/markets';
import type { LendingOperation } from '../../../domain/defi/lending';
import type { LendingPositionView } from '../../../domain/defi/lending/positions';
import { DecimalMoney as D } from '../../../domain/money/amount';

type Dec = InstanceType<typeof D>;
const cents = (v: Dec) => v.toDecimalPlaces(2, D.ROUND_HALF_EVEN).toFixed(2);
const ratio = (v: Dec) => v.toDecimalPlaces(8, D.ROUND_HALF_EVEN).toFixed();

export function presentMarket(m: LendingMarket, usdPrice: string | null) {
  const r = marketRates(m);
  return {
    id: m.id,
    chain: m.chain,
    protocol: m.protocol,
    asset_code: m.asset,
    total_supplied: totalSupplied(m).toDecimalPlaces(m.precision, D.ROUND_DOWN).toFixed(m.precision),
    total_borrowed: totalBorrowed(m).toDecimalPlaces(m.precision, D.ROUND_UP).toFixed(m.precision),
    available_liquidity: new D(m.cash).toFixed(m.precision),
    utilization: ratio(r.utilization),
    supply_rate: ratio(r.supplyRate),
    borrow_rate: ratio(r.borrowRate),
    rate_model: { base_rate: m.model.base, slope1: m.model.slope1, slope2: m.model.slope2, optimal_utilization: m.model.optimalUtilization, reserve_factor: m.model.reserveFactor },
    ltv: m.ltv,
    liquidation_threshold: m.liquidationThreshold,
    liquidation_bonus: m.liquidationBonus,
    usd_price: usdPrice,
    supply_index: m.supplyIndex,
    borrow_index: m.borrowIndex,
    accrued_at: m.accruedAt.toISOString(),
  };
}

export function presentLendingPosition(p: LendingPositionView) {
  const h = p.health;
  const balance = (kind: 'supplyRate' | 'borrowRate') => (v: LendingPositionView['health']['supplied'][number]) => ({
    market_id: v.market.id,
    asset_code: v.market.asset,
    amount: v.amount,
    usd_value: cents(v.usdValue),
    rate: ratio(new D(p.rates.get(v.market.id)![kind])),
  });
  return {
    position_id: p.id,
    position_type: 'lending' as const,
    status: p.status,
    account_id: p.accountId,
    chain: p.chain,
    protocol: p.protocol,
    supplied: h.supplied.map(balance('supplyRate')),
    borrowed: h.borrowed.map(balance('borrowRate')),
    collateral_usd: cents(h.collateralUsd),
    debt_usd: cents(h.debtUsd),
    borrowing_power_usd: cents(h.borrowingPowerUsd),
    liquidation_threshold_usd: cents(h.liquidationThresholdUsd),
    // Rounded down: a factor just under 1 never reads as 1.
    health_factor: h.healthFactor ? h.healthFactor.toDecimalPlaces(6, D.ROUND_DOWN).toFixed(6) : null,
    warning_threshold: p.warningThreshold,
    liquidation_warning: p.warnedAt !== null,
    liquidations: p.liquidations,
    created_at: p.createdAt.toISOString(),
    closed_at: p.closedAt?.toISOString() ?? null,
  };
}

export function presentLendingOperation(o: LendingOperation) {
  return {
    id: o.id,
    position_id: o.positionId,
    kind: o.kind,
    market_id: o.marketId,
    asset_code: o.asset,
    amount: o.amount,
    seized: o.seizedAmount ? { market_id: o.seizedMarketId!, asset_code: o.seizedAsset!, amount: o.seizedAmount, penalty: o.penaltyAmount! } : null,
    health_factor: o.healthFactor ? new D(o.healthFactor).toDecimalPlaces(6, D.ROUND_DOWN).toFixed(6) : null,
    entry_id: o.entryId,
    created_at: o.createdAt.toISOString(),
  };
}
