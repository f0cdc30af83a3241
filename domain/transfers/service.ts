/**
 * The transfer service of one database: `createTransferService({ pool, config })` owns what the
 * transfer paths keep between calls (account facts, fee schedules, the immediate transfers'
 * group-commit batcher) and is built once per process by api/app.ts and worker/index.ts, which
 * hand it to the routes and the activities. Tests build their own per database.
 */
import type pg from 'pg';
import { assetCatalogFor, type AssetCatalog } from '../assets';
import { withTransaction, type Queryable } from '../db/pool';
import { ledgerServiceFor, type LedgerService, type LineInput } from '../ledger';
import type { Config } from '../platform/config';
import { newId } from '../platform/ids';
import { AccountFacts, resolveParties, type CreateTransferInput } from './checks';
import { FeeSchedules } from './fees';
import { createImmediateBatches, createImmediateTransfer, prepareImmediateTransfer, type ImmediateDeps, type PreparedImmediateTransfer } from './immediate';
import { buildTransferLines } from './lines';
import { emitTransferEvents, findTransferByRequestKey, insertTransfer, replayOf, transferWorkflowId, type Transfer } from './records';

export interface TransferService {
  /**
   * A transfer posted at once (group commit), or its refusal as a DomainError. With a request key
   * that a transfer already holds: that transfer (replayed), nothing written.
   */
  createImmediateTransfer(input: CreateTransferInput): Promise<Transfer>;
  /** An immediate transfer as the set-wise batch takes it, without writing it (tests compare paths with it). */
  prepareImmediateTransfer(input: CreateTransferInput): Promise<PreparedImmediateTransfer>;
  /**
   * Records a transfer that a workflow will carry out (status pending), with transfer.created and
   * workflow.started in the same transaction. The caller then starts the workflow. With a request
   * key that a transfer already holds: that transfer (replayed), nothing written.
   */
  createWorkflowTransfer(input: CreateTransferInput, estimatedSeconds?: number): Promise<Transfer>;
  /** fee = clamp(fixed + amount * bps / 10000, min, max), rounded half-up at the asset's precision. */
  transferFee(assetCode: string, amount: string, precision: number, client?: Queryable): Promise<string>;
  /** Lines of a transfer entry: the sender pays amount and fee, the receiver gets the amount. */
  buildTransferLines(
    t: Pick<Transfer, 'id' | 'environment' | 'fromAccountId' | 'toAccountId' | 'assetCode' | 'amount' | 'feeAmount'>,
    client: Queryable,
    known?: { from?: string | null; to?: string | null },
  ): Promise<LineInput[]>;
}

export interface TransferServiceDeps {
  pool: pg.Pool;
  config: Pick<Config, 'transferBatchMax' | 'transferBatchesInFlight' | 'transferBatchHoldPercent'>;
  /** Defaults to the pool's shared catalog (the one getAsset uses). */
  assets?: AssetCatalog;
  /** Defaults to the pool's shared ledger service (the one systemAccount uses). */
  ledger?: LedgerService;
}

export function createTransferService({ pool, config, assets = assetCatalogFor(pool), ledger = ledgerServiceFor(pool) }: TransferServiceDeps): TransferService {
  const deps: ImmediateDeps = { pool, assets, ledger, facts: new AccountFacts(), fees: new FeeSchedules(pool) };
  const batches = createImmediateBatches(pool, config);

  return {
    createImmediateTransfer: (input) => createImmediateTransfer(deps, batches, input),
    prepareImmediateTransfer: (input) => prepareImmediateTransfer(deps, input),
    transferFee: (assetCode, amount, precision, client) => deps.fees.transferFee(assetCode, amount, precision, client),
    buildTransferLines: (t, client, known) => buildTransferLines(ledger, t, client, known),

    createWorkflowTransfer(input, estimatedSeconds = 30) {
      return withTransaction(async (c) => {
        // A request run again (its key taken over after a crash): the transfer its first run made.
        const known = input.requestKey ? await findTransferByRequestKey(c, input.requestKey) : null;
        if (known) return replayOf(known, input);
        const parties = await resolveParties(deps, input, c);
        const id = newId('txfr');
        const fee = await deps.fees.transferFee(parties.asset.code, parties.amount, parties.asset.precision, c);
        const t = await insertTransfer(c, id, input, parties, fee, {
          status: 'pending',
          entryId: null,
          completed: false,
          workflowId: transferWorkflowId(id),
          estimatedSeconds,
        });
        // The key's transfer was committed meanwhile by another run of the same request.
        if (!t) return replayOf((await findTransferByRequestKey(c, input.requestKey!))!, input);
        await emitTransferEvents(c, t, ['transfer.created', 'transfer.pending', 'workflow.started']);
        return t;
      }, pool);
    },
  };
}
