/**
 * Money-market math (priority 2 of issue 25, the pure part only: no records, routes or schedule
 * yet; docs/defi.md "Lending: not built yet"). Aave V2's model, in decimal.js (60 digits):
 *
 * - utilization U = borrows / (cash + borrows);
 * - kinked borrow rate: base + slope1·U/U* below the optimal utilization U*, base + slope1 +
 *   slope2·(U − U*)/(1 − U*) above it (annual rates);
 * - supply rate = borrow rate · U · (1 − reserve factor);
 * - indexes per elapsed seconds: the supply index grows linearly (1 + r·Δt/year), the borrow index
 *   compounds per second ((1 + r/year)^Δt); a balance is its scaled amount × the index;
 * - health factor = Σ collateral value × liquidation threshold ÷ debt value (null without debt).
 */
import { DecimalMoney as D } from '../../money/amount';

type Dec = InstanceType<typeof D>;
export const SECONDS_PER_YEAR = 31_536_000;

export interface RateModel {
  /** Annual rates as decimal strings (0.04 = 4 %). */
  base: string;
  slope1: string;
  slope2: string;
  optimalUtilization: string;
  reserveFactor: string;
}

export function utilization(cash: string, borrows: string): Dec {
  const total = new D(cash).plus(borrows);
  return total.isZero() ? new D(0) : new D(borrows).div(total);
}

export function borrowRate(m: RateModel, u: Dec): Dec {
  const opt = new D(m.optimalUtilization);
  if (u.lte(opt)) return new D(m.base).plus(new D(m.slope1).times(u).div(opt));
  return new D(m.base).plus(m.slope1).plus(new D(m.slope2).times(u.minus(opt)).div(new D(1).minus(opt)));
}

export function supplyRate(m: RateModel, u: Dec): Dec {
  return borrowRate(m, u).times(u).times(new D(1).minus(m.reserveFactor));
}

export function accrueSupplyIndex(index: string, annualRate: Dec, seconds: number): Dec {
  return new D(index).times(new D(1).plus(annualRate.times(seconds).div(SECONDS_PER_YEAR)));
}

export function accrueBorrowIndex(index: string, annualRate: Dec, seconds: number): Dec {
  return new D(index).times(new D(1).plus(annualRate.div(SECONDS_PER_YEAR)).pow(seconds));
}

export function healthFactor(collateral: Array<{ valueUsd: string; liquidationThreshold: string }>, debtUsd: string): Dec | null {
  if (new D(debtUsd).isZero()) return null;
  return collateral.reduce((s, c) => s.plus(new D(c.valueUsd).times(c.liquidationThreshold)), new D(0)).div(debtUsd);
}
