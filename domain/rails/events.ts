/**
 * The payment_rail.* events (outbox, webhooks): one per state change of a rail payment, written
 * by recordRailEvent in the same transaction as the change. Every payload carries the payment's
 * id, rail, amount, currency and status after the change, plus the fields of its type below.
 * Included in domain/events/catalog.ts; tests validate the real events against these schemas.
 */
import type { EventTypeInfo } from '../events/types';
import { RAIL_NAMES } from './calendar';

type Schema = Record<string, unknown>;
const str: Schema = { type: 'string' };
const strOrNull: Schema = { type: ['string', 'null'] };
const decimal: Schema = { type: 'string', pattern: '^[0-9]+(\\.[0-9]+)?$' };
const ts: Schema = { type: 'string', format: 'date-time' };

export const RAIL_PAYMENT_STATUSES = ['pending', 'reserved', 'submitted', 'settled', 'completed', 'rejected', 'failed', 'returned'] as const;

const common: Record<string, Schema> = {
  payment_id: { type: 'string', pattern: '^rpay_' },
  rail: { type: 'string', enum: RAIL_NAMES },
  amount: decimal,
  currency: { type: 'string', pattern: '^[A-Z]{3}$' },
  status: { type: 'string', enum: [...RAIL_PAYMENT_STATUSES] },
};

/** Common fields plus `props` (required unless listed in `optional`); nothing else. */
function payload(props: Record<string, Schema> = {}, optional: string[] = [], extra: Schema = {}): Schema {
  const properties = { ...common, ...props };
  return { type: 'object', required: Object.keys(properties).filter((k) => !optional.includes(k)), properties, additionalProperties: false, ...extra };
}

const failure = payload(
  { code: str, reason: str, compensation: { type: 'string', enum: ['voided', 'reversed', 'none'] }, reversal_entry_id: str },
  ['reversal_entry_id'],
);

const PRODUCER = 'domain/rails, activities/rails (rail payment workflow)';
const ev = (type: string, description: string, data_schema: Schema, producer = PRODUCER): EventTypeInfo => ({
  type: `payment_rail.${type}`,
  group: 'Payment rails',
  description,
  produced: true,
  producer,
  data_schema,
});

export const RAIL_EVENT_CATALOG: readonly EventTypeInfo[] = [
  ev('pending', 'A rail payment was accepted; `routing` says which rail and why.', payload({ routing: { type: 'object', required: ['rail', 'reason'], additionalProperties: false, properties: { rail: { type: 'string', enum: RAIL_NAMES }, reason: str } } })),
  ev('validated', 'The payment passed validation in its workflow.', payload()),
  ev('reserved', 'The amount was reserved with a pending ledger entry.', payload({ entry_id: str })),
  ev(
    'screened',
    "The creditor's name was screened against the loaded OFAC SDN list (score: the best Jaro-Winkler score; a hit or no list holds the payment).",
    payload({ sanctions_hit: { type: 'boolean' }, score: { type: 'number' }, list_version: strOrNull, matched_name: str }, ['matched_name']),
  ),
  ev('held', 'The payment is held for compliance review (sanctions hit, or no list to screen with); its amount stays reserved.', payload({ hold_id: str, reason_code: str })),
  ev('released', 'A compliance officer released the held payment; it goes on to the rail.', payload({ hold_id: str, decided_by: strOrNull })),
  ev(
    'message_built',
    "The rail's message was built (pacs.008, or the NACHA entry for ACH) with its timetable.",
    payload(
      { format: { type: 'string', enum: ['nacha', 'pacs.008'] }, submit_at: ts, expected_settlement_at: ts, settlement_date: { type: 'string', format: 'date' }, trace_number: { type: 'string', pattern: '^[0-9]{15}$' }, end_to_end_id: str },
      ['trace_number', 'end_to_end_id'],
      { oneOf: [{ required: ['trace_number'] }, { required: ['end_to_end_id'] }] },
    ),
  ),
  ev('submitted', 'The rail accepted the payment (pacs.002 ACSP/ACSC, or the ODFI took the ACH entry).', payload({ network_reference: str, reason_code: strOrNull, reason: strOrNull, adapter: str })),
  ev('rail_rejected', 'The rail refused the payment at submission (its reason code follows in payment_rail.rejected).', payload({ network_reference: str, reason_code: strOrNull, reason: strOrNull, adapter: str })),
  ev('status_report_received', 'A pacs.002 status report from the rail was ingested for the payment.', payload({ report_message_id: strOrNull, tx_status: str, reason_code: strOrNull }), 'domain/rails/inbound (POST /v1/payment-rails/status-reports)'),
  ev('settled', 'The rail settled the payment; the reservation was posted. ACH stays settled through its return window.', payload({ entry_id: str })),
  ev('completed', 'The payment is final (ACH: its return window closed).', payload({ return_window_closed: { type: 'boolean' } }, ['return_window_closed'])),
  ev('rejected', 'The rail rejected the payment (ISO or NACHA reason code); the reservation was voided.', failure),
  ev('failed', 'The payment failed (sanctions hit, settlement timeout, workflow could not start ...); any reservation was voided.', failure),
  ev('returned', 'The ACH entry was returned (R-code); the posted entry was reversed.', failure),
  ev('compensation_executed', 'Compensation completed: the reservation voided, or the posted entry reversed.', payload({ action: { type: 'string', enum: ['void', 'reversal'] } })),
];
