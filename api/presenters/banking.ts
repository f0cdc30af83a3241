import { TRANSACTION_TYPES, type Transaction } from '../../domain/ledger/transactions';
import type { Transfer } from '../../domain/transfers';

/** Customer transaction: type deposit, withdrawal, transfer (in/out in `direction`), fee or reversal. */
export function presentTransaction(t: Transaction) {
  const transfer = t.type === 'transfer_in' || t.type === 'transfer_out';
  return {
    uuid: t.id,
    account_uuid: t.accountId,
    type: transfer ? 'transfer' : t.type,
    direction: t.type === 'transfer_in' || t.type === 'deposit' ? 'credit' : t.type === 'reversal' ? null : 'debit',
    subtype: t.type,
    amount: t.amount,
    asset_code: t.assetCode,
    status: t.status,
    reference: t.reference,
    description: t.description,
    entry_id: t.entryId,
    created_at: t.createdAt.toISOString(),
    completed_at: t.completedAt?.toISOString() ?? null,
    balance_after: t.balanceAfter,
  };
}

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

export function presentTransfer(t: Transfer, progress?: unknown) {
  return {
    uuid: t.id,
    from_account: t.fromAccountId,
    to_account: t.toAccountId,
    amount: t.amount,
    asset_code: t.assetCode,
    status: t.status,
    reference: t.reference,
    description: t.description,
    workflow_id: t.workflowId,
    created_at: t.createdAt.toISOString(),
    estimated_completion: t.estimatedCompletion?.toISOString() ?? null,
    completed_at: t.completedAt?.toISOString() ?? null,
    metadata: t.metadata,
    fees: { transfer_fee: t.feeAmount, currency: t.assetCode },
    entry_id: t.entryId,
    failure: t.failureCode ? { code: t.failureCode, reason: t.failureReason } : null,
    compensation_executed: t.compensationExecuted,
    reversal_entry_id: t.reversalEntryId,
    ...(progress !== undefined ? { workflow: progress } : {}),
  };
}

export const transferSchema = {
  type: 'object',
  properties: {
    uuid: { type: 'string', example: 'txfr_9b1e…' },
    from_account: { type: 'string' },
    to_account: { type: 'string' },
    amount: { type: 'string' },
    asset_code: { type: 'string' },
    status: { type: 'string', enum: ['pending', 'pending_review', 'completed', 'failed', 'reversed'] },
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

export const accountSchema = {
  type: 'object',
  properties: {
    uuid: { type: 'string', example: 'acct_1c2d…' },
    name: { type: 'string' },
    type: { type: 'string', enum: ['personal', 'business', 'savings'] },
    status: { type: 'string', enum: ['active', 'frozen', 'closed'] },
    metadata: { type: 'object', additionalProperties: true },
    created_at: { type: 'string' },
    updated_at: { type: 'string' },
  },
};

export const balancesSchema = {
  type: 'object',
  properties: {
    account_uuid: { type: 'string' },
    balances: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          asset_code: { type: 'string' },
          available_balance: { type: 'string' },
          reserved_balance: { type: 'string' },
          total_balance: { type: 'string' },
        },
      },
    },
    summary: { type: 'object', properties: { total_assets: { type: 'integer' }, total_usd_equivalent: { type: 'string' } } },
  },
};
