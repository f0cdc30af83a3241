import { ApplicationFailure } from '@temporalio/activity';
import { accountFacts } from '../../domain/accounts';
import { statusRefusal } from '../../domain/accounts/status';
import type pg from 'pg';
import { withTransaction as inTransaction } from '../../domain/db/pool';
import { LedgerError, getEntry, postEntry, postPending, voidPending, workflowIdempotencyKey } from '../../domain/ledger';
import {
  TransferError,
  emitTransferEvents,
  lockTransfer,
  updateTransfer,
  type Transfer,
  type TransferService,
} from '../../domain/transfers';
import { assessRisk, type RiskDecision } from '../../domain/transfers/risk';

export interface TransferStepInput {
  transferId: string;
  workflowId: string;
}

// Reservations outlive the longest review wait, so only a stuck workflow lets one expire.
const RESERVATION_TIMEOUT_SECONDS = 3 * 24 * 3600;

/** Business refusals end the workflow (no retry); anything else is retried by Temporal. */
function businessFailure(err: unknown): never {
  if (err instanceof LedgerError || err instanceof TransferError) {
    throw ApplicationFailure.nonRetryable(err.message, err.code);
  }
  throw err;
}

async function stepCompleted(c: Parameters<typeof emitTransferEvents>[0], t: Transfer, step: string, extra: Record<string, unknown> = {}) {
  await emitTransferEvents(c, t, ['workflow.step_completed'], { step, ...extra });
}

/** Accounts still usable; a transfer already decided (a replayed step) passes through. */
async function validateIn(c: pg.PoolClient, t: Transfer): Promise<void> {
  if (t.status !== 'pending') return;
  const facts = await accountFacts(c, [t.fromAccountId, t.toAccountId]);
  const from = facts.get(t.fromAccountId)!;
  const to = facts.get(t.toAccountId)!;
  const refused = statusRefusal('from', from.status) ?? statusRefusal('to', to.status);
  if (refused) businessFailure(refused);
  await stepCompleted(c, t, 'validate');
}

/** Pending ledger entry for amount and fee, keyed by workflow and step: a retry finds the first. */
async function reserveIn(c: pg.PoolClient, t: Transfer, workflowId: string, transfers: TransferService): Promise<Transfer> {
  if (t.entryId) return t;
  const lines = await transfers.buildTransferLines(t, c);
  const entry = await postEntry(
    {
      environment: t.environment,
      idempotencyKey: workflowIdempotencyKey(workflowId, 'reserve'),
      type: 'transfer',
      reference: t.reference ?? undefined,
      description: t.description ?? undefined,
      lines,
      pending: true,
      pendingTimeoutSeconds: RESERVATION_TIMEOUT_SECONDS,
      userId: t.userId,
      metadata: { transfer_id: t.id, workflow_id: workflowId },
    },
    c,
  ).catch(businessFailure);
  const updated = await updateTransfer(c, t.id, { entry_id: entry.id });
  await stepCompleted(c, updated, 'reserve', { entry_id: entry.id });
  return updated;
}

async function assessIn(c: pg.PoolClient, t: Transfer): Promise<RiskDecision> {
  const decision = await assessRisk(t, c);
  if (decision.decision === 'review' && t.status === 'pending') {
    const updated = await updateTransfer(c, t.id, { status: 'pending_review' });
    await emitTransferEvents(c, updated, ['workflow.step_completed'], { step: 'risk_check', decision });
  } else {
    await stepCompleted(c, t, 'risk_check', { decision });
  }
  return decision;
}

/** Posts the reservation; the transfer completes in the same database transaction. */
async function postIn(c: pg.PoolClient, t: Transfer, workflowId: string): Promise<void> {
  if (t.status === 'completed') return;
  if (!t.entryId) throw ApplicationFailure.nonRetryable('transfer has no reservation', 'NOT_RESERVED');
  await postPending(t.entryId, { idempotencyKey: workflowIdempotencyKey(workflowId, 'post') }, c).catch(businessFailure);
  const updated = await updateTransfer(c, t.id, { status: 'completed', completed_at: 'now' });
  await emitTransferEvents(c, updated, ['workflow.step_completed'], { step: 'post' });
  await emitTransferEvents(c, updated, ['transfer.completed', 'workflow.completed']);
}

/** What runTransfer did: the risk decision, and whether the transfer is posted (approved) or waits. */
export interface TransferRun {
  decision: RiskDecision;
  posted: boolean;
}

/** The transfer activities, on the worker's pool and transfer service (built once in worker/index.ts). */
export function createTransferActivities(deps: { pool: pg.Pool; transfers: TransferService }) {
  const withTransaction = <T>(fn: (c: pg.PoolClient) => Promise<T>) => inTransaction(fn, deps.pool);
  return {
    /**
     * The transfer in one activity and one database transaction (docs/operations.md, "Workflow
     * shape"): validate, reserve (the pending entry keyed by workflow and 'reserve'), the limits and
     * risk assessment, and, when approved, the post (keyed by 'post'). The same steps, keys and
     * events as the four activities below, which histories started before it still replay. A review
     * or a rejection commits the reservation and returns the decision: the workflow waits for the
     * reviewer, or compensates. A retry after the commit finds the transfer decided.
     */
    async runTransfer({ transferId, workflowId }: TransferStepInput): Promise<TransferRun> {
      return withTransaction(async (c) => {
        let t = await lockTransfer(c, transferId);
        if (t.status === 'completed') return { decision: { decision: 'approve', reason: 'already posted', usd_equivalent: '' }, posted: true };
        if (t.status === 'pending_review') return { decision: { decision: 'review', reason: 'awaiting review', usd_equivalent: '' }, posted: false };
        // A late attempt after the workflow compensated must not reserve again.
        if (t.status !== 'pending') throw ApplicationFailure.nonRetryable(`The transfer is already ${t.status}`, 'TRANSFER_CLOSED');
        await validateIn(c, t);
        t = await reserveIn(c, t, workflowId, deps.transfers);
        const decision = await assessIn(c, t);
        if (decision.decision !== 'approve') return { decision, posted: false };
        await postIn(c, t, workflowId);
        return { decision, posted: true };
      });
    },

    async validateTransfer({ transferId }: TransferStepInput): Promise<void> {
      await withTransaction(async (c) => validateIn(c, await lockTransfer(c, transferId)));
    },

    async reserveTransfer({ transferId, workflowId }: TransferStepInput): Promise<{ entryId: string }> {
      return withTransaction(async (c) => {
        const t = await reserveIn(c, await lockTransfer(c, transferId), workflowId, deps.transfers);
        return { entryId: t.entryId! };
      });
    },

    async assessTransferRisk({ transferId }: TransferStepInput): Promise<RiskDecision> {
      return withTransaction(async (c) => assessIn(c, await lockTransfer(c, transferId)));
    },

    async postTransfer({ transferId, workflowId }: TransferStepInput): Promise<void> {
      await withTransaction(async (c) => postIn(c, await lockTransfer(c, transferId), workflowId));
    },

    /**
     * Compensation: voids the reservation if there is one (idempotently), fails the transfer with
     * the reason, and records workflow.compensation_executed when money was released. A review
     * that timed out (REVIEW_TIMEOUT: the transfer passed its deadline) ends the transfer
     * 'expired' with transfer.expired instead of 'failed' / transfer.failed; the money is the same.
     */
    async compensateTransfer(input: TransferStepInput & { code: string; reason: string; reserved: boolean }): Promise<{ voided: boolean }> {
      return withTransaction(async (c) => {
        const t = await lockTransfer(c, input.transferId);
        if (t.status === 'failed' || t.status === 'expired') return { voided: t.compensationExecuted };
        let voided = false;
        if (t.entryId) {
          const entry = await getEntry(t.entryId, c);
          if (entry?.status === 'pending') {
            await voidPending(t.entryId, { idempotencyKey: workflowIdempotencyKey(input.workflowId, 'void'), reason: input.reason }, c).catch(
              (err) => {
                // Already voided (e.g. the reservation timed out) is the state compensation wants.
                if (!(err instanceof LedgerError && err.code === 'ALREADY_VOIDED')) throw err;
              },
            );
            voided = true;
          } else if (entry?.status === 'voided') {
            voided = true;
          }
        }
        const expired = input.code === 'REVIEW_TIMEOUT';
        const updated = await updateTransfer(c, t.id, {
          status: expired ? 'expired' : 'failed',
          failure_code: input.code,
          failure_reason: input.reason,
          compensation_executed: voided,
          failed_at: 'now',
        });
        const events = expired ? ['transfer.expired', 'workflow.failed', 'workflow.timeout'] : ['transfer.failed', 'workflow.failed'];
        if (voided) events.push('workflow.compensation_executed');
        await emitTransferEvents(c, updated, events, { entry_id: t.entryId });
        return { voided };
      });
    },
  };
}

export type TransferActivities = ReturnType<typeof createTransferActivities>;
