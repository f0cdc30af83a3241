/**
 * Journal entries: the input a posting takes, the entry it returns, and the calls that post,
 * resolve (post or void a pending entry), reverse, read and expire entries.
 */
import { getPool, type Queryable } from '../db/pool';
import { getAsset } from '../assets';
import { AmountError, parseAmount, parseRequestAmount } from '../money/amount';
import { ENVIRONMENTS, type Environment } from '../platform/environment';
import { DomainError } from '../platform/errors';
import { LedgerError } from './errors';
import { call, invalid, requireKey } from './sql';
import { TRANSACTION_TYPES, type TransactionType } from './transactions';

export type Direction = 'debit' | 'credit';

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
 * Posts an entry that debits a joint-liability group's guarantee fund, an account frozen for its
 * whole life (docs/microfinance-loans.md, "Guarantee fund"): joint liability's draw and the return
 * at the group's closure, and nothing else. The SQL function lets a frozen account pay only when
 * every debited line is a fund, refuses a pending entry, and refuses (INSUFFICIENT_FUNDS, under the
 * row locks) any posting that would take a fund below zero, which a forced posting would otherwise
 * record as an overdraft.
 */
export async function postGuaranteeFundEntry(input: PostEntryInput, client: Queryable = getPool()): Promise<Entry> {
  const payload = entryPayload(input);
  return toEntry(await call<EntryJson>(client, 'SELECT ledger_post_guarantee_fund_entry($1::jsonb) AS r', [JSON.stringify(payload)]));
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
    const asset = code ? await getAsset(code, client) : null;
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
