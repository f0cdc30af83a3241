/**
 * Temporal schedules that build and transmit the day's ACH file 15 minutes before each ACH
 * cut-off (FedACH same-day windows 10:30, 14:45, 16:45 ET and the 17:00 ET next-day file).
 * Call ensureAchSchedules() at start-up; it is idempotent.
 */
import { ScheduleAlreadyRunning, ScheduleOverlapPolicy } from '@temporalio/client';
import { loadConfig } from '../platform/config';
import { getTemporalClient } from '../temporal/client';
import { minutesOf, RAILS } from '../rails/calendar';

export const ACH_LEAD_MINUTES = 15;

export function achScheduleTimes(): Array<{ id: string; hour: number; minute: number }> {
  const cutoffs = [...RAILS.ach_same_day.windows!, ...RAILS.ach_standard.windows!].map((w) => w.cutoff);
  return [...new Set(cutoffs)].map((c) => {
    const m = minutesOf(c) - ACH_LEAD_MINUTES;
    return { id: `ach-file-${c.replace(':', '')}`, hour: Math.floor(m / 60), minute: m % 60 };
  });
}

export async function ensureAchSchedules(): Promise<string[]> {
  const client = await getTemporalClient();
  const ids: string[] = [];
  for (const t of achScheduleTimes()) {
    try {
      await client.schedule.create({
        scheduleId: t.id,
        spec: { calendars: [{ hour: t.hour, minute: t.minute, dayOfWeek: ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY'] }], timezone: 'America/New_York' },
        action: { type: 'startWorkflow', workflowType: 'achFileWorkflow', taskQueue: loadConfig().taskQueue, args: [{ window: t.id }], workflowId: `${t.id}-run` },
        policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '10 minutes' },
      });
    } catch (err) {
      if (!(err instanceof ScheduleAlreadyRunning)) throw err;
    }
    ids.push(t.id);
  }
  return ids;
}
