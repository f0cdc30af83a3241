import type pg from 'pg';
import { getPool, type Queryable } from '../db/pool';
import { loadConfig, type Config } from '../platform/config';

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
export async function applyAssetLimitOverrides(
  client: Queryable = getPool(),
  overrides: Config['assetLimits'] = loadConfig().assetLimits,
): Promise<void> {
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

export interface AssetCatalog {
  /** The asset with this code (case-insensitive), or null when unknown or inactive. */
  getAsset(code: string, client?: Queryable): Promise<Asset | null>;
  listAssets(client?: Queryable): Promise<Asset[]>;
  /** Forgets the loaded assets (after inserting a new asset at runtime). */
  clear(): void;
}

/**
 * The assets of one database. Assets change by migration, or by the ASSET_LIMITS setting applied
 * when they are first loaded, so the catalog loads them once (overrides applied first) and saves a
 * query per request, the limits included. Given a client (a caller inside a transaction passes its
 * own), a catalog not loaded yet reads through that client instead of the pool, and keeps nothing:
 * a second pooled connection asked for while one is held waits on itself once the pool is exhausted.
 */
export function createAssetCatalog(deps: { pool: Queryable; config: Pick<Config, 'assetLimits'> }): AssetCatalog {
  let loaded: Promise<Map<string, Asset>> | undefined;
  // The settled load: a client's caller must not wait for a load still queued for a pooled connection.
  let ready: Map<string, Asset> | undefined;

  const assets = (client?: Queryable): Promise<Map<string, Asset>> => {
    if (ready) return Promise.resolve(ready);
    if (client && client !== deps.pool) return load(client);
    if (!loaded) {
      const p = applyAssetLimitOverrides(deps.pool, deps.config.assetLimits).then(() => load(deps.pool));
      loaded = p;
      p.then(
        (m) => {
          if (loaded === p) ready = m;
        },
        () => {
          if (loaded === p) loaded = undefined;
        },
      );
    }
    return loaded;
  };

  return {
    async getAsset(code, client) {
      if (typeof code !== 'string') return null;
      const a = (await assets(client)).get(code.toUpperCase());
      return a && a.isActive ? a : null;
    },
    async listAssets(client) {
      return [...(await assets(client)).values()];
    },
    clear() {
      loaded = undefined;
      ready = undefined;
    },
  };
}

// The catalog the module-level functions below use: one per pool (a test that switches databases
// gets a new pool, hence a new catalog). Code that is handed a catalog uses that one instead.
const catalogs = new WeakMap<pg.Pool, AssetCatalog>();

/** The shared catalog of a pool (created on first use with the process's settings). */
export function assetCatalogFor(pool: pg.Pool): AssetCatalog {
  let c = catalogs.get(pool);
  if (!c) {
    c = createAssetCatalog({ pool, config: loadConfig() });
    catalogs.set(pool, c);
  }
  return c;
}

export async function listAssets(client?: Queryable): Promise<Asset[]> {
  return assetCatalogFor(getPool()).listAssets(client);
}

/** The asset with this code (case-insensitive), or null when unknown or inactive. */
export async function getAsset(code: string, client?: Queryable): Promise<Asset | null> {
  return assetCatalogFor(getPool()).getAsset(code, client);
}

/** Forgets the cached assets of the current pool (after inserting a new asset at runtime). */
export function clearAssetCache(): void {
  assetCatalogFor(getPool()).clear();
}
