/** Wire schemas of the payment-rails area: payments, ACH files and returns, status reports, the rails catalog. */
import { ApiError } from '../../errors';
import { RAIL_NAMES } from '../../../domain/rails/calendar';
import { decimalString, envelope, paginationQuery, timestamp } from '../../schemas';

export const TAG = 'Payment rails';

const PAYMENT_STATUSES = ['pending', 'reserved', 'submitted', 'settled', 'completed', 'rejected', 'failed', 'returned'];

// --- rails catalog

export const railsResponse = envelope({ type: 'array', items: { type: 'object', additionalProperties: true } });

// --- payments

export const creditorSchema = {
  type: 'object',
  required: ['name'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 140 },
    iban: { type: 'string', minLength: 15, maxLength: 34 },
    account_number: { type: 'string', pattern: '^[0-9A-Za-z-]{1,17}$' },
    routing_number: { type: 'string', pattern: '^[0-9]{9}$' },
    bic: { type: 'string', pattern: '^[A-Z]{6}[A-Z0-9]{2}([A-Z0-9]{3})?$' },
    country: { type: 'string', pattern: '^[A-Z]{2}$' },
    account_type: { type: 'string', enum: ['checking', 'savings'] },
  },
};

export const paymentSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    status: { type: 'string', enum: PAYMENT_STATUSES },
    rail: { type: 'string' },
    requested_rail: { type: 'string' },
    account_id: { type: 'string' },
    amount: { type: 'string' },
    currency: { type: 'string' },
    creditor_account: { type: 'object', additionalProperties: true },
    memo: { type: ['string', 'null'] },
    urgency: { type: 'string' },
    routing: {
      type: 'object',
      properties: {
        rail: { type: 'string' },
        reason: { type: 'string' },
        alternatives: { type: 'array', items: { type: 'object', additionalProperties: true } },
      },
    },
    workflow_id: { type: 'string' },
    trace_number: { type: ['string', 'null'] },
    end_to_end_id: { type: ['string', 'null'] },
    network_reference: { type: ['string', 'null'] },
    settlement_date: { type: ['string', 'null'] },
    expected_settlement_at: { type: ['string', 'null'] },
    ach_file_id: { type: ['string', 'null'] },
    failure: { type: ['object', 'null'], properties: { code: { type: 'string' }, reason: { type: 'string' } } },
    compensation_executed: { type: 'boolean' },
    rail_message: { type: ['string', 'null'] },
    status_report: { type: ['string', 'null'] },
    history: {
      type: 'array',
      items: { type: 'object', properties: { status: { type: 'string' }, at: timestamp, detail: { type: 'object', additionalProperties: true } } },
    },
    created_at: timestamp,
    updated_at: timestamp,
    completed_at: { type: ['string', 'null'] },
    failed_at: { type: ['string', 'null'] },
  },
};

export const paymentBody = {
  type: 'object',
  required: ['account_id', 'amount', 'currency', 'rail', 'creditor_account'],
  additionalProperties: false,
  properties: {
    account_id: { type: 'string', minLength: 1, maxLength: 64 },
    amount: decimalString,
    currency: { type: 'string', pattern: '^[A-Za-z]{3}$' },
    rail: { type: 'string', enum: ['auto', ...RAIL_NAMES] },
    creditor_account: creditorSchema,
    memo: { type: 'string', maxLength: 140 },
    urgency: { type: 'string', enum: ['standard', 'same_day', 'instant'] },
  },
};

export const paymentListQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ...paginationQuery,
    status: { type: 'string', enum: PAYMENT_STATUSES },
    rail: { type: 'string', enum: RAIL_NAMES },
    account_id: { type: 'string', minLength: 1, maxLength: 64 },
    currency: { type: 'string', pattern: '^[A-Za-z]{3}$' },
    start_date: { type: 'string', format: 'date-time' },
    end_date: { type: 'string', format: 'date-time' },
  },
};

export const idParams = { type: 'object', required: ['id'], properties: { id: { type: 'string', maxLength: 64 } } };

// --- ACH files and returns

export const achEntrySchema = {
  type: 'object',
  required: ['transaction_code', 'routing_number', 'account_number', 'amount', 'name', 'effective_date'],
  additionalProperties: false,
  properties: {
    sec_code: { type: 'string', enum: ['PPD', 'CCD'] },
    transaction_code: { type: 'string', enum: ['22', '27', '32', '37'], description: '22/32 credit checking/savings, 27/37 debit' },
    routing_number: { type: 'string', pattern: '^[0-9]{9}$' },
    account_number: { type: 'string', pattern: '^[0-9A-Za-z-]{1,17}$' },
    amount: decimalString,
    name: { type: 'string', minLength: 1, maxLength: 22 },
    individual_id: { type: 'string', maxLength: 15 },
    addenda: { type: 'string', maxLength: 80 },
    effective_date: { type: 'string', format: 'date' },
  },
};

export const achFileBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    entries: { type: 'array', minItems: 1, maxItems: 100000, items: achEntrySchema },
    company_name: { type: 'string', maxLength: 16 },
    company_id: { type: 'string', maxLength: 10 },
    transmit: { type: 'boolean', default: false },
  },
};

export const achFileResponse = envelope({
  type: 'object',
  properties: {
    id: { type: ['string', 'null'] },
    status: { type: 'string', enum: ['preview', 'built', 'transmitted'] },
    file_id_modifier: { type: 'string' },
    content: { type: 'string' },
    summary: { type: 'object', additionalProperties: true },
    payment_ids: { type: 'array', items: { type: 'string' } },
    acknowledgement: { type: ['string', 'null'] },
    transmitted_at: { type: ['string', 'null'] },
  },
});

export const achReturnBody = { type: 'object', required: ['file'], additionalProperties: false, properties: { file: { type: 'string', minLength: 94, maxLength: 10_000_000 } } };
export const achReturnResponse = envelope({ type: 'array', items: { type: 'object', additionalProperties: true } });

// --- status reports

export const statusReportBody = {
  type: 'object',
  required: ['message'],
  additionalProperties: false,
  properties: { message: { type: 'string', minLength: 50, maxLength: 1_000_000, description: 'pacs.002 XML' } },
};

export const statusReportResponse = envelope({
  type: 'array',
  items: {
    type: 'object',
    properties: {
      original_end_to_end_id: { type: ['string', 'null'] },
      status: { type: 'string' },
      reason_code: { type: ['string', 'null'] },
      payment_id: { type: ['string', 'null'] },
      action: { type: 'string', enum: ['signalled', 'recorded', 'already_final', 'unmatched'] },
    },
  },
});

/** start_date/end_date of the payments list as dates; an empty range is 422 INVALID_DATE_RANGE on start_date. */
export function parseDateRange(q: { start_date?: string; end_date?: string }): { startDate?: Date; endDate?: Date } {
  const startDate = q.start_date ? new Date(q.start_date) : undefined;
  const endDate = q.end_date ? new Date(q.end_date) : undefined;
  if (startDate && endDate && startDate >= endDate) throw new ApiError(422, 'INVALID_DATE_RANGE', 'start_date must be before end_date', { source: { parameter: 'start_date' } });
  return { startDate, endDate };
}
