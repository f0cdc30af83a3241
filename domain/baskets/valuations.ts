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
import { refreshRates, type RateProvider } from '../rates';
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
