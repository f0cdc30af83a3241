/**
 * The Temporal schedule that checks MiFID II reporting deadlines every hour at minute 0 UTC
 * (workflows/mifid-deadline.ts → activities/regtech flagOverdueMifidReports → overdue.ts). Deadlines
 * fall at the end of a UTC day (calendar.ts), so the run at 00:00 flags what just became late.
 * ensureMifidDeadlineSchedule() at start-up (worker/main.ts, scripts/start.ts) keeps it as an hourly
 * schedule of domain/temporal/hourly-schedule.ts. It checks the MiFID II settings first, so a
 * malformed LEI stops the start rather than the first report. A missed run is covered by the next:
 * each run flags everything late as of its scheduled time.
 */
import { ensureHourlySchedule, type HourlyScheduleResult } from '../../temporal/hourly-schedule';
import { mifidSettings } from './settings';

export const MIFID_DEADLINE_SCHEDULE_ID = 'mifid-deadline-hourly';
export const MIFID_DEADLINE_WORKFLOW = 'mifidDeadlineWorkflow';

/** Creates or corrects the hourly deadline schedule; safe to call from every worker at every start. */
export async function ensureMifidDeadlineSchedule(): Promise<HourlyScheduleResult> {
  mifidSettings();
  return ensureHourlySchedule({ id: MIFID_DEADLINE_SCHEDULE_ID, workflowType: MIFID_DEADLINE_WORKFLOW });
}
