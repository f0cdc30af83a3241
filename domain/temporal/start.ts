import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { SearchAttributePair } from '@temporalio/common';
import { loadConfig } from '../platform/config';
import type { Environment } from '../platform/environment';
import { getTemporalClient } from './client';
import { SA } from './search-attributes';

export interface MoneyWorkflowStart {
  workflowType: string;
  /** Derived from the record's id, so a retried request cannot start a second workflow. */
  workflowId: string;
  args: unknown[];
  /** What operators search by in the Temporal UI. */
  subject: { id: string; accountIds: string[]; assetCode: string; amount: string; environment: Environment; userId: string };
  /** The key that carries subject.id: TransferId unless the workflow has its own (PaymentId for rail and ILP payments). */
  idKey?: typeof SA.transferId;
  /** Further attributes of this kind of workflow (e.g. Rail). */
  extraSearchAttributes?: SearchAttributePair[];
  /** Runs when Temporal refuses the start: the record fails (nothing was reserved yet). */
  onStartFailed: () => Promise<void>;
}

/**
 * Starts a money-moving workflow with the platform's search attributes. An already-running
 * workflow with the id is success; any other refusal runs onStartFailed and rethrows.
 */
export async function startMoneyWorkflow(s: MoneyWorkflowStart): Promise<void> {
  const client = await getTemporalClient();
  try {
    await client.workflow.start(s.workflowType, {
      taskQueue: loadConfig().taskQueue,
      workflowId: s.workflowId,
      // A money workflow's id runs once, ever: starting it again (a retried request, the repair sweep)
      // is a no-op whether the first run is still going or long finished.
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      args: s.args,
      typedSearchAttributes: [
        { key: s.idKey ?? SA.transferId, value: s.subject.id },
        { key: SA.accountIds, value: s.subject.accountIds },
        { key: SA.assetCode, value: s.subject.assetCode },
        { key: SA.amount, value: s.subject.amount },
        { key: SA.businessStatus, value: 'pending' },
        { key: SA.environment, value: s.subject.environment },
        { key: SA.userId, value: s.subject.userId },
        ...(s.extraSearchAttributes ?? []),
      ],
    });
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return;
    await s.onStartFailed();
    throw err;
  }
}
