/**
 * What a lending position is worth and how safe it is (docs/defi.md "Lending"): each balance in
 * ledger units (./markets.ts supplyBalance/debtBalance) valued at the platform's latest USD
 * rates; borrowing power Σ collateral × LTV; health factor Σ collateral × liquidation threshold ÷
 * debt (./math.ts healthFactor). Every supplied asset is collateral (Aave's default).
 */
import { DecimalMoney as D } from '../../money/amount';
import { DomainError } from '../../platform/errors';
import { healthFactor } from './math';
import { debtBalance, supplyBalance, type LendingMarket } from './markets';

type Dec = InstanceType<typeof D>;

export interface LendingBalance {
  marketId: string;
  scaledSupply: string;
  scaledDebt: string;
}

export interface ValuedBalance {
  market: LendingMarket;
  amount: string;
  usdValue: Dec;
}

export interface PositionHealth {
  supplied: ValuedBalance[];
  borrowed: ValuedBalance[];
  collateralUsd: Dec;
  borrowingPowerUsd: Dec;
  /** Σ collateral × liquidation threshold: the debt at which the health factor is 1. */
  liquidationThresholdUsd: Dec;
  debtUsd: Dec;
  /** null without debt. */
  healthFactor: Dec | null;
}

/** Below this a position gets position.liquidation_warning (setting DEFI_LIQUIDATION_WARNING_HF). */
export function warningThreshold(settings: { DEFI_LIQUIDATION_WARNING_HF?: string } = process.env): string {
  const v = settings.DEFI_LIQUIDATION_WARNING_HF;
  return v && /^[0-9]+(\.[0-9]+)?$/.test(v) && new D(v).gt(1) ? v : '1.1';
}

function price(rates: Map<string, string>, asset: string): string {
  const r = rates.get(asset);
  if (!r) throw new DomainError('NO_PRICE', `No USD rate for ${asset}: the position cannot be valued`, '/market_id');
  return r;
}

/** The position's balances (markets accrued by the caller) valued at `rates` (asset -> USD). */
export function positionHealth(balances: LendingBalance[], markets: Map<string, LendingMarket>, rates: Map<string, string>): PositionHealth {
  const supplied: ValuedBalance[] = [];
  const borrowed: ValuedBalance[] = [];
  let power = new D(0);
  let threshold = new D(0);
  for (const b of balances) {
    const m = markets.get(b.marketId)!;
    if (new D(b.scaledSupply).gt(0)) {
      const amount = supplyBalance(m, b.scaledSupply);
      const usd = new D(amount).times(price(rates, m.asset));
      supplied.push({ market: m, amount, usdValue: usd });
      power = power.plus(usd.times(m.ltv));
      threshold = threshold.plus(usd.times(m.liquidationThreshold));
    }
    if (new D(b.scaledDebt).gt(0)) {
      const amount = debtBalance(m, b.scaledDebt);
      borrowed.push({ market: m, amount, usdValue: new D(amount).times(price(rates, m.asset)) });
    }
  }
  const collateralUsd = supplied.reduce((s, v) => s.plus(v.usdValue), new D(0));
  const debtUsd = borrowed.reduce((s, v) => s.plus(v.usdValue), new D(0));
  const hf = healthFactor(
    supplied.map((v) => ({ valueUsd: v.usdValue.toFixed(), liquidationThreshold: v.market.liquidationThreshold })),
    debtUsd.toFixed(),
  );
  return { supplied, borrowed, collateralUsd, borrowingPowerUsd: power, liquidationThresholdUsd: threshold, debtUsd, healthFactor: hf };
}
