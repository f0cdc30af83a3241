import { proxyActivities, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { BasketBuyActivities } from '../activities/baskets/buy';
import { failureOf } from '../domain/temporal/failures';
import { SA } from '../domain/temporal/search-attributes';

const acts = proxyActivities<BasketBuyActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '200 ms', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 10 },
});

// Compensation must happen: it is retried until it succeeds.
const compensation = proxyActivities<BasketBuyActivities>({ startToCloseTimeout: '30 seconds', retry: { initialInterval: '1 second', maximumInterval: '1 minute' } });

/** reserve → acquire components (price check) → compose and settle; on failure void the reservation. */
export async function basketBuyWorkflow(input: { buyId: string }): Promise<{ status: 'completed' | 'failed'; code?: string }> {
  const base = { buyId: input.buyId, workflowId: workflowInfo().workflowId };
  const status = (value: string) => upsertSearchAttributes([{ key: SA.businessStatus, value }] as never);
  try {
    await acts.reserveBasketBuy(base);
    status('reserved');
    await acts.acquireBasketComponents({ ...base, nowMs: Date.now() });
    await acts.settleBasketBuy(base);
    status('completed');
    return { status: 'completed' };
  } catch (err) {
    const { code, reason } = failureOf(err, 'BUY_FAILED');
    await compensation.compensateBasketBuy({ ...base, code, reason });
    status('failed');
    return { status: 'failed', code };
  }
}
