import { withTransaction } from '../db/pool';
import { loadConfig } from '../platform/config';
import { SA } from '../temporal/search-attributes';
import { startMoneyWorkflow } from '../temporal/start';
import { emitIlpEvent, lockIlpPayment, updateIlpPayment, type IlpPayment, type IlpQuote } from './index';

export async function startIlpPaymentWorkflow(p: IlpPayment, q: IlpQuote): Promise<void> {
  await startMoneyWorkflow({
    workflowType: 'interledgerPaymentWorkflow',
    workflowId: p.workflowId,
    args: [{ paymentId: p.id, reviewTimeoutMs: loadConfig().complianceReviewTimeoutHours * 3_600_000 }],
    subject: { id: p.id, accountIds: [p.accountId], assetCode: q.sendCurrency, amount: q.sendAmount, environment: p.environment, userId: p.userId },
    idKey: SA.paymentId,
    extraSearchAttributes: [{ key: SA.rail, value: 'interledger' }],
    onStartFailed: () =>
      withTransaction(async (c) => {
        const locked = await lockIlpPayment(c, p.id);
        if (locked.status !== 'pending') return;
        const u = await updateIlpPayment(c, p.id, { status: 'failed', failure_code: 'WORKFLOW_START_FAILED', failure_reason: 'nothing was moved', failed_at: 'now' });
        await emitIlpEvent(c, u, 'interledger.payment_failed', { code: 'WORKFLOW_START_FAILED', reason: 'the payment could not be started; nothing was moved' });
      }),
  });
}
