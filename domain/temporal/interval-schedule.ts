/**
 * A Temporal schedule firing at a fixed interval (e.g. every minute) that starts one workflow type
 * on the platform's task queue: the lending watch (domain/defi/lending/schedule.ts). As the hourly
 * and daily ones (./hourly-schedule.ts), ensureIntervalSchedule() creates it at start-up, brings a
 * changed one back to the wanted spec, action and policies and leaves an equal one alone.
 *
 * Overlap SKIP: a run still going when the next is due is not doubled. Catch-up window one
 * interval: after an outage only the last missed run happens (each judges the instant it was due).
 */
import { ScheduleOverlapPolicy, type ScheduleDescription } from '@temporalio/client';
import { loadConfig } from '../platform/config';
import { ensureSchedule, type ScheduleResult } from './ensure-schedule';

export interface IntervalSchedule {
  id: string;
  workflowType: string;
  everyMs: number;
}

function wanted(s: IntervalSchedule, taskQueue: string) {
  return {
    spec: { intervals: [{ every: s.everyMs }] },
    action: { type: 'startWorkflow' as const, workflowType: s.workflowType, taskQueue, args: [], workflowId: `${s.id}-run` },
    policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: s.everyMs },
  };
}

/** Whether a stored schedule fires every `everyMs` with no offset, runs the workflow on the queue and has the policies. */
export function intervalScheduleMatches(d: ScheduleDescription, taskQueue: string, s: IntervalSchedule): boolean {
  const iv = d.spec.intervals ?? [];
  const a = d.action;
  return (
    iv.length === 1 &&
    Number(iv[0].every) === s.everyMs &&
    Number(iv[0].offset ?? 0) === 0 &&
    (d.spec.calendars ?? []).length === 0 &&
    d.policies.overlap === ScheduleOverlapPolicy.SKIP &&
    d.policies.catchupWindow === s.everyMs &&
    a.type === 'startWorkflow' &&
    a.workflowType === s.workflowType &&
    a.taskQueue === taskQueue &&
    (a.args ?? []).length === 0
  );
}

/** Creates or corrects the schedule; safe to call from every worker at every start. */
export async function ensureIntervalSchedule(s: IntervalSchedule): Promise<ScheduleResult> {
  const w = wanted(s, loadConfig().taskQueue);
  return ensureSchedule(s.id, w, (d) => intervalScheduleMatches(d, w.action.taskQueue, s));
}
