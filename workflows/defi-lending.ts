import { proxyActivities, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { LendingActivities } from '../activities/defi/lending';
import type { WatchResult } from '../domain/defi/lending/liquidation';
import { SA } from '../domain/temporal/search-attributes';
import { dueAt } from './scheduled';

const { lendingWatch } = proxyActivities<LendingActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 10 },
});


/**
 * Run every minute by the 'defi-lending-watch' schedule (domain/defi/lending/schedule.ts): every
 * open lending position with debt is accrued, warned and liquidated at the instant the run was due
 * (or started, for a manual run), so the time-skipping test server can move that clock. The
 * activity keys each liquidation by this run's workflow id, so a retry liquidates nothing twice.
 */
export async function lendingWatchWorkflow(): Promise<WatchResult> {
  const info = workflowInfo();
  const at = dueAt();
  const result = await lendingWatch({ asOfMs: at.getTime(), runId: info.workflowId });
  upsertSearchAttributes([{ key: SA.businessStatus, value: result.liquidated > 0 ? 'liquidated' : result.warned > 0 ? 'warned' : 'healthy' }] as never);
  return result;
}
