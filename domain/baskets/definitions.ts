/**
 * Basket definitions: which baskets exist, their components (fixed amounts per unit) per
 * environment, and operators creating new baskets. A basket is also an asset (type 'basket'), so
 * its units sit on customer accounts and move like any other asset.
 */
import { assetCatalogFor, getAsset, type Asset } from '../assets';
import { getPool, withTransaction, type Queryable } from '../db/pool';
import { AmountError, DecimalMoney as D, parseAmount as parseAmountRaw } from '../money/amount';
import type { Environment } from '../platform/environment';
import { ENVIRONMENTS } from '../platform/environment';
import { DomainError } from '../platform/errors';
import { newId } from '../platform/ids';
import { latestRates } from '../rates';
import { amountsForWeights, valueBasket } from './valuation';

export const PRIMARY_BASKET = 'GCU';

function parseAmount(value: string, precision: number): string {
  try {
    return parseAmountRaw(value, precision);
  } catch (err) {
    if (err instanceof AmountError) throw new DomainError(err.code, `initial_value_usd: ${err.message}`, '/initial_value_usd');
    throw err;
  }
}
export const REBALANCE_FREQUENCIES = ['monthly', 'quarterly', 'never'] as const;
export type RebalanceFrequency = (typeof REBALANCE_FREQUENCIES)[number];

export interface BasketComponent {
  assetCode: string;
  amount: string;
  targetWeight: string;
}

export interface Basket {
  code: string;
  name: string;
  description: string | null;
  isPrimary: boolean;
  rebalanceFrequency: RebalanceFrequency;
  environment: Environment;
  /** The basket asset's precision: decimals a basket amount may carry. */
  precision: number;
  version: number;
  outstanding: string;
  lastRebalancedAt: Date | null;
  components: BasketComponent[];
  createdAt: Date;
}

type BasketRow = {
  code: string; name: string; description: string | null; is_primary: boolean; rebalance_frequency: RebalanceFrequency; created_at: Date;
  precision: number; version: number; outstanding: string; last_rebalanced_at: Date | null; components: Array<{ asset_code: string; amount: string; target_weight: string }>;
};

const SELECT = `
  SELECT b.code, b.name, b.description, b.is_primary, b.rebalance_frequency, b.created_at, a.precision,
         s.version, s.outstanding::text AS outstanding, s.last_rebalanced_at,
         (SELECT jsonb_agg(jsonb_build_object('asset_code', c.asset_code, 'amount', c.amount::text, 'target_weight', c.target_weight::text) ORDER BY c.asset_code)
            FROM basket_components c WHERE c.environment = s.environment AND c.basket_code = b.code) AS components
    FROM baskets b JOIN assets a ON a.code = b.code AND a.is_active
    JOIN basket_states s ON s.basket_code = b.code AND s.environment = $1`;

function toBasket(r: BasketRow, environment: Environment): Basket {
  return {
    code: r.code,
    name: r.name,
    description: r.description,
    isPrimary: r.is_primary,
    rebalanceFrequency: r.rebalance_frequency,
    environment,
    precision: r.precision,
    version: r.version,
    outstanding: new D(r.outstanding).toFixed(),
    lastRebalancedAt: r.last_rebalanced_at,
    components: (r.components ?? []).map((c) => ({ assetCode: c.asset_code, amount: new D(c.amount).toFixed(), targetWeight: new D(c.target_weight).toFixed() })),
    createdAt: r.created_at,
  };
}

export async function listBaskets(environment: Environment, client: Queryable = getPool()): Promise<Basket[]> {
  const { rows } = await client.query<BasketRow>(`${SELECT} ORDER BY b.is_primary DESC, b.code`, [environment]);
  return rows.map((r) => toBasket(r, environment));
}

/** The basket with this code (case-insensitive) in the environment, or BASKET_NOT_FOUND. */
export async function getBasket(code: unknown, environment: Environment, client: Queryable = getPool(), pointer?: string): Promise<Basket> {
  const found = typeof code === 'string' && code.length <= 32 ? await findBasket(code, environment, client) : null;
  if (!found) throw new DomainError('BASKET_NOT_FOUND', `No basket with code ${String(code).slice(0, 32)}`, pointer);
  return found;
}

export async function findBasket(code: string, environment: Environment, client: Queryable = getPool()): Promise<Basket | null> {
  const { rows } = await client.query<BasketRow>(`${SELECT} WHERE b.code = $2`, [environment, code.toUpperCase()]);
  return rows[0] ? toBasket(rows[0], environment) : null;
}

export interface CreateBasketInput {
  code: string;
  name: string;
  description?: string | null;
  precision?: number;
  rebalanceFrequency?: RebalanceFrequency;
  /** Target weights; amounts are computed from them at the latest rates for a starting value. */
  components: Array<{ assetCode: string; weight: string }>;
  /** USD value of one unit at creation (default 1). */
  initialValueUsd?: string;
  createdBy: string;
}

/**
 * An operator defines a basket: creates its asset (type 'basket'), its components in both
 * environments (amounts from the target weights at the latest rates, so a unit is worth
 * initialValueUsd at creation) and its first revision. Components must be active non-basket assets
 * with a USD rate; codes must be new.
 */
export async function createBasket(input: CreateBasketInput, client?: Queryable): Promise<Basket> {
  const code = input.code.toUpperCase();
  const precision = input.precision ?? 4;
  const initialValue = parseAmount(input.initialValueUsd ?? '1', 6);
  if (new D(initialValue).isZero()) throw new DomainError('AMOUNT_NOT_POSITIVE', 'initial_value_usd must be positive', '/initial_value_usd');
  const seen = new Set<string>();
  const components: Array<{ asset: Asset; weight: string }> = [];
  for (const [i, c] of input.components.entries()) {
    const asset = await getAsset(c.assetCode, client);
    if (!asset) throw new DomainError('UNKNOWN_ASSET', `Asset ${c.assetCode} is not supported`, `/components/${i}/asset_code`);
    if (asset.type === 'basket') throw new DomainError('INVALID_COMPONENT', 'A basket cannot hold another basket', `/components/${i}/asset_code`);
    if (seen.has(asset.code)) throw new DomainError('DUPLICATE_COMPONENT', `${asset.code} is listed twice`, `/components/${i}/asset_code`);
    seen.add(asset.code);
    components.push({ asset, weight: c.weight });
  }
  const run = async (c: Queryable) => {
    const existing = await c.query('SELECT 1 FROM assets WHERE code = $1', [code]);
    if (existing.rows.length > 0) throw new DomainError('ASSET_EXISTS', `An asset with code ${code} already exists`, '/code');
    const rates = await latestRates(c);
    const priced = components.map((x) => {
      const rate = rates.get(x.asset.code);
      if (!rate) throw new DomainError('RATE_UNAVAILABLE', `No USD rate for ${x.asset.code}`, '/components');
      return { assetCode: x.asset.code, weight: x.weight, priceUsd: rate };
    });
    const amounts = amountsForWeights(priced, initialValue);
    const value = valueBasket(amounts.map((a) => ({ assetCode: a.assetCode, amount: a.amount, rate: rates.get(a.assetCode)! })));
    await c.query(`INSERT INTO assets (code, name, type, precision) VALUES ($1, $2, 'basket', $3)`, [code, input.name, precision]);
    await c.query(`INSERT INTO baskets (code, name, description, rebalance_frequency, created_by) VALUES ($1, $2, $3, $4, $5)`, [
      code, input.name, input.description ?? null, input.rebalanceFrequency ?? 'monthly', input.createdBy,
    ]);
    for (const env of ENVIRONMENTS) {
      await c.query(`INSERT INTO basket_states (environment, basket_code) VALUES ($1, $2)`, [env, code]);
      await c.query(
        `INSERT INTO basket_components (environment, basket_code, asset_code, amount, target_weight)
         SELECT $1, $2, x.asset_code, x.amount::numeric, x.weight::numeric FROM jsonb_to_recordset($3::jsonb) x(asset_code text, amount text, weight text)`,
        [env, code, JSON.stringify(amounts.map((a) => ({ asset_code: a.assetCode, amount: a.amount, weight: a.weight })))],
      );
      await c.query(
        `INSERT INTO basket_revisions (id, environment, basket_code, version, components, rates, value_usd) VALUES ($1, $2, $3, 1, $4, $5, $6)`,
        [
          newId('brev'), env, code,
          JSON.stringify(amounts.map((a) => ({ asset_code: a.assetCode, amount: a.amount, target_weight: a.weight }))),
          JSON.stringify(Object.fromEntries(priced.map((p) => [p.assetCode, p.priceUsd]))),
          value.valueUsd,
        ],
      );
    }
    // The basket's own price, so balances in it have a USD value from the start.
    await c.query(`INSERT INTO exchange_rates (base_asset, quote_asset, rate, as_of, source) VALUES ($1, 'USD', $2, now(), 'basket-valuation')`, [code, value.valueUsd]);
  };
  if (client) await run(client);
  else await withTransaction(run);
  assetCatalogFor(getPool()).clear();
  return (await findBasket(code, 'production', client))!;
}

/**
 * Locks the basket's state row in the environment (every operation that changes outstanding
 * units or the composition takes it first, so the reserve rule is computed under one lock).
 */
export async function lockBasket(code: string, environment: Environment, client: Queryable): Promise<Basket> {
  await client.query('SELECT 1 FROM basket_states WHERE environment = $1 AND basket_code = $2 FOR UPDATE', [environment, code]);
  return getBasket(code, environment, client);
}
