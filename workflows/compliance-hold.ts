/**
 * Waiting for a compliance officer's decision on a held payment (domain/regtech/holds), shared by
 * the payment workflows that screen their receiving party (rail payments, Interledger payments).
 * Deterministic: timers and activities only.
 */
import { condition, defineSignal, proxyActivities, setHandler } from '@temporalio/workflow';
import type { HoldActivities } from '../activities/regtech/holds';

/** A decision on the hold was stored (domain/regtech/holds sends it). */
export const holdDecisionSignal = defineSignal<[{ holdId: string; status: string }]>('complianceDecision');

/** How long a held payment waits unless its starter says otherwise, and how often it reads the hold. */
export const DEFAULT_REVIEW_TIMEOUT_MS = 72 * 3600 * 1000;
const REVIEW_POLL_MS = 3600 * 1000;

const acts = proxyActivities<HoldActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '200 ms', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 20 },
});

/**
 * Waits for the hold's decision: the signal wakes the workflow, and the hold is read again every
 * hour in case a signal was lost. At the end of the window an open hold expires (a decision made
 * meanwhile stands). Returns released, rejected or expired.
 */
export async function awaitHoldDecision(holdId: string, timeoutMs: number): Promise<string> {
  let signalled = false;
  setHandler(holdDecisionSignal, () => {
    signalled = true;
  });
  const deadline = Date.now() + timeoutMs;
  let status = await acts.complianceHoldStatus({ holdId });
  while (status === 'open' && Date.now() < deadline) {
    await condition(() => signalled, Math.max(1, Math.min(REVIEW_POLL_MS, deadline - Date.now())));
    signalled = false;
    status = await acts.complianceHoldStatus({ holdId });
  }
  return status === 'open' ? acts.expireComplianceHold({ holdId }) : status;
}

/** The failure code of a hold that did not end in release. */
export function holdFailureCode(status: string): 'SANCTIONS_REVIEW_TIMEOUT' | 'SANCTIONS_REJECTED' {
  return status === 'expired' ? 'SANCTIONS_REVIEW_TIMEOUT' : 'SANCTIONS_REJECTED';
}
