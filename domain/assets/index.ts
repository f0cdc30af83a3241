import { getPool, type Queryable } from '../db/pool';
import { loadConfig } from '../platform/config';

export type AssetType = 'fiat' | 'crypto' | 'commodity' | 'basket';

export interface Asset {
  code: string;
  name: string;
  type: AssetType;
  /** Decimal places an amount may carry (USD 2, JPY 0, BTC 8, ETH 18 ...). */
  precision: number;
  isActive: boolean;
  /** Largest amount one operation may move (decimal string at the asset's precision). */
  maxAmount: string;
  /** Largest balance a customer account may hold; the ledger enforces it under its locks. */
  maxBalance: string;
}

// Assets change by migration, or by the ASSET_LIMITS setting applied when they are first loaded,
// so a per-database cache is safe and saves a query per request (the limits included).
const cache = new Map<string, Promise<Map<string, Asset>>>();

function cacheKey(): string {
  return process.env.DATABASE_URL ?? '';
}

type AssetRow = { code: string; name: string; type: AssetType; precision: number; is_active: boolean; max_amount: string; max_balance: string };

async function load(client: Queryable): Promise<Map<string, Asset>> {
  const { rows } = await client.query<AssetRow>(
    `SELECT code, name, type, precision, is_active, round(max_amount, precision)::text AS max_amount,
            round(max_balance, precision)::text AS max_balance
       FROM assets ORDER BY code`,
  );
  return new Map(
    rows.map((r) => [
      r.code,
      { code: r.code, name: r.name, type: r.type, precision: r.precision, isActive: r.is_active, maxAmount: r.max_amount, maxBalance: r.max_balance },
    ]),
  );
}

/**
 * Writes the operator's ASSET_LIMITS overrides into the assets table, where the ledger reads the
 * maximum balance under its locks: the API and the ledger then judge by the same numbers. Only
 * rows that differ are touched; unknown codes are ignored (an asset added later picks them up at
 * the next start). An override stays in the table until changed again.
 */
export async function applyAssetLimitOverrides(client: Queryable = getPool()): Promise<void> {
  const overrides = loadConfig().assetLimits;
  const rows = Object.entries(overrides).map(([code, l]) => ({ code, max_amount: l.maxAmount ?? null, max_balance: l.maxBalance ?? null }));
  if (rows.length === 0) return;
  await client.query(
    `UPDATE assets a SET max_amount = coalesce(o.max_amount, a.max_amount), max_balance = coalesce(o.max_balance, a.max_balance)
       FROM jsonb_to_recordset($1::jsonb) o(code text, max_amount numeric, max_balance numeric)
      WHERE a.code = o.code
        AND (a.max_amount, a.max_balance) IS DISTINCT FROM (coalesce(o.max_amount, a.max_amount), coalesce(o.max_balance, a.max_balance))`,
    [JSON.stringify(rows)],
  );
}

async function loadWithOverrides(): Promise<Map<string, Asset>> {
  await applyAssetLimitOverrides();
  return load(getPool());
}

async function assets(client?: Queryable): Promise<Map<string, Asset>> {
  if (client) return load(client);
  const key = cacheKey();
  let p = cache.get(key);
  if (!p) {
    p = loadWithOverrides();
    cache.set(key, p);
    p.catch(() => cache.delete(key));
  }
  return p;
}

export async function listAssets(client?: Queryable): Promise<Asset[]> {
  return [...(await assets(client)).values()];
}

/** The asset with this code (case-insensitive), or null when unknown or inactive. */
export async function getAsset(code: string, client?: Queryable): Promise<Asset | null> {
  if (typeof code !== 'string') return null;
  const a = (await assets(client)).get(code.toUpperCase());
  return a && a.isActive ? a : null;
}

/** Forgets cached assets (after inserting a new asset at runtime). */
export function clearAssetCache(): void {
  cache.clear();
}
