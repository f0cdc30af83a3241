/**
 * Immediate transfers: prepared without locks (checks, fee, lines, the row as the batch writes
 * it), then written by group commit with whichever immediate transfers arrive at the same time.
 */
import type pg from 'pg';
import { PipelinedConnection } from '../db/pipelined';
import type { Queryable } from '../db/pool';
import { entryPayload, toLedgerError, type LedgerService } from '../ledger';
import type { Config } from '../platform/config';
import { newId } from '../platform/ids';
import { ledgerRefusal, resolveParties, type AccountFacts, type CreateTransferInput } from './checks';
import type { FeeSchedules } from './fees';
import { GroupCommit } from './group-commit';
import { buildTransferLines } from './lines';
import { findTransferByRequestKey, isRequestKeyConflict, replayOf, toTransfer, transferEventData, type Row, type Transfer } from './records';
import type { AssetCatalog } from '../assets';

/** One immediate transfer as transfers_create_immediate_batch_setwise takes it. */
export type ImmediateItem = Pick<
  Row,
  'id' | 'environment' | 'user_id' | 'from_account_id' | 'to_account_id' | 'asset_code' | 'amount' | 'fee_amount' | 'reference' | 'description' | 'metadata'
> & {
  /** The request's key (CreateTransferInput.requestKey), unique among transfers; null without one. */
  request_key: string | null;
  entry_id: string;
  events: Array<{ id: string; type: string }>;
  event_data: Record<string, unknown>;
  entry: unknown;
};

/** A refusal comes back shaped like the error PostgreSQL would have raised for it alone. */
export type ImmediateResult = { ok: true; at: Date } | { ok: false; error: Error };

/**
 * The batcher holds each item as its JSON, written when the transfer is prepared (while an earlier
 * batch runs) rather than when its batch is sent.
 */
export type ImmediateBatches = GroupCommit<string, ImmediateResult>;

/** What preparing an immediate transfer reads from: the service's pool and per-database state. */
export interface ImmediateDeps {
  pool: Queryable;
  assets: AssetCatalog;
  ledger: Pick<LedgerService, 'systemAccount'>;
  facts: AccountFacts;
  fees: FeeSchedules;
}

export interface PreparedImmediateTransfer {
  item: ImmediateItem;
  completed(at: Date): Transfer;
  refused(err: unknown): never;
}

/**
 * The group-commit batcher of one database. The settings are read once, here, not per transfer.
 */
export function createImmediateBatches(pool: pg.Pool, config: Pick<Config, 'transferBatchMax' | 'transferBatchesInFlight' | 'transferBatchHoldPercent'>): ImmediateBatches {
  // The batches share one connection in pipeline mode: the server runs them one after another, each
  // starting as the one before commits, so two batches never wait on each other's row locks.
  const connection = new PipelinedConnection(pool);
  return new GroupCommit<string, ImmediateResult>({
    // Each transfer is a subtransaction: past 64 in one transaction PostgreSQL's snapshots overflow
    // their subtransaction cache and every session slows down.
    maxBatch: Math.min(64, Math.max(1, config.transferBatchMax)),
    maxInFlight: Math.max(1, config.transferBatchesInFlight),
    // The next batch leaves part of the way into the running one's expected time: before it ends.
    holdNext: Math.max(0, config.transferBatchHoldPercent) / 100,
    // Batches run in the order sent, on one connection: none needs to wait for another's rows.
    locks: () => [],
    // A server-side error (it has a SQLSTATE) rolled the whole statement back.
    retryAlone: (err) => typeof (err as { code?: unknown })?.code === 'string',
    async runBatch(items) {
      const { rows } = await connection.query<{ r: { now: string; results: Array<{ ok: boolean; code?: string; message?: string; detail?: string | null; constraint?: string | null }> } }>({
        // Named: prepared once per connection.
        name: 'transfers_create_immediate_batch_setwise',
        text: 'SELECT transfers_create_immediate_batch_setwise($1::jsonb) AS r',
        values: [`[${items.join(',')}]`],
      });
      const at = new Date(rows[0].r.now);
      return rows[0].r.results.map((x) =>
        x.ok
          ? { ok: true as const, at }
          : { ok: false as const, error: Object.assign(new Error(x.message), { code: x.code, detail: x.detail ?? undefined, constraint: x.constraint ?? undefined }) },
      );
    },
  });
}

/**
 * A transfer posted at once: transfer row, balanced ledger entry (amount and fee) and its events
 * in one database transaction. Insufficient funds, a frozen account and the like roll it all back.
 * A request key already held by a transfer (the request ran before) answers with that transfer:
 * looked up first, and, for a run that raced the first one to the batch, by the key's unique
 * violation, which refuses only this transfer of its batch.
 */
export async function createImmediateTransfer(deps: ImmediateDeps, batches: ImmediateBatches, input: CreateTransferInput): Promise<Transfer> {
  const key = input.requestKey;
  if (key) {
    const known = await findTransferByRequestKey(deps.pool, key);
    if (known) return replayOf(known, input);
  }
  const { item, completed, refused } = await prepareImmediateTransfer(deps, input);
  // Written with whichever immediate transfers arrive at the same time (group commit): the transfer
  // row, its events and the ledger posting still succeed or fail together, on their own.
  let result: ImmediateResult;
  try {
    result = await batches.submit(JSON.stringify(item));
  } catch (err) {
    // Alone in its batch, the key's violation fails the statement instead of the transfer's slot.
    if (key && isRequestKeyConflict(err)) return replayOf((await findTransferByRequestKey(deps.pool, key))!, input);
    throw err;
  }
  if (!result.ok) {
    // The key's transfer committed before this batch's statement ended (its violation waits for that).
    if (key && isRequestKeyConflict(result.error)) return replayOf((await findTransferByRequestKey(deps.pool, key))!, input);
    return refused(toLedgerError(result.error));
  }
  return completed(result.at);
}

/**
 * An immediate transfer as transfers_create_immediate_batch_setwise takes it, after the checks
 * that need no lock; the transfer it becomes once written at a given time; and its refusal.
 */
export async function prepareImmediateTransfer(
  deps: ImmediateDeps,
  input: CreateTransferInput,
): Promise<PreparedImmediateTransfer> {
  const pool = deps.pool;
  // Reads outside any transaction (or none): the ledger checks status and funds under its row locks.
  const parties = await resolveParties(deps, input, pool, true);
  const id = newId('txfr');
  const entryId = newId('je');
  const fee = await deps.fees.transferFee(parties.asset.code, parties.amount, parties.asset.precision, pool);
  const lines = await buildTransferLines(
    deps.ledger,
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
  // Object.assign here and below, not `{ ...columns, more }`: see docs/operations.md, "Object
  // spread on hot paths" (a spread clone with properties added costs Node 20 its young-generation GC).
  const completed = (at: Date): Transfer =>
    toTransfer(Object.assign({}, columns, {
      status: 'completed' as const,
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
    }));
  const item: ImmediateItem = Object.assign({}, columns, {
    request_key: input.requestKey ?? null,
    entry_id: entryId,
    events: [
      { id: newId('evt'), type: 'transfer.created' },
      { id: newId('evt'), type: 'transfer.completed' },
    ],
    event_data: transferEventData(completed(new Date())), // event data holds no times
    entry: payload,
  });
  return { item, completed, refused: (err) => ledgerRefusal(err, parties) };
}
