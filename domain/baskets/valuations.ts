/**
 * Recorded valuations: what the hourly schedule (workflows/basket-valuation.ts) writes, and the
 * only thing value history and performance figures are read from (history.ts).
 *
 * For one instant (the start of an hour), in one transaction: the rate provider's quotes for that
 * instant are stored in exchange_rates, every basket in both environments is valued at those
 * rates (IMF method, valuation.ts) into basket_valuations, and each basket's production value
 * becomes its own USD price (source 'basket-valuation'), so transfers and balances price GCU at
 * its basket value through the one rates table. Running it again for the same instant changes
 * nothing: the stored quotes are reused and the rows already there are kept.
 */
import type pg from 'pg';
import { getPool, withTransaction, type Queryable } from '../db/pool';
import { DecimalMoney as D } from '../money/amount';
import { ENVIRONMENTS, type Environment } from '../platform/environment';
import { insertQuotes, refreshRates, type RateProvider } from '../rates';
import { HOUR_MS, hourOf, rateProviderFor } from '../rates/feed';
import { listBaskets, type Basket } from './definitions';
import { valueBasket } from './valuation';

export const BASKET_PRICE_SOURCE = 'basket-valuation';

export interface RecordedValuation {
  environment: Environment;
  basketCode: string;
  version: number;
  valueUsd: string;
  /** False when the row was already there (a repeated run): the stored row is reported. */
  inserted: boolean;
}

export interface RecordedValuations {
  valuedAt: Date;
  /** Quotes fetched and stored for the instant; 0 when that instant's quotes were already stored. */
  ratesRecorded: number;
  /** The USD rates the valuations used (asset → rate). */
  rates: Record<string, string>;
  valuations: RecordedValuation[];
  /** Baskets that could not be valued (a component without a rate at the instant). */
  skipped: Array<{ environment: Environment; basketCode: string; missing: string[] }>;
  /** Basket prices written to exchange_rates (production valuations). */
  prices: Array<{ basketCode: string; valueUsd: string }>;
}

export interface RecordValuationsDeps {
  provider?: RateProvider;
  pool?: pg.Pool;
}

/**
 * USD rates in force at `at`: per asset the newest row at or before it, the provider's own row
 * first on a tie. Basket prices are outputs of valuation, never its inputs.
 */
export async function ratesAsOf(at: Date, preferSource: string, client: Queryable = getPool()): Promise<Map<string, string>> {
  const { rows } = await client.query<{ base_asset: string; rate: string }>(
    `SELECT DISTINCT ON (base_asset) base_asset, rate::text AS rate FROM exchange_rates
      WHERE quote_asset = 'USD' AND as_of <= $1 AND source <> $2
      ORDER BY base_asset, as_of DESC, (source = $3) DESC, id DESC`,
    [at, BASKET_PRICE_SOURCE, preferSource],
  );
  return new Map(rows.map((r) => [r.base_asset, new D(r.rate).toFixed()]));
}

async function recordOne(b: Basket, instant: Date, rates: Map<string, string>, c: Queryable): Promise<RecordedValuation | { missing: string[] }> {
  const missing = b.components.filter((x) => !rates.has(x.assetCode)).map((x) => x.assetCode);
  if (missing.length > 0) return { missing };
  const v = valueBasket(b.components.map((x) => ({ assetCode: x.assetCode, amount: x.amount, rate: rates.get(x.assetCode)! })));
  const components = v.components.map((x) => ({ asset_code: x.assetCode, amount: x.amount, rate: x.rate, usd_equivalent: x.usdEquivalent }));
  const ins = await c.query(
    `INSERT INTO basket_valuations (environment, basket_code, valued_at, value_usd, version, components)
     VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`,
    [b.environment, b.code, instant, v.valueUsd, b.version, JSON.stringify(components)],
  );
  const { rows } = await c.query<{ value_usd: string; version: number }>(
    'SELECT value_usd::text AS value_usd, version FROM basket_valuations WHERE environment = $1 AND basket_code = $2 AND valued_at = $3',
    [b.environment, b.code, instant],
  );
  return { environment: b.environment, basketCode: b.code, version: rows[0].version, valueUsd: new D(rows[0].value_usd).toFixed(), inserted: ins.rowCount === 1 };
}

/**
 * Records the valuations of the hour holding `at` (see the file comment). Concurrent runs for
 * the same hour serialise on an advisory lock, so the quotes are stored once.
 */
export async function recordValuations(at: Date, deps: RecordValuationsDeps = {}): Promise<RecordedValuations> {
  const instant = hourOf(at);
  const provider = deps.provider ?? rateProviderFor();
  return withTransaction(async (c) => {
    await c.query(`SELECT pg_advisory_xact_lock(hashtext('basket-valuations'), $1::int)`, [instant.getTime() / HOUR_MS]);
    const baskets: Basket[] = [];
    for (const env of ENVIRONMENTS) baskets.push(...(await listBaskets(env, c)));
    const basketCodes = new Set(baskets.map((b) => b.code));
    const stored = await c.query('SELECT 1 FROM exchange_rates WHERE source = $1 AND as_of = $2 LIMIT 1', [provider.name, instant]);
    let ratesRecorded = 0;
    if (stored.rows.length === 0) {
      // A basket's price is its valuation, whatever a provider would say about it.
      const withoutBaskets: RateProvider = { name: provider.name, fetchRates: async (t) => (await provider.fetchRates(t)).filter((q) => !basketCodes.has(q.base)) };
      ratesRecorded = await refreshRates(withoutBaskets, c, instant);
    }
    const rates = await ratesAsOf(instant, provider.name, c);

    const out: RecordedValuations = { valuedAt: instant, ratesRecorded, rates: Object.fromEntries(rates), valuations: [], skipped: [], prices: [] };
    for (const b of baskets) {
      const r = await recordOne(b, instant, rates, c);
      if ('missing' in r) out.skipped.push({ environment: b.environment, basketCode: b.code, missing: r.missing });
      else out.valuations.push(r);
    }
    for (const v of out.valuations.filter((x) => x.environment === 'production')) {
      await c.query(
        `INSERT INTO exchange_rates (base_asset, quote_asset, rate, as_of, source)
         SELECT $1, 'USD', $2, $3, $4
          WHERE NOT EXISTS (SELECT 1 FROM exchange_rates WHERE base_asset = $1 AND quote_asset = 'USD' AND as_of = $3 AND source = $4)`,
        [v.basketCode, v.valueUsd, instant, BASKET_PRICE_SOURCE],
      );
      out.prices.push({ basketCode: v.basketCode, valueUsd: v.valueUsd });
    }
    return out;
  }, deps.pool);
}

/** How far back valuations are recorded at start-up: the longest performance figure's reference (30 days). */
export const BACKFILL_HOURS = 30 * 24;

export interface BackfillResult {
  /** Hours recorded now (those without any valuation yet). */
  recorded: number;
  /** Why nothing was recorded, when the provider cannot say what its rates were. */
  skippedReason: string | null;
}

/**
 * Records the valuations of every hour of the last BACKFILL_HOURS (and the current one) that has
 * none yet, from the rate provider's own history, so the composition's 24h/7d component changes
 * and the 24h/7d/30d performance figures are numbers from recorded valuations on a fresh start
 * rather than null for a month (issue 42). Nothing is invented: each hour is valued at the rates
 * the provider gives for that hour, by the same rules as recordValuations (quotes stored, rates in
 * force at the hour, IMF valuation, production values as basket prices), set-wise in one
 * transaction; a provider without history is not asked, and the figures stay null until the hourly
 * schedule has recorded them. Idempotent; run by the worker at start-up.
 */
export async function backfillValuations(now: Date = new Date(), deps: RecordValuationsDeps = {}): Promise<BackfillResult> {
  const provider = deps.provider ?? rateProviderFor();
  if (!provider.historical) return { recorded: 0, skippedReason: `the rate provider ${provider.name} has no history` };
  const end = hourOf(now);
  const start = end.getTime() - BACKFILL_HOURS * HOUR_MS;
  return withTransaction(async (c) => {
    const all: Date[] = [];
    for (let t = start; t <= end.getTime(); t += HOUR_MS) all.push(new Date(t));
    // The same per-hour locks as recordValuations, in one order: a concurrent hourly run waits.
    await c.query(`SELECT pg_advisory_xact_lock(hashtext('basket-valuations'), h) FROM unnest($1::int[]) h ORDER BY h`, [all.map((d) => d.getTime() / HOUR_MS)]);
    const { rows: valued } = await c.query<{ at: Date }>('SELECT DISTINCT valued_at AS at FROM basket_valuations WHERE valued_at = ANY($1::timestamptz[])', [all]);
    const done = new Set(valued.map((r) => r.at.getTime()));
    const hours = all.filter((d) => !done.has(d.getTime()));
    if (hours.length === 0) return { recorded: 0, skippedReason: null };
    const baskets: Basket[] = [];
    for (const env of ENVIRONMENTS) baskets.push(...(await listBaskets(env, c)));
    const basketCodes = new Set(baskets.map((b) => b.code));

    const { rows: stored } = await c.query<{ at: Date }>('SELECT DISTINCT as_of AS at FROM exchange_rates WHERE source = $1 AND as_of = ANY($2::timestamptz[])', [provider.name, hours]);
    const have = new Set(stored.map((r) => r.at.getTime()));
    const quotes = (await Promise.all(hours.filter((h) => !have.has(h.getTime())).map((h) => provider.fetchRates(h)))).flat().filter((q) => !basketCodes.has(q.base));
    await insertQuotes(provider.name, quotes, c);

    // Rates in force at each hour (ratesAsOf's rule, one index probe per hour and component asset).
    const assets = [...new Set(baskets.flatMap((b) => b.components.map((x) => x.assetCode)))];
    const { rows: inForce } = await c.query<{ at: Date; asset: string; rate: string }>(
      `SELECT h.at, a.asset, r.rate FROM unnest($1::timestamptz[]) h(at) CROSS JOIN unnest($2::text[]) a(asset)
         CROSS JOIN LATERAL (SELECT rate::text AS rate FROM exchange_rates
                              WHERE base_asset = a.asset AND quote_asset = 'USD' AND as_of <= h.at AND source <> $3
                              ORDER BY as_of DESC, (source = $4) DESC, id DESC LIMIT 1) r`,
      [hours, assets, BASKET_PRICE_SOURCE, provider.name],
    );
    const ratesAt = new Map<number, Map<string, string>>();
    for (const r of inForce) {
      const m = ratesAt.get(r.at.getTime()) ?? new Map<string, string>();
      m.set(r.asset, new D(r.rate).toFixed());
      ratesAt.set(r.at.getTime(), m);
    }
    const rows: Array<[Environment, string, Date, string, number, string]> = [];
    for (const h of hours) {
      const rates = ratesAt.get(h.getTime()) ?? new Map<string, string>();
      for (const b of baskets) {
        if (b.components.some((x) => !rates.has(x.assetCode))) continue;
        const v = valueBasket(b.components.map((x) => ({ assetCode: x.assetCode, amount: x.amount, rate: rates.get(x.assetCode)! })));
        const components = v.components.map((x) => ({ asset_code: x.assetCode, amount: x.amount, rate: x.rate, usd_equivalent: x.usdEquivalent }));
        rows.push([b.environment, b.code, h, v.valueUsd, b.version, JSON.stringify(components)]);
      }
    }
    const col = <T>(i: number) => rows.map((r) => r[i] as T);
    await c.query(
      `INSERT INTO basket_valuations (environment, basket_code, valued_at, value_usd, version, components)
       SELECT * FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::numeric[], $5::int[], $6::jsonb[]) ON CONFLICT DO NOTHING`,
      [col(0), col(1), col(2), col(3), col(4), col(5)],
    );
    // Production values are the baskets' USD prices at those hours, as recordValuations writes them.
    const prices = rows.filter((r) => r[0] === 'production');
    await c.query(
      `INSERT INTO exchange_rates (base_asset, quote_asset, rate, as_of, source)
       SELECT p.code, 'USD', p.value, p.at, $4 FROM unnest($1::text[], $2::numeric[], $3::timestamptz[]) p(code, value, at)
        WHERE NOT EXISTS (SELECT 1 FROM exchange_rates e WHERE e.base_asset = p.code AND e.quote_asset = 'USD' AND e.as_of = p.at AND e.source = $4)`,
      [prices.map((r) => r[1]), prices.map((r) => r[3]), prices.map((r) => r[2]), BASKET_PRICE_SOURCE],
    );
    return { recorded: hours.length, skippedReason: null };
  }, deps.pool);
}
