import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { withTransaction } from '../db/pool';
import { loadConfig } from '../platform/config';
import { getTemporalClient } from '../temporal/client';
import { SA } from '../temporal/search-attributes';
import { lockRailPayment, recordRailEvent, updateRailPayment, type RailPayment } from './index';

/** Starts the payment's workflow (id rail-payment-<id>); if Temporal refuses, the payment fails with nothing moved. */
export async function startRailPaymentWorkflow(p: RailPayment): Promise<void> {
  const client = await getTemporalClient();
  try {
    await client.workflow.start('railPaymentWorkflow', {
      taskQueue: loadConfig().taskQueue,
      workflowId: p.workflowId,
      args: [{ paymentId: p.id }],
      typedSearchAttributes: [
        { key: SA.transferId, value: p.id },
        { key: SA.accountIds, value: [p.accountId] },
        { key: SA.assetCode, value: p.currency },
        { key: SA.amount, value: p.amount },
        { key: SA.businessStatus, value: 'pending' },
        { key: SA.environment, value: p.environment },
        { key: SA.userId, value: p.userId },
      ],
    });
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return;
    await withTransaction(async (c) => {
      const locked = await lockRailPayment(c, p.id);
      if (locked.status !== 'pending') return;
      const u = await updateRailPayment(c, p.id, { status: 'failed', failure_code: 'WORKFLOW_START_FAILED', failure_reason: 'the payment could not be started; nothing was moved', failed_at: 'now' });
      await recordRailEvent(c, u, 'failed', { code: 'WORKFLOW_START_FAILED' });
    });
    throw err;
  }
}

export async function signalAchReturn(workflowId: string, r: { code: string; reason: string }): Promise<void> {
  const client = await getTemporalClient();
  await client.workflow.getHandle(workflowId).signal('achReturn', r);
}
