/**
 * A daily Temporal schedule (every day at a fixed UTC hour and minute) that starts one workflow
 * type on the platform's task queue: the daily variant of hourly-schedule.ts, used by the
 * microfinance provisioning run (domain/microfinance/provisioning/schedule.ts). ensureDailySchedule()
 * at start-up creates it, brings a changed one back to the wanted spec, action and policies, and
 * leaves an equal one alone.
 *
 * Overlap SKIP: a run still going when the next day comes is not doubled. Catch-up window one day:
 * after an outage the missed day still runs (each run judges the day it was scheduled for).
 */
import { ScheduleOverlapPolicy, type ScheduleDescription } from '@temporalio/client';
import { loadConfig } from '../platform/config';
import { ensureSchedule, type ScheduleResult } from './ensure-schedule';

const CATCHUP_WINDOW_MS = 86_400_000;

export interface DailySchedule {
  id: string;
  workflowType: string;
  /** UTC hour (0–23) and minute (0–59) of the daily run. */
  hour: number;
  minute: number;
}

function wanted(s: DailySchedule, taskQueue: string) {
  return {
    spec: { calendars: [{ hour: s.hour, minute: s.minute, second: 0, comment: `every day at ${s.hour}:${String(s.minute).padStart(2, '0')} UTC` }], timezone: 'UTC' },
    action: { type: 'startWorkflow' as const, workflowType: s.workflowType, taskQueue, args: [], workflowId: `${s.id}-run` },
    policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: CATCHUP_WINDOW_MS },
  };
}

type Range = { start?: unknown; end?: unknown; step?: unknown };
const only = (r: unknown): Range | undefined => (Array.isArray(r) && r.length === 1 ? (r[0] as Range) : undefined);
const is = (r: unknown, v: number) => only(r)?.start === v && (only(r)?.end ?? v) === v;
const every = (r: unknown) => r === undefined || (Array.isArray(r) && (r.length === 0 || (only(r)?.start === 1 && (only(r)?.end === 31 || only(r)?.end === 12))));

/** Whether a stored schedule fires once a day at the hour and minute (UTC), runs the workflow on the queue and has the policies. */
export function dailyScheduleMatches(d: ScheduleDescription, taskQueue: string, s: DailySchedule): boolean {
  const cal = d.spec.calendars ?? [];
  const one = cal.length === 1 ? cal[0] : undefined;
  const a = d.action;
  return (
    !!one &&
    is(one.hour, s.hour) &&
    is(one.minute, s.minute) &&
    is(one.second, 0) &&
    every(one.dayOfMonth) &&
    every(one.month) &&
    (d.spec.intervals ?? []).length === 0 &&
    (d.spec.timezone ?? 'UTC') === 'UTC' &&
    d.policies.overlap === ScheduleOverlapPolicy.SKIP &&
    d.policies.catchupWindow === CATCHUP_WINDOW_MS &&
    a.type === 'startWorkflow' &&
    a.workflowType === s.workflowType &&
    a.taskQueue === taskQueue &&
    (a.args ?? []).length === 0
  );
}

export type DailyScheduleResult = ScheduleResult;

/** Creates or corrects the schedule; safe to call from every worker at every start. */
export async function ensureDailySchedule(s: DailySchedule): Promise<DailyScheduleResult> {
  const w = wanted(s, loadConfig().taskQueue);
  return ensureSchedule(s.id, w, (d) => dailyScheduleMatches(d, w.action.taskQueue, s));
}
