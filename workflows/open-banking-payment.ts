import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { condition, defineQuery, defineSignal, ParentClosePolicy, proxyActivities, setHandler, sleep, startChild, upsertSearchAttributes } from '@temporalio/workflow';
import type { ObPaymentActivities } from '../activities/open-banking/payments';
import type { RailChildStart } from '../domain/open-banking/payment-execution';
import type { TransactionStatus } from '../domain/open-banking/payment-records';
import { SA } from '../domain/temporal/search-attributes';
import { railPaymentWorkflow } from './rail-payment';

export interface ObPaymentWorkflowInput {
  paymentId: string;
  /** How long the customer has to authorise the payment (OPEN_BANKING_SCA_TIMEOUT_SECONDS). */
  scaTimeoutMs: number;
}

export interface ObPaymentProgress {
  payment_id: string;
  step: 'await_sca' | 'start_rail' | 'follow_rail' | 'done';
  transaction_status: TransactionStatus;
}

/** The customer decided (the decision is in the database: ACTC or RJCT). */
export const scaDecidedSignal = defineSignal('scaDecided');
/** The TPP cancelled the payment (already CANC in the database). */
export const cancelledSignal = defineSignal('cancelled');
export const obPaymentProgressQuery = defineQuery<ObPaymentProgress>('progress');

const acts = proxyActivities<ObPaymentActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '200 ms', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 20 },
});

/** Following the rail payment: first look after this, then twice as long each time, up to the maximum. */
const FIRST_LOOK_MS = 1000;
const MAX_LOOK_MS = 30 * 60_000;
const FINAL: readonly TransactionStatus[] = ['ACSC', 'RJCT', 'CANC'];

/** The platform's search attributes for the rail payment, as startRailPaymentWorkflow sets them. */
function railAttributes(c: RailChildStart) {
  return [
    { key: SA.paymentId, value: c.railPaymentId },
    { key: SA.rail, value: c.rail },
    { key: SA.accountIds, value: [c.accountId] },
    { key: SA.assetCode, value: c.currency },
    { key: SA.amount, value: c.amount },
    { key: SA.businessStatus, value: 'pending' },
    { key: SA.environment, value: c.environment },
    { key: SA.userId, value: c.userId },
  ] as never;
}

/**
 * One payment initiation (id ob-payment-<payment id>): wait for the customer's SCA until the
 * deadline (signals only wake it; the decision is read from the database, so a lost signal is
 * caught up at the deadline) → past it RJCT AB05; denied/failed → RJCT (already recorded);
 * authorised (ACTC) → create the rail payment and start its workflow as an abandoned child (it
 * reserves, screens, submits and posts; it outlives this one) → follow its status until final:
 * ACSP while the rail has it, ACSC when settled, RJCT with the reason when it fails.
 */
export async function obPaymentWorkflow(input: ObPaymentWorkflowInput): Promise<ObPaymentProgress> {
  const { paymentId } = input;
  const progress: ObPaymentProgress = { payment_id: paymentId, step: 'await_sca', transaction_status: 'RCVD' };
  let woken = false;
  setHandler(scaDecidedSignal, () => {
    woken = true;
  });
  setHandler(cancelledSignal, () => {
    woken = true;
  });
  setHandler(obPaymentProgressQuery, () => progress);
  const setStatus = (s: TransactionStatus) => {
    if (s === progress.transaction_status) return;
    progress.transaction_status = s;
    upsertSearchAttributes([{ key: SA.businessStatus, value: s }] as never);
  };
  const done = () => {
    progress.step = 'done';
    return progress;
  };

  const deadline = Date.now() + input.scaTimeoutMs;
  let status: TransactionStatus = 'RCVD';
  while (status === 'RCVD' || status === 'PATC') {
    const remaining = deadline - Date.now();
    if (remaining > 0) await condition(() => woken, remaining);
    woken = false;
    status = await acts.settleObPaymentSca({ paymentId, deadlinePassed: Date.now() >= deadline });
  }
  setStatus(status);
  if (status !== 'ACTC') return done();

  progress.step = 'start_rail';
  const start = await acts.createObRailPayment({ paymentId });
  if (start.kind === 'ended') {
    setStatus(start.status);
    return done();
  }
  let railEnded = false;
  try {
    const child = await startChild(railPaymentWorkflow, {
      workflowId: start.child.workflowId,
      args: [{ paymentId: start.child.railPaymentId, reviewTimeoutMs: start.child.reviewTimeoutMs }],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      typedSearchAttributes: railAttributes(start.child),
    });
    void child.result().then(
      () => (railEnded = true),
      () => (railEnded = true),
    );
  } catch (err) {
    // Started by an earlier run of this workflow: follow it by its status alone.
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }

  progress.step = 'follow_rail';
  let wait = FIRST_LOOK_MS;
  for (;;) {
    status = await acts.syncObPayment({ paymentId });
    setStatus(status);
    if (FINAL.includes(status)) return done();
    // An ended child whose payment is not final (terminated by an operator) is looked at on the timer.
    if (railEnded) await sleep(wait);
    else await condition(() => railEnded, wait);
    wait = Math.min(wait * 2, MAX_LOOK_MS);
  }
}
