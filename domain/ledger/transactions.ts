import { getPool, type Queryable } from '../db/pool';
import type { Environment } from '../platform/environment';

/**
 * Customer-visible transactions are the ledger lines on customer ledger accounts (id txn_...).
 * Type comes from the entry type and the line's direction (docs/ledger.md); status from the line:
 * pending while the entry is pending, completed once posted, failed when voided.
 */
/**
 * The customer-visible transaction types: the one TypeScript list (entry validation in
 * domain/ledger, the API's transaction schema import it). The ledger's copies are the CHECK on
 * ledger_lines.txn_type and ledger__rule_txn_type; tests/ledger/rules.test.ts compares all three.
 */
export const TRANSACTION_TYPES = ['deposit', 'withdrawal', 'transfer_in', 'transfer_out', 'fee', 'reversal'] as const;
export type TransactionType = (typeof TRANSACTION_TYPES)[number];
export type TransactionStatus = 'pending' | 'completed' | 'failed';
export type TransactionSort = 'created_at' | '-created_at' | 'amount' | '-amount';

export interface Transaction {
  id: string;
  accountId: string;
  ledgerAccountId: string;
  entryId: string;
  type: TransactionType;
  amount: string;
  assetCode: string;
  status: TransactionStatus;
  reference: string | null;
  description: string | null;
  createdAt: Date;
  completedAt: Date | null;
  /** Account total right after the line was posted; null while pending and for failed ones. */
  balanceAfter: string | null;
}

export interface TransactionQuery {
  accountId?: string;
  /** Owner filter (tenant isolation); null only for internal callers that checked access already. */
  userId: string | null;
  environment: Environment;
  /** A transaction type, or 'transfer' for both transfer_in and transfer_out */
  type?: TransactionType | 'transfer';
  status?: TransactionStatus;
  assetCode?: string;
  /** Only lines in these assets (e.g. open banking's ISO 4217 currencies). */
  assetCodes?: readonly string[];
  startDate?: Date;
  endDate?: Date;
  sort?: TransactionSort;
  page?: number;
  perPage?: number;
}

const LINE_STATUS: Record<TransactionStatus, string> = { pending: 'pending', completed: 'posted', failed: 'voided' };
const TO_STATUS: Record<string, TransactionStatus> = { pending: 'pending', posted: 'completed', voided: 'failed' };
const ORDER: Record<TransactionSort, string> = {
  created_at: 'l.created_at ASC, l.seq ASC',
  '-created_at': 'l.created_at DESC, l.seq DESC',
  amount: 'l.amount ASC, l.seq ASC',
  '-amount': 'l.amount DESC, l.seq DESC',
};

interface Row {
  id: string;
  account_id: string;
  ledger_account_id: string;
  entry_id: string;
  txn_type: TransactionType;
  amount: string;
  asset_code: string;
  status: string;
  reference: string | null;
  description: string | null;
  created_at: Date;
  completed_at: Date | null;
  balance_after: string | null;
}

const SELECT = `
  SELECT l.id, l.account_id, l.ledger_account_id, l.entry_id, l.txn_type, round(l.amount, a.precision)::text AS amount,
         l.asset_code, l.status, e.reference, e.description, l.created_at, l.completed_at,
         round(l.balance_after, a.precision)::text AS balance_after
  FROM ledger_lines l
  JOIN journal_entries e ON e.id = l.entry_id
  JOIN assets a ON a.code = l.asset_code`;

function toTransaction(r: Row): Transaction {
  return {
    id: r.id,
    accountId: r.account_id,
    ledgerAccountId: r.ledger_account_id,
    entryId: r.entry_id,
    type: r.txn_type,
    amount: r.amount,
    assetCode: r.asset_code,
    status: TO_STATUS[r.status],
    reference: r.reference,
    description: r.description,
    createdAt: r.created_at,
    completedAt: r.completed_at,
    balanceAfter: r.balance_after,
  };
}

/**
 * Lists transactions, newest first by default. Indexed: by (account_id, created_at) with an
 * account, else by (user_id, environment, created_at). Filters unknown to the caller's input
 * validation (bad sort, page) fall back to defaults rather than failing.
 */
export async function listTransactions(q: TransactionQuery, client: Queryable = getPool()): Promise<{ items: Transaction[]; total: number }> {
  const where: string[] = ['l.environment = $1', 'l.account_id IS NOT NULL'];
  const params: unknown[] = [q.environment];
  const add = (sql: string, value: unknown) => {
    params.push(value);
    where.push(sql.replace('?', `$${params.length}`));
  };
  if (q.userId !== null) add('l.user_id = ?', q.userId);
  if (q.accountId !== undefined) add('l.account_id = ?', q.accountId);
  if (q.type !== undefined) add('l.txn_type = ANY(?::text[])', q.type === 'transfer' ? ['transfer_in', 'transfer_out'] : [q.type]);
  if (q.status !== undefined) add('l.status = ?', LINE_STATUS[q.status] ?? '-');
  if (q.assetCode !== undefined) add('l.asset_code = ?', q.assetCode.toUpperCase());
  if (q.assetCodes !== undefined) add('l.asset_code = ANY(?::text[])', [...q.assetCodes]);
  if (q.startDate !== undefined) add('l.created_at >= ?', q.startDate);
  if (q.endDate !== undefined) add('l.created_at <= ?', q.endDate);
  const perPage = Math.min(100, Math.max(1, Math.trunc(q.perPage ?? 20)));
  const page = Math.max(1, Math.trunc(q.page ?? 1));
  const order = ORDER[q.sort ?? '-created_at'] ?? ORDER['-created_at'];
  const filter = where.join(' AND ');
  const [items, count] = await Promise.all([
    client.query<Row>(`${SELECT} WHERE ${filter} ORDER BY ${order} LIMIT ${perPage} OFFSET ${(page - 1) * perPage}`, params),
    client.query<{ total: string }>(`SELECT count(*) AS total FROM ledger_lines l WHERE ${filter}`, params),
  ]);
  return { items: items.rows.map(toTransaction), total: Number(count.rows[0].total) };
}

/** One transaction by id, or null (also when it belongs to another user or environment). */
export async function getTransaction(
  q: { id: string; userId: string | null; environment: Environment },
  client: Queryable = getPool(),
): Promise<Transaction | null> {
  const { rows } = await client.query<Row>(
    `${SELECT} WHERE l.id = $1 AND l.environment = $2 AND l.account_id IS NOT NULL AND ($3::text IS NULL OR l.user_id = $3)`,
    [q.id, q.environment, q.userId],
  );
  return rows[0] ? toTransaction(rows[0]) : null;
}

/** What posted an entry, as far as reporting needs it (open banking's bank transaction codes). */
export interface EntryOrigin {
  /** journal_entries.type: deposit, withdrawal, transfer, mf_teller_deposit, reversal, … */
  type: string;
  /** The rail of a rail payment's reservation (metadata.rail), else null. */
  rail: string | null;
  /** An Interledger payment's entry (metadata.ilp_payment_id). */
  interledger: boolean;
  /** For a reversal: the origin of the entry it reverses. */
  reverses: Omit<EntryOrigin, 'reverses'> | null;
}

/** The origins of these entries, by id (one query for a page of transactions). */
export async function entryOrigins(entryIds: readonly string[], client: Queryable = getPool()): Promise<Map<string, EntryOrigin>> {
  if (entryIds.length === 0) return new Map();
  const { rows } = await client.query<{ id: string; type: string; rail: string | null; interledger: boolean; r_type: string | null; r_rail: string | null; r_interledger: boolean | null }>(
    `SELECT e.id, e.type, e.metadata->>'rail' AS rail, e.metadata ? 'ilp_payment_id' AS interledger,
            r.type AS r_type, r.metadata->>'rail' AS r_rail, r.metadata ? 'ilp_payment_id' AS r_interledger
       FROM journal_entries e LEFT JOIN journal_entries r ON r.id = e.reverses_entry_id
      WHERE e.id = ANY($1::text[])`,
    [[...new Set(entryIds)]],
  );
  return new Map(
    rows.map((r) => [
      r.id,
      { type: r.type, rail: r.rail, interledger: r.interledger, reverses: r.r_type === null ? null : { type: r.r_type, rail: r.r_rail, interledger: r.r_interledger === true } },
    ]),
  );
}
