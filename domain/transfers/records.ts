/**
 * Transfer records: the row and the Transfer it becomes, its events, and the reads and writes of
 * the transfers table that need no per-database state.
 */
import type pg from 'pg';
import { updateAssignments } from '../db/update';
import { getPool, type Queryable } from '../db/pool';
import { writeOutboxEvents } from '../events/outbox';
import { compareAmounts, formatAmount } from '../money/amount';
import type { Environment } from '../platform/environment';
import { DomainError as TransferError } from '../platform/errors';
import { outcomeOf, type Outcome, type OutcomeRow } from '../platform/outcome';
import type { CreateTransferInput, Parties } from './checks';

export type TransferStatus = 'pending' | 'pending_review' | 'completed' | 'failed' | 'reversed' | 'expired';

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
  /**
   * Set (not stored) when a request found this transfer by its Idempotency-Key instead of making it:
   * the request ran before, and its first run's transfer is the answer.
   */
  replayed?: true;
}

/** Transfer refusals are domain errors (4xx in the API). */
export { DomainError as TransferError } from '../platform/errors';

export interface Row extends OutcomeRow {
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
  request_key?: string | null;
  precision: number;
}

// Amounts are stored at 18 decimals; they are shown at the asset's precision.
const SELECT = `SELECT t.*, a.precision FROM transfers t JOIN assets a ON a.code = t.asset_code`;

export function toTransfer(r: Row): Transfer {
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

export function transferEventData(t: Transfer): Record<string, unknown> {
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
      data: Object.assign(transferEventData(t), extra),
    })),
  );
}

/** The name of the unique index on transfers.request_key (a retried request's transfer exists). */
export const REQUEST_KEY_CONSTRAINT = 'transfers_request_key_key';

/** Whether an error is the unique violation of a request key another transfer holds. */
export function isRequestKeyConflict(err: unknown): boolean {
  const e = err as { code?: unknown; constraint?: unknown } | null;
  return e?.code === '23505' && e.constraint === REQUEST_KEY_CONSTRAINT;
}

/** The transfer a request with this key made, if any. */
export async function findTransferByRequestKey(c: Queryable, requestKey: string): Promise<Transfer | null> {
  const { rows } = await c.query<Row>(`${SELECT} WHERE t.request_key = $1`, [requestKey]);
  return rows[0] ? toTransfer(rows[0]) : null;
}

/**
 * The answer to a request whose key already made transfer `t`: `t` itself, marked replayed, when
 * the request asks for the same transfer (a retry); 409 IDEMPOTENCY_CONFLICT when the key is reused
 * for another one (the middleware's stored answer is gone after 24 hours, the transfer's key is not).
 */
export function replayOf(t: Transfer, input: CreateTransferInput): Transfer {
  let sameAmount = false;
  try {
    sameAmount = compareAmounts(t.amount, String(input.amount)) === 0;
  } catch {
    sameAmount = false;
  }
  const same =
    sameAmount &&
    t.userId === input.userId &&
    t.environment === input.environment &&
    t.fromAccountId === input.fromAccountId &&
    t.toAccountId === input.toAccountId &&
    t.assetCode === String(input.assetCode).toUpperCase();
  if (!same) {
    throw new TransferError('IDEMPOTENCY_CONFLICT', 'This Idempotency-Key was already used for another transfer', undefined, { transfer_id: t.id });
  }
  return Object.assign({}, t, { replayed: true });
}

/**
 * Inserts a transfer row (the workflow path; the immediate path writes in its batch). With a
 * request key another transfer holds (committed, or committing concurrently), nothing is written
 * and the answer is null: the caller reads that transfer (findTransferByRequestKey).
 */
export async function insertTransfer(
  c: Queryable,
  id: string,
  input: CreateTransferInput,
  p: Parties,
  fee: string,
  o: { status: TransferStatus; entryId: string | null; completed: boolean; workflowId: string | null; estimatedSeconds?: number },
): Promise<Transfer | null> {
  const { rows } = await c.query<Row>(
    `WITH t AS (
       INSERT INTO transfers (id, environment, user_id, from_account_id, to_account_id, asset_code, amount, fee_amount, status,
                              reference, description, metadata, workflow_id, entry_id, estimated_completion, completed_at, request_key)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14,
               CASE WHEN $15::int IS NULL THEN now() ELSE now() + make_interval(secs => $15::int) END,
               CASE WHEN $16 THEN now() END, $17)
       ON CONFLICT (request_key) WHERE request_key IS NOT NULL DO NOTHING
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
      input.requestKey ?? null,
    ],
  );
  return rows[0] ? toTransfer(rows[0]) : null;
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
