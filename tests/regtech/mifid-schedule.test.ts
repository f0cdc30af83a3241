import type { ScheduleDescription } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureMifidDeadlineSchedule, MIFID_DEADLINE_SCHEDULE_ID } from '../../domain/regtech/mifid';
import { getTemporalClient } from '../../domain/temporal/client';
import { createTestApp, type TestApp } from '../helpers/app';
import { startTestWorker, type TestWorker } from '../helpers/worker';

const HOUR = 3_600_000;
let t: TestApp;
let w: TestWorker;
beforeAll(async () => {
  t = await createTestApp();
  w = await startTestWorker();
  // One schedule per Temporal server, and the run shares one: start from none.
  await (await getTemporalClient()).schedule.getHandle(MIFID_DEADLINE_SCHEDULE_ID).delete().catch(() => undefined);
}, 120_000);
afterAll(async () => {
  await w?.stop();
  await t?.close();
});

function essence(d: ScheduleDescription) {
  const cal = d.spec.calendars ?? [];
  const a = d.action as Extract<ScheduleDescription['action'], { type: 'startWorkflow' }>;
  return {
    ...{ calendars: cal.length, hour: cal[0]?.hour, minute: cal[0]?.minute, second: cal[0]?.second, timezone: d.spec.timezone ?? 'UTC' },
    ...{ workflowType: a.workflowType, taskQueue: a.taskQueue, args: a.args, overlap: d.policies.overlap, catchupWindowMs: d.policies.catchupWindow },
  };
}

describe('the hourly MiFID II deadline schedule', () => {
  it('refuses to be set up with a malformed LEI setting', async () => {
    process.env.MIFID_FIRM_LEI = 'SANDBOXMIFIDFIRM0000';
    try {
      await expect(ensureMifidDeadlineSchedule()).rejects.toMatchObject({ code: 'MIFID_SETTINGS_INVALID' });
    } finally {
      delete process.env.MIFID_FIRM_LEI;
    }
  });

  it('is created at minute 0 of every UTC hour, kept when equal, repaired when edited, and its runs check the scheduled instant', async () => {
    const client = await getTemporalClient();
    const handle = client.schedule.getHandle(MIFID_DEADLINE_SCHEDULE_ID);
    try {
      expect(await ensureMifidDeadlineSchedule()).toEqual({ id: 'mifid-deadline-hourly', outcome: 'created' });
      const wanted = {
        ...{ calendars: 1, hour: [{ start: 0, end: 23, step: 1 }], minute: [{ start: 0, end: 0, step: 1 }], second: [{ start: 0, end: 0, step: 1 }], timezone: 'UTC' },
        ...{ workflowType: 'mifidDeadlineWorkflow', taskQueue: w.taskQueue, args: [], overlap: 'SKIP', catchupWindowMs: HOUR },
      };
      expect(essence(await handle.describe())).toEqual(wanted);
      const next = (await handle.describe()).info.nextActionTimes.slice(0, 2).map((d) => d.getTime());
      expect(next.every((ms) => ms % HOUR === 0)).toBe(true);
      expect(next[1] - next[0]).toBe(HOUR);

      expect(await ensureMifidDeadlineSchedule()).toEqual({ id: 'mifid-deadline-hourly', outcome: 'unchanged' });
      await handle.update((prev) => ({ ...prev, spec: { calendars: [{ hour: 3, minute: 30 }], timezone: 'Europe/Paris' }, action: { ...(prev.action as Extract<typeof prev.action, { type: 'startWorkflow' }>), taskQueue: 'elsewhere' } }));
      expect(await ensureMifidDeadlineSchedule()).toEqual({ id: 'mifid-deadline-hourly', outcome: 'updated' });
      expect(essence(await handle.describe())).toEqual(wanted);

      // A run the schedule starts judges the instant it was scheduled for.
      const before = Date.now();
      await handle.trigger();
      let run: { workflowId: string; firstExecutionRunId: string } | undefined;
      for (let i = 0; i < 200 && !run; i++) {
        run = (await handle.describe()).info.recentActions[0]?.action.workflow;
        if (!run) await new Promise((r) => setTimeout(r, 50));
      }
      expect(run!.workflowId).toMatch(/^mifid-deadline-hourly-run/);
      const result = await client.workflow.getHandle(run!.workflowId, run!.firstExecutionRunId).result();
      expect(new Date(result.checkedAt).getTime()).toBeGreaterThanOrEqual(before - 1000);
      expect(new Date(result.checkedAt).getTime()).toBeLessThanOrEqual(Date.now());
      expect(result.flagged).toEqual([]);
    } finally {
      await handle.delete().catch(() => undefined);
    }
  });
});
