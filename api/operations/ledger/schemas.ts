/** Wire schemas of the ledger area, and the parsing of its date-range query. */
import { ApiError } from '../../errors';
import { decimalString } from '../../schemas';

export const entrySchema = { type: 'object', additionalProperties: true };
export const idParams = { type: 'object', required: ['id'], properties: { id: { type: 'string', maxLength: 64 } } };

export const accountsQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    asset_code: { type: 'string', maxLength: 12 },
    kind: { type: 'string', enum: ['customer', 'funding', 'fee_revenue', 'suspense', 'settlement', 'internal'] },
  },
};

export interface ManualEntryBody {
  type?: string;
  description?: string;
  reference?: string;
  pending?: boolean;
  lines: Array<{ account_id: string; direction: 'debit' | 'credit'; amount: string }>;
}

export const manualEntryBody = {
  type: 'object',
  required: ['lines'],
  additionalProperties: false,
  properties: {
    type: { type: 'string', minLength: 1, maxLength: 40, default: 'manual' },
    description: { type: 'string', maxLength: 500 },
    reference: { type: 'string', maxLength: 140 },
    pending: { type: 'boolean', default: false },
    lines: {
      type: 'array',
      minItems: 2,
      maxItems: 100,
      items: {
        type: 'object',
        required: ['account_id', 'direction', 'amount'],
        additionalProperties: false,
        properties: {
          account_id: { type: 'string', minLength: 1, maxLength: 64 },
          direction: { type: 'string', enum: ['debit', 'credit'] },
          amount: decimalString,
        },
      },
    },
  },
};

export const reasonBody = { type: ['object', 'null'], additionalProperties: false, properties: { reason: { type: 'string', maxLength: 500 } } };

export const trialBalanceQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { from: { type: 'string', format: 'date-time' }, to: { type: 'string', format: 'date-time' } },
};

/** from/to of the trial-balance query as dates; from after to is 422 VALIDATION_ERROR on the parameter. */
export function parseRange(q: { from?: string; to?: string }): { from?: Date; to?: Date } {
  const from = q.from ? new Date(q.from) : undefined;
  const to = q.to ? new Date(q.to) : undefined;
  if (from && to && from > to) throw new ApiError(422, 'VALIDATION_ERROR', 'from must not be after to', { source: { parameter: 'from' } });
  return { from, to };
}
