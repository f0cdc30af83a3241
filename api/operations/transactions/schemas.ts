/** Wire schemas of the transactions area (a customer's view of ledger postings). */
import { TRANSACTION_TYPES } from '../../../domain/ledger/transactions';
import { envelope, paginationQuery } from '../../schemas';

/** Customer transaction: type deposit, withdrawal, transfer (in/out in `direction`), fee or reversal. Also used by the accounts area. */
export const transactionSchema = {
  type: 'object',
  properties: {
    uuid: { type: 'string', example: 'txn_4f0c…' },
    account_uuid: { type: 'string' },
    type: { type: 'string', enum: ['deposit', 'withdrawal', 'transfer', 'fee', 'reversal'] },
    direction: { type: ['string', 'null'], enum: ['credit', 'debit', null] },
    subtype: { type: 'string', enum: [...TRANSACTION_TYPES] },
    amount: { type: 'string' },
    asset_code: { type: 'string' },
    status: { type: 'string', enum: ['pending', 'completed', 'failed'] },
    reference: { type: ['string', 'null'] },
    description: { type: ['string', 'null'] },
    entry_id: { type: 'string' },
    created_at: { type: 'string' },
    completed_at: { type: ['string', 'null'] },
    balance_after: { type: ['string', 'null'] },
  },
};

/** The `type` filter: a transaction type, or transfer for both directions. */
export const transactionTypeFilter = { type: 'string', enum: ['transfer', ...TRANSACTION_TYPES] };
export const transactionStatusFilter = { type: 'string', enum: ['pending', 'completed', 'failed'] };

export const listQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ...paginationQuery,
    asset_code: { type: 'string', maxLength: 12 },
    status: transactionStatusFilter,
    type: transactionTypeFilter,
  },
};

export const reverseBody = {
  type: 'object',
  required: ['transaction_id', 'reason'],
  additionalProperties: false,
  properties: {
    transaction_id: { type: 'string', minLength: 1, maxLength: 64 },
    reason: { type: 'string', minLength: 1, maxLength: 500 },
    force: { type: 'boolean', default: false },
  },
};

export const reversalResult = envelope({
  type: 'object',
  properties: {
    reversal_entry_id: { type: 'string' },
    original_entry_id: { type: 'string' },
    transfer_uuid: { type: ['string', 'null'] },
    transactions: { type: 'array', items: transactionSchema },
    forced_overdraft: { type: ['array', 'null'], items: { type: 'object', additionalProperties: true } },
  },
});
