/** Ledger accounts: the chart of accounts with balances, and named internal accounts. */
import { getPool, type Queryable } from '../db/pool';
import { ENVIRONMENTS, type Environment } from '../platform/environment';
import { newId } from '../platform/ids';
import type { Direction } from './entries';
import { LedgerError } from './errors';
import { invalid } from './sql';

export type SystemAccountKind = 'funding' | 'fee_revenue' | 'suspense' | 'settlement';
export type LedgerAccountKind = 'customer' | SystemAccountKind | 'internal';
export type LedgerAccountStatus = 'active' | 'frozen' | 'closed';

/** System accounts are split in this many shards (migration seeds shards 0..7). */
export const SYSTEM_ACCOUNT_SHARDS = 32;
export const SYSTEM_ACCOUNT_KINDS: readonly SystemAccountKind[] = ['funding', 'fee_revenue', 'suspense', 'settlement'];
export const SYSTEM_NORMAL: Record<SystemAccountKind, Direction> = { funding: 'debit', settlement: 'debit', fee_revenue: 'credit', suspense: 'credit' };

export interface LedgerAccount {
  id: string;
  environment: Environment;
  assetCode: string;
  name: string;
  kind: LedgerAccountKind;
  code: string | null;
  normalBalance: Direction;
  noOverdraft: boolean;
  status: LedgerAccountStatus;
  /** Customer account (acct_...) for kind customer */
  accountId: string | null;
  userId: string | null;
  debitsPending: string;
  debitsPosted: string;
  creditsPending: string;
  creditsPosted: string;
  overdraftAllowance: string;
  /** Posted balance on the normal side (credits - debits for credit-normal) */
  totalBalance: string;
  /** totalBalance less pending outflows */
  availableBalance: string;
  /** Pending outflows */
  reservedBalance: string;
  createdAt: Date;
}

const LEDGER_ACCOUNT_COLUMNS = `
  la.id, la.environment, la.asset_code, la.name, la.kind, la.code, la.normal_balance, la.no_overdraft, la.status,
  la.account_id, la.user_id, la.created_at,
  round(la.debits_pending, a.precision)::text AS debits_pending, round(la.debits_posted, a.precision)::text AS debits_posted,
  round(la.credits_pending, a.precision)::text AS credits_pending, round(la.credits_posted, a.precision)::text AS credits_posted,
  round(la.overdraft_allowance, a.precision)::text AS overdraft_allowance,
  b.total_balance, b.available_balance, b.reserved_balance`;

const LEDGER_ACCOUNT_FROM = `
  ledger_accounts la JOIN assets a ON a.code = la.asset_code
  CROSS JOIN LATERAL (SELECT j->>'total_balance' AS total_balance, j->>'available_balance' AS available_balance,
                             j->>'reserved_balance' AS reserved_balance FROM ledger_balance_json(la) j) b`;

interface LedgerAccountRow {
  id: string;
  environment: Environment;
  asset_code: string;
  name: string;
  kind: LedgerAccountKind;
  code: string | null;
  normal_balance: Direction;
  no_overdraft: boolean;
  status: LedgerAccountStatus;
  account_id: string | null;
  user_id: string | null;
  created_at: Date;
  debits_pending: string;
  debits_posted: string;
  credits_pending: string;
  credits_posted: string;
  overdraft_allowance: string;
  total_balance: string;
  available_balance: string;
  reserved_balance: string;
}

function toLedgerAccount(r: LedgerAccountRow): LedgerAccount {
  return {
    id: r.id,
    environment: r.environment,
    assetCode: r.asset_code,
    name: r.name,
    kind: r.kind,
    code: r.code,
    normalBalance: r.normal_balance,
    noOverdraft: r.no_overdraft,
    status: r.status,
    accountId: r.account_id,
    userId: r.user_id,
    debitsPending: r.debits_pending,
    debitsPosted: r.debits_posted,
    creditsPending: r.credits_pending,
    creditsPosted: r.credits_posted,
    overdraftAllowance: r.overdraft_allowance,
    totalBalance: r.total_balance,
    availableBalance: r.available_balance,
    reservedBalance: r.reserved_balance,
    createdAt: r.created_at,
  };
}

export async function getLedgerAccount(id: string, client: Queryable = getPool()): Promise<LedgerAccount | null> {
  const { rows } = await client.query<LedgerAccountRow>(`SELECT ${LEDGER_ACCOUNT_COLUMNS} FROM ${LEDGER_ACCOUNT_FROM} WHERE la.id = $1`, [id]);
  return rows[0] ? toLedgerAccount(rows[0]) : null;
}

/** Chart of accounts with balances. */
export async function listLedgerAccounts(
  q: { environment: Environment; kind?: LedgerAccountKind; assetCode?: string; accountId?: string },
  client: Queryable = getPool(),
): Promise<LedgerAccount[]> {
  const { rows } = await client.query<LedgerAccountRow>(
    `SELECT ${LEDGER_ACCOUNT_COLUMNS} FROM ${LEDGER_ACCOUNT_FROM}
     WHERE la.environment = $1 AND ($2::text IS NULL OR la.kind = $2) AND ($3::text IS NULL OR la.asset_code = $3)
       AND ($4::text IS NULL OR la.account_id = $4)
     ORDER BY la.asset_code, la.kind, la.code NULLS LAST, la.created_at, la.id`,
    [q.environment, q.kind ?? null, q.assetCode ?? null, q.accountId ?? null],
  );
  return rows.map(toLedgerAccount);
}

/**
 * Opens (or finds) a named internal ledger account for other modules (e.g. loans receivable).
 * Idempotent on (environment, asset, code).
 */
export async function createInternalLedgerAccount(
  input: { environment: Environment; assetCode: string; code: string; name: string; normalBalance: Direction; noOverdraft?: boolean },
  client: Queryable = getPool(),
): Promise<LedgerAccount> {
  if (!ENVIRONMENTS.includes(input.environment)) invalid('environment must be sandbox or production');
  if (typeof input.code !== 'string' || input.code === '' || /^(funding|fee_revenue|suspense|settlement):/.test(input.code)) {
    invalid('code must be a non-empty string outside the system account codes');
  }
  if (input.normalBalance !== 'debit' && input.normalBalance !== 'credit') invalid('normalBalance must be debit or credit');
  const asset = input.assetCode.toUpperCase();
  try {
    await client.query(
      `INSERT INTO ledger_accounts (id, environment, asset_code, name, kind, code, normal_balance, no_overdraft)
       VALUES ($1, $2, $3, $4, 'internal', $5, $6, $7) ON CONFLICT (environment, asset_code, code) DO NOTHING`,
      [newId('la'), input.environment, asset, input.name, input.code, input.normalBalance, input.noOverdraft ?? false],
    );
  } catch (err) {
    if ((err as { code?: string }).code === '23503') throw new LedgerError('ASSET_NOT_FOUND', `unknown asset ${input.assetCode}`);
    throw err;
  }
  const { rows } = await client.query<LedgerAccountRow>(
    `SELECT ${LEDGER_ACCOUNT_COLUMNS} FROM ${LEDGER_ACCOUNT_FROM} WHERE la.environment = $1 AND la.asset_code = $2 AND la.code = $3`,
    [input.environment, asset, input.code],
  );
  return toLedgerAccount(rows[0]);
}

/**
 * Sets the status of a non-customer ledger account (customer accounts change status through
 * domain/accounts, which keeps the customer account and its ledger accounts together).
 */
export async function setLedgerAccountStatus(id: string, status: LedgerAccountStatus, client: Queryable = getPool()): Promise<void> {
  if (!['active', 'frozen', 'closed'].includes(status)) invalid('status must be active, frozen or closed');
  const r = await client.query(`UPDATE ledger_accounts SET status = $2, updated_at = now() WHERE id = $1 AND kind <> 'customer'`, [id, status]);
  if (r.rowCount === 0) throw new LedgerError('ACCOUNT_NOT_FOUND', `ledger account ${id} not found (or is a customer account)`);
}
