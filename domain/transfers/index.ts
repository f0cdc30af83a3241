import type pg from 'pg';
import { ensureCustomerLedgerAccount } from '../accounts';
import { statusRefusal } from '../accounts/status';
import { getAsset, type Asset } from '../assets';
import { updateAssignments } from '../db/update';
import { getPool, withTransaction, type Queryable } from '../db/pool';
import { writeOutboxEvents } from '../events/outbox';
import { LedgerError, entryPayload, systemAccount, toLedgerError, type Entry, type LineInput } from '../ledger';
import { DecimalMoney, formatAmount, isZeroAmount, parseRequestAmount } from '../money/amount';
import type { Environment } from '../platform/environment';
import { loadConfig } from '../platform/config';
import { newId } from '../platform/ids';
import { GroupCommit } from './group-commit';
import { DomainError as TransferError } from '../platform/errors';
import { outcomeOf, type Outcome, type OutcomeRow } from '../platform/outcome';

export type TransferStatus = 'pending' | 'pending_review' | 'completed' | 'failed' | 'reversed';

export interface Transfer extends Outcome {
  id: string;
  environment: Environment;
  userId: string;
  fromAccountId: string;
  toAccountId: string;
  assetCode: string;
  amount: string;
  feeAmount: string;
  status: TransferStatus;
  reference: string | null;
  description: string | null;
  metadata: Record<string, unknown>;
  workflowId: string | null;
  entryId: string | null;
  reversalEntryId: string | null;
  estimatedCompletion: Date | null;
}

/** Transfer refusals are domain errors (4xx in the API). */
export { DomainError as TransferError } from '../platform/errors';

interface Row extends OutcomeRow {
  id: string;
  environment: Environment;
  user_id: string;
  from_account_id: string;
  to_account_id: string;
  asset_code: string;
  amount: string;
  fee_amount: string;
  status: TransferStatus;
  reference: string | null;
  description: string | null;
  metadata: Record<string, unknown>;
  workflow_id: string | null;
  entry_id: string | null;
  reversal_entry_id: string | null;
  estimated_completion: Date | null;
  precision: number;
}

// Amounts are stored at 18 decimals; they are shown at the asset's precision.
const SELECT = `SELECT t.*, a.precision FROM transfers t JOIN assets a ON a.code = t.asset_code`;


function toTransfer(r: Row): Transfer {
  return {
    id: r.id,
    environment: r.environment,
    userId: r.user_id,
    fromAccountId: r.from_account_id,
    toAccountId: r.to_account_id,
    assetCode: r.asset_code,
    amount: formatAmount(r.amount, r.precision),
    feeAmount: formatAmount(r.fee_amount, r.precision),
    status: r.status,
    reference: r.reference,
    description: r.description,
    metadata: r.metadata,
    workflowId: r.workflow_id,
    entryId: r.entry_id,
    reversalEntryId: r.reversal_entry_id,
    ...outcomeOf(r),
    estimatedCompletion: r.estimated_completion,
  };
}

export function transferWorkflowId(transferId: string): string {
  return `transfer-${transferId}`;
}

export interface CreateTransferInput {
  userId: string;
  environment: Environment;
  fromAccountId: string;
  toAccountId: string;
  amount: string;
  assetCode: string;
  reference?: string | null;
  description?: string | null;
  metadata?: Record<string, unknown>;
}

interface Party {
  id: string;
  environment: Environment;
  /** The account's ledger account for the transfer's asset, when it already has one. */
  ledgerAccountId: string | null;
}

interface Parties {
  from: Party;
  to: Party;
  asset: Asset;
  amount: string;
}

/**
 * What never changes about an account once read: its owner, its environment and the ledger
 * account that holds an asset for it. Immediate transfers take these from memory; an account's
 * status is not among them (the ledger checks freeze and close under its row locks).
 */
type AccountFacts = { userId: string; environment: Environment; ledgerAccountId: string };
const accountFacts = new Map<string, AccountFacts>();
const ACCOUNT_FACTS_MAX = 100_000;
const factsKey = (accountId: string, assetCode: string) => `${process.env.DATABASE_URL ?? ''}|${accountId}|${assetCode}`;

function rememberFacts(accountId: string, assetCode: string, facts: AccountFacts) {
  if (accountFacts.size >= ACCOUNT_FACTS_MAX) accountFacts.delete(accountFacts.keys().next().value as string); // oldest first
  accountFacts.set(factsKey(accountId, assetCode), facts);
}

/**
 * The checks every transfer passes before money moves: the source is the caller's, the
 * destination exists in the same environment, asset and amount are valid. Balance, freeze and
 * close are enforced again by the ledger under its row locks, so a race cannot slip through.
 * With `fromMemory`, accounts already seen skip the database read, and freeze and close are left
 * to the ledger alone (the caller maps its refusal with ledgerRefusal).
 */
async function resolveParties(input: CreateTransferInput, client: Queryable, fromMemory = false): Promise<Parties> {
  const asset = await getAsset(input.assetCode);
  if (!asset) throw new TransferError('UNKNOWN_ASSET', `Asset ${input.assetCode} is not supported`, '/asset_code');
  const amount = parseRequestAmount(input.amount, asset);
  if (input.fromAccountId === input.toAccountId) {
    throw new TransferError('SAME_ACCOUNT', 'Source and destination must be different accounts', '/to_account');
  }
  if (fromMemory) {
    const from = accountFacts.get(factsKey(input.fromAccountId, asset.code));
    const to = accountFacts.get(factsKey(input.toAccountId, asset.code));
    // Anything else (not yet seen, someone else's, another environment) takes the read below.
    if (from && to && from.userId === input.userId && from.environment === input.environment && to.environment === input.environment) {
      return {
        from: { id: input.fromAccountId, environment: from.environment, ledgerAccountId: from.ledgerAccountId },
        to: { id: input.toAccountId, environment: to.environment, ledgerAccountId: to.ledgerAccountId },
        asset,
        amount,
      };
    }
  }
  // Both accounts and, when they exist, their home-chain ('') ledger accounts for the asset: one round trip.
  const { rows } = await client.query<{ id: string; user_id: string; environment: Environment; status: string; la_id: string | null }>({
    name: 'transfers_resolve_parties',
    text: `SELECT a.id, a.user_id, a.environment, a.status, la.id AS la_id
       FROM accounts a LEFT JOIN ledger_accounts la ON la.account_id = a.id AND la.asset_code = $2 AND la.chain = ''
      WHERE a.id IN ($1, $3)`,
    // Two parameters, not an array: the planner's estimate is then the same for every call, so
    // PostgreSQL keeps one generic plan instead of planning each transfer anew.
    values: [input.fromAccountId, asset.code, input.toAccountId],
  });
  const fromRow = rows.find((r) => r.id === input.fromAccountId);
  const toRow = rows.find((r) => r.id === input.toAccountId);
  if (!fromRow || fromRow.user_id !== input.userId || fromRow.environment !== input.environment) {
    throw new TransferError('ACCOUNT_NOT_FOUND', `Account ${input.fromAccountId} not found`, '/from_account');
  }
  if (!toRow) throw new TransferError('DESTINATION_NOT_FOUND', `Destination account ${input.toAccountId} does not exist`, '/to_account');
  if (toRow.environment !== input.environment) {
    throw new TransferError('ENVIRONMENT_MISMATCH', 'The destination account belongs to another environment', '/to_account');
  }
  for (const r of rows) if (r.la_id) rememberFacts(r.id, asset.code, { userId: r.user_id, environment: r.environment, ledgerAccountId: r.la_id });
  const refused = statusRefusal('from', fromRow.status) ?? statusRefusal('to', toRow.status);
  if (refused) throw refused;
  return {
    from: { id: fromRow.id, environment: fromRow.environment, ledgerAccountId: fromRow.la_id },
    to: { id: toRow.id, environment: toRow.environment, ledgerAccountId: toRow.la_id },
    asset,
    amount,
  };
}

// Fee schedules change rarely; a short cache keeps them off the hot path.
type FeeRow = { fixed_fee: string; rate_bps: number; min_fee: string; max_fee: string | null };
const feeCache = new Map<string, { at: number; row: FeeRow | null }>();

/** fee = clamp(fixed + amount * bps / 10000, min, max), rounded half-up at the asset's precision. */
export async function transferFee(assetCode: string, amount: string, precision: number, client: Queryable = getPool()): Promise<string> {
  const key = `${process.env.DATABASE_URL}|${assetCode}`;
  let cached = feeCache.get(key);
  if (!cached || Date.now() - cached.at > 60_000) {
    const { rows } = await client.query<FeeRow>(
      `SELECT fixed_fee, rate_bps, min_fee, max_fee FROM fee_schedules WHERE operation = 'transfer' AND asset_code = $1`,
      [assetCode],
    );
    cached = { at: Date.now(), row: rows[0] ?? null };
    feeCache.set(key, cached);
  }
  const f = cached.row;
  if (!f) return new DecimalMoney(0).toFixed(precision);
  let fee = new DecimalMoney(f.fixed_fee).plus(new DecimalMoney(amount).times(f.rate_bps).dividedBy(10000));
  fee = DecimalMoney.max(fee, f.min_fee);
  if (f.max_fee !== null) fee = DecimalMoney.min(fee, f.max_fee);
  return fee.toDecimalPlaces(precision, DecimalMoney.ROUND_HALF_UP).toFixed(precision);
}

/** Lines of a transfer entry: the sender pays amount and fee, the receiver gets the amount. */
export async function buildTransferLines(
  t: Pick<Transfer, 'id' | 'environment' | 'fromAccountId' | 'toAccountId' | 'assetCode' | 'amount' | 'feeAmount'>,
  client: Queryable,
  known: { from?: string | null; to?: string | null } = {},
): Promise<LineInput[]> {
  // Sequential on purpose: one client runs one query at a time anyway.
  const fromLa = known.from ?? (await ensureCustomerLedgerAccount(t.fromAccountId, t.assetCode, client));
  const toLa = known.to ?? (await ensureCustomerLedgerAccount(t.toAccountId, t.assetCode, client));
  const lines: LineInput[] = [
    { accountId: fromLa, direction: 'debit', amount: t.amount, transactionType: 'transfer_out' },
    { accountId: toLa, direction: 'credit', amount: t.amount, transactionType: 'transfer_in' },
  ];
  if (!isZeroAmount(t.feeAmount)) {
    // Fee postings are spread over the fee account's shards by sender: one sender's transfers
    // queue on its own account's lock anyway, and different senders rarely share a shard.
    const feeLa = await systemAccount(t.environment, t.assetCode, 'fee_revenue', t.fromAccountId, client);
    lines.push(
      { accountId: fromLa, direction: 'debit', amount: t.feeAmount, transactionType: 'fee' },
      { accountId: feeLa, direction: 'credit', amount: t.feeAmount },
    );
  }
  return lines;
}

function transferEventData(t: Transfer): Record<string, unknown> {
  return {
    transfer_id: t.id,
    from_account: t.fromAccountId,
    to_account: t.toAccountId,
    amount: t.amount,
    asset_code: t.assetCode,
    fee: t.feeAmount,
    status: t.status,
    reference: t.reference,
    workflow_id: t.workflowId,
    failure_code: t.failureCode,
    failure_reason: t.failureReason,
  };
}

/** Writes transfer events (and workflow events) in the caller's transaction, in one statement. */
export async function emitTransferEvents(client: Queryable, t: Transfer, types: string[], extra: Record<string, unknown> = {}) {
  await writeOutboxEvents(
    client,
    types.map((type) => ({
      type,
      environment: t.environment,
      userId: t.userId,
      aggregateType: 'transfer',
      aggregateId: t.id,
      data: { ...transferEventData(t), ...extra },
    })),
  );
}

/**
 * A ledger refusal of a transfer's posting as the API reports it. Freeze and close come back as
 * the same errors the pre-checks give, naming the side (the ledger says which ledger account).
 */
function ledgerRefusal(err: unknown, parties: Pick<Parties, 'from' | 'to'>): never {
  if (err instanceof LedgerError && (err.code === 'ACCOUNT_FROZEN' || err.code === 'ACCOUNT_CLOSED')) {
    const side = err.details.account_id === parties.to.ledgerAccountId ? 'to' : 'from';
    const refused = statusRefusal(side, err.code === 'ACCOUNT_FROZEN' ? 'frozen' : 'closed');
    if (refused) throw refused;
  }
  mapLedgerError(err);
}

function mapLedgerError(err: unknown): never {
  if (err instanceof LedgerError) {
    throw new TransferError(err.code, err.message);
  }
  throw err;
}

/**
 * A transfer posted at once: transfer row, balanced ledger entry (amount and fee) and its events
 * in one database transaction. Insufficient funds, a frozen account and the like roll it all back.
 */
export async function createImmediateTransfer(input: CreateTransferInput): Promise<Transfer> {
  const { item, completed, refused } = await prepareImmediateTransfer(input);
  // Written with whichever immediate transfers arrive at the same time (group commit): the transfer
  // row, its events and the ledger posting still succeed or fail together, on their own.
  const result = await immediateBatches().submit(item);
  if (!result.ok) return refused(toLedgerError(result.error));
  return completed(result.at);
}

/**
 * An immediate transfer as transfers_create_immediate_batch_setwise takes it, after the checks
 * that need no lock; the transfer it becomes once written at a given time; and its refusal.
 */
export async function prepareImmediateTransfer(
  input: CreateTransferInput,
): Promise<{ item: ImmediateItem; completed(at: Date): Transfer; refused(err: unknown): never }> {
  const pool = getPool();
  // Reads outside any transaction (or none): the ledger checks status and funds under its row locks.
  const parties = await resolveParties(input, pool, true);
  const id = newId('txfr');
  const entryId = newId('je');
  const fee = await transferFee(parties.asset.code, parties.amount, parties.asset.precision);
  const lines = await buildTransferLines(
    { id, environment: input.environment, fromAccountId: parties.from.id, toAccountId: parties.to.id, assetCode: parties.asset.code, amount: parties.amount, feeAmount: fee },
    pool,
    { from: parties.from.ledgerAccountId, to: parties.to.ledgerAccountId },
  );
  const payload = entryPayload({
    environment: input.environment,
    idempotencyKey: `transfer:${id}`,
    entryId,
    type: 'transfer',
    reference: input.reference ?? undefined,
    description: input.description ?? undefined,
    lines,
    userId: input.userId,
    metadata: { transfer_id: id },
  });
  const columns = {
    id,
    environment: input.environment,
    user_id: input.userId,
    from_account_id: parties.from.id,
    to_account_id: parties.to.id,
    asset_code: parties.asset.code,
    amount: parties.amount,
    fee_amount: fee,
    reference: input.reference ?? null,
    description: input.description ?? null,
    metadata: input.metadata ?? {},
  };
  // The row as the batch writes it; only the times come from the database (the commit's).
  const completed = (at: Date): Transfer =>
    toTransfer({
      ...columns,
      status: 'completed',
      workflow_id: null,
      entry_id: entryId,
      reversal_entry_id: null,
      failure_code: null,
      failure_reason: null,
      compensation_executed: false,
      estimated_completion: at,
      created_at: at,
      updated_at: at,
      completed_at: at,
      failed_at: null,
      precision: parties.asset.precision,
    });
  const item: ImmediateItem = {
    ...columns,
    entry_id: entryId,
    events: [
      { id: newId('evt'), type: 'transfer.created' },
      { id: newId('evt'), type: 'transfer.completed' },
    ],
    event_data: transferEventData(completed(new Date())), // event data holds no times
    entry: payload,
  };
  return { item, completed, refused: (err) => ledgerRefusal(err, parties) };
}

/** One immediate transfer as transfers_create_immediate_batch_setwise takes it. */
export type ImmediateItem = Pick<
  Row,
  'id' | 'environment' | 'user_id' | 'from_account_id' | 'to_account_id' | 'asset_code' | 'amount' | 'fee_amount' | 'reference' | 'description' | 'metadata'
> & {
  entry_id: string;
  events: Array<{ id: string; type: string }>;
  event_data: Record<string, unknown>;
  entry: unknown;
};

/** A refusal comes back shaped like the error PostgreSQL would have raised for it alone. */
type ImmediateResult = { ok: true; at: Date } | { ok: false; error: Error };

let batches: { url: string; group: GroupCommit<ImmediateItem, ImmediateResult> } | undefined;

function immediateBatches(): GroupCommit<ImmediateItem, ImmediateResult> {
  // Per database (tests switch it); the settings are read once per batcher, not per transfer.
  if (batches?.url !== (process.env.DATABASE_URL ?? '')) {
    const cfg = loadConfig();
    batches = {
      url: cfg.databaseUrl,
      group: new GroupCommit<ImmediateItem, ImmediateResult>({
        // Each transfer is a subtransaction: past 64 in one transaction PostgreSQL's snapshots overflow
        // their subtransaction cache and every session slows down.
        maxBatch: Math.min(64, Math.max(1, cfg.transferBatchMax)),
        maxInFlight: Math.max(1, cfg.transferBatchesInFlight),
        locks: (item) => (item.entry as { lines: Array<{ account_id: string }> }).lines.map((l) => l.account_id),
        // A server-side error (it has a SQLSTATE) rolled the whole statement back.
        retryAlone: (err) => typeof (err as { code?: unknown })?.code === 'string',
        async runBatch(items) {
          const { rows } = await getPool().query<{ r: { now: string; results: Array<{ ok: boolean; code?: string; message?: string; detail?: string | null; constraint?: string | null }> } }>({
            // Named: prepared once per connection.
            name: 'transfers_create_immediate_batch_setwise',
            text: 'SELECT transfers_create_immediate_batch_setwise($1::jsonb) AS r',
            values: [JSON.stringify(items)],
          });
          const at = new Date(rows[0].r.now);
          return rows[0].r.results.map((x) =>
            x.ok
              ? { ok: true as const, at }
              : { ok: false as const, error: Object.assign(new Error(x.message), { code: x.code, detail: x.detail ?? undefined, constraint: x.constraint ?? undefined }) },
          );
        },
      }),
    };
  }
  return batches.group;
}

async function insertTransfer(
  c: Queryable,
  id: string,
  input: CreateTransferInput,
  p: Parties,
  fee: string,
  o: { status: TransferStatus; entryId: string | null; completed: boolean; workflowId: string | null; estimatedSeconds?: number },
): Promise<Transfer> {
  const { rows } = await c.query<Row>(
    `WITH t AS (
       INSERT INTO transfers (id, environment, user_id, from_account_id, to_account_id, asset_code, amount, fee_amount, status,
                              reference, description, metadata, workflow_id, entry_id, estimated_completion, completed_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14,
               CASE WHEN $15::int IS NULL THEN now() ELSE now() + make_interval(secs => $15::int) END,
               CASE WHEN $16 THEN now() END)
       RETURNING *)
     SELECT t.*, a.precision FROM t JOIN assets a ON a.code = t.asset_code`,
    [
      id,
      input.environment,
      input.userId,
      p.from.id,
      p.to.id,
      p.asset.code,
      p.amount,
      fee,
      o.status,
      input.reference ?? null,
      input.description ?? null,
      JSON.stringify(input.metadata ?? {}),
      o.workflowId,
      o.entryId,
      o.estimatedSeconds ?? null,
      o.completed,
    ],
  );
  return toTransfer(rows[0]);
}

/**
 * Records a transfer that a workflow will carry out (status pending), with transfer.created and
 * workflow.started in the same transaction. The caller then starts the workflow.
 */
export async function createWorkflowTransfer(input: CreateTransferInput, estimatedSeconds = 30): Promise<Transfer> {
  return withTransaction(async (c) => {
    const parties = await resolveParties(input, c);
    const id = newId('txfr');
    const fee = await transferFee(parties.asset.code, parties.amount, parties.asset.precision, c);
    const t = await insertTransfer(c, id, input, parties, fee, {
      status: 'pending',
      entryId: null,
      completed: false,
      workflowId: transferWorkflowId(id),
      estimatedSeconds,
    });
    await emitTransferEvents(c, t, ['transfer.created', 'transfer.pending', 'workflow.started']);
    return t;
  });
}

export async function getTransfer(
  id: string,
  scope: { userId?: string; environment?: Environment } = {},
  client: Queryable = getPool(),
): Promise<Transfer | null> {
  const { rows } = await client.query<Row>(`${SELECT} WHERE t.id = $1`, [id]);
  const r = rows[0];
  if (!r) return null;
  if (scope.environment && r.environment !== scope.environment) return null;
  return toTransfer(r);
}

/** Locks and returns the transfer row (for activities that change it). */
export async function lockTransfer(c: pg.PoolClient, id: string): Promise<Transfer> {
  const { rows } = await c.query<Row>(`${SELECT} WHERE t.id = $1 FOR UPDATE OF t`, [id]);
  if (!rows[0]) throw new TransferError('TRANSFER_NOT_FOUND', `transfer ${id} not found`);
  return toTransfer(rows[0]);
}

export async function updateTransfer(
  c: Queryable,
  id: string,
  fields: Partial<{
    status: TransferStatus;
    entry_id: string;
    reversal_entry_id: string;
    failure_code: string;
    failure_reason: string;
    compensation_executed: boolean;
    completed_at: 'now';
    failed_at: 'now';
  }>,
): Promise<Transfer> {
  const { sets, values } = updateAssignments(id, fields);
  const { rows } = await c.query<Row>(
    `WITH t AS (UPDATE transfers SET ${sets} WHERE id = $1 RETURNING *)
     SELECT t.*, a.precision FROM t JOIN assets a ON a.code = t.asset_code`,
    values,
  );
  return toTransfer(rows[0]);
}

/** Transfers in or out of an account, newest first. */
export async function listAccountTransfers(
  accountId: string,
  page: { offset: number; limit: number },
  client: Queryable = getPool(),
): Promise<{ items: Transfer[]; total: number }> {
  const [items, count] = await Promise.all([
    client.query<Row>(
      `${SELECT} WHERE t.from_account_id = $1 OR t.to_account_id = $1 ORDER BY t.created_at DESC, t.id DESC LIMIT $2 OFFSET $3`,
      [accountId, page.limit, page.offset],
    ),
    client.query<{ n: number }>(`SELECT count(*)::int AS n FROM transfers WHERE from_account_id = $1 OR to_account_id = $1`, [accountId]),
  ]);
  return { items: items.rows.map(toTransfer), total: count.rows[0].n };
}

export type { Entry };
