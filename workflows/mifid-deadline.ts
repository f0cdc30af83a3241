import { proxyActivities, upsertSearchAttributes } from '@temporalio/workflow';
import type { RegtechActivities } from '../activities/regtech';
import type { OverdueRun } from '../domain/regtech/mifid/overdue';
import { SA } from '../domain/temporal/search-attributes';
import { dueAt } from './scheduled';

const { flagOverdueMifidReports } = proxyActivities<RegtechActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 20 },
});


/**
 * Run hourly by the 'mifid-deadline-hourly' schedule: flags every MiFID II report past its T+1
 * deadline as of the instant the run was scheduled for (a late or caught-up run judges that
 * instant). `at` (ISO) judges another instant, for a manual run. Deterministic: the time comes from
 * the workflow's input or info, the work from the activity.
 */
export async function mifidDeadlineWorkflow(input: { at?: string } = {}): Promise<OverdueRun> {
  const at = input.at ? new Date(input.at) : dueAt();
  upsertSearchAttributes([{ key: SA.businessStatus, value: 'checking' }] as never);
  const run = await flagOverdueMifidReports({ atMs: at.getTime() });
  upsertSearchAttributes([{ key: SA.businessStatus, value: run.flagged.length > 0 ? 'flagged_overdue' : 'none_overdue' }] as never);
  return run;
}
