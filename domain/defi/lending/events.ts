/** The lending positions' event data (schemas in ./events.ts; producers ./index.ts and ./liquidation.ts). */
import { DecimalMoney as D } from '../../money/amount';
import type { PositionHealth } from './health';
import type { LendingOperation } from './operations';
import type { LendingPosition } from './positions';

const base = (p: LendingPosition) => ({ position_id: p.id, position_type: 'lending', account_id: p.accountId, chain: p.chain, protocol: p.protocol });
const op = (o: LendingOperation) => ({ market_id: o.marketId, asset: o.asset, amount: o.amount, operation: o.kind, operation_id: o.id, entry_id: o.entryId });
const cents = (v: InstanceType<typeof D>) => v.toDecimalPlaces(2, D.ROUND_HALF_EVEN).toFixed(2);

/** The first supply opened the position. */
export function lendingOpenedData(p: LendingPosition, first: LendingOperation) {
  return { ...base(p), ...op(first), opened_at: p.createdAt.toISOString() };
}

/** The operation that brought every balance to zero (a withdrawal, a repayment or a liquidation). */
export function lendingClosedData(p: LendingPosition, last: LendingOperation) {
  return { ...base(p), ...op(last), liquidations: p.liquidations, closed_at: (p.closedAt ?? new Date()).toISOString() };
}

export function liquidationWarningData(p: LendingPosition, h: PositionHealth, threshold: string, checkedAt: Date) {
  const list = (vs: PositionHealth['supplied']) => vs.map((v) => ({ market_id: v.market.id, asset: v.market.asset, amount: v.amount, usd_value: cents(v.usdValue) }));
  return {
    ...base(p),
    // Rounded down: a factor just under 1 never reads as 1.
    health_factor: h.healthFactor!.toDecimalPlaces(6, D.ROUND_DOWN).toFixed(6),
    warning_threshold: threshold,
    liquidation_at: '1',
    collateral_usd: cents(h.collateralUsd),
    liquidation_threshold_usd: cents(h.liquidationThresholdUsd),
    debt_usd: cents(h.debtUsd),
    supplied: list(h.supplied),
    borrowed: list(h.borrowed),
    checked_at: checkedAt.toISOString(),
  };
}
