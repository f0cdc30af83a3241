import type { Principal } from '../auth/principal';
import { DomainError } from '../platform/errors';
import { createRailPayment, getRailPayment, railPaymentHistory, type CreateRailPaymentInput, type RailPayment, type RailPaymentEvent } from './index';
import { startRailPaymentWorkflow } from './workflow';

export interface RailPaymentView {
  payment: RailPayment;
  history: RailPaymentEvent[];
}

/**
 * Records a rail payment (createRailPayment validates and routes it) and starts its workflow.
 * When the workflow cannot be started the caller gets WORKFLOW_UNAVAILABLE: nothing was moved.
 * With `input.requestKey` a request that ran before (its key taken over after a crash) gets the
 * payment its first run made. Returns the payment with its history (the pending row).
 */
export async function startRailPayment(input: CreateRailPaymentInput): Promise<RailPaymentView> {
  const payment = await createRailPayment(input);
  if (payment.replayed) {
    // The first run may have died before starting the workflow: start it (a running or finished one
    // with the id is left as it is). If Temporal refuses, the payment stays pending for a retry: its
    // workflow may be running, so it is not failed here.
    if (payment.status === 'pending') {
      await startRailPaymentWorkflow(payment, { failOnRefusal: false }).catch(() => {
        throw new DomainError('WORKFLOW_UNAVAILABLE', 'The payment is recorded but its workflow could not be confirmed. Retry later.');
      });
    }
    return { payment, history: await railPaymentHistory(payment.id) };
  }
  await startRailPaymentWorkflow(payment).catch(() => {
    throw new DomainError('WORKFLOW_UNAVAILABLE', 'The payment could not be started; nothing was moved. Retry later.');
  });
  return { payment, history: await railPaymentHistory(payment.id) };
}

/** The caller's rail payment in the caller's environment with its status history, else NOT_FOUND. */
export async function getRailPaymentView(p: Principal, id: string): Promise<RailPaymentView> {
  const payment = await getRailPayment(id, { userId: p.userId, environment: p.environment });
  if (!payment) throw new DomainError('NOT_FOUND', 'Payment not found');
  return { payment, history: await railPaymentHistory(payment.id) };
}
