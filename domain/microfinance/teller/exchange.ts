/**
 * The counter's currency exchange rule, without I/O (tests/microfinance/teller.test.ts checks it
 * by hand). The rates table (domain/rates) holds each asset's USD price; the mid rate of `from` in
 * `to` is price(from) / price(to). The office's spread is taken off the mid rate, against the
 * customer: applied = mid x (1 - spread). Both rates are kept at RATE_DECIMALS decimals (half-even)
 * and stored on the transaction, so the stored applied rate reproduces the amount paid out:
 * to_amount = amount x applied, rounded DOWN to the `to` asset's precision: the cash the desk pays
 * is never worth more than the amount at the applied rate (JPY 0 decimals: 1,477.61 JPY is paid as
 * 1,477; USD 2: 3.015 as 3.01, and 1 JPY at a 1 % spread, 0.0066 USD, as nothing, which the counter
 * refuses). Rounding half-even paid up to half a unit more, 50 % over the rate on small exchanges.
 */
import Decimal from 'decimal.js';
import { DecimalMoney } from '../../money/amount';

export const RATE_DECIMALS = 12;

export interface ExchangeQuote {
  midRate: string;
  appliedRate: string;
  toAmount: string;
}

export function exchangeQuote(input: { amount: string; fromUsdPrice: string; toUsdPrice: string; spread: string; toPrecision: number }): ExchangeQuote {
  const mid = new DecimalMoney(input.fromUsdPrice).dividedBy(input.toUsdPrice).toDecimalPlaces(RATE_DECIMALS, Decimal.ROUND_HALF_EVEN);
  const applied = mid.times(new DecimalMoney(1).minus(input.spread)).toDecimalPlaces(RATE_DECIMALS, Decimal.ROUND_HALF_EVEN);
  const toAmount = new DecimalMoney(input.amount).times(applied).toDecimalPlaces(input.toPrecision, Decimal.ROUND_DOWN);
  return { midRate: mid.toFixed(), appliedRate: applied.toFixed(), toAmount: toAmount.toFixed(input.toPrecision) };
}
