import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPool } from '../../domain/db/pool';
import { activateProposal, closeProposal } from '../../domain/governance';
import { DecimalMoney as D } from '../../domain/money/amount';
import { createTestApp, createTestUser, type TestApp, type TestUser } from '../helpers/app';
import { startTestWorker, type TestWorker } from '../helpers/worker';
import { checkOutboxAgainstCatalog } from '../rails/events';
import { balance, openFundedAccount } from '../transfers/helpers';
import { holdGcu, pause, propose, REWEIGHT, vote } from './governance-helpers';
import { tenantCustomers } from '../helpers/tenants';

let t: TestApp;
let w: TestWorker;
let operator: TestUser;
beforeAll(async () => {
  t = await createTestApp();
  w = await startTestWorker();
  operator = await createTestUser({ admin: true });
});
afterAll(async () => {
  await w.stop();
  await t.close();
});

const get = (id: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url: `/api/v2/gcu/voting/proposals/${id}`, headers });
const votesOn = async (id: string) => (await getPool().query('SELECT count(*)::int AS n FROM governance_votes WHERE proposal_id = $1', [id])).rows[0].n as number;
const castEvents = async (id: string) =>
  (await getPool().query(`SELECT count(*)::int AS n FROM platform_events WHERE type = 'governance.vote.cast' AND aggregate_id = $1`, [id])).rows[0].n as number;

/** A proposal that is active now (opened directly, as its workflow does at voting_starts_at). */
async function activeProposal(body: Record<string, unknown> = {}) {
  const p = await propose(t, operator.headers, body);
  await activateProposal(p.id, Date.now());
  return p;
}

describe('voting power is the balance at the snapshot', () => {
  it('units moved away after the snapshot keep their power for the sender and give the receiver none', async () => {
    const alice = t.user;
    const bob = await createTestUser();
    const carol = await createTestUser();
    const aliceAcct = await holdGcu(t, alice.headers, '10');
    const bobAcct = await openFundedAccount(t, bob.headers, '0');
    await pause(20);
    const p = await propose(t, operator.headers);
    expect(['pending', 'active']).toContain(p.status);
    expect(p.snapshot_at).toBe(p.voting_starts_at);
    await pause(20);
    // After the snapshot: Alice gives Bob 4 GCU, Carol composes 3 of her own.
    const moved = await t.app.inject({
      method: 'POST', url: '/api/v2/transfers', headers: alice.headers,
      payload: { from_account: aliceAcct, to_account: bobAcct, amount: '4.0000', asset_code: 'GCU', workflow_enabled: false },
    });
    expect(moved.statusCode, moved.body).toBe(201);
    await holdGcu(t, carol.headers, '3');
    // Alice is left with 6 less the transfer fee; her power stays 10.
    expect(new D((await balance(t, alice.headers, aliceAcct, 'GCU')).total_balance).lte(6)).toBe(true);
    expect((await balance(t, bob.headers, bobAcct, 'GCU')).total_balance).toBe('4.0000');
    await activateProposal(p.id, Date.now());

    const a = await vote(t, alice.headers, p.id, { vote: 'for' });
    expect(a.statusCode, a.body).toBe(200);
    expect(a.json().data).toMatchObject({ proposal_id: p.id, vote: 'for', previous_vote: null, power: '10', proposal_status: 'active' });
    expect(a.json().data.tallies).toMatchObject({ for: '10', against: '0', abstain: '0', voters: 1 });

    for (const who of [bob, carol]) {
      const r = await vote(t, who.headers, p.id, { vote: 'against' });
      expect(r.statusCode).toBe(422);
      expect(r.json().errors[0]).toMatchObject({ code: 'NO_VOTING_POWER' });
    }
    expect(await votesOn(p.id)).toBe(1);
    expect(await castEvents(p.id)).toBe(1);

    const mine = (await get(p.id, alice.headers)).json().data;
    expect(mine).toMatchObject({ status: 'active', my_vote: { vote: 'for', power: '10' }, my_power: '10', eligible_power: '10' });
    const bobs = (await get(p.id, bob.headers)).json().data;
    expect(bobs).toMatchObject({ my_vote: null, my_power: '0' });
    // 10 of 10 eligible units voted: participation 1; the anonymous reader sees no caller fields.
    expect(mine).toMatchObject({ participation: '1', approval: '1', quorum_reached: true, quorum: '0.1', threshold: '0.5' });
  });
});

describe('votes', () => {
  it('a holder may change their vote while active: the latest counts, the power stays; both forms share the code', async () => {
    const dave = await createTestUser();
    await holdGcu(t, dave.headers, '2.5');
    await pause(20);
    const p = await activeProposal();
    const first = await vote(t, dave.headers, p.id, { vote: 'for' });
    expect(first.json().data).toMatchObject({ vote: 'for', power: '2.5' });
    const changed = await vote(t, dave.headers, p.id, { vote: 'against' }, 'poll');
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json().data).toMatchObject({ vote: 'against', previous_vote: 'for', power: '2.5' });
    expect(changed.json().data.tallies).toMatchObject({ for: '0', against: '2.5', abstain: '0', voters: 1 });
    const same = await vote(t, dave.headers, p.id, { vote: 'against' });
    expect(same.json().data.tallies).toMatchObject({ against: '2.5', voters: 1 });
    expect(await votesOn(p.id)).toBe(1);
    expect(await castEvents(p.id)).toBe(2);

    const mine = await t.app.inject({ method: 'GET', url: '/api/v2/gcu/voting/my-votes?per_page=1', headers: dave.headers });
    expect(mine.statusCode).toBe(200);
    expect(mine.json().data).toEqual([expect.objectContaining({ proposal_id: p.id, vote: 'against', power: '2.5', proposal_status: 'active' })]);
    expect(mine.json().meta).toMatchObject({ total: 1, per_page: 1, current_page: 1 });
    expect((await t.app.inject({ method: 'GET', url: '/api/v2/gcu/voting/my-votes' })).statusCode).toBe(401);
  });

  it('bad vote values, unknown ids, other environments and closed, pending or canceled proposals are refused and write nothing', async () => {
    const erin = await createTestUser();
    await holdGcu(t, erin.headers, '1');
    await pause(20);
    const p = await activeProposal();
    for (const body of [{ vote: 'yes' }, { vote: 'FOR' }, { vote: 1 }, {}, { vote: 'for', extra: true }]) {
      const r = await vote(t, erin.headers, p.id, body);
      expect(r.statusCode, JSON.stringify(body)).toBe(422);
      expect(r.json().errors[0].code).toBe('VALIDATION_ERROR');
    }
    for (const id of ['gprop_00000000000000000000000000000000', 'nope']) {
      const r = await vote(t, erin.headers, id, { vote: 'for' });
      expect(r.statusCode).toBe(404);
      expect(r.json().errors[0].code).toBe('PROPOSAL_NOT_FOUND');
      expect((await get(id)).statusCode).toBe(404);
    }
    // A production key sees no sandbox proposal, to read or to vote on.
    const prod = await createTestUser({ environment: 'production' });
    expect((await vote(t, prod.headers, p.id, { vote: 'for' })).statusCode).toBe(404);
    expect((await get(p.id, prod.headers)).statusCode).toBe(404);
    expect((await get(p.id)).statusCode).toBe(404); // anonymous reads are production's
    expect((await vote(t, {}, p.id, { vote: 'for' })).statusCode).toBe(401);

    const upcoming = await propose(t, operator.headers, { voting_starts_at: new Date(Date.now() + 3_600_000).toISOString() });
    const early = await vote(t, erin.headers, upcoming.id, { vote: 'for' });
    expect(early.statusCode).toBe(422);
    expect(early.json().errors[0]).toMatchObject({ code: 'PROPOSAL_NOT_ACTIVE', detail: expect.stringMatching(/pending/) });

    const closed = await activeProposal();
    await closeProposal(closed.id, new Date(closed.voting_ends_at).getTime());
    const late = await vote(t, erin.headers, closed.id, { vote: 'for' });
    expect(late.statusCode).toBe(422);
    expect(late.json().errors[0].code).toBe('PROPOSAL_NOT_ACTIVE');

    const canceled = await activeProposal();
    const c = await t.app.inject({ method: 'POST', url: `/api/v2/gcu/voting/proposals/${canceled.id}/cancel`, headers: operator.headers, payload: { reason: 'superseded' } });
    expect(c.statusCode, c.body).toBe(200);
    expect(c.json().data).toMatchObject({ status: 'canceled', cancel_reason: 'superseded' });
    expect((await vote(t, erin.headers, canceled.id, { vote: 'for' })).json().errors[0].code).toBe('PROPOSAL_NOT_ACTIVE');
    const again = await t.app.inject({ method: 'POST', url: `/api/v2/gcu/voting/proposals/${canceled.id}/cancel`, headers: operator.headers, payload: {} });
    expect(again.statusCode).toBe(422);
    expect(again.json().errors[0].code).toBe('PROPOSAL_NOT_CANCELABLE');

    // A body is optional; an upcoming proposal can be canceled too.
    const bare = await t.app.inject({ method: 'POST', url: `/api/v2/gcu/voting/proposals/${upcoming.id}/cancel`, headers: operator.headers });
    expect(bare.statusCode, bare.body).toBe(200);
    expect(bare.json().data).toMatchObject({ status: 'canceled', cancel_reason: null });

    for (const id of [p.id, upcoming.id, closed.id, canceled.id]) expect(await votesOn(id)).toBe(0);
    expect((await getPool().query(`SELECT count(*)::int AS n FROM platform_events WHERE type = 'governance.vote.cast' AND user_id = $1`, [erin.userId])).rows[0].n).toBe(0);
  });
});

describe('tenant isolation (issue 41)', () => {
  it("a proposal is the environment's, a vote its voter's: another customer of the tenant and a customer of another tenant see only their own vote and power, and cannot change A's", async () => {
    const { a, b, c } = await tenantCustomers(t.user.userId);
    await holdGcu(t, a.headers, '1.5');
    await pause(20);
    const p = await activeProposal();
    expect((await vote(t, a.headers, p.id, { vote: 'for' })).statusCode).toBe(200);
    const row = async () => (await getPool().query('SELECT user_id, vote, power::text, cast_at, updated_at FROM governance_votes WHERE proposal_id = $1', [p.id])).rows;
    const before = await row();
    const tallies = (await get(p.id, a.headers)).json().data;
    for (const u of [b, c]) {
      const seen = await get(p.id, u.headers);
      expect(seen.statusCode).toBe(200);
      expect(seen.json().data).toMatchObject({ my_vote: null, my_power: '0' });
      expect(seen.body).not.toContain(a.userId);
      const mine = await t.app.inject({ method: 'GET', url: '/api/v2/gcu/voting/my-votes', headers: u.headers });
      expect(mine.json()).toMatchObject({ data: [], meta: { total: 0 } });
      // Their vote is theirs (no power here), in either form; A's stays as cast.
      for (const form of ['proposal', 'poll'] as const) {
        const r = await vote(t, u.headers, p.id, { vote: 'against' }, form);
        expect([r.statusCode, r.json().errors[0].code]).toEqual([422, 'NO_VOTING_POWER']);
      }
    }
    expect(await row()).toEqual(before);
    const after = (await get(p.id, a.headers)).json().data;
    expect(after).toMatchObject({ my_vote: { vote: 'for', power: '1.5' } });
    expect(after.tallies).toEqual(tallies.tallies);
  });
});

describe('proposals', () => {
  it('lists active, upcoming and past proposals of the caller’s environment, paginated', async () => {
    const upcoming = await propose(t, operator.headers, { voting_starts_at: new Date(Date.now() + 86_400_000).toISOString() });
    const active = await activeProposal();
    const list = async (q: string, headers = t.headers) => {
      const r = await t.app.inject({ method: 'GET', url: `/api/v2/gcu/voting/proposals${q}`, headers });
      expect(r.statusCode, r.body).toBe(200);
      return r.json();
    };
    const ids = (body: { data: Array<{ id: string; status: string }> }) => body.data.map((x) => x.id);
    expect(ids(await list('?status=upcoming&per_page=100'))).toContain(upcoming.id);
    expect((await list('?status=upcoming&per_page=100')).data.every((x: { status: string }) => x.status === 'pending')).toBe(true);
    expect(ids(await list('?status=active&per_page=100'))).toContain(active.id);
    expect(ids(await list('?status=active&per_page=100'))).not.toContain(upcoming.id);
    const past = await list('?status=past&per_page=100');
    expect(past.data.every((x: { status: string }) => ['defeated', 'succeeded', 'executed', 'canceled'].includes(x.status))).toBe(true);
    const all = await list('?per_page=2');
    expect(all.data).toHaveLength(2);
    expect(all.meta.total).toBeGreaterThanOrEqual(4);
    expect(all.links.next).toMatch(/page=2/);
    // Anonymous: production, which has no proposals here.
    const anon = await list('', {});
    expect(anon.data).toEqual([]);
    const bad = await t.app.inject({ method: 'GET', url: '/api/v2/gcu/voting/proposals?status=finished' });
    expect(bad.statusCode).toBe(422);
  });

  it('only operators propose and cancel; compositions are checked; the proposal carries the settings of now', async () => {
    const customer = await t.app.inject({ method: 'POST', url: '/api/v2/gcu/voting/proposals', headers: t.headers, payload: { title: 'x', components: REWEIGHT } });
    expect(customer.statusCode).toBe(403);
    expect(customer.json().errors[0].code).toBe('ADMIN_REQUIRED');
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ components: [{ asset_code: 'USD', weight: '0.5' }, { asset_code: 'EUR', weight: '0.4' }] }, 'WEIGHTS_INVALID'],
      [{ components: [{ asset_code: 'USD', weight: '0.5' }, { asset_code: 'NOPE', weight: '0.5' }] }, 'UNKNOWN_ASSET'],
      [{ components: [{ asset_code: 'USD', weight: '0.5' }, { asset_code: 'usd', weight: '0.5' }] }, 'DUPLICATE_COMPONENT'],
      [{ components: [{ asset_code: 'USD', weight: '0.5' }, { asset_code: 'GCU', weight: '0.5' }] }, 'INVALID_COMPONENT'],
      [{ components: [{ asset_code: 'USD', weight: '1' }, { asset_code: 'EUR', weight: '0' }] }, 'WEIGHTS_INVALID'],
      [{ voting_starts_at: '2020-01-01T00:00:00Z' }, 'VOTING_START_IN_PAST'],
      [{ voting_ends_at: new Date(Date.now() - 1000).toISOString() }, 'VOTING_WINDOW_INVALID'],
      [{ basket_code: 'NOPE' }, 'BASKET_NOT_FOUND'],
    ];
    const before = (await getPool().query('SELECT count(*)::int AS n FROM governance_proposals')).rows[0].n;
    for (const [body, code] of cases) {
      const r = await t.app.inject({ method: 'POST', url: '/api/v2/gcu/voting/proposals', headers: operator.headers, payload: { title: 'x', components: REWEIGHT, ...body } });
      expect(r.statusCode, JSON.stringify(body)).toBeGreaterThanOrEqual(400);
      expect(r.statusCode).toBeLessThan(500);
      expect(r.json().errors[0].code, JSON.stringify(body)).toBe(code);
    }
    expect((await getPool().query('SELECT count(*)::int AS n FROM governance_proposals')).rows[0].n).toBe(before);

    process.env.GOVERNANCE_QUORUM = '0.25';
    process.env.GOVERNANCE_VOTING_DAYS = '3';
    try {
      const p = await propose(t, operator.headers);
      expect(p).toMatchObject({ quorum: '0.25', threshold: '0.5', source: 'operator', period: null, basket_code: 'GCU', environment: 'sandbox' });
      expect(new Date(p.voting_ends_at).getTime() - new Date(p.voting_starts_at).getTime()).toBe(3 * 86_400_000);
      expect(p.workflow_id).toBe(`governance-proposal-${p.id}`);
      const started = await getPool().query('SELECT workflow_started_at FROM governance_proposals WHERE id = $1', [p.id]);
      expect(started.rows[0].workflow_started_at).not.toBeNull();
    } finally {
      delete process.env.GOVERNANCE_QUORUM;
      delete process.env.GOVERNANCE_VOTING_DAYS;
    }
  });

  it('every governance event written validates against the catalog', async () => {
    const { problems, seen } = await checkOutboxAgainstCatalog(['governance']);
    expect(problems).toEqual([]);
    for (const type of ['governance.proposal.created', 'governance.proposal.opened', 'governance.proposal.closed', 'governance.proposal.canceled', 'governance.vote.cast']) {
      expect(seen).toContain(type);
    }
  });
});
