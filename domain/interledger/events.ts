/**
 * The interledger.* events (outbox, webhooks) of Interledger payments, written in the same
 * transaction as each change. Every payload carries the payment's id, account, quote and status
 * after the change, plus the fields of its type. Included in domain/events/catalog.ts.
 */
import type { EventTypeInfo } from '../events/types';

type Schema = Record<string, unknown>;
const str: Schema = { type: 'string' };

const common: Record<string, Schema> = {
  payment_id: { type: 'string', pattern: '^ilpp_' },
  account_id: str,
  quote_id: { type: 'string', pattern: '^ilpq_' },
  status: { type: 'string', enum: ['pending', 'reserved', 'completed', 'failed'] },
};

function payload(props: Record<string, Schema> = {}): Schema {
  const properties = { ...common, ...props };
  return { type: 'object', required: Object.keys(properties), properties, additionalProperties: false };
}

const PRODUCER = 'domain/interledger, activities/interledger (interledger payment workflow)';
const ev = (type: string, description: string, data_schema: Schema): EventTypeInfo => ({ type: `interledger.${type}`, group: 'Interledger', description, produced: true, producer: PRODUCER, data_schema });

export const INTERLEDGER_EVENT_CATALOG: readonly EventTypeInfo[] = [
  ev('payment_created', 'A quote was spent: the Interledger payment was created.', payload()),
  ev('payment_reserved', 'The send amount was reserved with a pending ledger entry.', payload({ entry_id: str })),
  ev('packet_fulfilled', 'The receiver fulfilled the ILP Prepare (fulfillment matches the condition).', payload({ code: { type: 'null' } })),
  ev('packet_rejected', 'The ILP Prepare was rejected (ILP error code, e.g. F02, F99, R00).', payload({ code: { type: 'string', pattern: '^[FTR][0-9]{2}$' } })),
  ev(
    'payment_screened',
    "The receiver's published name was screened against the loaded OFAC SDN list (receiver_name null: none published, nothing to screen).",
    payload({ receiver_name: { type: ['string', 'null'] }, sanctions_hit: { type: 'boolean' }, score: { type: 'number' }, list_version: { type: ['string', 'null'] } }),
  ),
  ev('payment_held', 'The payment is held for compliance review (the receiver matched the sanctions list); its amount stays reserved.', payload({ hold_id: str, reason_code: str })),
  ev('payment_released', 'A compliance officer released the held payment; it is sent.', payload({ hold_id: str, decided_by: { type: ['string', 'null'] } })),
  ev('payment_completed', 'The payment was posted to the ledger.', payload()),
  ev('payment_failed', 'The payment failed (rejected packet, expired quote, ...); any reservation was voided.', payload({ code: str, reason: str })),
  ev('compensation_executed', 'Compensation completed: the reservation was voided.', payload({ action: { type: 'string', enum: ['void'] } })),
];
