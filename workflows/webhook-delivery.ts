import { proxyActivities, sleep, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { WebhookActivities } from '../activities/webhooks';
import type { AttemptOutcome } from '../domain/webhooks/delivery';
import { MAX_ATTEMPTS, RETRY_SCHEDULE_SECONDS } from '../domain/webhooks/schedule';
import { SA } from '../domain/temporal/search-attributes';

export interface WebhookDeliveryInput {
  deliveryId: string;
}

export interface WebhookDeliveryResult {
  delivery_id: string;
  status: 'succeeded' | 'failed' | 'cancelled';
  attempts: number;
  rate_limited_waits: number;
}

// Endpoint failures come back as values; an activity error is infrastructure (database down) and is
// retried without limit: giving up would leave the delivery open forever.
const { attemptWebhookDelivery } = proxyActivities<WebhookActivities>({
  startToCloseTimeout: '60 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/**
 * Delivers one event to one endpoint: up to MAX_ATTEMPTS signed POSTs; after a failed attempt a
 * durable timer waits for the next slot of RETRY_SCHEDULE_SECONDS (measured from the failed
 * attempt's start). When the endpoint's 60-second window is full the attempt waits for the window
 * (nothing is dropped). Ends early when the webhook is deleted or disabled.
 */
export async function webhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<WebhookDeliveryResult> {
  let waits = 0;
  let result: AttemptOutcome | undefined;
  let attempt = 1;
  let scheduledAt = Date.now();
  for (; attempt <= MAX_ATTEMPTS; attempt++) {
    let nextRetryAt: number | null = null;
    for (;;) {
      const at = Date.now();
      // The schedule counts from when the attempt was due, so a late timer or a rate wait does not stretch it.
      nextRetryAt = attempt < MAX_ATTEMPTS ? scheduledAt + RETRY_SCHEDULE_SECONDS[attempt - 1] * 1000 : null;
      if (nextRetryAt !== null && nextRetryAt <= at) nextRetryAt = at + RETRY_SCHEDULE_SECONDS[attempt - 1] * 1000;
      result = await attemptWebhookDelivery({ deliveryId: input.deliveryId, attempt, at, scheduledAt, nextRetryAt });
      if (result.outcome !== 'wait') break;
      waits++;
      await sleep(Math.max(1, result.waitUntil - Date.now()));
      scheduledAt = result.waitUntil;
    }
    if (result.outcome !== 'retry') break;
    await sleep(Math.max(1, nextRetryAt! - Date.now()));
    scheduledAt = nextRetryAt!;
  }
  const status = result!.outcome === 'delivered' ? 'succeeded' : result!.outcome === 'cancelled' ? 'cancelled' : 'failed';
  // Only where the start set it (a cluster without the platform's attributes would fail the task).
  if (workflowInfo().typedSearchAttributes.get(SA.businessStatus) !== undefined) {
    upsertSearchAttributes([{ key: SA.businessStatus, value: status }] as never);
  }
  return { delivery_id: input.deliveryId, status, attempts: Math.min(attempt, MAX_ATTEMPTS), rate_limited_waits: waits };
}
