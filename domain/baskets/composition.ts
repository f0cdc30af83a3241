/**
 * The composition view of a basket (GET /gcu/composition, GET /gcu): its fixed amounts valued
 * at the latest rates with the IMF method (valuation.ts), so weights, contributions and
 * percentages are derived from amounts and rates, never stored. Changes and performance come
 * from recorded valuations (history.ts).
 *
 * The endpoint is read far more often than rates change (hourly), so a CompositionService keeps
 * each (environment, basket) view for at most a second: most requests do no SQL, and concurrent
 * requests for an expired view share one computation.
 */
import { getAsset, type AssetType } from '../assets';
import { getPool, type Queryable } from '../db/pool';
import { DecimalMoney as D } from '../money/amount';
import type { Environment } from '../platform/environment';
import { DomainError } from '../platform/errors';
import { getBasket, PRIMARY_BASKET, type Basket, type RebalanceFrequency } from './definitions';
import { performance, type Performance } from './history';
import { valueBasket, type BasketValuation } from './valuation';

export interface CompositionComponent {
  assetCode: string;
  assetName: string;
  assetType: AssetType;
  /** Units of the component in one basket unit (fixed until a rebalance). */
  amount: string;
  targetWeight: string;
  /** Share of the value at the latest rates: usd equivalent / sum, ten decimals. */
  weight: string;
  priceUsd: string;
  /** amount x price, six decimals (IMF rounding). */
  valueContributionUsd: string;
  /** weight x 100, eight decimals. */
  percentage: string;
  rateAsOf: Date;
  /** Percent change of the component's recorded rate (history.ts); null without history. */
  change24h: string | null;
  change7d: string | null;
}

export interface CompositionView {
  basket: Basket;
  valuation: BasketValuation;
  /** Sum of the contributions: USD per unit before the IMF's reciprocal rounding. */
  totalValueUsd: string;
  components: CompositionComponent[];
  /** The newest rate instant the valuation used. */
  lastUpdated: Date;
  rebalancing: { frequency: RebalanceFrequency; lastRebalanced: Date | null; nextRebalance: Date | null; automatic: false };
  performance: Performance;
  computedAt: Date;
}

/** First instant of the next rebalancing window: the next month's (or quarter's) first day, 00:00 UTC. */
export function nextRebalance(frequency: RebalanceFrequency, now: Date): Date | null {
  if (frequency === 'never') return null;
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth();
  return frequency === 'monthly' ? new Date(Date.UTC(y, m + 1, 1)) : new Date(Date.UTC(y, m - (m % 3) + 3, 1));
}

/** Latest USD rate of each asset with its instant (same order as rates/latestRates). */
async function latestQuotes(assets: string[], client: Queryable): Promise<Map<string, { rate: string; asOf: Date }>> {
  const { rows } = await client.query<{ base_asset: string; rate: string; as_of: Date }>(
    `SELECT DISTINCT ON (base_asset) base_asset, rate::text AS rate, as_of FROM exchange_rates
      WHERE quote_asset = 'USD' AND base_asset = ANY($1::text[])
      ORDER BY base_asset, as_of DESC, id DESC`,
    [assets],
  );
  return new Map(rows.map((r) => [r.base_asset, { rate: new D(r.rate).toFixed(), asOf: r.as_of }]));
}

/** Computes the view now (no cache); CompositionService caches it. */
export async function compositionView(environment: Environment, basketCode: string = PRIMARY_BASKET, now: Date = new Date(), client: Queryable = getPool()): Promise<CompositionView> {
  const basket = await getBasket(basketCode, environment, client);
  const quotes = await latestQuotes(basket.components.map((c) => c.assetCode), client);
  const missing = basket.components.filter((c) => !quotes.has(c.assetCode)).map((c) => c.assetCode);
  if (missing.length > 0) throw new DomainError('RATE_UNAVAILABLE', `No USD rate for ${missing.join(', ')}`, undefined, { asset_codes: missing });
  const valuation = valueBasket(basket.components.map((c) => ({ assetCode: c.assetCode, amount: c.amount, rate: quotes.get(c.assetCode)!.rate })));
  const perf = await performance({ basketCode: basket.code, environment, now }, client);
  const { rows } = await client.query<{ effective_at: Date }>(
    'SELECT effective_at FROM basket_revisions WHERE environment = $1 AND basket_code = $2 AND version = $3',
    [environment, basket.code, basket.version],
  );
  const byAsset = new Map(valuation.components.map((v) => [v.assetCode, v]));
  const components: CompositionComponent[] = [];
  for (const c of basket.components) {
    const v = byAsset.get(c.assetCode)!;
    const asset = await getAsset(c.assetCode, client);
    const weight = new D(v.weight).toDecimalPlaces(10, D.ROUND_HALF_EVEN);
    components.push({
      assetCode: c.assetCode,
      assetName: asset?.name ?? c.assetCode,
      assetType: asset?.type ?? 'fiat',
      amount: c.amount,
      targetWeight: c.targetWeight,
      weight: weight.toFixed(),
      priceUsd: v.priceUsd,
      valueContributionUsd: v.usdEquivalent,
      percentage: new D(v.weight).times(100).toDecimalPlaces(8, D.ROUND_HALF_EVEN).toFixed(),
      rateAsOf: quotes.get(c.assetCode)!.asOf,
      change24h: perf.components[c.assetCode]?.['24h'] ?? null,
      change7d: perf.components[c.assetCode]?.['7d'] ?? null,
    });
  }
  const lastUpdated = new Date(Math.max(...components.map((c) => c.rateAsOf.getTime())));
  return {
    basket,
    valuation,
    totalValueUsd: valuation.sumUsd,
    components,
    lastUpdated,
    rebalancing: {
      frequency: basket.rebalanceFrequency,
      lastRebalanced: basket.lastRebalancedAt ?? rows[0]?.effective_at ?? null,
      nextRebalance: nextRebalance(basket.rebalanceFrequency, now),
      automatic: false,
    },
    performance: perf,
    computedAt: now,
  };
}

export interface CompositionService {
  /** The view of the basket (default the primary, GCU) in the environment, at most ttlMs old. */
  view(environment: Environment, basketCode?: string): Promise<CompositionView>;
  /** Forgets every cached view. */
  clear(): void;
}

/** At most a second: the spec calls the composition real-time, and rates move hourly. */
export const MAX_COMPOSITION_TTL_MS = 1000;

export function createCompositionService(opts: { ttlMs?: number; now?: () => Date; client?: Queryable } = {}): CompositionService {
  const ttl = Math.min(opts.ttlMs ?? MAX_COMPOSITION_TTL_MS, MAX_COMPOSITION_TTL_MS);
  const clock = opts.now ?? (() => new Date());
  const cache = new Map<string, { expires: number; view: Promise<CompositionView> }>();
  return {
    view(environment, basketCode = PRIMARY_BASKET) {
      const key = `${environment}|${basketCode.toUpperCase()}`;
      const now = clock();
      const hit = cache.get(key);
      if (hit && hit.expires > now.getTime()) return hit.view;
      const view = compositionView(environment, basketCode, now, opts.client ?? getPool());
      const entry = { expires: now.getTime() + ttl, view };
      cache.set(key, entry);
      // A refusal or an outage is not kept: the next request tries again.
      view.catch(() => {
        if (cache.get(key) === entry) cache.delete(key);
      });
      return view;
    },
    clear() {
      cache.clear();
    },
  };
}
