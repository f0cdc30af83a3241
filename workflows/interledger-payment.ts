import { ApplicationFailure, patched, proxyActivities, proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import type { InterledgerActivities } from '../activities/interledger';
import { businessFailureOf, innermostCause } from '../domain/temporal/failures';
import { awaitHoldDecision, DEFAULT_REVIEW_TIMEOUT_MS, holdFailureCode } from './compliance-hold';

const options = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '200 ms', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 10 },
} as const;
const acts = proxyActivities<InterledgerActivities>(options);
/**
 * The steps that only touch our database (quote check, reserve, post, compensation) run
 * as local activities since this patch, as the swap's do (workflows/swap.ts); sending the ILP
 * Prepare to the connector stays a regular activity.
 */
const local = proxyLocalActivities<InterledgerActivities>(options);
export const INTERLEDGER_LOCAL_STEPS_PATCH = 'interledger-local-steps';

/** check quote → reserve → screen the receiver [→ held for compliance review] → send ILP Prepare → post on Fulfill, void on Reject (compensation). */
export async function interledgerPaymentWorkflow(input: { paymentId: string; reviewTimeoutMs?: number }): Promise<{ status: 'completed' | 'failed'; code?: string }> {
  const base = { paymentId: input.paymentId, workflowId: workflowInfo().workflowId };
  const db = patched(INTERLEDGER_LOCAL_STEPS_PATCH) ? local : acts;
  try {
    await db.checkIlpQuote({ ...base, nowMs: Date.now() });
    await db.reserveIlpPayment(base);
    if (patched('compliance-holds')) {
      const screen = await acts.screenIlpPayment(base);
      if (screen.held) {
        const outcome = await awaitHoldDecision(screen.holdId!, input.reviewTimeoutMs ?? DEFAULT_REVIEW_TIMEOUT_MS);
        if (outcome !== 'released') {
          throw ApplicationFailure.nonRetryable(`a compliance officer did not release the payment held for ${screen.reasonCode} (hold ${outcome})`, holdFailureCode(outcome));
        }
        await db.recordIlpHoldReleased({ ...base, holdId: screen.holdId! });
      }
    }
    const r = await acts.sendIlpPayment({ ...base, nowMs: Date.now() });
    if (!r.fulfilled) throw ApplicationFailure.nonRetryable(r.message ?? 'rejected', `ILP_${r.code ?? 'F00'}`);
    await db.postIlpPayment(base);
    return { status: 'completed' };
  } catch (err) {
    // The refusal's code and message; otherwise the innermost cause's message (e.g. a timeout).
    const f = businessFailureOf(err);
    const code = f?.code ?? 'ILP_FAILED';
    const reason = f ? f.message : ((innermostCause(err) as Error | undefined)?.message ?? 'unknown error');
    await db.compensateIlpPayment({ ...base, code, reason });
    return { status: 'failed', code };
  }
}
