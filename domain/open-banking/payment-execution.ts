/**
 * The steps of an open banking payment's workflow (workflows/open-banking-payment.ts, through
 * activities/open-banking/payments.ts): end the SCA wait, create the rail payment that executes an
 * authorised payment, and follow that rail payment's status. Each reads the payment's state under
 * its row lock and does only what is still to do, so a retried activity repeats nothing.
 */
import { withTransaction } from '../db/pool';
import { LedgerError } from '../ledger';
import { loadConfig } from '../platform/config';
import type { Environment } from '../platform/environment';
import { DomainError } from '../platform/errors';
import { createRailPayment, getRailPayment, railPaymentWorkflowId } from '../rails';
import type { RailName } from '../rails/calendar';
import { failOpenAuthorisations } from './authorisations';
import { linkRailPayment, lockPayment, readPayment, statusOfRail, statusReasonOf, transitionPayment, type TransactionStatus } from './payment-records';

/**
 * After a signal or at the SCA deadline: a payment still awaiting SCA past the deadline is rejected
 * (AB05) and its open authorisations fail. Returns the status it leaves (RCVD: keep waiting).
 */
export async function settleSca(paymentId: string, deadlinePassed: boolean): Promise<TransactionStatus> {
  return withTransaction(async (c) => {
    const p = await lockPayment(c, paymentId);
    if ((p.transactionStatus !== 'RCVD' && p.transactionStatus !== 'PATC') || !deadlinePassed) return p.transactionStatus;
    const { payment } = await transitionPayment(c, p.id, 'RJCT', { reason: 'AB05' });
    await failOpenAuthorisations(c, { kind: 'payment', id: p.id });
    return payment.transactionStatus;
  });
}

/** What the workflow needs to start the rail payment's workflow as its child, with the platform's search attributes. */
export interface RailChildStart {
  railPaymentId: string;
  workflowId: string;
  reviewTimeoutMs: number;
  accountId: string;
  userId: string;
  environment: Environment;
  currency: string;
  amount: string;
  rail: RailName;
}

export type RailStart = { kind: 'start'; child: RailChildStart } | { kind: 'ended'; status: TransactionStatus };

/**
 * The rail payment of an authorised (ACTC) payment: created once (createRailPayment checks the
 * account, amount and creditor again) and linked, or the one already linked. A refusal rejects the
 * payment with its ISO reason (e.g. AC06 for a frozen account). Nothing moves here: the rail
 * payment's workflow reserves the funds in the ledger.
 * The rail payment and the link commit together, so a retried activity finds the one it made.
 */
export async function createRailPaymentFor(paymentId: string): Promise<RailStart> {
  return withTransaction(async (c): Promise<RailStart> => {
    const p = await lockPayment(c, paymentId);
    if (p.railPaymentId) {
      const rail = await getRailPayment(p.railPaymentId, {}, c);
      return { kind: 'start', child: childOf(rail!) };
    }
    if (p.transactionStatus !== 'ACTC') return { kind: 'ended', status: p.transactionStatus };
    try {
      const rail = await createRailPayment({
        userId: p.userId!,
        environment: p.environment,
        accountId: p.accountId!,
        amount: p.amount,
        currency: p.currency,
        rail: p.rail,
        creditor: { name: p.creditor.name, iban: p.creditor.iban, ...(p.creditor.bic ? { bic: p.creditor.bic } : {}), ...(p.creditor.address ? { country: p.creditor.address.country } : {}) },
        memo: p.remittance,
        urgency: p.rail === 'sepa_instant' ? 'instant' : 'standard',
        now: new Date(),
      }, c);
      await linkRailPayment(c, p.id, rail.id);
      return { kind: 'start', child: childOf(rail) };
    } catch (err) {
      if (!(err instanceof DomainError || err instanceof LedgerError)) throw err;
      const { payment } = await transitionPayment(c, p.id, 'RJCT', { reason: statusReasonOf(err.code) });
      return { kind: 'ended', status: payment.transactionStatus };
    }
  });
}

function childOf(r: NonNullable<Awaited<ReturnType<typeof getRailPayment>>>): RailChildStart {
  return {
    railPaymentId: r.id,
    workflowId: railPaymentWorkflowId(r.id),
    reviewTimeoutMs: loadConfig().complianceReviewTimeoutHours * 3_600_000,
    accountId: r.accountId,
    userId: r.userId,
    environment: r.environment,
    currency: r.currency,
    amount: r.amount,
    rail: r.rail,
  };
}

/**
 * Brings the payment's status up to its rail payment's: reserved/submitted → ACSP,
 * settled/completed → ACSC, rejected/failed/returned → RJCT with the ISO reason (AM04 for
 * insufficient funds, the rail's own code for a rail's RJCT). Returns the status it leaves.
 */
export async function syncWithRail(paymentId: string): Promise<TransactionStatus> {
  const p = await readPayment(paymentId);
  if (!p) throw new DomainError('RESOURCE_UNKNOWN', `No payment ${paymentId}`);
  if (!p.railPaymentId) return p.transactionStatus;
  const rail = await getRailPayment(p.railPaymentId);
  const to = rail ? statusOfRail(rail.status) : null;
  if (!rail || !to || to === p.transactionStatus) return p.transactionStatus;
  const { payment } = await withTransaction((c) => transitionPayment(c, p.id, to, { reason: to === 'RJCT' ? statusReasonOf(rail.failureCode) : null }));
  return payment.transactionStatus;
}
