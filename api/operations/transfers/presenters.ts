/** Wire shapes of the transfers area. */
import type { Transfer } from '../../../domain/transfers';

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
