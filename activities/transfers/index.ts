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

/** The transfer activities, on the worker's pool and transfer service (built once in worker/index.ts). */
export function createTransferActivities(deps: { pool: pg.Pool; transfers: TransferService }) {
  const withTransaction = <T>(fn: (c: pg.PoolClient) => Promise<T>) => inTransaction(fn, deps.pool);
  return {
    /** Accounts still usable; a transfer already decided (a replayed step) passes through. */
    async validateTransfer({ transferId }: TransferStepInput): Promise<void> {
      await withTransaction(async (c) => {
        const t = await lockTransfer(c, transferId);
        if (t.status !== 'pending') return;
        const facts = await accountFacts(c, [t.fromAccountId, t.toAccountId]);
        const from = facts.get(t.fromAccountId)!;
        const to = facts.get(t.toAccountId)!;
        const refused = statusRefusal('from', from.status) ?? statusRefusal('to', to.status);
        if (refused) businessFailure(refused);
        await stepCompleted(c, t, 'validate');
      });
    },

    /** Pending ledger entry for amount and fee, keyed by workflow and step: a retry finds the first. */
    async reserveTransfer({ transferId, workflowId }: TransferStepInput): Promise<{ entryId: string }> {
      return withTransaction(async (c) => {
        const t = await lockTransfer(c, transferId);
        if (t.entryId) return { entryId: t.entryId };
        const lines = await deps.transfers.buildTransferLines(t, c);
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
        return { entryId: entry.id };
      });
    },

    async assessTransferRisk({ transferId }: TransferStepInput): Promise<RiskDecision> {
      return withTransaction(async (c) => {
        const t = await lockTransfer(c, transferId);
        const decision = await assessRisk(t, c);
        if (decision.decision === 'review' && t.status === 'pending') {
          const updated = await updateTransfer(c, t.id, { status: 'pending_review' });
          await emitTransferEvents(c, updated, ['workflow.step_completed'], { step: 'risk_check', decision });
        } else {
          await stepCompleted(c, t, 'risk_check', { decision });
        }
        return decision;
      });
    },

    /** Posts the reservation; the transfer completes in the same database transaction. */
    async postTransfer({ transferId, workflowId }: TransferStepInput): Promise<void> {
      await withTransaction(async (c) => {
        const t = await lockTransfer(c, transferId);
        if (t.status === 'completed') return;
        if (!t.entryId) throw ApplicationFailure.nonRetryable('transfer has no reservation', 'NOT_RESERVED');
        await postPending(t.entryId, { idempotencyKey: workflowIdempotencyKey(workflowId, 'post') }, c).catch(businessFailure);
        const updated = await updateTransfer(c, t.id, { status: 'completed', completed_at: 'now' });
        await emitTransferEvents(c, updated, ['workflow.step_completed'], { step: 'post' });
        await emitTransferEvents(c, updated, ['transfer.completed', 'workflow.completed']);
      });
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
