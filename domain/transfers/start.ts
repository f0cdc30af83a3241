import type { Principal } from '../auth/principal';
import { DomainError } from '../platform/errors';
import { getTransfer, type CreateTransferInput, type Transfer, type TransferService } from './index';
import { awaitTransferDecision, signalTransferReview, startTransferWorkflow } from './workflow';

/**
 * Creates a transfer: posted at once in one database transaction (`workflow` false), or recorded
 * pending and handed to its workflow. When the workflow cannot be started the transfer is failed
 * (startTransferWorkflow) and the caller gets WORKFLOW_UNAVAILABLE: nothing was moved.
 *
 * With `input.requestKey` (the request's Idempotency-Key) a request that ran before gets the
 * transfer its first run made, whichever path it took. A replayed workflow transfer still pending
 * has its workflow started again: the workflow id is the transfer's, so a running one is left as
 * it is, and one the first run died before starting starts now; if Temporal refuses, the transfer is
 * left pending (its workflow may be running) and the caller may retry.
 */
export async function startTransfer(transfers: TransferService, input: CreateTransferInput, opts: { workflow: boolean; waitMs?: number }): Promise<Transfer> {
  if (!opts.workflow) return transfers.createImmediateTransfer(input);
  const t = await transfers.createWorkflowTransfer(input);
  if (t.replayed) {
    if (t.status !== 'pending' || !t.workflowId) return t;
    await startTransferWorkflow(t, { failOnRefusal: false }).catch(() => {
      throw new DomainError('WORKFLOW_UNAVAILABLE', 'The transfer is recorded but its workflow could not be confirmed. Retry later.');
    });
    return t;
  }
  await startTransferWorkflow(t).catch(() => {
    throw new DomainError('WORKFLOW_UNAVAILABLE', 'The transfer could not be started; nothing was moved. Retry later.');
  });
  return opts.waitMs ? decidedWithin(t, opts.waitMs) : t;
}

/** The transfer as its workflow left it within `ms` (completed, pending_review, failed), or still pending. */
async function decidedWithin(t: Transfer, ms: number): Promise<Transfer> {
  await awaitTransferDecision(t.workflowId!, ms);
  return (await getTransfer(t.id)) ?? t;
}

/**
 * An operator's decision on a transfer held for review: signalled to its workflow. Only a transfer
 * in pending_review with a workflow can be decided (else NOT_AWAITING_REVIEW). Returns the
 * transfer as it was when the decision was sent.
 */
export async function reviewTransfer(
  p: Principal,
  id: string,
  decision: { decision: 'approve' | 'reject'; reason?: string },
): Promise<Transfer> {
  const t = await getTransfer(id, { environment: p.environment });
  if (!t) throw new DomainError('NOT_FOUND', 'Transfer not found');
  if (t.status !== 'pending_review' || !t.workflowId) {
    throw new DomainError('NOT_AWAITING_REVIEW', `Transfer is ${t.status}, not awaiting review`);
  }
  await signalTransferReview(t.workflowId, { ...decision, reviewer: p.email });
  return t;
}
