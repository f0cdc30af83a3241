/**
 * An hourly Temporal schedule (every hour at minute 0 UTC) that starts one workflow type on the
 * platform's task queue: basket valuations (domain/baskets/valuation-schedule.ts) and MiFID II
 * deadline checks (domain/regtech/mifid/schedule.ts). ensureHourlySchedule() at start-up creates it,
 * brings a changed one back to the wanted spec, action and policies (e.g. after a task-queue
 * change) and leaves an equal one alone.
 *
 * Overlap SKIP: a run still going when the next hour comes is not doubled. Catch-up window one
 * hour: after an outage only the last missed hour runs (each run judges the hour it was scheduled for).
 */
import { ScheduleOverlapPolicy, type ScheduleDescription } from '@temporalio/client';
import { loadConfig } from '../platform/config';
import { ensureSchedule, type ScheduleResult } from './ensure-schedule';

const CATCHUP_WINDOW_MS = 3_600_000;

export interface HourlySchedule {
  id: string;
  workflowType: string;
}

function wanted(s: HourlySchedule, taskQueue: string) {
  return {
    spec: { calendars: [{ hour: '*' as const, minute: 0, second: 0, comment: 'every hour at minute 0 UTC' }], timezone: 'UTC' },
    action: { type: 'startWorkflow' as const, workflowType: s.workflowType, taskQueue, args: [], workflowId: `${s.id}-run` },
    policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: CATCHUP_WINDOW_MS },
  };
}

type Range = { start?: unknown; end?: unknown; step?: unknown };
const only = (r: unknown): Range | undefined => (Array.isArray(r) && r.length === 1 ? (r[0] as Range) : undefined);

/** Whether a stored schedule fires at minute 0 of every UTC hour, runs the workflow on the queue and has the policies. */
export function hourlyScheduleMatches(d: ScheduleDescription, taskQueue: string, workflowType: string): boolean {
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
    a.workflowType === workflowType &&
    a.taskQueue === taskQueue &&
    (a.args ?? []).length === 0
  );
}

export type HourlyScheduleResult = ScheduleResult;

/** Creates or corrects the schedule; safe to call from every worker at every start. */
export async function ensureHourlySchedule(s: HourlySchedule): Promise<HourlyScheduleResult> {
  const w = wanted(s, loadConfig().taskQueue);
  return ensureSchedule(s.id, w, (d) => hourlyScheduleMatches(d, w.action.taskQueue, s.workflowType));
}
