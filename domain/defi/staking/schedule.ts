/**
 * The Temporal schedule of the daily staking harvest: stakingHarvestWorkflow every day at 00:30
 * UTC (workflows/defi-staking.ts), harvesting every staked position's completed unpaid epochs at
 * the run's time. Created at start-up (worker/main.ts) through domain/temporal/daily-schedule.ts.
 * A missed day is caught up within a day; a harvest pays each epoch once whenever it runs.
 */
import { ensureDailySchedule, type DailyScheduleResult } from '../../temporal/daily-schedule';

export const STAKING_HARVEST_SCHEDULE_ID = 'defi-staking-harvest-daily';
export const STAKING_HARVEST_WORKFLOW = 'stakingHarvestWorkflow';

/** Creates or corrects the daily harvest schedule; safe to call from every worker at every start. */
export async function ensureStakingHarvestSchedule(): Promise<DailyScheduleResult> {
  return ensureDailySchedule({ id: STAKING_HARVEST_SCHEDULE_ID, workflowType: STAKING_HARVEST_WORKFLOW, hour: 0, minute: 30 });
}
