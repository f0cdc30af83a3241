/**
 * Value history and performance of a basket, read from recorded valuations only
 * (basket_valuations, written hourly by valuations.ts): nothing is valued at request time.
 *
 * History: the valuations in (now − period, now], grouped into UTC buckets (hour, day, ISO week
 * starting Monday, calendar month). Each bucket gives open (first valuation), high, low, close
 * (last valuation) and value = close, with the number of valuations in it. Buckets without a
 * valuation are left out rather than filled in.
 *
 * Performance: the latest valuation at or before now against the last valuation at or before
 * now − 24h / 7d / 30d. Without such a reference (history shorter than the period, or none at
 * all) the change is null, not 0: no change was observed. Components' changes compare the
 * component's recorded USD rate the same way.
 */
import { getPool, type Queryable } from '../db/pool';
import { DecimalMoney as D } from '../money/amount';
import type { Environment } from '../platform/environment';
import { DomainError } from '../platform/errors';
import { getBasket } from './definitions';

export const HISTORY_PERIODS = ['24h', '7d', '30d', '90d', '1y', 'all'] as const;
export type HistoryPeriod = (typeof HISTORY_PERIODS)[number];
export const HISTORY_INTERVALS = ['hourly', 'daily', 'weekly', 'monthly'] as const;
export type HistoryInterval = (typeof HISTORY_INTERVALS)[number];
/** More buckets than this (e.g. hourly over years of 'all') is refused: ask for a longer interval. */
export const MAX_HISTORY_BUCKETS = 10_000;

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** 1y is 365 days. */
export const PERIOD_MS: Readonly<Record<Exclude<HistoryPeriod, 'all'>, number>> = { '24h': DAY, '7d': 7 * DAY, '30d': 30 * DAY, '90d': 90 * DAY, '1y': 365 * DAY };
const TRUNC_UNIT: Readonly<Record<HistoryInterval, string>> = { hourly: 'hour', daily: 'day', weekly: 'week', monthly: 'month' };

/** Start of the UTC bucket holding `d` (weeks start on Monday). */
export function bucketStart(d: Date, interval: HistoryInterval): Date {
  const t = d.getTime();
  if (interval === 'hourly') return new Date(Math.floor(t / HOUR) * HOUR);
  const day = Math.floor(t / DAY) * DAY;
  if (interval === 'daily') return new Date(day);
  if (interval === 'weekly') return new Date(day - ((new Date(day).getUTCDay() + 6) % 7) * DAY);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));
}

/** Start of the bucket after the one starting at `start`. */
export function bucketEnd(start: Date, interval: HistoryInterval): Date {
  if (interval === 'monthly') return new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1));
  return new Date(start.getTime() + { hourly: HOUR, daily: DAY, weekly: 7 * DAY }[interval]);
}

/** How many buckets [from, to] spans. */
export function bucketCount(from: Date, to: Date, interval: HistoryInterval): number {
  const a = bucketStart(from, interval);
  const b = bucketStart(to, interval);
  if (interval === 'monthly') return (b.getUTCFullYear() - a.getUTCFullYear()) * 12 + b.getUTCMonth() - a.getUTCMonth() + 1;
  return Math.round((b.getTime() - a.getTime()) / (bucketEnd(a, interval).getTime() - a.getTime())) + 1;
}

export interface HistoryBucket {
  start: Date;
  end: Date;
  open: string;
  high: string;
  low: string;
  close: string;
  /** = close: the value at the end of the bucket. */
  value: string;
  samples: number;
}

export interface ValueHistory {
  basketCode: string;
  environment: Environment;
  period: HistoryPeriod;
  interval: HistoryInterval;
  /** Exclusive lower bound (now − period); for 'all', the first recorded valuation. Null when there is none. */
  from: Date | null;
  to: Date;
  buckets: HistoryBucket[];
}

export interface ValueHistoryQuery {
  basketCode: string;
  environment: Environment;
  period?: string;
  interval?: string;
  now?: Date;
}

function pick<T extends string>(value: string | undefined, allowed: readonly T[], fallback: T, name: string): T {
  const v = value ?? fallback;
  if (!(allowed as readonly string[]).includes(v)) throw new DomainError('INVALID_INPUT', `${name} must be one of ${allowed.join(', ')}`, undefined, { parameter: name });
  return v as T;
}

export async function valueHistory(q: ValueHistoryQuery, client: Queryable = getPool()): Promise<ValueHistory> {
  const period = pick(q.period, HISTORY_PERIODS, '30d', 'period');
  const interval = pick(q.interval, HISTORY_INTERVALS, 'daily', 'interval');
  const now = q.now ?? new Date();
  const basket = await getBasket(q.basketCode, q.environment, client);
  let from: Date | null;
  if (period === 'all') {
    const { rows } = await client.query<{ first: Date | null }>(
      'SELECT min(valued_at) AS first FROM basket_valuations WHERE environment = $1 AND basket_code = $2 AND valued_at <= $3',
      [q.environment, basket.code, now],
    );
    from = rows[0].first;
  } else {
    from = new Date(now.getTime() - PERIOD_MS[period]);
  }
  const out: ValueHistory = { basketCode: basket.code, environment: q.environment, period, interval, from, to: now, buckets: [] };
  if (!from) return out;
  const count = bucketCount(from, now, interval);
  if (count > MAX_HISTORY_BUCKETS) {
    throw new DomainError('HISTORY_TOO_MANY_BUCKETS', `${period} at ${interval} interval is ${count} buckets; at most ${MAX_HISTORY_BUCKETS}: choose a longer interval`, undefined, {
      buckets: count,
      max_buckets: MAX_HISTORY_BUCKETS,
    });
  }
  const { rows } = await client.query<{ bucket: Date; open: string; high: string; low: string; close: string; samples: number }>(
    `SELECT date_trunc($4, valued_at, 'UTC') AS bucket,
            (array_agg(value_usd::text ORDER BY valued_at))[1] AS open,
            max(value_usd)::text AS high, min(value_usd)::text AS low,
            (array_agg(value_usd::text ORDER BY valued_at DESC))[1] AS close,
            count(*)::int AS samples
       FROM basket_valuations
      WHERE environment = $1 AND basket_code = $2 AND valued_at <= $3
        AND (valued_at > $5 OR $6)
      GROUP BY 1 ORDER BY 1`,
    [q.environment, basket.code, now, TRUNC_UNIT[interval], from, period === 'all'],
  );
  const norm = (s: string) => new D(s).toFixed();
  out.buckets = rows.map((r) => ({
    start: r.bucket,
    end: bucketEnd(r.bucket, interval),
    open: norm(r.open),
    high: norm(r.high),
    low: norm(r.low),
    close: norm(r.close),
    value: norm(r.close),
    samples: r.samples,
  }));
  return out;
}

export const PERFORMANCE_PERIODS = ['24h', '7d', '30d'] as const;
export type PerformancePeriod = (typeof PERFORMANCE_PERIODS)[number];

export interface Change {
  /** The reference valuation's time (the last at or before now − period). */
  since: Date;
  changeUsd: string;
  /** Percent, four decimals. */
  changePercent: string;
}

export interface Performance {
  /** The latest valuation at or before now; null when nothing was recorded yet. */
  asOf: Date | null;
  valueUsd: string | null;
  changes: Record<PerformancePeriod, Change | null>;
  /** Per component: percent change of its recorded USD rate over 24h and 7d (null without a reference). */
  components: Record<string, { '24h': string | null; '7d': string | null }>;
}

type Recorded = { label: string; valued_at: Date | null; value_usd: string | null; components: Array<{ asset_code: string; rate: string }> | null };

const percent = (from: string, to: string) => new D(to).minus(from).div(from).times(100).toDecimalPlaces(4, D.ROUND_HALF_EVEN).toFixed(4);

/** Performance of a basket from its recorded valuations (see the file comment). */
export async function performance(q: { basketCode: string; environment: Environment; now?: Date }, client: Queryable = getPool()): Promise<Performance> {
  const now = q.now ?? new Date();
  const labels = ['now', ...PERFORMANCE_PERIODS];
  const ats = [now, ...PERFORMANCE_PERIODS.map((p) => new Date(now.getTime() - PERIOD_MS[p]))];
  const { rows } = await client.query<Recorded>(
    `SELECT p.label, v.valued_at, v.value_usd::text AS value_usd, v.components
       FROM unnest($3::text[], $4::timestamptz[]) p(label, at)
       LEFT JOIN LATERAL (
         SELECT valued_at, value_usd, components FROM basket_valuations
          WHERE environment = $1 AND basket_code = $2 AND valued_at <= p.at
          ORDER BY valued_at DESC LIMIT 1) v ON true`,
    [q.environment, q.basketCode.toUpperCase(), labels, ats],
  );
  const by = new Map(rows.map((r) => [r.label, r]));
  const latest = by.get('now')!;
  const out: Performance = {
    asOf: latest.valued_at,
    valueUsd: latest.value_usd === null ? null : new D(latest.value_usd).toFixed(),
    changes: { '24h': null, '7d': null, '30d': null },
    components: {},
  };
  if (latest.value_usd === null) return out;
  const latestRates = new Map((latest.components ?? []).map((c) => [c.asset_code, c.rate]));
  const refRates = (p: PerformancePeriod) => new Map((by.get(p)!.components ?? []).map((c) => [c.asset_code, c.rate]));
  for (const p of PERFORMANCE_PERIODS) {
    const ref = by.get(p)!;
    if (ref.value_usd === null || ref.valued_at === null) continue;
    out.changes[p] = { since: ref.valued_at, changeUsd: new D(latest.value_usd).minus(ref.value_usd).toFixed(), changePercent: percent(ref.value_usd, latest.value_usd) };
  }
  const r24 = refRates('24h');
  const r7 = refRates('7d');
  for (const [asset, rate] of latestRates) {
    out.components[asset] = {
      '24h': r24.has(asset) ? percent(r24.get(asset)!, rate) : null,
      '7d': r7.has(asset) ? percent(r7.get(asset)!, rate) : null,
    };
  }
  return out;
}
