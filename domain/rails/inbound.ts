/**
 * Inbound rail messages: the pacs.002 status reports an ISO 20022 rail (Fedwire, RTP, FedNow,
 * SEPA, SWIFT) sends about a payment we submitted. Each transaction status is matched to its
 * payment by the original end-to-end id (and the original message id when the report names
 * one) and handed to the payment's running workflow as the `railSettlement` signal: ACSC
 * settles it, RJCT rejects it (the workflow voids the reservation). Interim statuses (ACSP,
 * ACTC, ACCP, PDNG ...) are recorded only. ACH returns come as NACHA return files
 * (domain/ach/files.ts ingestReturnFile).
 */
import { parseMessage, validateMessage } from '../../iso20022/index';
import { withTransaction } from '../db/pool';
import type { Environment } from '../platform/environment';
import { DomainError } from '../platform/errors';
import { findRailPaymentByEndToEndId, lockRailPayment, recordRailEvent, updateRailPayment } from './index';
import { RAILS } from './calendar';

export interface RailSettlementSignalInput {
  status: 'ACSC' | 'RJCT';
  reasonCode?: string;
  reason?: string;
}

export interface StatusReportOutcome {
  original_end_to_end_id: string | null;
  status: string;
  reason_code: string | null;
  payment_id: string | null;
  /** signalled: sent to the running workflow; recorded: interim status kept; already_final: the payment had ended; unmatched: no such payment of the caller. */
  action: 'signalled' | 'recorded' | 'already_final' | 'unmatched';
}

/** Statuses that end a credit transfer at the rail: settled, or rejected. */
const FINAL_STATUSES = new Set(['ACSC', 'RJCT']);
const ENDED = new Set(['completed', 'rejected', 'failed', 'returned']);

interface ParsedTx {
  original_end_to_end_id?: string;
  original_message_id?: string;
  status?: string;
  reasons?: Array<{ code?: string; proprietary?: string; additional_information?: string[] | string }>;
}

/** The pacs.008 MsgId the payment was sent with (kept in the message itself). */
function sentMessageId(railMessage: string | null): string | null {
  return railMessage ? (/<MsgId>([^<]+)<\/MsgId>/.exec(railMessage)?.[1] ?? null) : null;
}

/**
 * Ingests one pacs.002. `scope.userId` null means every payment of the environment (an
 * operator or the production gateway); otherwise only the caller's payments are visible.
 * `signal` delivers to the workflow and reports false when it has already ended.
 */
export async function ingestStatusReport(
  xml: string,
  scope: { environment: Environment; userId: string | null },
  signal: (workflowId: string, s: RailSettlementSignalInput) => Promise<boolean>,
): Promise<StatusReportOutcome[]> {
  let parsed: Record<string, unknown>;
  try {
    parsed = parseMessage(xml) as Record<string, unknown>;
  } catch (err) {
    throw new DomainError('INVALID_MESSAGE', `not a readable ISO 20022 message: ${(err as Error).message}`, '/message');
  }
  if (parsed.message_type !== 'pacs.002') throw new DomainError('NOT_A_STATUS_REPORT', `expected a pacs.002 status report, got ${String(parsed.message_type)}`, '/message');
  const check = validateMessage(xml);
  if (!check.valid) throw new DomainError('INVALID_MESSAGE', `the pacs.002 fails validation: ${check.errors[0]?.message ?? 'invalid'}`, '/message');
  const reportId = ((parsed.group_header as Record<string, unknown> | undefined)?.message_id as string | undefined) ?? null;
  const group = ((parsed.original_groups as Array<Record<string, unknown>>) ?? [])[0];
  const txs = (parsed.transactions as ParsedTx[]) ?? [];
  if (txs.length === 0) {
    throw new DomainError('NO_TRANSACTION_STATUS', 'the report carries only a group status; each payment needs a TxInfAndSts with its OrgnlEndToEndId', '/message');
  }

  const out: StatusReportOutcome[] = [];
  for (const tx of txs) {
    const status = tx.status ?? (group?.group_status as string | undefined) ?? '';
    const reason = tx.reasons?.[0];
    const reasonCode = reason?.code ?? reason?.proprietary ?? null;
    const info = Array.isArray(reason?.additional_information) ? reason.additional_information.join(' ') : (reason?.additional_information ?? null);
    const e2e = tx.original_end_to_end_id ?? null;
    const originalMsgId = tx.original_message_id ?? (group?.original_message_id as string | undefined) ?? null;
    const base = { original_end_to_end_id: e2e, status, reason_code: reasonCode };

    const p = e2e ? await findRailPaymentByEndToEndId(e2e) : null;
    const visible =
      p && p.environment === scope.environment && (scope.userId === null || p.userId === scope.userId) && RAILS[p.rail].message_format === 'pacs.008' &&
      // A report about another message with the same end-to-end id is not about this payment.
      (!originalMsgId || originalMsgId === sentMessageId(p.railMessage));
    if (!p || !visible) {
      out.push({ ...base, payment_id: null, action: 'unmatched' });
      continue;
    }
    if (ENDED.has(p.status)) {
      out.push({ ...base, payment_id: p.id, action: 'already_final' });
      continue;
    }
    // Recorded before the workflow hears of it, so the history shows the report ahead of its effect.
    await withTransaction(async (c) => {
      await lockRailPayment(c, p.id);
      const u = await updateRailPayment(c, p.id, { status_report: xml });
      await recordRailEvent(c, u, 'status_report_received', { report_message_id: reportId, tx_status: status, reason_code: reasonCode });
    });
    let action: StatusReportOutcome['action'] = 'recorded';
    if (FINAL_STATUSES.has(status)) {
      const delivered = await signal(p.workflowId, {
        status: status as 'ACSC' | 'RJCT',
        ...(reasonCode ? { reasonCode } : {}),
        ...(status === 'RJCT' ? { reason: info || `rejected by the rail (${reasonCode ?? 'no reason code'})` } : {}),
      });
      action = delivered ? 'signalled' : 'already_final';
    }
    out.push({ ...base, payment_id: p.id, action });
  }
  return out;
}

