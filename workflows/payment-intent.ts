import { condition, defineQuery, defineSignal, proxyActivities, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import type { MobileActivities } from '../activities/mobile';
import { SA } from '../domain/temporal/search-attributes';

/** The payer confirmed (the API moved the intent to processing first). */
export const confirmSignal = defineSignal('confirm');
/** The payer canceled (the API already recorded it). */
export const cancelSignal = defineSignal('cancel');
export const intentStatusQuery = defineQuery<string>('status');

const acts = proxyActivities<MobileActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '200 ms', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 20 },
});

/** Besides the signals, how often the workflow looks at its intent (a lost signal costs at most this). */
const LOOK_MS = 5 * 60_000;
const TERMINAL = new Set(['succeeded', 'canceled', 'expired']);

/**
 * One payment intent from creation to its end: wakes on confirm or cancel signals, on a regular
 * look, and at expiry, and each time asks advancePaymentIntent to move the intent on (settle a
 * processing intent, expire an unconfirmed one past its time). Ends when the intent is final.
 */
export async function paymentIntentWorkflow(input: { intentId: string; ttlMs: number }): Promise<string> {
  let woken = false;
  let status = 'requires_confirmation';
  setHandler(confirmSignal, () => {
    woken = true;
  });
  setHandler(cancelSignal, () => {
    woken = true;
  });
  setHandler(intentStatusQuery, () => status);
  const expiresAt = Date.now() + input.ttlMs;
  for (;;) {
    const untilExpiry = expiresAt - Date.now();
    await condition(() => woken, Math.max(1, untilExpiry > 0 ? Math.min(LOOK_MS, untilExpiry) : LOOK_MS));
    woken = false;
    status = await acts.advancePaymentIntent({ intentId: input.intentId, nowMs: Date.now() });
    upsertSearchAttributes([{ key: SA.businessStatus, value: status }] as never);
    if (TERMINAL.has(status)) return status;
  }
}
