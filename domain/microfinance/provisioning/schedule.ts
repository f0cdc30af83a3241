/**
 * The Temporal schedule of the daily provisioning run: mfProvisioningWorkflow every day at 01:00
 * UTC (workflows/microfinance-provisioning.ts), run date = the UTC date it was scheduled for. Created at
 * start-up (worker/main.ts, scripts/start.ts) through domain/temporal/daily-schedule.ts. A missed
 * day is caught up within a day; a run is idempotent per environment, currency and run date.
 */
import { ensureDailySchedule, type DailyScheduleResult } from '../../temporal/daily-schedule';

export const MF_PROVISIONING_SCHEDULE_ID = 'mf-provisioning-daily';
export const MF_PROVISIONING_WORKFLOW = 'mfProvisioningWorkflow';

/** Creates or corrects the daily provisioning schedule; safe to call from every worker at every start. */
export async function ensureMfProvisioningSchedule(): Promise<DailyScheduleResult> {
  return ensureDailySchedule({ id: MF_PROVISIONING_SCHEDULE_ID, workflowType: MF_PROVISIONING_WORKFLOW, hour: 1, minute: 0 });
}
