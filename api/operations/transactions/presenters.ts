/** Wire shapes of the transactions area. */
import type { Transaction } from '../../../domain/ledger/transactions';
import type { ReversalResult } from '../../../domain/reversals/request';

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

export function presentReversal(r: ReversalResult) {
  return {
    reversal_entry_id: r.reversal.id,
    original_entry_id: r.original.id,
    transfer_uuid: r.transfer?.id ?? null,
    transactions: r.transactions.map(presentTransaction),
    forced_overdraft: r.reversal.forcedOverdraft,
  };
}
