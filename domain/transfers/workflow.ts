import { withTransaction } from '../db/pool';
import { getTemporalClient } from '../temporal/client';
import { startMoneyWorkflow } from '../temporal/start';
import { emitTransferEvents, lockTransfer, updateTransfer, type Transfer } from './index';
import type { TransferProgress } from './progress';

/**
 * Starts the transfer's workflow (id transfer-<uuid>, so a retry cannot start a second one),
 * with search attributes for operators. If Temporal refuses, the transfer is failed (nothing was
 * reserved yet) and the error is rethrown; with `failOnRefusal` false (a replayed request, whose
 * workflow may already be running) the transfer is left as it is.
 */
export async function startTransferWorkflow(t: Transfer, opts: { failOnRefusal?: boolean } = {}): Promise<void> {
  const failOnRefusal = opts.failOnRefusal ?? true;
  await startMoneyWorkflow({
    workflowType: 'transferWorkflow',
    workflowId: t.workflowId!,
    args: [{ transferId: t.id, reviewTimeoutMs: Number(process.env.TRANSFER_REVIEW_TIMEOUT_MS ?? 24 * 3600 * 1000) }],
    subject: { id: t.id, accountIds: [t.fromAccountId, t.toAccountId], assetCode: t.assetCode, amount: t.amount, environment: t.environment, userId: t.userId },
    onStartFailed: async () => {
      if (!failOnRefusal) return;
      await withTransaction(async (c) => {
        const locked = await lockTransfer(c, t.id);
        if (locked.status !== 'pending') return;
        const failed = await updateTransfer(c, t.id, {
          status: 'failed',
          failure_code: 'WORKFLOW_START_FAILED',
          failure_reason: 'The transfer could not be started; nothing was moved',
          failed_at: 'now',
        });
        await emitTransferEvents(c, failed, ['transfer.failed', 'workflow.failed']);
      });
    },
  });
}

/**
 * Waits at most `ms` for the transfer's workflow to decide it (the workflow's `decided` update:
 * reserved and assessed, or failed), without holding a database connection. True when it did; false
 * on the deadline or when the workflow cannot be asked (already closed: the caller reads the record).
 */
export async function awaitTransferDecision(workflowId: string, ms: number): Promise<boolean> {
  const client = await getTemporalClient();
  // At the deadline the update's calls are cancelled, so nothing of this request outlives its answer.
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const decided = client.withAbortSignal(abort.signal, () => client.workflow.getHandle(workflowId).executeUpdate('decided')).then(
    () => true,
    () => false,
  );
  try {
    return await Promise.race([decided, deadline]);
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
}

/** Live progress of a running transfer workflow, or undefined when it cannot be asked. */
export async function queryTransferProgress(workflowId: string): Promise<TransferProgress | undefined> {
  try {
    const client = await getTemporalClient();
    return await client.workflow.getHandle(workflowId).query<TransferProgress>('progress');
  } catch {
    return undefined;
  }
}

export async function signalTransferReview(
  workflowId: string,
  decision: { decision: 'approve' | 'reject'; reason?: string; reviewer: string },
): Promise<void> {
  const client = await getTemporalClient();
  await client.workflow.getHandle(workflowId).signal('review', decision);
}
