/**
 * The message each rail carries: pacs.008 through the ISO 20022 module (Fedwire, RTP, FedNow,
 * SEPA, SWIFT CBPR+), or a NACHA entry detail record (ACH). Status reports come back as pacs.002.
 */
import { generateMessage, parseMessage } from '../../iso20022/index';
import { abaCheckDigit, buildNachaFile } from '../ach/nacha';
import { RAILS, type RailName } from './calendar';
import type { CreditorAccount } from './routing';

/** The platform's BIC as debtor agent on SEPA/SWIFT messages (sandbox). */
export const PLATFORM_BIC = process.env.RAILS_PLATFORM_BIC ?? 'SNDBUS33XXX';

export interface BuiltMessage {
  message: string;
  messageId: string;
  endToEndId: string;
}

function creditorAgent(c: CreditorAccount): Record<string, unknown> {
  if (c.bic) return { bic: c.bic };
  if (c.routing_number) return { clearing_system_code: 'USABA', clearing_member_id: c.routing_number };
  // SEPA is IBAN-only since 2016: the agent is identified by name as NOTPROVIDED.
  return { name: 'NOTPROVIDED' };
}

export function buildPacs008(input: {
  rail: RailName;
  paymentId: string;
  amount: string;
  currency: string;
  debtorName: string;
  debtorAccountId: string;
  odfiRouting: string;
  creditor: CreditorAccount;
  memo: string | null;
  settlementDate: string;
}): BuiltMessage {
  const usRail = RAILS[input.rail].addressing.includes('routing_number');
  const e2e = input.paymentId.replace(/^rpay_/, '').slice(0, 35);
  const g = generateMessage({
    message_type: 'pacs.008',
    amount: input.amount,
    currency: input.currency,
    interbank_settlement_date: input.settlementDate,
    end_to_end_id: e2e,
    instruction_id: e2e,
    debtor: {
      name: input.debtorName.slice(0, 140),
      // Othr/Id is Max34Text: the account's id without its acct_ prefix.
      account: { other: { id: input.debtorAccountId.replace(/^acct_/, '').slice(0, 34) } },
      agent: usRail ? { clearing_system_code: 'USABA', clearing_member_id: input.odfiRouting } : { bic: PLATFORM_BIC },
    },
    creditor: {
      name: input.creditor.name.slice(0, 140),
      account: input.creditor.iban ? { iban: input.creditor.iban.replace(/\s/g, '').toUpperCase() } : { other: { id: input.creditor.account_number } },
      agent: creditorAgent(input.creditor),
    },
    ...(input.memo ? { remittance_information: input.memo.slice(0, 140) } : {}),
  });
  return { message: g.xml as string, messageId: g.message_id as string, endToEndId: e2e };
}

/** One PPD credit entry (22 checking / 32 savings) as the 94-character NACHA record. */
export function buildAchEntryRecord(input: { creditor: CreditorAccount; amount: string; traceNumber: string; individualId: string; odfiRouting: string; effectiveDate: string }): string {
  const { content } = buildNachaFile({
    immediate_destination: input.odfiRouting,
    immediate_destination_name: 'ENTRY',
    immediate_origin: input.odfiRouting,
    immediate_origin_name: 'ENTRY',
    odfi_id: input.odfiRouting.slice(0, 8),
    created_at: new Date(0),
    batches: [
      {
        sec_code: 'PPD',
        company_name: 'ENTRY',
        company_id: 'ENTRY',
        entry_description: 'PAYMENT',
        effective_date: input.effectiveDate,
        entries: [
          {
            transaction_code: input.creditor.account_type === 'savings' ? '32' : '22',
            routing_number: input.creditor.routing_number!,
            account_number: input.creditor.account_number!,
            amount: input.amount,
            name: input.creditor.name,
            individual_id: input.individualId,
            trace_number: input.traceNumber,
          },
        ],
      },
    ],
  });
  return content.split('\n').find((l) => l.startsWith('6'))!;
}

export function traceNumber(odfiRouting: string, seq: number | string): string {
  return odfiRouting.slice(0, 8) + String(seq).padStart(7, '0');
}

export { abaCheckDigit };

export interface StatusReport {
  status: string;
  reasonCode: string | null;
  originalEndToEndId: string | null;
  originalMessageId: string | null;
}

/** Reads a pacs.002 (transaction status first, else the group status) and its first reason code. */
export function readPacs002(xml: string): StatusReport {
  const parsed = parseMessage(xml) as Record<string, unknown>;
  if (parsed.message_type !== 'pacs.002') throw new Error(`expected pacs.002, got ${String(parsed.message_type)}`);
  const tx = ((parsed.transactions as Array<Record<string, unknown>>) ?? [])[0];
  const grp = ((parsed.original_groups as Array<Record<string, unknown>>) ?? [])[0];
  const status = (tx?.status ?? grp?.group_status) as string;
  const reasons = ((tx?.reasons ?? grp?.reasons) as Array<{ code?: string; proprietary?: string }>) ?? [];
  return {
    status,
    reasonCode: reasons[0]?.code ?? reasons[0]?.proprietary ?? null,
    originalEndToEndId: (tx?.original_end_to_end_id as string) ?? null,
    originalMessageId: (grp?.original_message_id as string) ?? null,
  };
}

export function pacs002(input: { originalMessageId: string; endToEndId: string; status: 'ACSC' | 'ACSP' | 'RJCT' | 'PDNG'; reasonCode?: string; at: Date }): string {
  const g = generateMessage({
    message_type: 'pacs.002',
    original_message_id: input.originalMessageId,
    original_end_to_end_id: input.endToEndId,
    status: input.status,
    ...(input.reasonCode ? { reason_code: input.reasonCode } : {}),
    ...(input.status === 'ACSC' ? { acceptance_date_time: input.at.toISOString().slice(0, 19) + 'Z' } : {}),
  });
  return g.xml as string;
}
