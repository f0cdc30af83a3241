import {
  ApplicationFailure,
  condition,
  defineQuery,
  defineSignal,
  defineUpdate,
  log,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { TransferActivities } from '../activities/transfers';
import { failureOf } from '../domain/temporal/failures';
import { SA } from '../domain/temporal/search-attributes';
import type { TransferProgress, TransferStep } from '../domain/transfers/progress';

export interface TransferWorkflowInput {
  transferId: string;
  /** How long a transfer held for review waits for an operator before it is released (ms). */
  reviewTimeoutMs?: number;
}

export type { TransferProgress, TransferStep } from '../domain/transfers/progress';

export const progressQuery = defineQuery<TransferProgress>('progress');
/**
 * Resolves once the transfer is decided: reserved and assessed (completed, or waiting for a reviewer)
 * or failed. The API asks it when a client sends `Prefer: wait=N` (domain/transfers/workflow.ts); it
 * adds two history events to that run only, and no command, so histories replay with or without it.
 */
export const decidedUpdate = defineUpdate<TransferProgress>('decided');
export const reviewSignal = defineSignal<[{ decision: 'approve' | 'reject'; reason?: string; reviewer: string }]>('review');

// Business failures are not retried; infrastructure errors (database down) are, with back-off.
const { runTransfer, validateTransfer, reserveTransfer, assessTransferRisk, postTransfer, compensateTransfer } =
  proxyActivities<TransferActivities>({
    startToCloseTimeout: '30 seconds',
    retry: { initialInterval: '200 ms', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 20 },
  });

/**
 * runTransfer as a local activity: the worker that holds the workflow task runs it and records its
 * result in a marker, so an approved transfer is one workflow task (no activity task through the
 * server's matching, no second workflow task). Same transaction, keys and retry policy as the regular
 * activity: a worker killed mid-run loses the workflow task, and the next worker runs it again,
 * which finds the transfer decided (the run is idempotent, keyed by workflow id and step).
 */
const local = proxyLocalActivities<TransferActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '200 ms', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 20 },
});

/** Histories started after this marker run runTransfer as a local activity (8 history events when approved). */
export const LOCAL_ACTIVITY_PATCH = 'transfer-local-activity';

/**
 * Histories started after this marker run the transfer as one activity (runTransfer: validate,
 * reserve, limits and risk, post when approved, in one database transaction), 12 history events on
 * the approved path instead of 31; older histories replay the four activities.
 */
export const SINGLE_ACTIVITY_PATCH = 'transfer-single-activity';

/**
 * validate → reserve (pending ledger entry) → limits and risk → [operator review] → post → complete.
 * Any failure after the reserve voids the pending entry (compensation) and fails the transfer.
 * Every ledger call is keyed by this workflow's id and the step, so retries and replays after a
 * worker crash never move money twice.
 */
export async function transferWorkflow(input: TransferWorkflowInput): Promise<TransferProgress> {
  const workflowId = workflowInfo().workflowId;
  const progress: TransferProgress = {
    transfer_id: input.transferId,
    status: 'running',
    current_step: 'validate',
    completed_steps: [],
    compensation_executed: false,
  };
  let review: { decision: 'approve' | 'reject'; reason?: string; reviewer: string } | undefined;
  setHandler(progressQuery, () => progress);
  setHandler(decidedUpdate, async () => {
    await condition(() => progress.status !== 'running' || progress.completed_steps.includes('risk_check'));
    return progress;
  });
  setHandler(reviewSignal, (d) => {
    review ??= d;
  });

  const step = (s: TransferStep) => {
    progress.current_step = s;
  };
  const done = (s: TransferStep) => {
    progress.completed_steps.push(s);
  };
  const setStatus = (status: string) => upsertSearchAttributes([{ key: SA.businessStatus, value: status }] as never);
  // An operator's decision within the review window, or the transfer fails (compensated below).
  const awaitReview = async () => {
    step('review');
    progress.status = 'awaiting_review';
    setStatus('pending_review');
    const decided = await condition(() => review !== undefined, input.reviewTimeoutMs ?? 24 * 3600 * 1000);
    progress.status = 'running';
    if (!decided) throw ApplicationFailure.nonRetryable('No review decision before the review deadline', 'REVIEW_TIMEOUT');
    if (review!.decision === 'reject') {
      throw ApplicationFailure.nonRetryable(review!.reason ?? `Rejected by ${review!.reviewer}`, 'REVIEW_REJECTED');
    }
    done('review');
  };
  const complete = () => {
    step('complete');
    done('complete');
    progress.status = 'completed';
    setStatus('completed');
    return progress;
  };

  let reserved = false;
  try {
    const asLocal = patched(LOCAL_ACTIVITY_PATCH);
    if (asLocal || patched(SINGLE_ACTIVITY_PATCH)) {
      step('validate');
      const run = await (asLocal ? local.runTransfer : runTransfer)({ transferId: input.transferId, workflowId });
      // The activity committed the reservation (it rolls back whole when it fails).
      reserved = true;
      done('validate');
      done('reserve');
      done('risk_check');
      if (run.decision.decision === 'reject') throw ApplicationFailure.nonRetryable(run.decision.reason, 'RISK_REJECTED');
      if (!run.posted) {
        await awaitReview();
        step('post');
        await postTransfer({ transferId: input.transferId, workflowId });
      }
      done('post');
      return complete();
    }

    step('validate');
    await validateTransfer({ transferId: input.transferId, workflowId });
    done('validate');

    step('reserve');
    await reserveTransfer({ transferId: input.transferId, workflowId });
    reserved = true;
    done('reserve');
    setStatus('reserved');

    step('risk_check');
    const risk = await assessTransferRisk({ transferId: input.transferId, workflowId });
    done('risk_check');
    if (risk.decision === 'reject') {
      throw ApplicationFailure.nonRetryable(risk.reason, 'RISK_REJECTED');
    }
    if (risk.decision === 'review') await awaitReview();

    step('post');
    await postTransfer({ transferId: input.transferId, workflowId });
    done('post');
    return complete();
  } catch (err) {
    const failure = asFailure(err);
    log.warn('transfer failed', { transferId: input.transferId, code: failure.code });
    progress.failure = failure;
    step('compensate');
    // Compensation runs even when the failing step was the reserve itself: it voids whatever
    // reservation exists for this workflow (none is a no-op) and records the failure.
    await compensateTransfer({ transferId: input.transferId, workflowId, code: failure.code, reason: failure.reason, reserved });
    progress.compensation_executed = reserved;
    done('compensate');
    progress.status = 'failed';
    setStatus('failed');
    return progress;
  }
}

function asFailure(err: unknown): { code: string; reason: string } {
  // Activity failures wrap the activity's ApplicationFailure in `cause`.
  return failureOf(err, 'TRANSFER_FAILED');
}
