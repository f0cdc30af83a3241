/**
 * The sandbox's moving rates feed (docs/gcu.md, "Rates").
 *
 * A rate is a pure function of the asset and the UTC hour: SANDBOX_RATES' price x (1 + drift),
 * where the drift is layered value noise. Each layer has knots every `hours` hours whose values
 * come from a hash of (asset, layer, knot) as integers in parts per million, linearly interpolated
 * between knots. So the same hour always gives the same rate (replays and tests agree), the next
 * hour moves a few tenths of a percent, and the drift never leaves ±4.68 %, which keeps any
 * 30-day move within ±10 %. Integer ppm and decimal.js only: no float ever touches a price.
 *
 * USD is exactly 1; stablecoins follow USD and wrapped tokens their underlying. Baskets (GCU) are
 * not priced here: their price is their recorded valuation (domain/baskets/valuations.ts).
 * What the feed serves is stored in exchange_rates (source 'sandbox-feed', as_of = the hour) by
 * refreshRates, so every valuation can be traced to the rows it used.
 */
import { createHash } from 'node:crypto';
import { DecimalMoney as D } from '../money/amount';
import { SANDBOX_RATES, type RateProvider, type RateQuote } from './index';

export const FEED_SOURCE = 'sandbox-feed';
export const HOUR_MS = 3_600_000;

/** Pegged assets: stablecoins move with USD (so not at all), wrapped tokens with their underlying. */
const FOLLOWS: Readonly<Record<string, string>> = { USDC: 'USD', USDT: 'USD', DAI: 'USD', WETH: 'ETH', WBTC: 'BTC' };

/** Priced by their basket valuation, never by the feed. */
const BASKET_PRICED: ReadonlySet<string> = new Set(['GCU']);

/**
 * Drift layers: knot spacing in hours and amplitude in ppm. Worst-case hourly step is
 * 2 x (30000/168 + 12000/24 + 4000/4 + 800/1) ≈ 0.5 %; the sum of amplitudes, 46,800 ppm, bounds the drift.
 */
export const DRIFT_LAYERS: ReadonlyArray<{ hours: number; ppm: number }> = [
  { hours: 168, ppm: 30_000 },
  { hours: 24, ppm: 12_000 },
  { hours: 4, ppm: 4_000 },
  { hours: 1, ppm: 800 },
];
export const MAX_DRIFT_PPM = DRIFT_LAYERS.reduce((s, l) => s + l.ppm, 0);

/** Significant digits of a served rate. */
const RATE_DIGITS = 10;

/** The start of the UTC hour holding `at`. */
export function hourOf(at: Date): Date {
  return new Date(Math.floor(at.getTime() / HOUR_MS) * HOUR_MS);
}

/** A knot's value: an integer in [-ppm, ppm] from the hash of its name. */
function knot(asset: string, layer: number, index: number, ppm: number): number {
  const h = createHash('sha256').update(`${asset}|${layer}|${index}`).digest();
  return (h.readUInt32BE(0) % (2 * ppm + 1)) - ppm;
}

/** Drift of `asset` at hour number `hour` (hours since the epoch), in ppm, as an exact decimal. */
export function driftPpm(asset: string, hour: number): InstanceType<typeof D> {
  let total = new D(0);
  DRIFT_LAYERS.forEach(({ hours, ppm }, layer) => {
    const k = Math.floor(hour / hours);
    const a = knot(asset, layer, k, ppm);
    const b = knot(asset, layer, k + 1, ppm);
    total = total.plus(new D(b - a).times(hour - k * hours).div(hours).plus(a));
  });
  return total;
}

export class DriftingSandboxRateProvider implements RateProvider {
  readonly name = FEED_SOURCE;
  readonly historical = true;
  private readonly base: Readonly<Record<string, string>>;
  private readonly now: () => Date;

  constructor(opts: { base?: Readonly<Record<string, string>>; now?: () => Date } = {}) {
    this.base = opts.base ?? SANDBOX_RATES;
    this.now = opts.now ?? (() => new Date());
  }

  /** The feed's USD price of `asset` in the hour holding `at`, or null for an asset it does not price. */
  rateAt(asset: string, at: Date): string | null {
    const code = asset.toUpperCase();
    const base = this.base[code];
    if (base === undefined || BASKET_PRICED.has(code)) return null;
    const driver = FOLLOWS[code] ?? code;
    if (driver === 'USD') return '1';
    const hour = Math.floor(at.getTime() / HOUR_MS);
    const factor = new D(1).plus(driftPpm(driver, hour).div(1_000_000));
    return new D(base).times(factor).toSignificantDigits(RATE_DIGITS, D.ROUND_HALF_EVEN).toFixed();
  }

  /** Every quote for the hour holding `at` (default: now), as of the start of that hour. */
  quotesAt(at: Date): RateQuote[] {
    const asOf = hourOf(at);
    return Object.keys(this.base).flatMap((base) => {
      const rate = this.rateAt(base, asOf);
      return rate === null ? [] : [{ base, quote: 'USD', rate, asOf, source: FEED_SOURCE }];
    });
  }

  async fetchRates(at?: Date): Promise<RateQuote[]> {
    return this.quotesAt(at ?? this.now());
  }
}

/**
 * The platform's rate provider from the RATES_PROVIDER setting: unset, "sandbox" or
 * "sandbox-feed" is the moving sandbox feed. No market-data vendor is wired in this build, so any
 * other name stops the process at start-up rather than pricing with the wrong source.
 */
export function rateProviderFor(settings: { RATES_PROVIDER?: string } = process.env): RateProvider {
  const name = (settings.RATES_PROVIDER ?? '').trim().toLowerCase();
  if (name === '' || name === 'sandbox' || name === FEED_SOURCE) return new DriftingSandboxRateProvider();
  throw new Error(
    `RATES_PROVIDER="${settings.RATES_PROVIDER}" is not configured: this build has only the sandbox feed ` +
      `(leave RATES_PROVIDER unset or set it to "sandbox"); a market-data provider must be implemented before it can be named`,
  );
}
