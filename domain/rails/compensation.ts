/**
 * Compensating a rail payment that did not go through or came back: the rail payment workflow's
 * compensation step (activities/rails) and an ACH return of a completed payment
 * (domain/rails/inbound-scope.ts) both end here, so the money rule is written once.
 */
import { withTransaction } from '../db/pool';
import { getEntry, LedgerError, reverseEntry, voidPending, workflowIdempotencyKey } from '../ledger';
import { lockRailPayment, recordRailEvent, updateRailPayment } from './index';

export interface RailCompensationInput {
  paymentId: string;
  /** The payment's workflow id: the ledger keys of the void and the reversal (one of each per payment). */
  workflowId: string;
  status: 'rejected' | 'failed' | 'returned';
  code: string;
  reason: string;
}

/**
 * Voids the reservation (before posting) or reverses the posted entry (after, e.g. an ACH return),
 * and records why with the rail's reason code. Idempotent: a payment already rejected, failed or
 * returned is left as it is.
 */
export async function compensateRailPayment(input: RailCompensationInput): Promise<{ compensated: boolean }> {
  return withTransaction(async (c) => {
    const p = await lockRailPayment(c, input.paymentId);
    if (['rejected', 'failed', 'returned'].includes(p.status)) return { compensated: p.compensationExecuted };
    let compensated = false;
    let reversalId: string | undefined;
    if (p.reservationEntryId) {
      const entry = await getEntry(p.reservationEntryId, c);
      if (entry?.status === 'pending') {
        await voidPending(p.reservationEntryId, { idempotencyKey: workflowIdempotencyKey(input.workflowId, 'void'), reason: `${input.code}: ${input.reason}` }, c).catch((err) => {
          if (!(err instanceof LedgerError && err.code === 'ALREADY_VOIDED')) throw err;
        });
        compensated = true;
      } else if (entry?.status === 'voided') {
        compensated = true;
      } else if (entry?.status === 'posted') {
        const rev = await reverseEntry(p.reservationEntryId, { idempotencyKey: workflowIdempotencyKey(input.workflowId, 'reverse'), reason: `${input.code}: ${input.reason}`, userId: p.userId }, c);
        reversalId = rev.id;
        compensated = true;
      }
    }
    const u = await updateRailPayment(c, p.id, {
      status: input.status,
      failure_code: input.code,
      failure_reason: input.reason,
      compensation_executed: compensated,
      failed_at: 'now',
      ...(reversalId ? { reversal_entry_id: reversalId } : {}),
    });
    await recordRailEvent(c, u, input.status, { code: input.code, reason: input.reason, compensation: reversalId ? 'reversed' : compensated ? 'voided' : 'none', ...(reversalId ? { reversal_entry_id: reversalId } : {}) });
    if (compensated) {
      await recordRailEvent(c, u, 'compensation_executed', { action: reversalId ? 'reversal' : 'void' });
    }
    return { compensated };
  });
}
