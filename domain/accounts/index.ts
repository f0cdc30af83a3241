import { tenantForNewAccount } from '../partner/tenants';
import type pg from 'pg';
import { getAsset } from '../assets';
import { getPool, withTransaction, type Queryable } from '../db/pool';
import { writeOutboxEvent } from '../events/outbox';
import { DecimalMoney } from '../money/amount';
import { ENVIRONMENTS, type Environment } from '../platform/environment';
import { newId } from '../platform/ids';
import { latestRates } from '../rates';

export type AccountType = 'personal' | 'business' | 'savings';
export type AccountStatus = 'active' | 'frozen' | 'closed';
export const ACCOUNT_TYPES: readonly AccountType[] = ['personal', 'business', 'savings'];

export interface Account {
  id: string;
  userId: string;
  environment: Environment;
  name: string;
  type: AccountType;
  status: AccountStatus;
  metadata: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

export type AccountErrorCode =
  | 'ACCOUNT_NOT_FOUND'
  | 'INVALID_ACCOUNT'
  | 'ACCOUNT_CLOSED'
  | 'ACCOUNT_NOT_EMPTY'
  | 'ACCOUNT_HAS_PENDING'
  | 'ACCOUNT_HELD_BY_GROUP'
  | 'ASSET_NOT_FOUND';

/** A refusal about a customer account; no HTTP status here (api/error-status.ts decides it from the code). */
export class AccountError extends Error {
  constructor(
    public readonly code: AccountErrorCode,
    message: string,
    public readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'AccountError';
  }
}

interface AccountRow {
  id: string;
  user_id: string;
  environment: Environment;
  name: string;
  type: AccountType;
  status: AccountStatus;
  metadata: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

function toAccount(r: AccountRow): Account {
  return {
    id: r.id,
    userId: r.user_id,
    environment: r.environment,
    name: r.name,
    type: r.type,
    status: r.status,
    metadata: r.metadata ?? {},
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** The API's Account record (spec: uuid, name, type, status, created_at, metadata). */
export function toPublicAccount(a: Account) {
  return {
    uuid: a.id,
    name: a.name,
    type: a.type,
    status: a.status,
    metadata: a.metadata,
    created_at: a.createdAt.toISOString(),
    updated_at: a.updatedAt.toISOString(),
  };
}

function eventData(a: Account, extra: Record<string, unknown> = {}) {
  return { account: toPublicAccount(a), ...extra };
}

/** Runs fn in the caller's transaction when a client is given, else in a new one. */
async function inTransaction<T>(client: pg.PoolClient | undefined, fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
  return client ? fn(client) : withTransaction(fn);
}

const MAX_METADATA_BYTES = 16 * 1024;

export async function createAccount(
  input: { userId: string; environment: Environment; name: string; type?: AccountType; metadata?: Record<string, unknown> },
  client?: pg.PoolClient,
): Promise<Account> {
  if (typeof input.userId !== 'string' || input.userId === '') throw new AccountError('INVALID_ACCOUNT', 'userId is required');
  if (!ENVIRONMENTS.includes(input.environment)) throw new AccountError('INVALID_ACCOUNT', 'environment must be sandbox or production');
  const name = typeof input.name === 'string' ? input.name.trim() : '';
  if (name === '' || name.length > 255) throw new AccountError('INVALID_ACCOUNT', 'name must be 1 to 255 characters');
  const type = input.type ?? 'personal';
  if (!ACCOUNT_TYPES.includes(type)) throw new AccountError('INVALID_ACCOUNT', `type must be one of ${ACCOUNT_TYPES.join(', ')}`);
  const metadata = input.metadata ?? {};
  if (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata)) {
    throw new AccountError('INVALID_ACCOUNT', 'metadata must be an object');
  }
  const metadataJson = JSON.stringify(metadata);
  if (Buffer.byteLength(metadataJson) > MAX_METADATA_BYTES) throw new AccountError('INVALID_ACCOUNT', 'metadata is larger than 16 KiB');

  return inTransaction(client, async (c) => {
    // A partner tenant's customer opens the account inside the tenant, within its plan.
    const tenantId = await tenantForNewAccount(c, input.userId);
    const { rows } = await c.query<AccountRow>(
      `INSERT INTO accounts (id, user_id, environment, name, type, status, metadata, tenant_id)
       VALUES ($1, $2, $3, $4, $5, 'active', $6, $7) RETURNING *`,
      [newId('acct'), input.userId, input.environment, name, type, metadataJson, tenantId],
    );
    const account = toAccount(rows[0]);
    await writeOutboxEvent(c, {
      type: 'account.created',
      environment: account.environment,
      userId: account.userId,
      aggregateType: 'account',
      aggregateId: account.id,
      data: eventData(account),
    });
    return account;
  });
}

/** The account, or null when it does not exist or belongs to another user or environment. */
export async function getAccount(userId: string | null, environment: Environment, id: string, client: Queryable = getPool()): Promise<Account | null> {
  const { rows } = await client.query<AccountRow>(
    'SELECT * FROM accounts WHERE id = $1 AND environment = $2 AND ($3::text IS NULL OR user_id = $3)',
    [id, environment, userId],
  );
  return rows[0] ? toAccount(rows[0]) : null;
}

export async function listAccounts(
  userId: string,
  environment: Environment,
  page: { page?: number; perPage?: number } = {},
  client: Queryable = getPool(),
): Promise<{ items: Account[]; total: number }> {
  const perPage = Math.min(100, Math.max(1, Math.trunc(page.perPage ?? 20)));
  const p = Math.max(1, Math.trunc(page.page ?? 1));
  const [items, count] = await Promise.all([
    client.query<AccountRow>(
      `SELECT * FROM accounts WHERE user_id = $1 AND environment = $2 ORDER BY created_at, id LIMIT $3 OFFSET $4`,
      [userId, environment, perPage, (p - 1) * perPage],
    ),
    client.query<{ n: string }>('SELECT count(*) AS n FROM accounts WHERE user_id = $1 AND environment = $2', [userId, environment]),
  ]);
  return { items: items.rows.map(toAccount), total: Number(count.rows[0].n) };
}

/** The owner's accounts among `ids` in the environment, by id (one query: a GraphQL loader's batch). */
export async function accountsByIds(ids: readonly string[], owner: { userId: string; environment: Environment }, client: Queryable = getPool()): Promise<Map<string, Account>> {
  if (ids.length === 0) return new Map();
  const { rows } = await client.query<AccountRow>('SELECT * FROM accounts WHERE id = ANY($1::text[]) AND user_id = $2 AND environment = $3', [ids, owner.userId, owner.environment]);
  return new Map(rows.map((r) => [r.id, toAccount(r)]));
}

export interface AccountScope {
  /** When given, an account of another user is not found */
  userId?: string | null;
  /** When given, an account of the other environment is not found */
  environment?: Environment;
  reason?: string;
  /** The microfinance group releasing the guarantee fund it holds (its closure); nobody else may. */
  releasedBy?: string;
}

/** Locks the account row, then its ledger accounts in id order (the order postings lock them). */
async function lockAccount(c: Queryable, id: string, scope: AccountScope): Promise<AccountRow> {
  const { rows } = await c.query<AccountRow>('SELECT * FROM accounts WHERE id = $1 FOR UPDATE', [id]);
  const row = rows[0];
  if (!row || (scope.userId != null && row.user_id !== scope.userId) || (scope.environment && row.environment !== scope.environment)) {
    throw new AccountError('ACCOUNT_NOT_FOUND', `account ${id} not found`);
  }
  await c.query('SELECT 1 FROM ledger_accounts WHERE account_id = $1 ORDER BY id FOR UPDATE', [id]);
  return row;
}

/**
 * A group's guarantee fund stays frozen while the group holds it: its money moves only by the
 * group's loan rules (domain/microfinance/fund.ts), so neither its custodian nor an operator
 * unfreezes or closes it here; the group's closure returns the money and closes it. Decided by
 * mf_groups.guarantee_account_id, not the account's metadata (which its owner may edit).
 */
async function refuseIfHeldByGroup(c: Queryable, id: string, scope: AccountScope): Promise<void> {
  const { rows } = await c.query<{ id: string }>('SELECT id FROM mf_groups WHERE guarantee_account_id = $1', [id]);
  if (rows[0] && rows[0].id !== scope.releasedBy) {
    throw new AccountError('ACCOUNT_HELD_BY_GROUP', `account ${id} is the guarantee fund of group ${rows[0].id}: it moves only by the group's rules and closes with the group`, { group_id: rows[0].id });
  }
}

async function setStatus(
  c: pg.PoolClient,
  id: string,
  status: AccountStatus,
  event: string,
  scope: AccountScope,
  extra: Record<string, unknown> = {},
): Promise<Account> {
  const { rows } = await c.query<AccountRow>(
    'UPDATE accounts SET status = $2, updated_at = now() WHERE id = $1 RETURNING *',
    [id, status],
  );
  // Postings check the ledger accounts' status under their row lock, so a freeze cannot race one.
  await c.query('UPDATE ledger_accounts SET status = $2, updated_at = now() WHERE account_id = $1', [id, status]);
  const account = toAccount(rows[0]);
  await writeOutboxEvent(c, {
    type: event,
    environment: account.environment,
    userId: account.userId,
    aggregateType: 'account',
    aggregateId: account.id,
    data: eventData(account, { reason: scope.reason ?? null, ...extra }),
  });
  return account;
}

/** Status and name of accounts by id, whoever owns them (for steps acting on a record that names them). */
export async function accountFacts(c: Queryable, ids: readonly string[]): Promise<Map<string, { status: AccountStatus; name: string }>> {
  const { rows } = await c.query<{ id: string; status: AccountStatus; name: string }>('SELECT id, status, name FROM accounts WHERE id = ANY($1::text[])', [ids]);
  return new Map(rows.map((r) => [r.id, { status: r.status, name: r.name }]));
}

/** Freezes an account: no new debits on any of its ledger accounts. Freezing a frozen account is a no-op. */
export async function freezeAccount(id: string, scope: AccountScope = {}, client?: pg.PoolClient): Promise<Account> {
  return inTransaction(client, async (c) => {
    const row = await lockAccount(c, id, scope);
    if (row.status === 'closed') throw new AccountError('ACCOUNT_CLOSED', `account ${id} is closed`);
    if (row.status === 'frozen') return toAccount(row);
    return setStatus(c, id, 'frozen', 'account.frozen', scope);
  });
}

export async function unfreezeAccount(id: string, scope: AccountScope = {}, client?: pg.PoolClient): Promise<Account> {
  return inTransaction(client, async (c) => {
    const row = await lockAccount(c, id, scope);
    if (row.status === 'closed') throw new AccountError('ACCOUNT_CLOSED', `account ${id} is closed`);
    if (row.status === 'active') return toAccount(row);
    await refuseIfHeldByGroup(c, id, scope);
    return setStatus(c, id, 'active', 'account.unfrozen', scope);
  });
}

/** Closes an account whose balances are all zero with nothing pending. Closing a closed account is a no-op. */
export async function closeAccount(id: string, scope: AccountScope = {}, client?: pg.PoolClient): Promise<Account> {
  return inTransaction(client, async (c) => {
    const row = await lockAccount(c, id, scope);
    if (row.status === 'closed') return toAccount(row);
    await refuseIfHeldByGroup(c, id, scope);
    // Every chain book of an asset counts (domain/chains/books.ts): one entry per asset.
    const { rows } = await c.query<{ asset_code: string; nonzero: boolean; pending: boolean }>(
      `SELECT asset_code, bool_or(credits_posted <> debits_posted) AS nonzero, bool_or(debits_pending <> 0 OR credits_pending <> 0) AS pending
       FROM ledger_accounts WHERE account_id = $1 GROUP BY asset_code ORDER BY asset_code`,
      [id],
    );
    const pending = rows.filter((r) => r.pending).map((r) => r.asset_code);
    if (pending.length > 0) throw new AccountError('ACCOUNT_HAS_PENDING', `account ${id} has pending transactions`, { assets: pending });
    const nonzero = rows.filter((r) => r.nonzero).map((r) => r.asset_code);
    if (nonzero.length > 0) throw new AccountError('ACCOUNT_NOT_EMPTY', `account ${id} has non-zero balances`, { assets: nonzero });
    return setStatus(c, id, 'closed', 'account.closed', scope);
  });
}

/**
 * The customer account's ledger account for an asset (la_...), opened on first use: credit-normal,
 * no-overdraft, with the account's current status. Idempotent and race-safe (unique index on
 * account, asset and chain; FOR SHARE on the account row orders it against a concurrent freeze/close).
 * `chain` is the chain book: '' (the default) is the asset's home book that deposits, withdrawals,
 * transfers and rails use; domain/chains/books.ts opens the other chains' books (and normalises
 * the home chain to '').
 */
export async function ensureCustomerLedgerAccount(accountId: string, assetCode: string, client: Queryable = getPool(), chain = ''): Promise<string> {
  const asset = await getAsset(assetCode, client);
  if (!asset) throw new AccountError('ASSET_NOT_FOUND', `unknown asset ${assetCode}`);
  const find = 'SELECT id FROM ledger_accounts WHERE account_id = $1 AND asset_code = $2 AND chain = $3';
  const existing = await client.query<{ id: string }>(find, [accountId, asset.code, chain]);
  if (existing.rows[0]) return existing.rows[0].id;
  const inserted = await client.query<{ id: string }>(
    `INSERT INTO ledger_accounts (id, environment, asset_code, name, kind, normal_balance, no_overdraft, status, account_id, user_id, chain)
     SELECT $1, a.environment, $2, a.id || ' ' || $2 || CASE WHEN $4::text = '' THEN '' ELSE '@' || $4::text END, 'customer', 'credit', true, a.status, a.id, a.user_id, $4::text
     FROM (SELECT * FROM accounts WHERE id = $3 FOR SHARE) a
     ON CONFLICT (account_id, asset_code, chain) DO NOTHING
     RETURNING id`,
    [newId('la'), asset.code, accountId, chain],
  );
  if (inserted.rows[0]) return inserted.rows[0].id;
  const again = await client.query<{ id: string }>(find, [accountId, asset.code, chain]);
  if (!again.rows[0]) throw new AccountError('ACCOUNT_NOT_FOUND', `account ${accountId} not found`);
  return again.rows[0].id;
}

export interface AccountBalances {
  account_uuid: string;
  balances: Array<{ asset_code: string; available_balance: string; reserved_balance: string; total_balance: string }>;
  summary: { total_assets: number; total_usd_equivalent: string };
}

/** An account's balance per asset (summed over its chain books), one row per asset held. */
export interface AssetBalance {
  asset_code: string;
  available_balance: string;
  reserved_balance: string;
  total_balance: string;
}

/** The balance rows alone (no USD summary): a named statement, planned once per connection (hot on open-banking reads). */
export async function assetBalances(accountId: string, client: Queryable = getPool()): Promise<AssetBalance[]> {
  const { rows } = await client.query<AssetBalance>({
    name: 'account-asset-balances',
    text: `SELECT la.asset_code,
              round(sum(CASE WHEN la.normal_balance = 'credit' THEN la.credits_posted - la.debits_posted - la.debits_pending
                             ELSE la.debits_posted - la.credits_posted - la.credits_pending END), a.precision)::text AS available_balance,
              round(sum(CASE WHEN la.normal_balance = 'credit' THEN la.debits_pending ELSE la.credits_pending END), a.precision)::text AS reserved_balance,
              round(sum(CASE WHEN la.normal_balance = 'credit' THEN la.credits_posted - la.debits_posted
                             ELSE la.debits_posted - la.credits_posted END), a.precision)::text AS total_balance
       FROM ledger_accounts la JOIN assets a ON a.code = la.asset_code
       WHERE la.account_id = $1 GROUP BY la.asset_code, a.precision ORDER BY la.asset_code`,
    values: [accountId],
  });
  return rows;
}

/**
 * Balances per asset the account has used (available = posted credits - posted debits - pending
 * debits; reserved = pending debits; total = posted credits - posted debits), summed over the
 * asset's chain books (so a bridge leaves the total unchanged but for its fee), at asset
 * precision, and the USD value of the totals at the latest rates (2 decimals; assets without a
 * rate count 0).
 */
export async function getBalances(accountId: string, client: Queryable = getPool()): Promise<AccountBalances> {
  // One after the other: the client may be a transaction's, which runs one query at a time anyway.
  const rows = await assetBalances(accountId, client);
  const rates = await latestRates(client);
  let usd = new DecimalMoney(0);
  for (const r of rows) {
    const rate = rates.get(r.asset_code);
    if (rate) usd = usd.plus(new DecimalMoney(r.total_balance).times(rate));
  }
  return {
    account_uuid: accountId,
    balances: rows.map((r) => ({
      asset_code: r.asset_code,
      available_balance: r.available_balance,
      reserved_balance: r.reserved_balance,
      total_balance: r.total_balance,
    })),
    summary: { total_assets: rows.length, total_usd_equivalent: usd.toDecimalPlaces(2, DecimalMoney.ROUND_HALF_EVEN).toFixed(2) },
  };
}
