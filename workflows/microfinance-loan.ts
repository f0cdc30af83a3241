import { condition, continueAsNew, defineQuery, defineSignal, proxyActivities, setHandler, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { MfLoanActivities } from '../activities/microfinance/loans';
import { SA } from '../domain/temporal/search-attributes';

const acts = proxyActivities<MfLoanActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 50 },
});

/** Something changed in the database (disbursement, repayment, write-off): look again now. */
export const mfLoanWakeSignal = defineSignal('wake');
export const mfLoanProgressQuery = defineQuery<{ step: string; nextWakeMs: number | null; reviews: number }>('progress');

/**
 * One group loan for its whole life (id mf-loan-<loan id>, started at approval). Each turn reviews
 * the loan on the workflow's clock (the database holds the truth): joint liability covers
 * instalments overdue past tolerance, and the review says when to look next (the next due date or
 * tolerance deadline). The workflow sleeps on a durable timer until then, or until a wake signal.
 * It ends when the loan is closed, written off or rejected; it continues as new every 500 turns.
 */
export async function mfLoanWorkflow(input: { loanId: string; turns?: number }): Promise<{ status: string }> {
  let woken = false;
  let step = 'starting';
  let nextWakeMs: number | null = null;
  let turns = input.turns ?? 0;
  setHandler(mfLoanWakeSignal, () => {
    woken = true;
  });
  setHandler(mfLoanProgressQuery, () => ({ step, nextWakeMs, reviews: turns }));
  const workflowId = workflowInfo().workflowId;
  for (;;) {
    woken = false;
    const review = await acts.reviewMfLoan({ loanId: input.loanId, nowMs: Date.now(), workflowId });
    turns++;
    if (review.status !== step) upsertSearchAttributes([{ key: SA.businessStatus, value: review.status }] as never);
    step = review.status;
    nextWakeMs = review.nextWakeMs;
    if (nextWakeMs === null) return { status: review.status };
    if (turns % 500 === 0) await continueAsNew<typeof mfLoanWorkflow>({ loanId: input.loanId, turns });
    const left = nextWakeMs - Date.now();
    if (left > 0) await condition(() => woken, left);
  }
}
