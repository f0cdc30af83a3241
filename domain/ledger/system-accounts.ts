/**
 * System accounts (funding, fee revenue, suspense, settlement; sharded) and named internal
 * accounts by id. Their ids are looked up on every posting, so a ledger service remembers them:
 * `createLedgerService({ pool })` owns that memory for one database.
 */
import type pg from 'pg';
import { getPool, type Queryable } from '../db/pool';
import { ENVIRONMENTS, type Environment } from '../platform/environment';
import {
  SYSTEM_ACCOUNT_KINDS,
  SYSTEM_ACCOUNT_SHARDS,
  SYSTEM_NORMAL,
  createInternalLedgerAccount,
  type SystemAccountKind,
} from './accounts';
import type { Direction } from './entries';
import { LedgerError } from './errors';
import { invalid } from './sql';

/** Stable shard for a key (FNV-1a), so retries of one operation hit the same shard. */
export function shardFor(shardKey: string, shards = SYSTEM_ACCOUNT_SHARDS): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < shardKey.length; i++) {
    h ^= shardKey.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % shards;
}

export type InternalLedgerAccountInput = {
  environment: Environment;
  assetCode: string;
  code: string;
  name: string;
  normalBalance: Direction;
  noOverdraft?: boolean;
};

export interface LedgerService {
  /**
   * Ledger account id of a system account. Each (environment, asset, kind) is split in 32 shards so
   * concurrent postings do not queue on one row lock: pass the idempotency key (or any per-operation
   * key) as shardKey to spread load; without it, shard 0. Shards exist for seeded assets and are
   * created on first use for others.
   */
  systemAccount(environment: Environment, assetCode: string, kind: SystemAccountKind, shardKey?: string, client?: Queryable): Promise<string>;
  /**
   * Id of a named internal ledger account (createInternalLedgerAccount), opened on first use and
   * then remembered like system accounts, so a posting on a hot path does not pay two queries for it.
   */
  internalLedgerAccountId(input: InternalLedgerAccountInput, client?: Queryable): Promise<string>;
}

/** The ledger's per-database state: ids of system and internal accounts, once committed. */
export function createLedgerService(deps: { pool: Queryable }): LedgerService {
  const accountIds = new Map<string, string>();

  /**
   * Remembers an account id once its row is committed. A row this transaction created itself
   * (xmin is our own transaction id) could still be rolled back, so it is not remembered.
   */
  async function remember(key: string, id: string, client: Queryable): Promise<void> {
    const { rows } = await client.query<{ mine: boolean | null }>(
      'SELECT xmin = pg_current_xact_id_if_assigned()::xid AS mine FROM ledger_accounts WHERE id = $1',
      [id],
    );
    if (rows[0] && rows[0].mine !== true) accountIds.set(key, id);
  }

  return {
    async systemAccount(environment, assetCode, kind, shardKey, client = deps.pool) {
      if (!SYSTEM_ACCOUNT_KINDS.includes(kind)) throw new LedgerError('ACCOUNT_NOT_FOUND', `unknown system account kind ${kind}`);
      if (!ENVIRONMENTS.includes(environment)) invalid('environment must be sandbox or production');
      const asset = typeof assetCode === 'string' ? assetCode.toUpperCase() : '';
      const shard = shardKey === undefined ? 0 : shardFor(shardKey);
      const key = `${environment}|${asset}|${kind}:${shard}`;
      const hit = accountIds.get(key);
      if (hit) return hit;
      const code = `${kind}:${shard}`;
      const found = await client.query<{ id: string }>(
        'SELECT id FROM ledger_accounts WHERE environment = $1 AND asset_code = $2 AND code = $3',
        [environment, asset, code],
      );
      let id = found.rows[0]?.id;
      if (!id) {
        const known = await client.query('SELECT 1 FROM assets WHERE code = $1', [asset]);
        if (known.rowCount === 0) throw new LedgerError('ASSET_NOT_FOUND', `unknown asset ${assetCode}`);
        // A new asset has no shards yet: open all of them at once (racing callers are harmless).
        await client.query(
          `INSERT INTO ledger_accounts (id, environment, asset_code, name, kind, code, normal_balance, no_overdraft)
           SELECT 'la_' || replace(gen_random_uuid()::text, '-', ''), $1, $2, $3 || ' #' || s, $4, $4 || ':' || s, $5, false
           FROM generate_series(0, $6::int - 1) s
           ON CONFLICT (environment, asset_code, code) DO NOTHING`,
          [environment, asset, `${environment} ${asset} ${kind.replace('_', ' ')}`, kind, SYSTEM_NORMAL[kind], SYSTEM_ACCOUNT_SHARDS],
        );
        const again = await client.query<{ id: string }>(
          'SELECT id FROM ledger_accounts WHERE environment = $1 AND asset_code = $2 AND code = $3',
          [environment, asset, code],
        );
        id = again.rows[0].id;
      }
      await remember(key, id, client);
      return id;
    },

    async internalLedgerAccountId(input, client = deps.pool) {
      // '#' keeps these keys apart from the system accounts' (whose codes are kind:shard).
      const key = `${input.environment}|${input.assetCode.toUpperCase()}|#${input.code}`;
      const hit = accountIds.get(key);
      if (hit) return hit;
      const la = await createInternalLedgerAccount(input, client);
      await remember(key, la.id, client);
      return la.id;
    },
  };
}

// The service the module-level functions below use: one per pool (a test that switches databases
// gets a new pool, hence a new service). Code that is handed a service uses that one instead.
const services = new WeakMap<pg.Pool, LedgerService>();

/** The shared ledger service of a pool. */
export function ledgerServiceFor(pool: pg.Pool): LedgerService {
  let s = services.get(pool);
  if (!s) {
    s = createLedgerService({ pool });
    services.set(pool, s);
  }
  return s;
}

/** systemAccount of the current pool's shared ledger service (see LedgerService). */
export async function systemAccount(
  environment: Environment,
  assetCode: string,
  kind: SystemAccountKind,
  shardKey?: string,
  client: Queryable = getPool(),
): Promise<string> {
  return ledgerServiceFor(getPool()).systemAccount(environment, assetCode, kind, shardKey, client);
}

/** internalLedgerAccountId of the current pool's shared ledger service (see LedgerService). */
export async function internalLedgerAccountId(input: InternalLedgerAccountInput, client: Queryable = getPool()): Promise<string> {
  return ledgerServiceFor(getPool()).internalLedgerAccountId(input, client);
}

/** Sum over the shards of a system account (normal-side posted balance), at asset precision. */
export async function systemBalance(environment: Environment, assetCode: string, kind: SystemAccountKind, client: Queryable = getPool()): Promise<string> {
  const { rows } = await client.query<{ balance: string | null }>(
    `SELECT round(sum(CASE WHEN la.normal_balance = 'credit' THEN la.credits_posted - la.debits_posted
                           ELSE la.debits_posted - la.credits_posted END), a.precision)::text AS balance
     FROM ledger_accounts la JOIN assets a ON a.code = la.asset_code
     WHERE la.environment = $1 AND la.asset_code = $2 AND la.kind = $3 GROUP BY a.precision`,
    [environment, assetCode.toUpperCase(), kind],
  );
  return rows[0]?.balance ?? '0';
}
