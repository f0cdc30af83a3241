/**
 * The counter's currency exchange rule, without I/O (tests/microfinance/teller.test.ts checks it
 * by hand). The rates table (domain/rates) holds each asset's USD price; the mid rate of `from` in
 * `to` is price(from) / price(to). The office's spread is taken off the mid rate, against the
 * customer: applied = mid x (1 - spread). Both rates are kept at RATE_DECIMALS decimals (half-even)
 * and stored on the transaction, so the stored applied rate reproduces the amount paid out:
 * to_amount = amount x applied, rounded half-even to the `to` asset's precision (JPY 0 decimals:
 * 14,776.1194 JPY is paid as 14,776; USD 2: 1.005 is paid as 1.00 and 3.015 as 3.02).
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
  const toAmount = new DecimalMoney(input.amount).times(applied).toDecimalPlaces(input.toPrecision, Decimal.ROUND_HALF_EVEN);
  return { midRate: mid.toFixed(), appliedRate: applied.toFixed(), toAmount: toAmount.toFixed(input.toPrecision) };
}
