import { withTransaction } from '../db/pool';
import { SA } from '../temporal/search-attributes';
import { startMoneyWorkflow } from '../temporal/start';
import { lockBridgeTransfer, recordBridgeEvent, updateBridgeTransfer, type BridgeTransfer } from './transfers';

/**
 * Starts the transfer's workflow (id bridge-<id>) with the platform's search attributes, so an
 * operator finds it by bridge id (TransferId), account (AccountIds), status (BusinessStatus) and
 * source chain (Chain).
 * If Temporal refuses, the transfer fails with nothing moved.
 */
export async function startBridgeWorkflow(t: BridgeTransfer): Promise<void> {
  await startMoneyWorkflow({
    workflowType: 'bridgeTransferWorkflow',
    workflowId: t.workflowId,
    args: [{ transferId: t.id }],
    subject: { id: t.id, accountIds: [t.accountId], assetCode: t.assetCode, amount: t.amount, environment: t.environment, userId: t.userId },
    // The source chain, as DeFi operations record theirs.
    extraSearchAttributes: [{ key: SA.chain, value: t.sourceChain }],
    onStartFailed: () =>
      withTransaction(async (c) => {
        const locked = await lockBridgeTransfer(c, t.id);
        if (locked.status !== 'pending') return;
        const u = await updateBridgeTransfer(c, t.id, { status: 'failed', failure_code: 'WORKFLOW_START_FAILED', failure_reason: 'the transfer could not be started; nothing was moved', failed_at: 'now' });
        await recordBridgeEvent(c, u, 'failed', { code: 'WORKFLOW_START_FAILED' });
      }),
  });
}
