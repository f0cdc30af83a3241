/**
 * Payment initiation (PIS, Berlin Group NextGenPSD2; docs/open-banking.md): a TPP with the PSP_PI
 * role initiates a payment from a customer's account, the customer authorises it by SCA, and the
 * payment goes out through the payment rails (workflows/open-banking-payment.ts starts the rail payment's
 * workflow as a child: it checks and reserves the funds in the ledger, screens, submits and posts).
 *
 * What the TPP does (initiate, read, cancel, start an SCA) and what the SCA route calls when the
 * customer decides (decidePaymentSca, paymentScaDecided) are here; every status
 * change goes through transitionPayment (payment-records.ts). The decision is recorded first and
 * the workflow signalled after: a lost signal is caught up at the SCA deadline.
 */
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type pg from 'pg';
import { withTransaction } from '../db/pool';
import { loadConfig } from '../platform/config';
import { DomainError } from '../platform/errors';
import { newId } from '../platform/ids';
import { getTemporalClient } from '../temporal/client';
import { SA } from '../temporal/search-attributes';
import { signalWorkflow } from '../temporal/signals';
import {
  failOpenAuthorisations,
  getAuthorisation,
  listAuthorisationIds,
  scaTimeoutMs,
  startAuthorisation,
  type Authorisation,
} from './authorisations';
import { productOf, PRODUCTS, readPaymentBody, type PaymentBody } from './payment-body';
import { insertPayment, isFinalStatus, readPayment, transitionPayment, type ObPayment, type TransactionStatus } from './payment-records';
import type { Tpp } from './tpps';

export { PRODUCTS, productOf, type PaymentBody } from './payment-body';
export type { ObPayment, TransactionStatus } from './payment-records';

/** The workflow's signals: both only wake it; the decision is already in the database. */
export const SCA_DECIDED_SIGNAL = 'scaDecided';
export const CANCELLED_SIGNAL = 'cancelled';

/**
 * Receives a payment: checks the body for the product, records it RCVD (or finds the one this
 * X-Request-ID created) and starts its workflow, which waits for SCA. Temporal refusing the start of
 * a new payment rejects it (nothing was reserved) and answers WORKFLOW_UNAVAILABLE (503).
 */
export async function initiatePayment(tpp: Tpp, input: { product: string; requestId: string; body: PaymentBody }): Promise<{ payment: ObPayment; created: boolean }> {
  const product = productOf(input.product);
  const instruction = await readPaymentBody(product, input.body);
  const { payment, created } = await insertPayment({
    id: newId('obp'),
    environment: tpp.environment,
    tppId: tpp.id,
    requestId: input.requestId,
    product,
    rail: PRODUCTS[product].rail,
    ...instruction,
  });
  if (isFinalStatus(payment.transactionStatus)) return { payment, created };
  try {
    await startPaymentWorkflow(payment);
  } catch {
    if (created) await withTransaction((c) => transitionPayment(c, payment.id, 'RJCT', { reason: 'MS03' }));
    throw new DomainError('WORKFLOW_UNAVAILABLE', 'The payment could not be started; nothing was moved. Retry later.');
  }
  return { payment, created };
}

/** Idempotent: a workflow already running under the payment's id is success. */
async function startPaymentWorkflow(p: ObPayment): Promise<void> {
  const client = await getTemporalClient();
  try {
    await client.workflow.start('obPaymentWorkflow', {
      taskQueue: loadConfig().taskQueue,
      workflowId: p.workflowId,
      args: [{ paymentId: p.id, scaTimeoutMs: scaTimeoutMs() }],
      typedSearchAttributes: [
        { key: SA.paymentId, value: p.id },
        { key: SA.rail, value: p.rail },
        { key: SA.accountIds, value: p.accountId ? [p.accountId] : [] },
        { key: SA.assetCode, value: p.currency },
        { key: SA.amount, value: p.amount },
        { key: SA.businessStatus, value: p.transactionStatus },
        { key: SA.environment, value: p.environment },
        ...(p.userId ? [{ key: SA.userId, value: p.userId }] : []),
      ],
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}

/** The TPP's payment of that product, else 404 (PRODUCT_UNKNOWN, or RESOURCE_UNKNOWN also for another TPP's). */
export async function getPayment(tpp: Tpp, product: string, id: string): Promise<ObPayment> {
  const name = productOf(product);
  const p = await readPayment(id);
  if (!p || p.tppId !== tpp.id || p.product !== name) throw new DomainError('RESOURCE_UNKNOWN', 'No such payment of this TPP and payment product');
  return p;
}

/**
 * Cancels a payment the customer has not authorised yet: CANC (DS02), its open authorisations
 * fail and its workflow ends. Cancelling again is answered the same; a payment already authorised,
 * executing or ended otherwise is 405 CANCELLATION_INVALID.
 */
export async function cancelPayment(tpp: Tpp, product: string, id: string): Promise<ObPayment> {
  const found = await getPayment(tpp, product, id);
  const cancelled = await withTransaction(async (c) => {
    const { payment, changed } = await transitionPayment(c, found.id, 'CANC', { reason: 'DS02' });
    if (!changed && payment.transactionStatus !== 'CANC') {
      throw new DomainError('CANCELLATION_INVALID', `The payment is ${payment.transactionStatus}: only a payment not yet authorised can be cancelled`);
    }
    if (changed) await failOpenAuthorisations(c, { kind: 'payment', id: payment.id });
    return payment;
  });
  await wake(cancelled, CANCELLED_SIGNAL);
  return cancelled;
}

/** Starts an SCA of a payment that awaits one (else 409 STATUS_INVALID). */
export async function startPaymentAuthorisation(
  tpp: Tpp,
  product: string,
  id: string,
  opts: { decoupledPreferred: boolean; psuId: string | null },
): Promise<{ payment: ObPayment; authorisation: Authorisation }> {
  const payment = await getPayment(tpp, product, id);
  if (payment.transactionStatus !== 'RCVD' && payment.transactionStatus !== 'PATC') {
    throw new DomainError('STATUS_INVALID', `The payment is ${payment.transactionStatus}: it does not take an authorisation`);
  }
  const description = `Pay ${payment.amount} ${payment.currency} to ${payment.creditor.name} (${payment.creditor.iban})`;
  const authorisation = await startAuthorisation(tpp, { kind: 'payment', id: payment.id }, { ...opts, description });
  return { payment, authorisation };
}

export async function paymentAuthorisationIds(tpp: Tpp, product: string, id: string): Promise<string[]> {
  const payment = await getPayment(tpp, product, id);
  return listAuthorisationIds(tpp, { kind: 'payment', id: payment.id });
}

export async function paymentAuthorisation(tpp: Tpp, product: string, id: string, authorisationId: string): Promise<Authorisation> {
  const payment = await getPayment(tpp, product, id);
  return getAuthorisation(tpp, { kind: 'payment', id: payment.id }, authorisationId);
}

// --- the customer's SCA (called by the SCA route) ---------------------------------------------

export interface PaymentScaDecision {
  scaStatus: 'finalised' | 'failed';
  reason?: string;
  payment: ObPayment;
  /** The payment's status moved: its workflow is to be woken (paymentScaDecided). */
  changed: boolean;
}

/**
 * The customer's decision on a payment's SCA, taken on the payment's locked row in the caller's
 * transaction. Only a payment that awaits SCA (RCVD, PATC) moves: approve -> ACTC; deny -> RJCT
 * MS02; a debtor account that is not this customer's -> RJCT MS03, or AC02 when it is no account of
 * the platform (it can never be authorised). Transitions are forward-only: a payment authorised,
 * executing or ended is never moved back by another or a late authorisation, which just fails.
 */
export async function decidePaymentSca(c: pg.PoolClient, payment: ObPayment, userId: string, decision: 'approve' | 'deny'): Promise<PaymentScaDecision> {
  if (payment.transactionStatus !== 'RCVD' && payment.transactionStatus !== 'PATC') {
    return { scaStatus: 'failed', reason: `The payment is ${payment.transactionStatus}: there is nothing to authorise`, payment, changed: false };
  }
  let to: { status: TransactionStatus; reason: string | null; authorised: boolean; why?: string };
  if (decision === 'deny') to = { status: 'RJCT', reason: 'MS02', authorised: false, why: 'the customer denied the payment' };
  else if (!payment.accountId) to = { status: 'RJCT', reason: 'AC02', authorised: false, why: 'The debtor account of this payment is not an account of this customer' };
  else if (payment.userId !== userId) to = { status: 'RJCT', reason: 'MS03', authorised: false, why: 'The debtor account of this payment is not an account of this customer' };
  else to = { status: 'ACTC', reason: null, authorised: true };
  const moved = await transitionPayment(c, payment.id, to.status, { reason: to.reason, authorised: to.authorised });
  return { scaStatus: to.why === undefined ? 'finalised' : 'failed', ...(to.why ? { reason: to.why } : {}), payment: moved.payment, changed: moved.changed };
}

/** After the decision committed: the payment's workflow goes on (ACTC) or ends (RJCT). */
export async function paymentScaDecided(p: ObPayment): Promise<void> {
  await wake(p, SCA_DECIDED_SIGNAL);
}

/**
 * Wakes the payment's workflow. The database already holds the decision, and the workflow reads
 * it at its SCA deadline anyway, so a signal Temporal cannot take now is not an error here.
 */
async function wake(p: ObPayment, signal: string): Promise<void> {
  await signalWorkflow(p.workflowId, signal).catch(() => false);
}
