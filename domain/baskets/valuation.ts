/**
 * Valuing a basket as the IMF values the SDR (IMF Rule O-1 / O-2(a)), so the figure is exact and
 * reproducible from the amounts and rates alone:
 *
 * 1. each component's USD equivalent = amount x rate (rate in USD per unit), or amount / rate when
 *    the rate is quoted in units per USD (the IMF quotes JPY and CNY that way), rounded to six
 *    decimals (half up, as the IMF's published equivalents are);
 * 2. the basket's USD value before rounding is the sum of the equivalents;
 * 3. units per USD = 1 / sum, rounded to six significant digits (IMF Rule O-2(a));
 * 4. the published USD value of one unit = 1 / (units per USD), rounded to six significant digits.
 *
 * Weights are derived: equivalent / sum. tests/gcu/valuation.test.ts reproduces the IMF's
 * published SDR value of 29 November 2022 with this code.
 */
import { DecimalMoney as D } from '../money/amount';
import { DomainError } from '../platform/errors';

export type RateQuote = 'usd_per_unit' | 'units_per_usd';

export interface ValuationComponent {
  assetCode: string;
  /** Units of the component in one basket unit. */
  amount: string;
  /** Price of the component: USD per unit (default) or units per USD. */
  rate: string;
  quote?: RateQuote;
}

export interface ValuedComponent {
  assetCode: string;
  amount: string;
  rate: string;
  quote: RateQuote;
  /** USD per unit of the component, whatever the quote convention (not rounded further). */
  priceUsd: string;
  /** amount at the rate, six decimals. */
  usdEquivalent: string;
  /** Share of the basket's value: usdEquivalent / sum (a fraction, not rounded). */
  weight: string;
}

export interface BasketValuation {
  components: ValuedComponent[];
  /** Sum of the rounded equivalents (six decimals): USD per basket unit before the O-2 rounding. */
  sumUsd: string;
  /** Basket units per USD, six significant digits. */
  unitsPerUsd: string;
  /** USD per basket unit as published: reciprocal of unitsPerUsd, six significant digits. */
  valueUsd: string;
}

const EQUIVALENT_DECIMALS = 6;
const SIGNIFICANT_DIGITS = 6;

export function valueBasket(components: readonly ValuationComponent[]): BasketValuation {
  if (components.length === 0) throw new DomainError('BASKET_EMPTY', 'A basket needs at least one component');
  const valued = components.map((c) => {
    const rate = new D(c.rate);
    if (!rate.isFinite() || rate.lte(0)) throw new DomainError('RATE_UNAVAILABLE', `No usable rate for ${c.assetCode}`);
    const quote = c.quote ?? 'usd_per_unit';
    const exact = quote === 'usd_per_unit' ? new D(c.amount).times(rate) : new D(c.amount).div(rate);
    const priceUsd = quote === 'usd_per_unit' ? rate : new D(1).div(rate);
    return {
      assetCode: c.assetCode,
      amount: new D(c.amount).toFixed(),
      rate: rate.toFixed(),
      quote,
      priceUsd: priceUsd.toFixed(),
      equivalent: exact.toDecimalPlaces(EQUIVALENT_DECIMALS, D.ROUND_HALF_UP),
    };
  });
  const sum = valued.reduce((s, c) => s.plus(c.equivalent), new D(0));
  if (sum.lte(0)) throw new DomainError('RATE_UNAVAILABLE', 'The basket has no value at these rates');
  const unitsPerUsd = new D(1).div(sum).toSignificantDigits(SIGNIFICANT_DIGITS, D.ROUND_HALF_UP);
  const valueUsd = new D(1).div(unitsPerUsd).toSignificantDigits(SIGNIFICANT_DIGITS, D.ROUND_HALF_UP);
  return {
    components: valued.map((c) => ({
      assetCode: c.assetCode,
      amount: c.amount,
      rate: c.rate,
      quote: c.quote,
      priceUsd: c.priceUsd,
      usdEquivalent: c.equivalent.toFixed(EQUIVALENT_DECIMALS),
      weight: c.equivalent.div(sum).toFixed(),
    })),
    sumUsd: sum.toFixed(EQUIVALENT_DECIMALS),
    unitsPerUsd: unitsPerUsd.toFixed(),
    valueUsd: valueUsd.toFixed(),
  };
}

/**
 * New amounts for target weights, keeping the basket's value at the transition rates (the IMF's
 * method at a review): amountᵢ = weightᵢ x value / priceᵢ, rounded to `significant` digits (the
 * SDR's amounts carry five). Weights must be positive and sum to 1.
 */
export function amountsForWeights(
  targets: ReadonlyArray<{ assetCode: string; weight: string; priceUsd: string }>,
  valueUsd: string,
  significant = 5,
): Array<{ assetCode: string; amount: string; weight: string }> {
  const total = targets.reduce((s, t) => s.plus(t.weight), new D(0));
  if (!total.eq(1)) throw new DomainError('WEIGHTS_INVALID', `Target weights must sum to 1 (they sum to ${total.toFixed()})`, '/components');
  return targets.map((t) => {
    const w = new D(t.weight);
    if (w.lte(0)) throw new DomainError('WEIGHTS_INVALID', `The weight of ${t.assetCode} must be positive`, '/components');
    const price = new D(t.priceUsd);
    if (price.lte(0)) throw new DomainError('RATE_UNAVAILABLE', `No usable rate for ${t.assetCode}`);
    return { assetCode: t.assetCode, weight: w.toFixed(), amount: w.times(valueUsd).div(price).toSignificantDigits(significant, D.ROUND_HALF_EVEN).toFixed() };
  });
}
