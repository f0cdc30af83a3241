import { randomBytes } from 'node:crypto';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getBasket, reserveTarget, valueBasket } from '../../domain/baskets';
import { getPool } from '../../domain/db/pool';
import { EVENT_CATALOG } from '../../domain/events/catalog';
import { activateProposal, closeProposal, decide, executeProposal } from '../../domain/governance';
import { DecimalMoney as D } from '../../domain/money/amount';
import { latestRates } from '../../domain/rates';
import { createTestApp, createTestUser, type TestApp, type TestUser } from '../helpers/app';
import { checkOutboxAgainstCatalog } from '../rails/events';
import { balance } from '../transfers/helpers';
import { expectReserveInvariant, internalBalance } from './helpers';
import { holdGcu, pause, propose, vote } from './governance-helpers';

let t: TestApp;
let operator: TestUser;
let small: TestUser;
let big: TestUser;
let bigAcct: string;
beforeAll(async () => {
  t = await createTestApp();
  // The proposals' workflows start on a queue nobody polls: this file drives each step itself
  // (the workflow runs them in tests/gcu/governance-workflow.test.ts).
  process.env.TEMPORAL_TASK_QUEUE = `unpolled-${randomBytes(4).toString('hex')}`;
  operator = await createTestUser({ admin: true });
  small = t.user;
  big = await createTestUser();
  await holdGcu(t, small.headers, '10');
  bigAcct = await holdGcu(t, big.headers, '200');
  await pause(20);
});
afterAll(async () => {
  await t.close();
});

/** Opens a proposal, lets the given votes be cast and closes it at its end (the workflow's steps, called directly). */
async function decided(votes: Array<[TestUser, 'for' | 'against' | 'abstain']>) {
  const p = await propose(t, operator.headers);
  await activateProposal(p.id, Date.now());
  for (const [who, choice] of votes) expect((await vote(t, who.headers, p.id, { vote: choice })).statusCode).toBe(200);
  return { id: p.id, closed: await closeProposal(p.id, new Date(p.voting_ends_at).getTime()) };
}

const rebalanceEntries = async () => (await getPool().query(`SELECT count(*)::int AS n FROM journal_entries WHERE type = 'basket_rebalance'`)).rows[0].n as number;

describe('the outcome rule', () => {
  it('quorum on all votes cast, threshold strictly exceeded by for / (for + against)', () => {
    expect(decide({ for: '5', against: '5', abstain: '0' }, '100', '0.1', '0.5')).toMatchObject({ status: 'defeated', outcome: 'threshold_not_met', quorumReached: true, approval: '0.5' });
    expect(decide({ for: '0', against: '0', abstain: '50' }, '100', '0.1', '0.5')).toMatchObject({ status: 'defeated', outcome: 'threshold_not_met', approval: null });
    expect(decide({ for: '10', against: '0', abstain: '0' }, '100', '0.1', '0.5')).toMatchObject({ status: 'succeeded', outcome: 'passed', participation: '0.1' });
    expect(decide({ for: '9.9999', against: '0', abstain: '0' }, '100', '0.1', '0.5')).toMatchObject({ status: 'defeated', outcome: 'quorum_not_met' });
    expect(decide({ for: '0', against: '0', abstain: '0' }, '0', '0.1', '0.5')).toMatchObject({ status: 'defeated', outcome: 'no_eligible_power', participation: null });
    expect(decide({ for: '3', against: '1', abstain: '6' }, '10', '1', '0.7')).toMatchObject({ status: 'succeeded', participation: '1', approval: '0.75' });
  });
});

describe('closing and executing', () => {
  it('below quorum the proposal is defeated and nothing changes', async () => {
    const before = await getBasket('GCU', 'sandbox');
    const entries = await rebalanceEntries();
    // 10 of 210 eligible units vote: participation 0.0476 < 0.1.
    const { id, closed } = await decided([[small, 'for']]);
    expect(closed).toMatchObject({ status: 'defeated', eligiblePower: '210', tallies: { for: '10', against: '0', abstain: '0' } });
    const read = (await t.app.inject({ method: 'GET', url: `/api/v2/gcu/voting/proposals/${id}`, headers: small.headers })).json().data;
    expect(read).toMatchObject({ status: 'defeated', quorum_reached: false, participation: '0.0476190476', my_vote: { vote: 'for', power: '10' } });
    await expect(executeProposal(id, { idempotencyKey: 'test:defeated' })).rejects.toMatchObject({ code: 'PROPOSAL_NOT_SUCCEEDED' });
    expect(await getBasket('GCU', 'sandbox')).toEqual(before);
    expect(await rebalanceEntries()).toBe(entries);
    const { rows } = await getPool().query(`SELECT data FROM platform_events WHERE type = 'governance.proposal.closed' AND aggregate_id = $1`, [id]);
    expect(rows[0].data).toMatchObject({ status: 'defeated', outcome: 'quorum_not_met', eligible_power: '210' });
  });

  it('a succeeded proposal is executed once: value unchanged at the transition rates, new weights hold, reserves exact', async () => {
    const before = await getBasket('GCU', 'sandbox');
    const rates = await latestRates();
    const valueBefore = valueBasket(before.components.map((c) => ({ assetCode: c.assetCode, amount: c.amount, rate: rates.get(c.assetCode)! }))).valueUsd;
    const { id, closed } = await decided([[big, 'for'], [small, 'against']]);
    expect(closed).toMatchObject({ status: 'succeeded', tallies: { for: '200', against: '10', abstain: '0' } });

    const done = await executeProposal(id, { idempotencyKey: 'test:execute-1' });
    expect(done).toMatchObject({ status: 'executed', revisionVersion: before.version + 1 });
    expect(done.executionEntryId).toMatch(/^je_/);

    const after = await getBasket('GCU', 'sandbox');
    expect(after.version).toBe(before.version + 1);
    expect(after.lastRebalancedAt).not.toBeNull();
    expect(after.outstanding).toBe(before.outstanding);
    expect(after.components.map((c) => [c.assetCode, c.targetWeight])).toEqual([['BTC', '0.1'], ['CHF', '0.1'], ['EUR', '0.3'], ['JPY', '0.1'], ['USD', '0.4']]);
    // The IMF method: at the transition rates the value is unchanged (amounts carry five significant
    // digits, so each equivalent is within 5e-5 relative) and each new weight holds.
    const valued = valueBasket(after.components.map((c) => ({ assetCode: c.assetCode, amount: c.amount, rate: rates.get(c.assetCode)! })));
    expect(new D(valued.valueUsd).minus(valueBefore).abs().div(valueBefore).lte('0.00005')).toBe(true);
    for (const c of valued.components) {
      const target = after.components.find((x) => x.assetCode === c.assetCode)!.targetWeight;
      expect(new D(c.weight).minus(target).abs().lt('0.0001'), `${c.assetCode} weight ${c.weight}`).toBe(true);
    }
    // USD 0.4 x value / 1 at five significant digits.
    expect(after.components.find((c) => c.assetCode === 'USD')!.amount).toBe(new D('0.4').times(valueBefore).toSignificantDigits(5).toFixed());

    // Every component's reserve holds exactly ceil(outstanding x new amount); dropped ones are empty.
    await expectReserveInvariant('sandbox');
    for (const gone of ['GBP', 'XAU']) expect(await internalBalance('sandbox', 'basket_reserve:GCU', gone)).toBe('0');
    const btcTarget = reserveTarget(after.outstanding, after.components.find((c) => c.assetCode === 'BTC')!.amount, 8);
    expect(new D(await internalBalance('sandbox', 'basket_rebalance:GCU', 'BTC')).eq(btcTarget)).toBe(true); // the desk supplied the BTC
    const gbpDesk = await internalBalance('sandbox', 'basket_rebalance:GCU', 'GBP');
    expect(new D(gbpDesk).negated().eq(reserveTarget(before.outstanding, before.components.find((c) => c.assetCode === 'GBP')!.amount, 2))).toBe(true); // and took the GBP (credited: a debit-normal account goes below zero)

    const revision = await getPool().query('SELECT version, proposal_id, entry_id, value_usd::text AS value FROM basket_revisions WHERE environment = $1 AND basket_code = $2 ORDER BY version DESC LIMIT 1', ['sandbox', 'GCU']);
    expect(revision.rows[0]).toMatchObject({ version: after.version, proposal_id: id, entry_id: done.executionEntryId });
    expect(new D(revision.rows[0].value).eq(valueBefore)).toBe(true);

    // basket.rebalanced validates against its catalog schema and says what happened.
    const { rows } = await getPool().query(`SELECT data FROM platform_events WHERE type = 'basket.rebalanced'`);
    expect(rows).toHaveLength(1);
    const ajv = new Ajv({ allErrors: true, strict: false });
    addFormats(ajv);
    const validate = ajv.compile(EVENT_CATALOG.find((e) => e.type === 'basket.rebalanced')!.data_schema);
    expect(validate(rows[0].data), ajv.errorsText(validate.errors)).toBe(true);
    expect(rows[0].data).toMatchObject({ basket_code: 'GCU', version: after.version, previous_version: before.version, proposal_id: id, entry_id: done.executionEntryId, value_usd: valueBefore });
    expect(rows[0].data.components.find((c: { asset_code: string }) => c.asset_code === 'XAU')).toMatchObject({ amount: '0', target_weight: '0', previous_amount: '0.000041509' });

    // Exactly once: the same step again gets the execution back; anything else is refused.
    const entries = await rebalanceEntries();
    expect((await executeProposal(id, { idempotencyKey: 'test:execute-1' })).revisionVersion).toBe(after.version);
    await expect(executeProposal(id, { idempotencyKey: 'test:execute-2' })).rejects.toMatchObject({ code: 'PROPOSAL_ALREADY_EXECUTED' });
    expect(await rebalanceEntries()).toBe(entries);
    expect((await getBasket('GCU', 'sandbox')).version).toBe(after.version);

    // Units keep working on the new composition: decomposing pays out BTC, no GBP.
    const d = await t.app.inject({ method: 'POST', url: `/api/v2/accounts/${bigAcct}/baskets/decompose`, headers: big.headers, payload: { basket_code: 'GCU', amount: '50' } });
    expect(d.statusCode, d.body).toBe(201);
    expect(d.json().data.components.map((c: { asset_code: string }) => c.asset_code)).toEqual(['BTC', 'CHF', 'EUR', 'JPY', 'USD']);
    expect(new D((await balance(t, big.headers, bigAcct, 'BTC')).total_balance).gt(0)).toBe(true);
    await expectReserveInvariant('sandbox');

    const checked = await checkOutboxAgainstCatalog(['governance', 'basket']);
    expect(checked.problems).toEqual([]);
    expect(checked.seen).toContain('governance.proposal.executed');
  });
  it('an operator executes a succeeded proposal its workflow could not, once; customers cannot; other states are refused', async () => {
    const { id, closed } = await decided([[big, 'for']]);
    expect(closed.status).toBe('succeeded');
    const url = `/api/v2/gcu/voting/proposals/${id}/execute`;
    expect((await t.app.inject({ method: 'POST', url, headers: big.headers })).statusCode).toBe(403);
    const first = await t.app.inject({ method: 'POST', url, headers: operator.headers });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json().data.status).toBe('executed');
    const again = await t.app.inject({ method: 'POST', url, headers: operator.headers });
    expect(again.json().data).toMatchObject({ status: 'executed', revision_version: first.json().data.revision_version });
    // The workflow's own step comes too late: executed exactly once.
    await expect(executeProposal(id, { idempotencyKey: 'workflow-step' })).rejects.toMatchObject({ code: 'PROPOSAL_ALREADY_EXECUTED' });
    const defeated = await decided([[small, 'for']]);
    const r = await t.app.inject({ method: 'POST', url: `/api/v2/gcu/voting/proposals/${defeated.id}/execute`, headers: operator.headers });
    expect(r.statusCode).toBe(422);
    expect(r.json().errors[0].code).toBe('PROPOSAL_NOT_SUCCEEDED');
    await expectReserveInvariant('sandbox');
  });
});
