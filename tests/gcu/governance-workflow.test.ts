import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../domain/auth/principal';
import { getBasket } from '../../domain/baskets';
import { getPool, withTransaction } from '../../domain/db/pool';
import { cancelProposal, castVote, checkComposition, getProposal, insertProposal, proposalSearchAttributes, type Proposal } from '../../domain/governance';
import { createTestApp, type TestApp } from '../helpers/app';
import { startTimeSkipping, type TimeSkippingEnv } from '../helpers/time-skipping';
import { expectReserveInvariant } from './helpers';
import { holdGcu, pause, REWEIGHT } from './governance-helpers';

const DAY = 24 * 3600 * 1000;
const operator = (): Principal => ({
  userId: t.user.userId, email: t.user.email, isAdmin: true, environment: 'sandbox', permissions: ['read', 'write', 'delete'], credentialId: 'test', kind: 'api_key', rateLimitPerMinute: null,
});
let t: TestApp;
let ts: TimeSkippingEnv;
beforeAll(async () => {
  t = await createTestApp();
  ts = await startTimeSkipping();
  await holdGcu(t, t.headers, '10');
  await pause(20);
});
afterAll(async () => {
  await ts?.stop();
  await t?.close();
});

/** An operator proposal written directly, opening `inMs` from now for `days` (its workflow is started by the test, on the time-skipping server). */
async function proposal(inMs: number, days: number): Promise<Proposal> {
  const basket = await getBasket('GCU', 'sandbox');
  const components = await checkComposition(REWEIGHT);
  const startsAt = new Date(Date.now() + inMs);
  const { proposal: p } = await withTransaction((c) =>
    insertProposal(c, {
      environment: 'sandbox', basket, source: 'operator', period: null, title: 'Reweight GCU', description: null, components,
      votingStartsAt: startsAt, votingEndsAt: new Date(startsAt.getTime() + days * DAY), createdBy: t.user.userId,
    }),
  );
  return p;
}

function start(p: Proposal) {
  return ts.env.client.workflow.start('governanceProposalWorkflow', {
    taskQueue: ts.taskQueue,
    workflowId: p.workflowId,
    args: [{ proposalId: p.id }],
    typedSearchAttributes: proposalSearchAttributes({ proposalId: p.id, basketCode: p.basketCode, environment: p.environment, createdBy: p.createdBy, status: p.status }),
  });
}

async function until(id: string, status: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const p = await getProposal(id, 'sandbox');
    if (p.status === status) return p;
    if (Date.now() > deadline) throw new Error(`proposal ${id} still ${p.status}`);
    await pause(50);
  }
}

describe('the proposal workflow on the time-skipping server', () => {
  it('goes pending → active → succeeded → executed across a 30-day window in seconds', async () => {
    const p = await proposal(1500, 30);
    const versionBefore = (await getBasket('GCU', 'sandbox')).version;
    const startedAt = Date.now();
    const handle = await start(p);
    expect((await getProposal(p.id, 'sandbox')).status).toBe('pending');
    // Nobody awaits the result yet, so the server's clock runs at normal speed: the poll opens at its time.
    const active = await until(p.id, 'active');
    expect(active.eligiblePower).toBe('10');
    const cast = await castVote({ userId: t.user.userId, environment: 'sandbox', proposalId: p.id, vote: 'for' });
    expect(cast.power).toBe('10');

    // Awaiting the result lets the server skip the 30 days of voting.
    const result = await handle.result();
    expect(result).toEqual({ status: 'executed', version: versionBefore + 1 });
    expect(Date.now() - startedAt).toBeLessThan(30_000);
    expect((await ts.env.currentTimeMs()) - startedAt).toBeGreaterThanOrEqual(30 * DAY);

    const done = await getProposal(p.id, 'sandbox');
    expect(done).toMatchObject({ status: 'executed', revisionVersion: versionBefore + 1, tallies: { for: '10', against: '0', abstain: '0' } });
    expect(done.openedAt).not.toBeNull();
    expect(done.closedAt).not.toBeNull();
    expect(done.executionKey).toBe(`wf:${p.workflowId}:execute`);
    expect((await getBasket('GCU', 'sandbox')).version).toBe(versionBefore + 1);
    await expectReserveInvariant('sandbox');
    const events = await getPool().query<{ type: string }>(`SELECT type FROM platform_events WHERE aggregate_id IN ($1, 'GCU') AND type LIKE ANY (ARRAY['governance.%', 'basket.rebalanced']) ORDER BY occurred_at`, [p.id]);
    expect(events.rows.map((r) => r.type)).toEqual([
      'governance.proposal.created', 'governance.proposal.opened', 'governance.vote.cast', 'governance.proposal.closed', 'basket.rebalanced', 'governance.proposal.executed',
    ]);
    // The workflow's search attributes follow the proposal.
    const described = await handle.describe();
    expect(described.searchAttributes).toMatchObject({ OperationId: [p.id], BusinessStatus: ['executed'], AssetCode: ['GCU'] });
  });

  it('a proposal nobody votes on is defeated and changes nothing', async () => {
    const p = await proposal(0, 7);
    const before = await getBasket('GCU', 'sandbox');
    expect(await (await start(p)).result()).toEqual({ status: 'defeated' });
    expect(await getProposal(p.id, 'sandbox')).toMatchObject({ status: 'defeated', voterCount: 0 });
    expect(await getBasket('GCU', 'sandbox')).toEqual(before);
  });

  it('a proposal canceled while pending stops its workflow, by signal or when the next step sees it', async () => {
    for (const signal of [true, false]) {
      const p = await proposal(3_600_000, 7);
      const handle = await start(p);
      // The operator's cancel (its own signal goes to the platform's server, where this workflow is not: ignored).
      await cancelProposal(operator(), p.id, 'test');
      // The workflow may already have seen the status and finished: a signal to it then finds nothing.
      if (signal) await handle.signal('cancel').catch((err: Error) => expect(err.name).toBe('WorkflowNotFoundError'));
      expect(await handle.result()).toEqual({ status: 'canceled' });
      expect((await getProposal(p.id, 'sandbox')).status).toBe('canceled');
    }
  });
});
