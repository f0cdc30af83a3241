/**
 * Creates a Temporal schedule or brings a stored one back to the wanted spec, action and policies
 * (e.g. after a task-queue change), leaving an equal one alone: the one procedure behind the hourly
 * and daily schedules (hourly-schedule.ts, daily-schedule.ts). Safe to call from every worker at
 * every start.
 */
import { ScheduleAlreadyRunning, type ScheduleDescription, type ScheduleOptions } from '@temporalio/client';
import { getTemporalClient } from './client';

export interface ScheduleResult {
  id: string;
  outcome: 'created' | 'updated' | 'unchanged';
}

export type WantedSchedule = Required<Pick<ScheduleOptions, 'spec' | 'action' | 'policies'>>;

export async function ensureSchedule(id: string, w: WantedSchedule, matches: (d: ScheduleDescription) => boolean): Promise<ScheduleResult> {
  const client = await getTemporalClient();
  try {
    await client.schedule.create({ scheduleId: id, ...w });
    return { id, outcome: 'created' };
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
  const handle = client.schedule.getHandle(id);
  if (matches(await handle.describe())) return { id, outcome: 'unchanged' };
  // update() writes with a conflict token; a concurrent writer makes it fail, so retry once.
  const apply = () => handle.update((prev) => ({ ...prev, spec: w.spec, action: w.action, policies: { ...prev.policies, ...w.policies } }));
  await apply().catch(apply);
  return { id, outcome: 'updated' };
}
