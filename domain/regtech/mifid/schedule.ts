/**
 * The Temporal schedule that checks MiFID II reporting deadlines every hour at minute 0 UTC
 * (workflows/mifid-deadline.ts → activities/regtech flagOverdueMifidReports → overdue.ts). Deadlines
 * fall at the end of a UTC day (calendar.ts), so the run at 00:00 flags what just became late.
 * ensureMifidDeadlineSchedule() at start-up (worker/main.ts, scripts/start.ts) creates it, brings
 * a changed one back to the wanted spec, action and policies, and leaves an equal one alone, like
 * the basket valuation schedule. It checks the MiFID II settings first, so a malformed LEI stops
 * the start rather than the first report.
 *
 * Overlap SKIP; catch-up window one hour (a missed run is covered by the next: each run flags
 * everything late as of its scheduled time).
 */
import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type ScheduleDescription } from '@temporalio/client';
import { loadConfig } from '../../platform/config';
import { getTemporalClient } from '../../temporal/client';
import { mifidSettings } from './settings';

export const MIFID_DEADLINE_SCHEDULE_ID = 'mifid-deadline-hourly';
export const MIFID_DEADLINE_WORKFLOW = 'mifidDeadlineWorkflow';
const CATCHUP_WINDOW_MS = 3_600_000;

function wanted(taskQueue: string) {
  return {
    spec: { calendars: [{ hour: '*' as const, minute: 0, second: 0, comment: 'every hour at minute 0 UTC' }], timezone: 'UTC' },
    action: { type: 'startWorkflow' as const, workflowType: MIFID_DEADLINE_WORKFLOW, taskQueue, args: [], workflowId: `${MIFID_DEADLINE_SCHEDULE_ID}-run` },
    policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: CATCHUP_WINDOW_MS },
  };
}

type Range = { start?: unknown; end?: unknown; step?: unknown };
const only = (r: unknown): Range | undefined => (Array.isArray(r) && r.length === 1 ? (r[0] as Range) : undefined);

/** Whether a stored schedule fires at minute 0 of every UTC hour, runs the workflow on the queue and has the policies. */
export function mifidScheduleMatches(d: ScheduleDescription, taskQueue: string): boolean {
  const cal = d.spec.calendars ?? [];
  const one = cal.length === 1 ? cal[0] : undefined;
  const hour = only(one?.hour);
  const minute = only(one?.minute);
  const second = only(one?.second);
  const a = d.action;
  return (
    !!one &&
    hour?.start === 0 &&
    hour?.end === 23 &&
    (hour?.step ?? 1) === 1 &&
    minute?.start === 0 &&
    (minute?.end ?? 0) === 0 &&
    second?.start === 0 &&
    (second?.end ?? 0) === 0 &&
    (d.spec.intervals ?? []).length === 0 &&
    (d.spec.timezone ?? 'UTC') === 'UTC' &&
    d.policies.overlap === ScheduleOverlapPolicy.SKIP &&
    d.policies.catchupWindow === CATCHUP_WINDOW_MS &&
    a.type === 'startWorkflow' &&
    a.workflowType === MIFID_DEADLINE_WORKFLOW &&
    a.taskQueue === taskQueue &&
    (a.args ?? []).length === 0
  );
}

/** Creates or corrects the hourly deadline schedule; safe to call from every worker at every start. */
export async function ensureMifidDeadlineSchedule(): Promise<{ id: string; outcome: 'created' | 'updated' | 'unchanged' }> {
  mifidSettings();
  const client = await getTemporalClient();
  const w = wanted(loadConfig().taskQueue);
  const id = MIFID_DEADLINE_SCHEDULE_ID;
  try {
    await client.schedule.create({ scheduleId: id, ...w });
    return { id, outcome: 'created' };
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
  const handle = client.schedule.getHandle(id);
  if (mifidScheduleMatches(await handle.describe(), w.action.taskQueue)) return { id, outcome: 'unchanged' };
  // update() writes with a conflict token; a concurrent writer makes it fail, so retry once.
  const apply = () => handle.update((prev) => ({ ...prev, spec: w.spec, action: w.action, policies: { ...prev.policies, ...w.policies } }));
  await apply().catch(apply);
  return { id, outcome: 'updated' };
}
