import { proxyActivities, upsertSearchAttributes } from '@temporalio/workflow';
import type { BasketValuationActivities, BasketValuationSummary } from '../activities/baskets/valuation';
import { SA } from '../domain/temporal/search-attributes';
import { dueAt } from './scheduled';

const { recordBasketValuations } = proxyActivities<BasketValuationActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 20 },
});


/**
 * Run hourly by the 'basket-valuation-hourly' schedule: records every basket's valuation for the
 * hour it was scheduled for, so a late or caught-up run still values the hour it stands for.
 * `at` (ISO) values another hour, for a manual run.
 */
export async function basketValuationWorkflow(input: { at?: string } = {}): Promise<BasketValuationSummary> {
  const at = input.at ? new Date(input.at) : dueAt();
  upsertSearchAttributes([{ key: SA.businessStatus, value: 'valuing' }] as never);
  const summary = await recordBasketValuations({ atMs: at.getTime() });
  upsertSearchAttributes([{ key: SA.businessStatus, value: summary.skipped.length > 0 ? 'recorded_with_skips' : 'recorded' }] as never);
  return summary;
}
