/**
 * Temporal schedules that build and transmit the day's ACH file 15 minutes before each ACH
 * cut-off (FedACH same-day windows 10:30, 14:45, 16:45 ET and the 17:00 ET next-day file).
 * Call ensureAchSchedules() at start-up: it creates missing schedules, brings changed ones back
 * to the wanted spec and action (e.g. after a task-queue change), and leaves equal ones alone.
 */
import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type ScheduleDescription } from '@temporalio/client';
import { loadConfig } from '../platform/config';
import { getTemporalClient } from '../temporal/client';
import { minutesOf, RAILS } from '../rails/calendar';

export const ACH_LEAD_MINUTES = 15;
export const ACH_SCHEDULE_TIME_ZONE = 'America/New_York';
const WEEKDAYS = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY'] as const;

export function achScheduleTimes(): Array<{ id: string; hour: number; minute: number }> {
  const cutoffs = [...RAILS.ach_same_day.windows!, ...RAILS.ach_standard.windows!].map((w) => w.cutoff);
  return [...new Set(cutoffs)].map((c) => {
    const m = minutesOf(c) - ACH_LEAD_MINUTES;
    return { id: `ach-file-${c.replace(':', '')}`, hour: Math.floor(m / 60), minute: m % 60 };
  });
}

function wanted(t: { id: string; hour: number; minute: number }, taskQueue: string) {
  return {
    // Weekdays only; the workflow itself skips Fed holidays (a calendar spec cannot compute them).
    spec: { calendars: [{ hour: t.hour, minute: t.minute, dayOfWeek: [...WEEKDAYS] }], timezone: ACH_SCHEDULE_TIME_ZONE },
    action: { type: 'startWorkflow' as const, workflowType: 'achFileWorkflow', taskQueue, args: [{ window: t.id }], workflowId: `${t.id}-run` },
    policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '10 minutes' },
  };
}

/** Whether a stored schedule already has the wanted time, zone, workflow, queue and arguments. */
function matches(d: ScheduleDescription, t: { id: string; hour: number; minute: number }, taskQueue: string): boolean {
  const w = wanted(t, taskQueue);
  const cal = d.spec.calendars ?? [];
  const a = d.action;
  const one = cal.length === 1 ? cal[0] : undefined;
  const single = (r: unknown) => (Array.isArray(r) && r.length === 1 ? (r[0] as { start?: unknown; end?: unknown }) : undefined);
  const hour = single(one?.hour);
  const minute = single(one?.minute);
  const days = (one?.dayOfWeek ?? []) as Array<{ start?: string; end?: string }>;
  const dayNames = days.flatMap((r) => (r.start === r.end ? [r.start] : [`${r.start}-${r.end}`]));
  return (
    !!one &&
    hour?.start === t.hour &&
    hour?.end === t.hour &&
    minute?.start === t.minute &&
    minute?.end === t.minute &&
    (d.spec.timezone ?? 'UTC') === ACH_SCHEDULE_TIME_ZONE &&
    (dayNames.join(',') === WEEKDAYS.join(',') || dayNames.join(',') === 'MONDAY-FRIDAY') &&
    d.policies.overlap === w.policies.overlap &&
    a.type === 'startWorkflow' &&
    a.workflowType === 'achFileWorkflow' &&
    a.taskQueue === taskQueue &&
    JSON.stringify(a.args ?? []) === JSON.stringify([{ window: t.id }])
  );
}

export interface AchScheduleResult {
  id: string;
  outcome: 'created' | 'updated' | 'unchanged';
}

/** Creates or corrects every ACH file schedule; safe to call from every worker at every start. */
export async function ensureAchSchedulesDetailed(): Promise<AchScheduleResult[]> {
  const client = await getTemporalClient();
  const taskQueue = loadConfig().taskQueue;
  const out: AchScheduleResult[] = [];
  for (const t of achScheduleTimes()) {
    const w = wanted(t, taskQueue);
    try {
      await client.schedule.create({ scheduleId: t.id, ...w });
      out.push({ id: t.id, outcome: 'created' });
      continue;
    } catch (err) {
      if (!(err instanceof ScheduleAlreadyRunning)) throw err;
    }
    const handle = client.schedule.getHandle(t.id);
    if (matches(await handle.describe(), t, taskQueue)) {
      out.push({ id: t.id, outcome: 'unchanged' });
      continue;
    }
    // update() describes and writes with a conflict token; a concurrent writer makes it fail, so retry once.
    const apply = () => handle.update((prev) => ({ ...prev, spec: w.spec, action: w.action, policies: { ...prev.policies, ...w.policies } }));
    await apply().catch(apply);
    out.push({ id: t.id, outcome: 'updated' });
  }
  return out;
}

/** The ids of the ACH file schedules, after making sure they exist as wanted. */
export async function ensureAchSchedules(): Promise<string[]> {
  return (await ensureAchSchedulesDetailed()).map((r) => r.id);
}
