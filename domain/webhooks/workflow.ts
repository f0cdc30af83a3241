import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { getPool } from '../db/pool';
import { loadConfig } from '../platform/config';
import { getTemporalClient } from '../temporal/client';
import { SA } from '../temporal/search-attributes';
import { deliveryWorkflowId } from './index';

export interface StartTarget {
  deliveryId: string;
  userId: string;
  environment: string;
}

export interface TemporalTarget {
  client?: Client;
  taskQueue?: string;
  /**
   * false only for the time-skipping test server, which cannot register custom search attributes
   * (every real cluster has them: the platform registers them at start-up).
   */
  searchAttributes?: boolean;
}

/**
 * Starts one webhook-delivery workflow per delivery (id webhook-delivery-<deliveryId>, so a
 * second start of the same delivery is a no-op), then stamps workflow_started_at so the
 * dispatcher's sweep does not start them again. Returns the ids started.
 */
export async function startDeliveryWorkflows(targets: StartTarget[], opts: TemporalTarget = {}): Promise<string[]> {
  if (targets.length === 0) return [];
  const client = opts.client ?? (await getTemporalClient());
  const taskQueue = opts.taskQueue ?? loadConfig().taskQueue;
  const started: string[] = [];
  const results = await Promise.allSettled(
    targets.map(async (t) => {
      try {
        await client.workflow.start('webhookDeliveryWorkflow', {
          taskQueue,
          workflowId: deliveryWorkflowId(t.deliveryId),
          args: [{ deliveryId: t.deliveryId }],
          typedSearchAttributes:
            opts.searchAttributes === false
              ? []
              : [
                  { key: SA.businessStatus, value: 'pending' },
                  { key: SA.environment, value: t.environment },
                  { key: SA.userId, value: t.userId },
                ],
        });
      } catch (err) {
        if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      }
      started.push(t.deliveryId);
    }),
  );
  if (started.length > 0) {
    await getPool().query('UPDATE webhook_deliveries SET workflow_started_at = now() WHERE id = ANY($1::text[]) AND workflow_started_at IS NULL', [started]);
  }
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
  return started;
}
