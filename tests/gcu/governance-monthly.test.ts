import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getBasket } from '../../domain/baskets';
import { getPool, withTransaction } from '../../domain/db/pool';
import {
  checkComposition,
  ensureGovernanceSchedule,
  getProposal,
  GOVERNANCE_SCHEDULE_ID,
  insertProposal,
  periodOf,
} from '../../domain/governance';
import { getTemporalClient } from '../../domain/temporal/client';
import { createTestApp, type TestApp } from '../helpers/app';
import { startTestWorker, type TestWorker } from '../helpers/worker';
import { REWEIGHT } from './governance-helpers';

let t: TestApp;
let w: TestWorker;
const started: string[] = [];
beforeAll(async () => {
  t = await createTestApp();
  w = await startTestWorker();
});
afterAll(async () => {
  // The polls' workflows sleep for days on this run's server: end them with the file.
  const client = await getTemporalClient();
  for (const id of started) await client.workflow.getHandle(id).terminate('test over').catch(() => undefined);
  await client.schedule.getHandle(GOVERNANCE_SCHEDULE_ID).delete().catch(() => undefined);
  await w.stop();
  await t.close();
});

type MonthlyResult = { polls: Array<{ proposalId: string; environment: string; period: string | null; created: boolean }>; started: string[] };

describe('the monthly poll', () => {
  it('opens exactly one poll per environment and month, however often it runs, and starts pending proposals’ workflows', async () => {
    // An operator proposal whose creator never got to start its workflow.
    const basket = await getBasket('GCU', 'sandbox');
    const { proposal: orphan } = await withTransaction(async (c) =>
      insertProposal(c, {
        environment: 'sandbox', basket, source: 'operator', period: null, title: 'Orphan', description: null, components: await checkComposition(REWEIGHT, c),
        votingStartsAt: new Date(Date.now() + 86_400_000), votingEndsAt: new Date(Date.now() + 8 * 86_400_000), createdBy: t.user.userId,
      }),
    );
    const client = await getTemporalClient();
    const run = (n: number) =>
      client.workflow.execute('monthlyGovernanceWorkflow', { taskQueue: w.taskQueue, workflowId: `governance-monthly-test-${n}-${Date.now()}`, args: [] }) as Promise<MonthlyResult>;

    const first = await run(1);
    const period = periodOf(Date.now());
    expect(first.polls.map((p) => [p.environment, p.period, p.created])).toEqual([['sandbox', period, true], ['production', period, true]]);
    expect(first.started).toEqual(expect.arrayContaining([...first.polls.map((p) => p.proposalId), orphan.id]));
    started.push(...first.started.map((id) => `governance-proposal-${id}`));

    const second = await run(2);
    expect(second.polls.map((p) => [p.proposalId, p.created])).toEqual(first.polls.map((p) => [p.proposalId, false]));
    expect(second.started).toEqual([]);

    const { rows } = await getPool().query<{ environment: string; n: number }>(
      `SELECT environment, count(*)::int AS n FROM governance_proposals WHERE source = 'monthly' AND period = $1 GROUP BY environment ORDER BY environment`,
      [period],
    );
    expect(rows).toEqual([{ environment: 'production', n: 1 }, { environment: 'sandbox', n: 1 }]);

    // The poll proposes GCU's current target weights, voting for GOVERNANCE_VOTING_DAYS (7).
    const poll = await getProposal(first.polls[0].proposalId, 'sandbox');
    expect(poll).toMatchObject({ source: 'monthly', period, basketCode: 'GCU', title: `Rebalance GCU to its target weights (${period})` });
    expect(poll.components).toEqual(basket.components.map((c) => ({ assetCode: c.assetCode, weight: c.targetWeight })));
    expect(poll.votingEndsAt.getTime() - poll.votingStartsAt.getTime()).toBe(7 * 86_400_000);
    expect(poll.workflowStartedAt).not.toBeNull();
    expect((await getProposal(orphan.id, 'sandbox')).workflowStartedAt).not.toBeNull();

    // Its workflow runs (and opens it, since voting started when the poll was created).
    const handle = client.workflow.getHandle(poll.workflowId);
    expect((await handle.describe()).status.name).toBe('RUNNING');
    for (let i = 0; i < 100 && (await getProposal(poll.id, 'sandbox')).status !== 'active'; i++) await new Promise((r) => setTimeout(r, 50));
    expect((await getProposal(poll.id, 'sandbox')).status).toBe('active');
    expect((await handle.describe()).searchAttributes).toMatchObject({ OperationId: [poll.id], UserId: ['system'], Environment: ['sandbox'] });
  });
});

describe('the schedule', () => {
  it('is created once at 00:00 UTC on the 1st, left alone when right and corrected when changed', async () => {
    const client = await getTemporalClient();
    await client.schedule.getHandle(GOVERNANCE_SCHEDULE_ID).delete().catch(() => undefined);
    expect(await ensureGovernanceSchedule()).toEqual({ id: GOVERNANCE_SCHEDULE_ID, outcome: 'created' });
    expect((await ensureGovernanceSchedule()).outcome).toBe('unchanged');

    const handle = client.schedule.getHandle(GOVERNANCE_SCHEDULE_ID);
    const d = await handle.describe();
    expect(d.spec.calendars).toEqual([
      expect.objectContaining({ dayOfMonth: [{ start: 1, end: 1, step: 1 }], hour: [{ start: 0, end: 0, step: 1 }], minute: [{ start: 0, end: 0, step: 1 }] }),
    ]);
    expect(d.spec.timezone ?? 'UTC').toBe('UTC');
    expect(d.action).toMatchObject({ type: 'startWorkflow', workflowType: 'monthlyGovernanceWorkflow', taskQueue: w.taskQueue });
    // The next run is the 1st of a month at midnight UTC.
    const next = d.info.nextActionTimes[0];
    expect([next.getUTCDate(), next.getUTCHours(), next.getUTCMinutes(), next.getUTCSeconds()]).toEqual([1, 0, 0, 0]);

    await handle.update((prev) => ({ ...prev, action: { ...prev.action, taskQueue: 'somewhere-else' } as typeof prev.action }));
    expect((await ensureGovernanceSchedule()).outcome).toBe('updated');
    expect((await handle.describe()).action).toMatchObject({ taskQueue: w.taskQueue });
  });
});
