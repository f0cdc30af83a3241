import { ApplicationFailure, patched, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { InterledgerActivities } from '../activities/interledger';
import { businessFailureOf, innermostCause } from '../domain/temporal/failures';
import { awaitHoldDecision, DEFAULT_REVIEW_TIMEOUT_MS, holdFailureCode } from './compliance-hold';

const acts = proxyActivities<InterledgerActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '200 ms', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 10 },
});

/** check quote → reserve → screen the receiver [→ held for compliance review] → send ILP Prepare → post on Fulfill, void on Reject (compensation). */
export async function interledgerPaymentWorkflow(input: { paymentId: string; reviewTimeoutMs?: number }): Promise<{ status: 'completed' | 'failed'; code?: string }> {
  const base = { paymentId: input.paymentId, workflowId: workflowInfo().workflowId };
  try {
    await acts.checkIlpQuote({ ...base, nowMs: Date.now() });
    await acts.reserveIlpPayment(base);
    if (patched('compliance-holds')) {
      const screen = await acts.screenIlpPayment(base);
      if (screen.held) {
        const outcome = await awaitHoldDecision(screen.holdId!, input.reviewTimeoutMs ?? DEFAULT_REVIEW_TIMEOUT_MS);
        if (outcome !== 'released') {
          throw ApplicationFailure.nonRetryable(`a compliance officer did not release the payment held for ${screen.reasonCode} (hold ${outcome})`, holdFailureCode(outcome));
        }
        await acts.recordIlpHoldReleased({ ...base, holdId: screen.holdId! });
      }
    }
    const r = await acts.sendIlpPayment({ ...base, nowMs: Date.now() });
    if (!r.fulfilled) throw ApplicationFailure.nonRetryable(r.message ?? 'rejected', `ILP_${r.code ?? 'F00'}`);
    await acts.postIlpPayment(base);
    return { status: 'completed' };
  } catch (err) {
    // The refusal's code and message; otherwise the innermost cause's message (e.g. a timeout).
    const f = businessFailureOf(err);
    const code = f?.code ?? 'ILP_FAILED';
    const reason = f ? f.message : ((innermostCause(err) as Error | undefined)?.message ?? 'unknown error');
    await acts.compensateIlpPayment({ ...base, code, reason });
    return { status: 'failed', code };
  }
}
