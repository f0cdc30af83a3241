import { proxyActivities, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import type { RegtechActivities } from '../activities/regtech';
import type { OverdueRun } from '../domain/regtech/mifid/overdue';
import { SA } from '../domain/temporal/search-attributes';

const { flagOverdueMifidReports } = proxyActivities<RegtechActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 20 },
});

/** Set by Temporal on every run a schedule starts: the instant it was due (not when it began). */
const SCHEDULED_START = defineSearchAttributeKey('TemporalScheduledStartTime', SearchAttributeType.DATETIME);

/**
 * Run hourly by the 'mifid-deadline-hourly' schedule: flags every MiFID II report past its T+1
 * deadline as of the instant the run was scheduled for (a late or caught-up run judges that
 * instant). `at` (ISO) judges another instant, for a manual run. Deterministic: the time comes from
 * the workflow's input or info, the work from the activity.
 */
export async function mifidDeadlineWorkflow(input: { at?: string } = {}): Promise<OverdueRun> {
  const info = workflowInfo();
  const scheduled = info.typedSearchAttributes.get(SCHEDULED_START);
  const at = input.at ? new Date(input.at) : (scheduled ?? info.startTime);
  upsertSearchAttributes([{ key: SA.businessStatus, value: 'checking' }] as never);
  const run = await flagOverdueMifidReports({ atMs: at.getTime() });
  upsertSearchAttributes([{ key: SA.businessStatus, value: run.flagged.length > 0 ? 'flagged_overdue' : 'none_overdue' }] as never);
  return run;
}
