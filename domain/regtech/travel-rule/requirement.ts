/**
 * Whether the Travel Rule's full identification applies to an amount in a jurisdiction: its value
 * in USD at the platform's rates (rate and time kept) against the jurisdiction's threshold in USD,
 * at or above (thresholds.ts). The one place this comparison is made: the check (check.ts) and the
 * workflows that hold crypto leaving the platform (activities/crosschain) both ask it.
 */
import { DecimalMoney as D } from '../../money/amount';
import { DomainError } from '../../platform/errors';
import { latestRate } from '../../rates';
import { thresholdFor, type ThresholdRow } from './thresholds';

export interface TravelRuleRequirement {
  row: ThresholdRow;
  amountUsd: string;
  usdRate: string;
  usdRateAsOf: Date;
  thresholdUsd: string;
  /** The threshold row's own currency converted at this rate (its reference rate when the platform has none). */
  thresholdRate: string;
  required: boolean;
}

/** USD per unit of a currency: the platform's latest rate, else the threshold row's dated reference rate. */
export async function usdPerUnit(currency: string, row: ThresholdRow | null, pointer: string): Promise<{ rate: string; asOf: Date }> {
  const r = await latestRate(currency);
  if (r) return { rate: r.rate, asOf: r.asOf };
  if (row?.usdPerUnit && row.currency === currency) return { rate: row.usdPerUnit.rate, asOf: new Date(row.usdPerUnit.asOf) };
  throw new DomainError('RATE_UNAVAILABLE', `No USD rate for ${currency.slice(0, 12)}`, pointer);
}

export async function travelRuleRequirement(amount: string, currency: string, jurisdiction: string): Promise<TravelRuleRequirement> {
  const row = thresholdFor(jurisdiction);
  const rate = await usdPerUnit(currency, null, '/transfer_details/currency');
  const amountUsd = new D(amount).times(rate.rate).toDecimalPlaces(2, D.ROUND_HALF_UP);
  const thresholdRate = await usdPerUnit(row.currency, row, '/jurisdiction');
  const thresholdUsd = new D(row.amount).times(thresholdRate.rate).toDecimalPlaces(2, D.ROUND_HALF_UP);
  return {
    row,
    amountUsd: amountUsd.toFixed(2),
    usdRate: rate.rate,
    usdRateAsOf: rate.asOf,
    thresholdUsd: thresholdUsd.toFixed(2),
    thresholdRate: thresholdRate.rate,
    // At or above (31 CFR 1010.410: "$3,000 or more"); a zero threshold is every transfer.
    required: amountUsd.gte(thresholdUsd),
  };
}
