import { createHash } from 'node:crypto';
import { getPool, type Queryable } from '../db/pool';
import { getAsset } from '../assets';
import { AmountError, parseAmount, parseRequestAmount } from '../money/amount';
import { ENVIRONMENTS, type Environment } from '../platform/environment';
import { DomainError } from '../platform/errors';
import { newId } from '../platform/ids';
import { LedgerError, toLedgerError } from './errors';
import { TRANSACTION_TYPES, type TransactionType } from './transactions';

export { LedgerError, toLedgerError, type LedgerErrorCode } from './errors';
export {
  listTransactions,
  getTransaction,
  TRANSACTION_TYPES,
  type Transaction,
  type TransactionType,
  type TransactionStatus,
  type TransactionQuery,
  type TransactionSort,
} from './transactions';

export type Direction = 'debit' | 'credit';
export type { Queryable };

export interface LineInput {
  /** Ledger account id (la_...); the asset comes from the account. */
  accountId: string;
  direction: Direction;
  /** Positive decimal string at most the asset's precision ("10.50"). */
  amount: string;
  /** Optional guard: refused with ASSET_MISMATCH when the account holds another asset. */
  assetCode?: string;
  /** Customer-visible type of this line when the default mapping (docs/ledger.md) does not fit. */
  transactionType?: TransactionType;
}

export interface PostEntryInput {
  environment: Environment;
  /** From the workflow id and step, or the client's Idempotency-Key; unique per environment. */
  idempotencyKey: string;
  /** deposit | withdrawal | transfer | fee | reversal | manual | settlement | ... */
  type: string;
  description?: string;
  reference?: string;
  lines: LineInput[];
  /** Two-phase: reserve now (pending totals), post or void later. */
  pending?: boolean;
  /** A pending entry not posted within this many seconds voids itself. */
  pendingTimeoutSeconds?: number;
  metadata?: Record<string, unknown>;
  /** Owner recorded on the entry (events of customer lines carry their account's owner). */
  userId?: string | null;
  /** The entry's id (je_...), when the caller needs it before posting; generated otherwise. */
  entryId?: string;
}

export type EntryStatus = 'pending' | 'posted' | 'voided';

export interface EntryLine {
  /** txn_...: a line on a customer ledger account is that customer's transaction. */
  id: string;
  accountId: string;
  assetCode: string;
  direction: Direction;
  amount: string;
  /** The account's total balance right after this line was posted; null while pending or voided. */
  balanceAfter: string | null;
  status: EntryStatus;
  customerAccountId: string | null;
  transactionType: TransactionType | null;
}

export interface Entry {
  id: string;
  environment: Environment;
  idempotencyKey: string;
  type: string;
  status: EntryStatus;
  twoPhase: boolean;
  description: string | null;
  reference: string | null;
  metadata: Record<string, unknown>;
  userId: string | null;
  reversesEntryId: string | null;
  reversedByEntryId: string | null;
  /** Set on a forced reversal: how far each no-overdraft account was taken below its funds. */
  forcedOverdraft: Array<{ accountId: string; amount: string }> | null;
  pendingExpiresAt: Date | null;
  voidReason: string | null;
  createdAt: Date;
  postedAt: Date | null;
  voidedAt: Date | null;
  lines: EntryLine[];
}

interface EntryJson {
  id: string;
  environment: Environment;
  idempotency_key: string;
  type: string;
  status: EntryStatus;
  two_phase: boolean;
  description: string | null;
  reference: string | null;
  metadata: Record<string, unknown>;
  user_id: string | null;
  reverses_entry_id: string | null;
  reversed_by_entry_id: string | null;
  forced_overdraft: Array<{ account_id: string; amount: string }> | null;
  pending_expires_at: string | null;
  void_reason: string | null;
  created_at: string;
  posted_at: string | null;
  voided_at: string | null;
  lines: Array<{
    id: string;
    account_id: string;
    asset_code: string;
    direction: Direction;
    amount: string;
    balance_after: string | null;
    status: EntryStatus;
    customer_account_id: string | null;
    transaction_type: TransactionType | null;
  }> | null;
}

const date = (s: string | null) => (s === null ? null : new Date(s));

function toEntry(j: EntryJson): Entry {
  return {
    id: j.id,
    environment: j.environment,
    idempotencyKey: j.idempotency_key,
    type: j.type,
    status: j.status,
    twoPhase: j.two_phase,
    description: j.description,
    reference: j.reference,
    metadata: j.metadata ?? {},
    userId: j.user_id,
    reversesEntryId: j.reverses_entry_id,
    reversedByEntryId: j.reversed_by_entry_id,
    forcedOverdraft: j.forced_overdraft ? j.forced_overdraft.map((f) => ({ accountId: f.account_id, amount: f.amount })) : null,
    pendingExpiresAt: date(j.pending_expires_at),
    voidReason: j.void_reason,
    createdAt: new Date(j.created_at),
    postedAt: date(j.posted_at),
    voidedAt: date(j.voided_at),
    lines: (j.lines ?? []).map((l) => ({
      id: l.id,
      accountId: l.account_id,
      assetCode: l.asset_code,
      direction: l.direction,
      amount: l.amount,
      balanceAfter: l.balance_after,
      status: l.status,
      customerAccountId: l.customer_account_id,
      transactionType: l.transaction_type,
    })),
  };
}

/** Runs one ledger SQL function call (one round trip) and maps its errors. */
async function call<T>(client: Queryable, sql: string, params: unknown[]): Promise<T> {
  try {
    const { rows } = await client.query<{ r: T }>(sql, params);
    return (rows[0]?.r ?? null) as T;
  } catch (err) {
    throw toLedgerError(err);
  }
}

function invalid(message: string): never {
  throw new LedgerError('INVALID_ENTRY', message);
}

function requireKey(key: unknown, what = 'idempotency key'): string {
  if (typeof key !== 'string' || key.trim() === '' || key.length > 255) invalid(`${what} must be a non-empty string of at most 255 characters`);
  return key;
}

const LINE_TYPES: ReadonlySet<string> = new Set(TRANSACTION_TYPES);

/** The JSON the posting function takes (validated here first); for callers that post inside a larger statement. */
export function entryPayload(input: PostEntryInput): Record<string, unknown> {
  if (!input || typeof input !== 'object') invalid('entry input is required');
  if (!ENVIRONMENTS.includes(input.environment)) invalid('environment must be sandbox or production');
  requireKey(input.idempotencyKey);
  if (typeof input.type !== 'string' || input.type.trim() === '' || input.type.length > 64) invalid('type must be a non-empty string');
  if (!Array.isArray(input.lines) || input.lines.length < 2) invalid('an entry needs at least two lines');
  if (input.lines.length > 100) invalid('an entry has at most 100 lines');
  if (input.pendingTimeoutSeconds !== undefined) {
    if (!input.pending) invalid('pendingTimeoutSeconds needs pending: true');
    if (!Number.isInteger(input.pendingTimeoutSeconds) || input.pendingTimeoutSeconds <= 0) invalid('pendingTimeoutSeconds must be a positive integer');
  }
  if (input.metadata !== undefined && (input.metadata === null || typeof input.metadata !== 'object' || Array.isArray(input.metadata))) {
    invalid('metadata must be an object');
  }
  const lines = input.lines.map((l, i) => {
    if (!l || typeof l !== 'object') invalid(`line ${i + 1} must be an object`);
    if (typeof l.accountId !== 'string' || l.accountId === '') invalid(`line ${i + 1}: accountId is required`);
    if (l.direction !== 'debit' && l.direction !== 'credit') invalid(`line ${i + 1}: direction must be debit or credit`);
    try {
      // Syntax and sign here; the asset's precision is checked by the posting function.
      parseAmount(l.amount, 18);
    } catch (err) {
      if (err instanceof AmountError) throw new LedgerError(err.code, `line ${i + 1}: ${err.message}`);
      throw err;
    }
    if (l.transactionType !== undefined && !LINE_TYPES.has(l.transactionType)) invalid(`line ${i + 1}: unknown transactionType`);
    const out: Record<string, unknown> = { account_id: l.accountId, direction: l.direction, amount: l.amount };
    if (l.assetCode !== undefined) out.asset_code = l.assetCode;
    if (l.transactionType !== undefined) out.transaction_type = l.transactionType;
    return out;
  });
  return {
    environment: input.environment,
    idempotency_key: input.idempotencyKey,
    type: input.type,
    description: input.description ?? null,
    reference: input.reference ?? null,
    metadata: input.metadata ?? {},
    pending: input.pending === true,
    pending_timeout_seconds: input.pendingTimeoutSeconds ?? null,
    user_id: input.userId ?? null,
    entry_id: input.entryId ?? null,
    lines,
  };
}

/**
 * Posts a balanced entry in one round trip: the SQL function validates, locks the accounts in id
 * order, checks balance and funds, writes entry, lines, totals and outbox events, and returns the
 * entry. The same idempotency key returns the first result; different content is
 * IDEMPOTENCY_CONFLICT. With `pending`, funds are reserved until postPending/voidPending.
 */
export async function postEntry(input: PostEntryInput, client: Queryable = getPool()): Promise<Entry> {
  const payload = entryPayload(input);
  return toEntry(await call<EntryJson>(client, 'SELECT ledger_post_entry($1::jsonb) AS r', [JSON.stringify(payload)]));
}

/**
 * A manual entry from an operator (POST /api/v1/ledger/entries): each line's amount passes the
 * request amount parser with its account's asset (maximum per operation, precision), as every
 * other money-moving request's amount does, then the entry is posted as given. Unknown accounts
 * are left to the ledger, whose ACCOUNT_NOT_FOUND becomes UNKNOWN_LEDGER_ACCOUNT here: a line
 * naming no ledger account is invalid input (422), not a missing resource (ACCOUNT_NOT_FOUND, 404).
 */
export async function postManualEntry(input: PostEntryInput, client: Queryable = getPool()): Promise<Entry> {
  const lines = Array.isArray(input?.lines) ? input.lines : [];
  const ids = [...new Set(lines.map((l) => l?.accountId).filter((id): id is string => typeof id === 'string'))];
  const { rows } = await client.query<{ id: string; asset_code: string }>('SELECT id, asset_code FROM ledger_accounts WHERE id = ANY($1::text[])', [ids]);
  const assetOf = new Map(rows.map((r) => [r.id, r.asset_code]));
  for (const [i, l] of lines.entries()) {
    const code = assetOf.get(l?.accountId);
    const asset = code ? await getAsset(code) : null;
    if (asset) parseRequestAmount(l.amount, asset, `/lines/${i}/amount`);
  }
  return postEntry(input, client).catch((err: unknown) => {
    if (err instanceof LedgerError && err.code === 'ACCOUNT_NOT_FOUND') {
      const unknown = lines.findIndex((l) => !assetOf.has(l?.accountId));
      throw new DomainError('UNKNOWN_LEDGER_ACCOUNT', err.message, unknown >= 0 ? `/lines/${unknown}/account_id` : undefined, err.details);
    }
    throw err;
  });
}

/**
 * Posts a pending entry (reserved amounts become posted). Replaying the same key returns the
 * entry; another key on a posted entry is ALREADY_POSTED; voided is ALREADY_VOIDED. A pending entry
 * past its timeout is voided and PENDING_EXPIRED is thrown.
 */
export async function postPending(entryId: string, opts: { idempotencyKey: string }, client: Queryable = getPool()): Promise<Entry> {
  const key = requireKey(opts?.idempotencyKey);
  const r = await call<EntryJson & { error?: 'PENDING_EXPIRED'; entry?: EntryJson }>(
    client,
    'SELECT ledger_post_pending($1, $2) AS r',
    [entryId, key],
  );
  if (r.error === 'PENDING_EXPIRED') {
    throw new LedgerError('PENDING_EXPIRED', `entry ${entryId} expired before it was posted and was voided`, { entry: r.entry });
  }
  return toEntry(r);
}

/** Voids a pending entry (reservations released). Idempotent per key; posted is ALREADY_POSTED. */
export async function voidPending(
  entryId: string,
  opts: { idempotencyKey: string; reason: string },
  client: Queryable = getPool(),
): Promise<Entry> {
  const key = requireKey(opts?.idempotencyKey);
  return toEntry(await call<EntryJson>(client, 'SELECT ledger_void_pending($1, $2, $3) AS r', [entryId, key, opts.reason ?? '']));
}

/**
 * Reverses a posted entry with a new linked entry of opposite directions, at most once
 * (ALREADY_REVERSED). Refuses with INSUFFICIENT_FUNDS when that would overdraw a no-overdraft
 * account, unless `force`: then the account goes negative by exactly the shortfall, which is
 * recorded on the reversal (forcedOverdraft) and granted as the account's overdraft allowance.
 * Force also lets the reversal debit a frozen account (claw-back).
 */
export async function reverseEntry(
  entryId: string,
  opts: { idempotencyKey: string; reason: string; force?: boolean; userId?: string },
  client: Queryable = getPool(),
): Promise<Entry> {
  const key = requireKey(opts?.idempotencyKey);
  return toEntry(
    await call<EntryJson>(client, 'SELECT ledger_reverse_entry($1, $2, $3, $4, $5) AS r', [
      entryId,
      key,
      opts.reason ?? '',
      opts.force === true,
      opts.userId ?? null,
    ]),
  );
}

export async function getEntry(id: string, client: Queryable = getPool()): Promise<Entry | null> {
  const r = await call<EntryJson | null>(client, 'SELECT ledger_entry_json($1) AS r', [id]);
  return r ? toEntry(r) : null;
}

export async function getEntryByIdempotencyKey(environment: Environment, idempotencyKey: string, client: Queryable = getPool()): Promise<Entry | null> {
  const r = await call<EntryJson | null>(
    client,
    'SELECT ledger_entry_json(id) AS r FROM journal_entries WHERE environment = $1 AND idempotency_key = $2',
    [environment, idempotencyKey],
  );
  return r ? toEntry(r) : null;
}

/**
 * Voids every pending entry past its timeout, each in its own transaction (one function call per
 * entry keeps lock order sorted per posting). Returns how many were voided.
 */
export async function voidExpiredPending(opts: { environment?: Environment; limit?: number } = {}, client: Queryable = getPool()): Promise<number> {
  const limit = opts.limit ?? 1000;
  const { rows } = await client.query<{ id: string }>(
    `SELECT id FROM journal_entries
     WHERE status = 'pending' AND pending_expires_at <= clock_timestamp() AND ($1::text IS NULL OR environment = $1)
     ORDER BY pending_expires_at LIMIT $2`,
    [opts.environment ?? null, limit],
  );
  let voided = 0;
  for (const { id } of rows) {
    if (await call<boolean>(client, 'SELECT ledger_expire_pending($1) AS r', [id])) voided++;
  }
  return voided;
}

// ---------------------------------------------------------------------------------------------
// Ledger accounts
// ---------------------------------------------------------------------------------------------

export type SystemAccountKind = 'funding' | 'fee_revenue' | 'suspense' | 'settlement';
export type LedgerAccountKind = 'customer' | SystemAccountKind | 'internal';
export type LedgerAccountStatus = 'active' | 'frozen' | 'closed';

/** System accounts are split in this many shards (migration seeds shards 0..7). */
export const SYSTEM_ACCOUNT_SHARDS = 32;
export const SYSTEM_ACCOUNT_KINDS: readonly SystemAccountKind[] = ['funding', 'fee_revenue', 'suspense', 'settlement'];
const SYSTEM_NORMAL: Record<SystemAccountKind, Direction> = { funding: 'debit', settlement: 'debit', fee_revenue: 'credit', suspense: 'credit' };

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

/** Stable shard for a key (FNV-1a), so retries of one operation hit the same shard. */
export function shardFor(shardKey: string, shards = SYSTEM_ACCOUNT_SHARDS): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < shardKey.length; i++) {
    h ^= shardKey.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % shards;
}

// Ids of system and internal accounts, per database: they are looked up on every posting.
const accountIdCache = new Map<string, string>();

/**
 * Remembers an account id once its row is committed. A row this transaction created itself
 * (xmin is our own transaction id) could still be rolled back, so it is not cached.
 */
async function cacheAccountId(cacheKey: string, id: string, client: Queryable): Promise<void> {
  const { rows } = await client.query<{ mine: boolean | null }>(
    'SELECT xmin = pg_current_xact_id_if_assigned()::xid AS mine FROM ledger_accounts WHERE id = $1',
    [id],
  );
  if (rows[0] && rows[0].mine !== true) accountIdCache.set(cacheKey, id);
}

/**
 * Ledger account id of a system account. Each (environment, asset, kind) is split in 32 shards so
 * concurrent postings do not queue on one row lock: pass the idempotency key (or any per-operation
 * key) as shardKey to spread load; without it, shard 0. Shards exist for seeded assets and are
 * created on first use for others.
 */
export async function systemAccount(
  environment: Environment,
  assetCode: string,
  kind: SystemAccountKind,
  shardKey?: string,
  client: Queryable = getPool(),
): Promise<string> {
  if (!SYSTEM_ACCOUNT_KINDS.includes(kind)) throw new LedgerError('ACCOUNT_NOT_FOUND', `unknown system account kind ${kind}`);
  if (!ENVIRONMENTS.includes(environment)) invalid('environment must be sandbox or production');
  const asset = typeof assetCode === 'string' ? assetCode.toUpperCase() : '';
  const shard = shardKey === undefined ? 0 : shardFor(shardKey);
  const code = `${kind}:${shard}`;
  const cacheKey = `${process.env.DATABASE_URL ?? ''}|${environment}|${asset}|${code}`;
  const hit = accountIdCache.get(cacheKey);
  if (hit) return hit;
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
  await cacheAccountId(cacheKey, id, client);
  return id;
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
 * Id of a named internal ledger account (createInternalLedgerAccount), opened on first use and
 * then cached like system accounts, so a posting on a hot path does not pay two queries for it.
 */
export async function internalLedgerAccountId(
  input: { environment: Environment; assetCode: string; code: string; name: string; normalBalance: Direction; noOverdraft?: boolean },
  client: Queryable = getPool(),
): Promise<string> {
  const cacheKey = `${process.env.DATABASE_URL ?? ''}|${input.environment}|${input.assetCode.toUpperCase()}|${input.code}`;
  const hit = accountIdCache.get(cacheKey);
  if (hit) return hit;
  const la = await createInternalLedgerAccount(input, client);
  await cacheAccountId(cacheKey, la.id, client);
  return la.id;
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

// ---------------------------------------------------------------------------------------------
// Trial balance
// ---------------------------------------------------------------------------------------------

export interface TrialBalance {
  environment: Environment;
  from: Date | null;
  to: Date | null;
  /** true when every asset balances */
  balanced: boolean;
  assets: Array<{ assetCode: string; totalDebits: string; totalCredits: string; balanced: boolean }>;
  accounts: Array<{
    id: string;
    name: string;
    kind: LedgerAccountKind;
    code: string | null;
    assetCode: string;
    normalBalance: Direction;
    debits: string;
    credits: string;
    /** debits - credits for debit-normal, credits - debits for credit-normal */
    balance: string;
  }>;
}

/**
 * Posted debits and credits per asset and per account. Without a range it reads the stored
 * totals (all time); with from/to it sums lines posted in [from, to). Accounts without activity
 * are left out.
 */
export async function trialBalance(q: { environment: Environment; from?: Date; to?: Date }, client: Queryable = getPool()): Promise<TrialBalance> {
  const ranged = q.from !== undefined || q.to !== undefined;
  const source = ranged
    ? `SELECT l.ledger_account_id AS id,
              sum(CASE WHEN l.direction = 'debit' THEN l.amount ELSE 0 END) AS debits,
              sum(CASE WHEN l.direction = 'credit' THEN l.amount ELSE 0 END) AS credits
       FROM ledger_lines l
       WHERE l.environment = $1 AND l.status = 'posted'
         AND ($2::timestamptz IS NULL OR l.completed_at >= $2) AND ($3::timestamptz IS NULL OR l.completed_at < $3)
       GROUP BY l.ledger_account_id`
    : `SELECT id, debits_posted AS debits, credits_posted AS credits FROM ledger_accounts
       WHERE environment = $1 AND (debits_posted <> 0 OR credits_posted <> 0)`;
  const params = ranged ? [q.environment, q.from ?? null, q.to ?? null] : [q.environment];
  const { rows } = await client.query<{
    id: string;
    name: string;
    kind: LedgerAccountKind;
    code: string | null;
    asset_code: string;
    normal_balance: Direction;
    debits: string;
    credits: string;
    balance: string;
  }>(
    `WITH t AS (${source})
     SELECT la.id, la.name, la.kind, la.code, la.asset_code, la.normal_balance,
            round(t.debits, a.precision)::text AS debits, round(t.credits, a.precision)::text AS credits,
            round(CASE WHEN la.normal_balance = 'credit' THEN t.credits - t.debits ELSE t.debits - t.credits END, a.precision)::text AS balance
     FROM t JOIN ledger_accounts la ON la.id = t.id JOIN assets a ON a.code = la.asset_code
     ORDER BY la.asset_code, la.kind, la.code NULLS LAST, la.id`,
    params,
  );
  const totals = await client.query<{ asset_code: string; debits: string; credits: string; balanced: boolean }>(
    `WITH t AS (${source})
     SELECT la.asset_code, round(sum(t.debits), a.precision)::text AS debits, round(sum(t.credits), a.precision)::text AS credits,
            sum(t.debits) = sum(t.credits) AS balanced
     FROM t JOIN ledger_accounts la ON la.id = t.id JOIN assets a ON a.code = la.asset_code
     GROUP BY la.asset_code, a.precision ORDER BY la.asset_code`,
    params,
  );
  const assets = totals.rows.map((r) => ({ assetCode: r.asset_code, totalDebits: r.debits, totalCredits: r.credits, balanced: r.balanced }));
  return {
    environment: q.environment,
    from: q.from ?? null,
    to: q.to ?? null,
    balanced: assets.every((a) => a.balanced),
    assets,
    accounts: rows.map((r) => ({
      id: r.id,
      name: r.name,
      kind: r.kind,
      code: r.code,
      assetCode: r.asset_code,
      normalBalance: r.normal_balance,
      debits: r.debits,
      credits: r.credits,
      balance: r.balance,
    })),
  };
}

/** Deterministic idempotency key for a workflow step (workflow id + step name). */
export function workflowIdempotencyKey(workflowId: string, step: string): string {
  return `wf:${workflowId}:${step}`;
}

/** Idempotency key scoped to a client's Idempotency-Key header (per user, hashed to bound length). */
export function clientIdempotencyKey(userId: string, operation: string, headerValue: string): string {
  return `client:${createHash('sha256').update(`${userId}\u0000${operation}\u0000${headerValue}`).digest('hex')}`;
}
