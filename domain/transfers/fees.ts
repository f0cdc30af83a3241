/** Transfer fees: the formula, and the fee schedules of one database kept off the hot path. */
import type { Queryable } from '../db/pool';
import { DecimalMoney } from '../money/amount';

export type FeeRow = { fixed_fee: string; rate_bps: number; min_fee: string; max_fee: string | null };

/** fee = clamp(fixed + amount * bps / 10000, min, max), rounded half-up at the asset's precision; no schedule, no fee. */
export function feeFor(f: FeeRow | null, amount: string, precision: number): string {
  if (!f) return new DecimalMoney(0).toFixed(precision);
  let fee = new DecimalMoney(f.fixed_fee).plus(new DecimalMoney(amount).times(f.rate_bps).dividedBy(10000));
  fee = DecimalMoney.max(fee, f.min_fee);
  if (f.max_fee !== null) fee = DecimalMoney.min(fee, f.max_fee);
  return fee.toDecimalPlaces(precision, DecimalMoney.ROUND_HALF_UP).toFixed(precision);
}

/** Fee schedules change rarely: each asset's is read at most once a minute. */
export class FeeSchedules {
  private readonly cache = new Map<string, { at: number; row: FeeRow | null }>();

  constructor(
    private readonly pool: Queryable,
    private readonly ttlMs = 60_000,
  ) {}

  /** The transfer fee for an amount of an asset (see feeFor). */
  async transferFee(assetCode: string, amount: string, precision: number, client: Queryable = this.pool): Promise<string> {
    let cached = this.cache.get(assetCode);
    if (!cached || Date.now() - cached.at > this.ttlMs) {
      const { rows } = await client.query<FeeRow>(
        `SELECT fixed_fee, rate_bps, min_fee, max_fee FROM fee_schedules WHERE operation = 'transfer' AND asset_code = $1`,
        [assetCode],
      );
      cached = { at: Date.now(), row: rows[0] ?? null };
      this.cache.set(assetCode, cached);
    }
    return feeFor(cached.row, amount, precision);
  }
}
