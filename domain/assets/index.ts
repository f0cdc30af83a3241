import { getPool, type Queryable } from '../db/pool';

export type AssetType = 'fiat' | 'crypto' | 'commodity' | 'basket';

export interface Asset {
  code: string;
  name: string;
  type: AssetType;
  /** Decimal places an amount may carry (USD 2, JPY 0, BTC 8, ETH 18 ...). */
  precision: number;
  isActive: boolean;
}

// Assets change by migration only, so a per-database cache is safe and saves a query per request.
const cache = new Map<string, Promise<Map<string, Asset>>>();

function cacheKey(): string {
  return process.env.DATABASE_URL ?? '';
}

async function load(client: Queryable): Promise<Map<string, Asset>> {
  const { rows } = await client.query<{ code: string; name: string; type: AssetType; precision: number; is_active: boolean }>(
    'SELECT code, name, type, precision, is_active FROM assets ORDER BY code',
  );
  return new Map(rows.map((r) => [r.code, { code: r.code, name: r.name, type: r.type, precision: r.precision, isActive: r.is_active }]));
}

async function assets(client?: Queryable): Promise<Map<string, Asset>> {
  if (client) return load(client);
  const key = cacheKey();
  let p = cache.get(key);
  if (!p) {
    p = load(getPool());
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
