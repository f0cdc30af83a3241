import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { withTransaction } from '../db/pool';
import { loadConfig } from '../platform/config';
import { getTemporalClient } from '../temporal/client';
import { SA } from '../temporal/search-attributes';
import { emitIlpEvent, lockIlpPayment, updateIlpPayment, type IlpPayment, type IlpQuote } from './index';

export async function startIlpPaymentWorkflow(p: IlpPayment, q: IlpQuote): Promise<void> {
  const client = await getTemporalClient();
  try {
    await client.workflow.start('interledgerPaymentWorkflow', {
      taskQueue: loadConfig().taskQueue,
      workflowId: p.workflowId,
      args: [{ paymentId: p.id }],
      typedSearchAttributes: [
        { key: SA.transferId, value: p.id },
        { key: SA.accountIds, value: [p.accountId] },
        { key: SA.assetCode, value: q.sendCurrency },
        { key: SA.amount, value: q.sendAmount },
        { key: SA.businessStatus, value: 'pending' },
        { key: SA.environment, value: p.environment },
        { key: SA.userId, value: p.userId },
      ],
    });
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return;
    await withTransaction(async (c) => {
      const locked = await lockIlpPayment(c, p.id);
      if (locked.status !== 'pending') return;
      const u = await updateIlpPayment(c, p.id, { status: 'failed', failure_code: 'WORKFLOW_START_FAILED', failure_reason: 'nothing was moved', failed_at: 'now' });
      await emitIlpEvent(c, u, 'interledger.payment_failed', { code: 'WORKFLOW_START_FAILED' });
    });
    throw err;
  }
}
