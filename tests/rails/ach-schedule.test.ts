import type { ScheduleDescription } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { achScheduleTimes, ensureAchSchedules, ensureAchSchedulesDetailed } from '../../domain/ach/schedule';
import { isBankingDay, zoned } from '../../domain/rails/calendar';
import { getTemporalClient } from '../../domain/temporal/client';
import { createTestApp, type TestApp } from '../helpers/app';
import { startTestWorker, type TestWorker } from '../helpers/worker';

// The real dev server of the run: schedules are a server feature the time-skipping server lacks.
let t: TestApp;
let w: TestWorker;
const IDS = ['ach-file-1030', 'ach-file-1445', 'ach-file-1645', 'ach-file-1700'];

beforeAll(async () => {
  t = await createTestApp();
  w = await startTestWorker(); // sets TEMPORAL_TASK_QUEUE to its own queue
});
afterAll(async () => {
  const client = await getTemporalClient();
  for (const id of IDS) await client.schedule.getHandle(id).delete().catch(() => undefined);
  await w.stop();
  await t.close();
});

const describeSchedule = async (id: string) => (await getTemporalClient()).schedule.getHandle(id).describe();

/** The parts of a schedule that matter: run time, zone, days, workflow, queue, arguments, overlap. */
function essence(d: ScheduleDescription) {
  const cal = d.spec.calendars![0];
  const a = d.action as Extract<ScheduleDescription['action'], { type: 'startWorkflow' }>;
  return {
    calendars: d.spec.calendars!.length,
    at: `${(cal.hour as Array<{ start: number }>)[0].start}:${String((cal.minute as Array<{ start: number }>)[0].start).padStart(2, '0')}`,
    timezone: d.spec.timezone,
    days: (cal.dayOfWeek as Array<{ start: string }>).map((x) => x.start),
    workflowType: a.workflowType,
    taskQueue: a.taskQueue,
    args: a.args,
    overlap: d.policies.overlap,
  };
}

const WEEKDAYS = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY'];

describe('ACH file schedules', () => {
  it('one schedule per ACH cut-off, 15 minutes before it, weekdays in New York time, running achFileWorkflow', async () => {
    expect(achScheduleTimes()).toEqual([
      { id: 'ach-file-1030', hour: 10, minute: 15 },
      { id: 'ach-file-1445', hour: 14, minute: 30 },
      { id: 'ach-file-1645', hour: 16, minute: 30 },
      { id: 'ach-file-1700', hour: 16, minute: 45 },
    ]);
    expect(await ensureAchSchedulesDetailed()).toEqual(IDS.map((id) => ({ id, outcome: 'created' })));
    const at = { 'ach-file-1030': '10:15', 'ach-file-1445': '14:30', 'ach-file-1645': '16:30', 'ach-file-1700': '16:45' } as Record<string, string>;
    for (const id of IDS) {
      expect(essence(await describeSchedule(id))).toEqual({
        calendars: 1,
        at: at[id],
        timezone: 'America/New_York',
        days: WEEKDAYS,
        workflowType: 'achFileWorkflow',
        taskQueue: w.taskQueue,
        args: [{ window: id }],
        overlap: 'SKIP',
      });
    }
  });

  it('is idempotent: a second call changes nothing; a drifted schedule or a new task queue is brought back', async () => {
    await ensureAchSchedules();
    const before = await Promise.all(IDS.map(describeSchedule));
    expect(await ensureAchSchedulesDetailed()).toEqual(IDS.map((id) => ({ id, outcome: 'unchanged' })));
    const after = await Promise.all(IDS.map(describeSchedule));
    expect(after.map(essence)).toEqual(before.map(essence));

    // Someone edits one schedule by hand (another time, another queue): the next start repairs only that one.
    const handle = (await getTemporalClient()).schedule.getHandle('ach-file-1445');
    await handle.update((prev) => ({
      ...prev,
      spec: { calendars: [{ hour: 9, minute: 0, dayOfWeek: ['SATURDAY'] }], timezone: 'UTC' },
      action: { ...(prev.action as Extract<typeof prev.action, { type: 'startWorkflow' }>), taskQueue: 'elsewhere' },
    }));
    expect(essence(await handle.describe())).toMatchObject({ at: '9:00', timezone: 'UTC', taskQueue: 'elsewhere' });
    expect(await ensureAchSchedulesDetailed()).toEqual(IDS.map((id) => ({ id, outcome: id === 'ach-file-1445' ? 'updated' : 'unchanged' })));
    expect(essence(await handle.describe())).toMatchObject({ at: '14:30', timezone: 'America/New_York', days: WEEKDAYS, taskQueue: w.taskQueue });

    // Workers moved to another task queue: every schedule follows.
    const saved = process.env.TEMPORAL_TASK_QUEUE;
    process.env.TEMPORAL_TASK_QUEUE = 'ach-moved-queue';
    try {
      expect(await ensureAchSchedulesDetailed()).toEqual(IDS.map((id) => ({ id, outcome: 'updated' })));
      for (const id of IDS) expect(essence(await describeSchedule(id)).taskQueue).toBe('ach-moved-queue');
    } finally {
      process.env.TEMPORAL_TASK_QUEUE = saved;
    }
    expect((await ensureAchSchedulesDetailed()).every((r) => r.outcome === 'updated')).toBe(true);
  });

  it('a triggered schedule runs achFileWorkflow on the worker (files only on Fed banking days)', async () => {
    const handle = (await getTemporalClient()).schedule.getHandle('ach-file-1700');
    const dayBefore = zoned(new Date(), 'America/New_York').date;
    await handle.trigger();
    let runId: string | undefined;
    let workflowId: string | undefined;
    for (let i = 0; i < 100 && !runId; i++) {
      const d = await handle.describe();
      const act = d.info.recentActions[0]?.action;
      if (act) ({ workflowId, firstExecutionRunId: runId } = act.workflow);
      else await new Promise((r) => setTimeout(r, 50));
    }
    expect(workflowId).toMatch(/^ach-file-1700-run/);
    const result = await (await getTemporalClient()).workflow.getHandle(workflowId!, runId).result();
    // No ACH payments in this database: nothing to file, in either environment; on a weekend or Fed holiday no run at all.
    const expected = (day: string) => (isBankingDay('us_fed', day) ? [{ environment: 'sandbox', file_id: null }, { environment: 'production', file_id: null }] : []);
    // (Either day's answer when the run straddles midnight in New York.)
    expect([expected(dayBefore), expected(zoned(new Date(), 'America/New_York').date)]).toContainEqual(result);
  });
});
