/**
 * Sandbox rails: deterministic, with the real formats and rules.
 *
 * Magic values (in the creditor name or the memo):
 * - `REJECT:<code>`  the rail rejects at submission with that reason (ISO e.g. AC04, AM04; ACH e.g. R03)
 * - `RETURN:<Rnn>`   ACH only: the RDFI returns the entry after settlement (NACHA return file, addenda 99)
 * - `TIMEOUT`        the rail never confirms settlement (the workflow times out and compensates)
 * Rules enforced as the rail would: currency, per-payment limit (ISO AM02 / AM03, ACH amount
 * field), submission after the cut-off (ISO TM01), and pacs.008 XSD + business validation.
 */
import { createHash } from 'node:crypto';
import { validateMessage } from '../../../iso20022/index';
import { abaCheckDigit, buildReturnFile, type NachaEntryInput } from '../../ach/nacha';
import { compareAmounts } from '../../money/amount';
import { planExecution, RAILS, zoned } from '../calendar';
import { pacs002 } from '../messages';
import type { RailAdapter, RailSettlementStatus, RailSubmission, RailSubmitResult } from './types';

export function magic(s: { creditor: { name: string }; memo: string | null }) {
  const text = `${s.creditor.name} ${s.memo ?? ''}`.toUpperCase();
  return {
    reject: /REJECT:([A-Z0-9]{3,4})/.exec(text)?.[1] ?? null,
    returnCode: /RETURN:(R\d{2})/.exec(text)?.[1] ?? null,
    timeout: /\bTIMEOUT\b/.test(text),
  };
}

const ref = (s: RailSubmission) => `${s.rail.toUpperCase()}-${createHash('sha256').update(s.paymentId).digest('hex').slice(0, 16).toUpperCase()}`;

export class SandboxIsoRailAdapter implements RailAdapter {
  readonly name = 'sandbox-iso20022';

  async submit(s: RailSubmission): Promise<RailSubmitResult> {
    const rail = RAILS[s.rail];
    const now = new Date(s.nowMs);
    const reply = (status: 'ACSC' | 'ACSP' | 'RJCT', reasonCode?: string, reason?: string): RailSubmitResult => ({
      accepted: status !== 'RJCT',
      networkReference: ref(s),
      statusReport: pacs002({ originalMessageId: s.messageId!, endToEndId: s.endToEndId!, status, reasonCode, at: now }),
      reasonCode: reasonCode ?? null,
      reason: reason ?? null,
      settled: status === 'ACSC',
    });
    const check = validateMessage(s.message);
    if (!check.valid) return reply('RJCT', 'FF01', `invalid pacs.008: ${check.errors[0]?.message}`);
    if (!rail.currencies.includes(s.currency)) return reply('RJCT', 'AM03', `${rail.display_name} does not carry ${s.currency}`);
    if (compareAmounts(s.amount, rail.max_amount) > 0) return reply('RJCT', 'AM02', `amount above the ${rail.max_amount} limit`);
    if (rail.instant_seconds === undefined && planExecution(s.rail, now, s.currency).submitAt.getTime() > s.nowMs) {
      return reply('RJCT', 'TM01', `received outside ${rail.display_name} operating hours`);
    }
    const m = magic(s);
    if (m.reject) return reply('RJCT', m.reject, `rejected by the creditor agent (${m.reject})`);
    return rail.instant_seconds !== undefined ? reply('ACSC') : reply('ACSP');
  }

  async settlementStatus(s: RailSubmission): Promise<RailSettlementStatus> {
    if (magic(s).timeout || s.nowMs < s.settleAtMs) return { status: 'pending', statusReport: null, reasonCode: null };
    return { status: 'settled', statusReport: pacs002({ originalMessageId: s.messageId!, endToEndId: s.endToEndId!, status: 'ACSC', at: new Date(s.nowMs) }), reasonCode: null };
  }

  async returns(): Promise<string | null> {
    return null;
  }

  async transmitFile(): Promise<string> {
    throw new Error('ISO 20022 rails take messages, not files');
  }
}

export class SandboxAchAdapter implements RailAdapter {
  readonly name = 'sandbox-ach';

  async submit(s: RailSubmission): Promise<RailSubmitResult> {
    const rec = s.message;
    const out = (accepted: boolean, reasonCode: string | null = null, reason: string | null = null): RailSubmitResult => ({
      accepted,
      networkReference: s.traceNumber ?? ref(s),
      statusReport: null,
      reasonCode,
      reason,
      settled: false,
    });
    // The ODFI's edit checks on the entry record, as FedACH would reject the batch.
    if (rec.length !== 94 || rec[0] !== '6') return out(false, 'R??', 'malformed entry detail record');
    if (abaCheckDigit(rec.slice(3, 11)) !== rec[11]) return out(false, 'R28', 'routing number check digit error');
    if (compareAmounts(s.amount, RAILS[s.rail].max_amount) > 0) return out(false, 'R??', `amount above the ${RAILS[s.rail].max_amount} limit`);
    const m = magic(s);
    if (m.reject) return out(false, m.reject, `entry rejected (${m.reject})`);
    return out(true);
  }

  /** FedACH settles an entry on its effective date only if it reached the operator in a transmitted file. */
  async settlementStatus(s: RailSubmission): Promise<RailSettlementStatus> {
    if (magic(s).timeout || !s.achFileTransmitted || s.nowMs < s.settleAtMs) return { status: 'pending', statusReport: null, reasonCode: null };
    return { status: 'settled', statusReport: null, reasonCode: null };
  }

  /** The RDFI's return arrives as a NACHA return file once the entry has settled. */
  async returns(s: RailSubmission): Promise<string | null> {
    const code = magic(s).returnCode;
    if (!code || !s.achFileTransmitted || s.nowMs < s.settleAtMs) return null;
    const rec = s.message;
    const original: NachaEntryInput & { trace_number: string } = {
      transaction_code: rec.slice(1, 3) as NachaEntryInput['transaction_code'],
      routing_number: rec.slice(3, 12),
      account_number: rec.slice(12, 29).trim(),
      amount: s.amount,
      name: rec.slice(54, 76).trim(),
      individual_id: rec.slice(39, 54).trim(),
      trace_number: rec.slice(79, 94),
    };
    return buildReturnFile({
      rdfi_routing: original.routing_number,
      odfi_id: rec.slice(79, 87),
      odfi_name: 'PLATFORM ODFI',
      created_at: new Date(s.nowMs),
      effective_date: zoned(new Date(s.nowMs), 'America/New_York').date,
      returns: [{ original, reason_code: code, information: RETURN_REASONS[code] ?? 'RETURNED' }],
    });
  }

  async transmitFile(content: string): Promise<string> {
    const lines = content.split('\n').filter(Boolean);
    if (lines.some((l) => l.length !== 94) || lines.length % 10 !== 0 || lines[0][0] !== '1') throw new Error('ACH operator refused the file: bad record length or blocking');
    return `ACK-${createHash('sha256').update(content).digest('hex').slice(0, 20).toUpperCase()}`;
  }
}

/** NACHA return reason codes used in the sandbox and shown in statuses. */
export const RETURN_REASONS: Record<string, string> = {
  R01: 'Insufficient funds',
  R02: 'Account closed',
  R03: 'No account / unable to locate account',
  R04: 'Invalid account number structure',
  R07: 'Authorization revoked by customer',
  R08: 'Payment stopped',
  R10: 'Customer advises not authorized',
  R16: 'Account frozen',
  R20: 'Non-transaction account',
  R29: 'Corporate customer advises not authorized',
};
