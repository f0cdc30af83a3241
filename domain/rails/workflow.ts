import { withTransaction } from '../db/pool';
import { loadConfig } from '../platform/config';
import { getTemporalClient } from '../temporal/client';
import { SA } from '../temporal/search-attributes';
import { startMoneyWorkflow } from '../temporal/start';
import { deliverSignal } from '../temporal/signals';
import type { RailSettlementSignalInput } from './inbound';
import { lockRailPayment, recordRailEvent, updateRailPayment, type RailPayment } from './index';

/** Starts the payment's workflow (id rail-payment-<id>); if Temporal refuses, the payment fails with nothing moved (unless failOnRefusal is false: a replay, whose workflow may be running). */
export async function startRailPaymentWorkflow(p: RailPayment, opts: { failOnRefusal?: boolean } = {}): Promise<void> {
  await startMoneyWorkflow({
    workflowType: 'railPaymentWorkflow',
    workflowId: p.workflowId,
    args: [{ paymentId: p.id, reviewTimeoutMs: loadConfig().complianceReviewTimeoutHours * 3_600_000 }],
    subject: { id: p.id, accountIds: [p.accountId], assetCode: p.currency, amount: p.amount, environment: p.environment, userId: p.userId },
    idKey: SA.paymentId,
    extraSearchAttributes: [{ key: SA.rail, value: p.rail }],
    onStartFailed: async () => {
      if (opts.failOnRefusal === false) return;
      await withTransaction(async (c) => {
        const locked = await lockRailPayment(c, p.id);
        if (locked.status !== 'pending') return;
        const u = await updateRailPayment(c, p.id, { status: 'failed', failure_code: 'WORKFLOW_START_FAILED', failure_reason: 'the payment could not be started; nothing was moved', failed_at: 'now' });
        await recordRailEvent(c, u, 'failed', { code: 'WORKFLOW_START_FAILED', reason: 'the payment could not be started; nothing was moved', compensation: 'none' });
      });
    },
  });
}

/** An ACH return for a running payment workflow; false when the workflow has already ended. */
export async function signalAchReturn(workflowId: string, r: { code: string; reason: string }): Promise<boolean> {
  const client = await getTemporalClient();
  return deliverSignal(() => client.workflow.getHandle(workflowId).signal('achReturn', r));
}

/** The rail's settlement (ACSC) or rejection (RJCT) for a running payment workflow; false when it has ended. */
export async function signalRailSettlement(workflowId: string, s: RailSettlementSignalInput): Promise<boolean> {
  const client = await getTemporalClient();
  return deliverSignal(() => client.workflow.getHandle(workflowId).signal('railSettlement', s));
}
