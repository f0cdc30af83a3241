/**
 * The Temporal schedule that opens each month's poll: monthlyGovernanceWorkflow at 00:00 UTC on
 * the 1st. Call ensureGovernanceSchedule() at start-up (worker and npm start): it creates the
 * schedule when missing, brings a changed one back to the wanted spec and action (e.g. after a
 * task-queue change), and leaves an equal one alone, like the ACH schedules (domain/ach/schedule.ts).
 */
import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type ScheduleDescription } from '@temporalio/client';
import { loadConfig } from '../platform/config';
import { getTemporalClient } from '../temporal/client';

export const GOVERNANCE_SCHEDULE_ID = 'governance-monthly';
export const GOVERNANCE_WORKFLOW_TYPE = 'monthlyGovernanceWorkflow';

function wanted(taskQueue: string) {
  return {
    spec: { calendars: [{ dayOfMonth: 1, hour: 0, minute: 0 }], timezone: 'UTC' },
    action: { type: 'startWorkflow' as const, workflowType: GOVERNANCE_WORKFLOW_TYPE, taskQueue, args: [], workflowId: `${GOVERNANCE_SCHEDULE_ID}-run` },
    // A missed 1st (server or workers down at midnight) still opens the month's poll within the
    // day; the poll is unique per month, so a late or repeated run cannot open a second one.
    policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 day' },
  };
}

const single = (r: unknown) => (Array.isArray(r) && r.length === 1 ? (r[0] as { start?: unknown; end?: unknown }) : undefined);
const is = (r: unknown, v: number) => single(r)?.start === v && single(r)?.end === v;

/** Whether a stored schedule already has the wanted calendar, zone, workflow and queue. */
export function governanceScheduleMatches(d: ScheduleDescription, taskQueue: string): boolean {
  const cal = d.spec.calendars ?? [];
  const one = cal.length === 1 ? cal[0] : undefined;
  const a = d.action;
  return (
    !!one &&
    is(one.dayOfMonth, 1) &&
    is(one.hour, 0) &&
    is(one.minute, 0) &&
    (d.spec.timezone ?? 'UTC') === 'UTC' &&
    d.policies.overlap === ScheduleOverlapPolicy.SKIP &&
    a.type === 'startWorkflow' &&
    a.workflowType === GOVERNANCE_WORKFLOW_TYPE &&
    a.taskQueue === taskQueue &&
    JSON.stringify(a.args ?? []) === '[]'
  );
}

/** Creates or corrects the monthly governance schedule; safe to call from every worker at every start. */
export async function ensureGovernanceSchedule(): Promise<{ id: string; outcome: 'created' | 'updated' | 'unchanged' }> {
  const client = await getTemporalClient();
  const taskQueue = loadConfig().taskQueue;
  const w = wanted(taskQueue);
  try {
    await client.schedule.create({ scheduleId: GOVERNANCE_SCHEDULE_ID, ...w });
    return { id: GOVERNANCE_SCHEDULE_ID, outcome: 'created' };
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
  const handle = client.schedule.getHandle(GOVERNANCE_SCHEDULE_ID);
  if (governanceScheduleMatches(await handle.describe(), taskQueue)) return { id: GOVERNANCE_SCHEDULE_ID, outcome: 'unchanged' };
  // update() writes with a conflict token; a concurrent writer makes it fail, so retry once.
  const apply = () => handle.update((prev) => ({ ...prev, spec: w.spec, action: w.action, policies: { ...prev.policies, ...w.policies } }));
  await apply().catch(apply);
  return { id: GOVERNANCE_SCHEDULE_ID, outcome: 'updated' };
}
