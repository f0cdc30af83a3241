/** Wire schemas of the transfers area, and the parsing of the unversioned route's numeric amount. */
import { ApiError } from '../../errors';
import { decimalString, metadataSchema } from '../../schemas';

/** A transfer as the API shows it (presentTransfer). Also used by the accounts area. */
export const transferSchema = {
  type: 'object',
  properties: {
    uuid: { type: 'string', example: 'txfr_9b1e…' },
    from_account: { type: 'string' },
    to_account: { type: 'string' },
    amount: { type: 'string' },
    asset_code: { type: 'string' },
    status: { type: 'string', enum: ['pending', 'pending_review', 'completed', 'failed', 'reversed', 'expired'] },
    reference: { type: ['string', 'null'] },
    description: { type: ['string', 'null'] },
    workflow_id: { type: ['string', 'null'] },
    created_at: { type: 'string' },
    estimated_completion: { type: ['string', 'null'] },
    completed_at: { type: ['string', 'null'] },
    metadata: { type: 'object', additionalProperties: true },
    fees: { type: 'object', properties: { transfer_fee: { type: 'string' }, currency: { type: 'string' } } },
    entry_id: { type: ['string', 'null'] },
    failure: { type: ['object', 'null'], properties: { code: { type: 'string' }, reason: { type: 'string' } } },
    compensation_executed: { type: 'boolean' },
    reversal_entry_id: { type: ['string', 'null'] },
    workflow: { type: 'object', additionalProperties: true, description: 'Live progress from the running workflow (query)' },
  },
};

export interface TransferBody {
  from_account: string;
  to_account: string;
  amount: string;
  asset_code: string;
  reference?: string;
  description?: string;
  workflow_enabled?: boolean;
  metadata?: Record<string, unknown>;
}

export const transferBody = {
  type: 'object',
  required: ['from_account', 'to_account', 'amount', 'asset_code'],
  additionalProperties: false,
  properties: {
    from_account: { type: 'string', minLength: 1, maxLength: 64 },
    to_account: { type: 'string', minLength: 1, maxLength: 64 },
    amount: decimalString,
    asset_code: { type: 'string', minLength: 1, maxLength: 12 },
    reference: { type: 'string', maxLength: 140 },
    description: { type: 'string', maxLength: 500 },
    workflow_enabled: { type: 'boolean', default: true },
    metadata: metadataSchema,
  },
};

export interface LegacyTransferBody {
  from_account: string;
  to_account: string;
  amount: number | string;
  currency: string;
  description?: string;
}

export const legacyTransferBody = {
  type: 'object',
  required: ['from_account', 'to_account', 'amount', 'currency'],
  additionalProperties: false,
  properties: {
    from_account: { type: 'string', minLength: 1, maxLength: 64 },
    to_account: { type: 'string', minLength: 1, maxLength: 64 },
    // Zero is refused by the amount rules (domain/money), as for every amount.
    amount: { anyOf: [{ type: 'number', minimum: 0 }, decimalString] },
    currency: { type: 'string', minLength: 1, maxLength: 12 },
    description: { type: 'string', maxLength: 140 },
  },
};

export const idParams = { type: 'object', required: ['uuid'], properties: { uuid: { type: 'string', maxLength: 64 } } };

export const reviewBody = {
  type: 'object',
  required: ['decision'],
  additionalProperties: false,
  properties: { decision: { type: 'string', enum: ['approve', 'reject'] }, reason: { type: 'string', maxLength: 500 } },
};

/**
 * Unversioned /api/transfers takes a JSON number. Only numbers whose shortest decimal form is
 * exact (no exponent, at most 15 significant digits) are accepted, so no float rounding leaks in.
 */
export function numberToDecimalString(n: number): string {
  const s = String(n);
  if (!Number.isFinite(n) || /e/i.test(s) || s.replace(/^-?0*\.?0*/, '').replace('.', '').length > 15) {
    throw new ApiError(422, 'INVALID_AMOUNT', 'amount must be a plain decimal with at most 15 significant digits; send a decimal string to /api/v2/transfers for more', {
      source: { pointer: '/amount' },
    });
  }
  return s;
}

/** The legacy body as a v2 body: currency is asset_code, description is reference and description, posted at once. */
export function fromLegacyBody(b: LegacyTransferBody): TransferBody {
  return {
    from_account: b.from_account,
    to_account: b.to_account,
    amount: typeof b.amount === 'number' ? numberToDecimalString(b.amount) : b.amount,
    asset_code: b.currency,
    reference: b.description,
    description: b.description,
    workflow_enabled: false,
  };
}
