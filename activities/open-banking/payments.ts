/**
 * The open banking payment workflow's activities (workflows/open-banking-payment.ts). Each is idempotent by
 * the payment's state: it locks the payment, does only the step still to do (a transition already
 * made, a rail payment already linked, is read back) and returns where the payment stands.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { DomainError } from '../../domain/platform/errors';
import { createRailPaymentFor, settleSca, syncWithRail, type RailStart } from '../../domain/open-banking/payment-execution';
import type { TransactionStatus } from '../../domain/open-banking/payment-records';

/** A business refusal is not retried; anything else (a database outage) is. */
async function orFail<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof DomainError) throw ApplicationFailure.nonRetryable(err.message, err.code);
    throw err;
  }
}

export function createObPaymentActivities() {
  return {
    /** At a signal or the SCA deadline: past the deadline a payment still awaiting SCA is rejected (AB05). */
    async settleObPaymentSca({ paymentId, deadlinePassed }: { paymentId: string; deadlinePassed: boolean }): Promise<TransactionStatus> {
      return orFail(() => settleSca(paymentId, deadlinePassed));
    },

    /** An authorised payment's rail payment (created once), or the status it ended in. */
    async createObRailPayment({ paymentId }: { paymentId: string }): Promise<RailStart> {
      return orFail(() => createRailPaymentFor(paymentId));
    },

    /** Follows the rail payment: the payment's transaction status after it. */
    async syncObPayment({ paymentId }: { paymentId: string }): Promise<TransactionStatus> {
      return orFail(() => syncWithRail(paymentId));
    },
  };
}

export type ObPaymentActivities = ReturnType<typeof createObPaymentActivities>;
