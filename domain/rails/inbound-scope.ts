import type { Principal } from '../auth/principal';
import { ingestReturnFile, type ReturnOutcome } from '../ach/files';
import { DomainError } from '../platform/errors';
import { compensateRailPayment } from './compensation';
import { getRailPayment } from './index';
import { ingestStatusReport, type StatusReportOutcome } from './inbound';
import { signalAchReturn, signalRailSettlement } from './workflow';

/**
 * Who may feed rail messages in, and about which payments. Sandbox: the caller plays the rail for
 * their own sandbox payments. Production: a customer must never settle, reject or return their
 * own payment, so only operators (the bank-partner integration's service user) may, for any
 * production payment.
 */
export function inboundScope(pr: Principal): { environment: Principal['environment']; userId: string | null } {
  if (pr.environment === 'sandbox') return { environment: 'sandbox', userId: pr.userId };
  if (!pr.isAdmin) throw new DomainError('ADMIN_REQUIRED', 'In production, rail status messages and return files are accepted from platform operators only');
  return { environment: pr.environment, userId: null };
}

/**
 * An ACH return file from the caller (within inboundScope): running workflows get the return as a
 * signal (their compensation step reverses the posted entry); a completed payment, whose workflow
 * has ended, is compensated (reversed) here, by the same function that step calls.
 */
export async function ingestAchReturns(pr: Principal, file: string): Promise<ReturnOutcome[]> {
  return ingestReturnFile(file, inboundScope(pr), signalAchReturn, async (paymentId, code, reason) => {
    const p = (await getRailPayment(paymentId))!;
    await compensateRailPayment({ paymentId, workflowId: p.workflowId, status: 'returned', code, reason });
  });
}

/** A pacs.002 status report from the caller (within inboundScope), signalled to the payments' workflows. */
export async function ingestRailStatusReport(pr: Principal, message: string): Promise<StatusReportOutcome[]> {
  return ingestStatusReport(message, inboundScope(pr), signalRailSettlement);
}
