import { proxyActivities, upsertSearchAttributes } from '@temporalio/workflow';
import type { MfProvisioningActivities, ProvisionRunSummary } from '../activities/microfinance/provisioning';
import { SA } from '../domain/temporal/search-attributes';
import { dueAt } from './scheduled';

const { mfProvisioningScopes, mfProvisionScope } = proxyActivities<MfProvisioningActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 20 },
});


/**
 * Run daily by the 'mf-provisioning-daily' schedule: the IFRS 9 provisioning of every environment
 * and currency for the UTC date the run was scheduled for (`runDate`, YYYY-MM-DD, for a manual run).
 * Each scope is one idempotent activity keyed by (environment, currency, run date), so a retried or
 * repeated workflow posts each day's allowance change once. Deterministic: the date comes from the
 * input or the workflow info, the work from the activities.
 */
export async function mfProvisioningWorkflow(input: { runDate?: string } = {}): Promise<{ runDate: string; runs: ProvisionRunSummary[] }> {
  const at = dueAt();
  const runDate = input.runDate ?? at.toISOString().slice(0, 10);
  upsertSearchAttributes([{ key: SA.businessStatus, value: 'provisioning' }] as never);
  const runs: ProvisionRunSummary[] = [];
  for (const scope of await mfProvisioningScopes()) runs.push(await mfProvisionScope({ ...scope, runDate }));
  upsertSearchAttributes([{ key: SA.businessStatus, value: 'provisioned' }] as never);
  return { runDate, runs };
}
