import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { DefiActivities } from '../activities/defi';
import type { FlashLoanRequest, FlashLoanResult } from '../domain/defi/flash-loans';

const acts = proxyActivities<DefiActivities>({
  startToCloseTimeout: '30 seconds',
  // A failed loan is a result, not an error; only infrastructure errors are retried (the
  // activity is one database transaction, idempotent on the workflow's ledger key).
  retry: { initialInterval: '200 ms', backoffCoefficient: 2, maximumInterval: '5 seconds', maximumAttempts: 5 },
});

/**
 * A flash loan is atomic by construction: its single activity borrows, runs the operations,
 * repays and books the profit in one database transaction, or rolls all of it back and answers
 * which step failed. The workflow gives it retries and a history; the API waits for the result.
 */
export async function flashLoanWorkflow(req: FlashLoanRequest): Promise<FlashLoanResult> {
  return acts.executeFlashLoan({ ...req, workflowId: workflowInfo().workflowId, nowMs: Date.now() });
}
