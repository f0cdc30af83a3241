import { proxyActivities, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import type { BasketValuationActivities, BasketValuationSummary } from '../activities/baskets/valuation';
import { SA } from '../domain/temporal/search-attributes';

const { recordBasketValuations } = proxyActivities<BasketValuationActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 20 },
});

/** Set by Temporal on every run a schedule starts: the instant it was due (not when it began). */
const SCHEDULED_START = defineSearchAttributeKey('TemporalScheduledStartTime', SearchAttributeType.DATETIME);

/**
 * Run hourly by the 'basket-valuation-hourly' schedule: records every basket's valuation for the
 * hour it was scheduled for, so a late or caught-up run still values the hour it stands for.
 * `at` (ISO) values another hour, for a manual run.
 */
export async function basketValuationWorkflow(input: { at?: string } = {}): Promise<BasketValuationSummary> {
  const info = workflowInfo();
  const scheduled = info.typedSearchAttributes.get(SCHEDULED_START);
  const at = input.at ? new Date(input.at) : (scheduled ?? info.startTime);
  upsertSearchAttributes([{ key: SA.businessStatus, value: 'valuing' }] as never);
  const summary = await recordBasketValuations({ atMs: at.getTime() });
  upsertSearchAttributes([{ key: SA.businessStatus, value: summary.skipped.length > 0 ? 'recorded_with_skips' : 'recorded' }] as never);
  return summary;
}
