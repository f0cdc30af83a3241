/**
 * Baskets, GCU and governance over GraphQL (api/graphql/areas/gcu.ts) against the REST routes on
 * the same app: compose and decompose through GraphQL move the balances REST shows; basket, GCU
 * and proposal reads equal REST's (guests included: public reads are production's); a vote cast
 * through GraphQL is the caller's vote REST shows; a buy started through GraphQL is the buy REST
 * reads; refusals, another user's buy, operator-only and read-only keys answer as REST does.
 * Workflows start on a task queue no worker polls (proposals are opened directly, as their
 * workflow would at voting_starts_at).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activateProposal } from '../../domain/governance';
import { closeTemporal } from '../../domain/temporal/client';
import { createTestApp, createTestUser, type TestApp, type TestUser } from '../helpers/app';
import { holdGcu, pause, propose } from '../gcu/governance-helpers';
import { fundComponents, gcuFunding } from '../gcu/helpers';
import { openFundedAccount } from '../transfers/helpers';
import { gql, gqlOk, gqlRefused } from './helpers';

let t: TestApp;
let operator: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  process.env.TEMPORAL_TASK_QUEUE = `gql-gcu-${randomBytes(4).toString('hex')}`;
  await closeTemporal();
  operator = await createTestUser({ admin: true });
});
afterAll(async () => t?.close());

const rest = (method: 'GET' | 'POST', url: string, payload?: object, headers: Record<string, string> = t.headers) =>
  t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });

/** REST's snake_case keys as GraphQL spells them (a test-side copy, independent of the module's). */
function camel(v: unknown): any {
  if (Array.isArray(v)) return v.map(camel);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase()), camel(x)]));
}

async function balances(account: string): Promise<Record<string, string>> {
  const r = await rest('GET', `/api/v2/accounts/${account}/balances`);
  return Object.fromEntries(r.json().data.balances.map((b: { asset_code: string; total_balance: string }) => [b.asset_code, b.total_balance]));
}

const BASKET_FIELDS = `code name description type isPrimary precision environment version rebalanceFrequency lastRebalancedAt outstandingUnits valueUsd
  components { assetCode amount targetWeight currentWeight usdEquivalent } createdAt`;
const OPERATION = (kind: 'compose' | 'decompose') => `mutation($a: ID!, $amount: Decimal!) { ${kind}Basket(accountId: $a, basketCode: "GCU", amount: $amount) {
  id type accountUuid basketCode amount version components { assetCode amount } entryId createdAt } }`;
const PROPOSAL_FIELDS = `id basketCode environment source period title description status proposedComponents { assetCode weight } votingStartsAt votingEndsAt
  snapshotAt eligiblePower quorum threshold tallies { for against abstain total voters } participation approval quorumReached
  myVote { vote power castAt updatedAt } myPower workflowId executedAt revisionVersion executionEntryId createdBy createdAt openedAt closedAt canceledAt cancelReason`;
const VOTE = `mutation($id: ID!, $vote: String!) { castGovernanceVote(proposalId: $id, vote: $vote) {
  proposalId basketCode vote previousVote power castAt updatedAt proposalStatus tallies { for against abstain total voters } } }`;

describe('baskets and GCU over GraphQL', () => {
  it('composes and decomposes through the domain: REST shows the balances moved', async () => {
    const acct = await openFundedAccount(t, t.headers, '0');
    await fundComponents(t, t.headers, acct, gcuFunding(5));
    const before = await balances(acct);
    const op = (await gqlOk(t, OPERATION('compose'), { a: acct, amount: '5' })).composeBasket;
    expect(op).toMatchObject({ type: 'compose', accountUuid: acct, basketCode: 'GCU', amount: '5.0000' });
    const after = await balances(acct);
    expect(after.GCU).toBe('5.0000');
    for (const c of op.components) expect(Number(before[c.assetCode]) - Number(after[c.assetCode])).toBeCloseTo(Number(c.amount), 8);

    const back = (await gqlOk(t, OPERATION('decompose'), { a: acct, amount: '2' })).decomposeBasket;
    expect(back).toMatchObject({ type: 'decompose', amount: '2.0000' });
    expect((await balances(acct)).GCU).toBe('3.0000');
  });

  it('basket and GCU reads equal REST, for a key (its environment) and for a guest (production)', async () => {
    const one = (await gqlOk(t, `{ basket(code: "GCU") { ${BASKET_FIELDS} } }`)).basket;
    expect(one).toEqual(camel((await rest('GET', '/api/v2/baskets/GCU')).json().data));
    expect(one.environment).toBe('sandbox');

    const guest = await gql(t, `{ baskets { data { ${BASKET_FIELDS} } paginatorInfo { total } } }`, undefined, {});
    expect(guest.errors).toBeUndefined();
    const restGuest = (await rest('GET', '/api/v2/baskets', undefined, {})).json().data;
    expect(guest.data.baskets.data).toEqual(camel(restGuest));
    expect(guest.data.baskets.data[0].environment).toBe('production');

    const info = (await gqlOk(t, `{ gcu { code name description environment precision version valueUsd unitsPerUsd outstandingUnits componentCount rebalanceFrequency lastValuationAt lastUpdated } }`)).gcu;
    expect(info).toEqual(camel((await rest('GET', '/api/v2/gcu')).json().data));

    const comp = (
      await gqlOk(t, `{ gcuComposition { basketCode environment version lastUpdated totalValueUsd valueUsd unitsPerUsd
        composition { assetCode assetName assetType amount targetWeight weight currentPriceUsd valueContributionUsd percentageOfBasket change24h change7d rateAsOf }
        rebalancing { frequency lastRebalanced nextRebalance automatic }
        performance { change24hUsd change24hPercent change7dUsd change7dPercent change30dUsd change30dPercent asOf } } }`)
    ).gcuComposition;
    const r = (await rest('GET', '/api/v2/gcu/composition')).json().data;
    expect(comp.composition[0].change24h).toBe(r.composition[0]['24h_change']);
    expect(comp.performance.change7dPercent).toBe(r.performance['7d_change_percent']);
    expect(comp.totalValueUsd).toBe(r.total_value_usd);
    expect(comp.composition.map((c: { assetCode: string; weight: number }) => [c.assetCode, c.weight])).toEqual(r.composition.map((c: any) => [c.asset_code, c.weight]));

    const history = (await gqlOk(t, `{ gcuValueHistory(period: "7d") { points { timestamp open high low close value samples } basketCode period interval aggregation buckets } }`)).gcuValueHistory;
    const rh = (await rest('GET', '/api/v2/gcu/value-history?period=7d')).json();
    expect(history).toMatchObject({ basketCode: 'GCU', period: '7d', interval: 'daily', aggregation: 'ohlc', buckets: rh.meta.buckets });
    expect(history.points).toEqual(rh.data.map((p: any) => ({ timestamp: p.timestamp, open: p.open, high: p.high, low: p.low, close: p.close, value: p.value, samples: p.samples })));
  });

  it('a buy started through GraphQL is the buy REST reads; another user gets REST’s not-found', async () => {
    const acct = await openFundedAccount(t, t.headers, '100.00');
    const buy = (
      await gqlOk(t, `mutation($input: BuyGcuInput!) { buyGcu(input: $input) { id status accountUuid basketCode spendAsset amount quotedPrice maxPrice slippageBps feeBps
        quotedCost quotedFee total quoteExpiresAt workflowId failure { code } createdAt } }`, { input: { accountUuid: acct, spendAsset: 'USD', amount: '10' } })
    ).buyGcu;
    expect(buy).toMatchObject({ accountUuid: acct, basketCode: 'GCU', spendAsset: 'USD', amount: '10.0000', slippageBps: 50 });
    const r = await rest('GET', `/api/v2/gcu/buy/${buy.id}`);
    expect(r.statusCode).toBe(200);
    const q = `query($id: ID!) { gcuBuy(id: $id) { id status accountUuid basketCode spendAsset amount quotedPrice maxPrice slippageBps feeBps quotedCost quotedFee reservedAmount
      executionPrice cost fee total valueUsd quoteExpiresAt workflowId reservationEntryId settlementEntryId failure { code reason compensation } createdAt completedAt failedAt } }`;
    expect((await gqlOk(t, q, { id: buy.id })).gcuBuy).toEqual(camel(r.json().data));

    const other = await createTestUser();
    const theirs = await rest('GET', `/api/v2/gcu/buy/${buy.id}`, undefined, other.headers);
    expect(theirs.statusCode).toBe(404);
    await gqlRefused(t, q, theirs.json().errors[0].code, 404, { id: buy.id }, other.headers);
  });

  it('refusals carry the REST code and status: precision, schema bounds, unknown basket', async () => {
    const acct = await openFundedAccount(t, t.headers, '0');
    const r = await rest('POST', `/api/v2/accounts/${acct}/baskets/compose`, { basket_code: 'GCU', amount: '1.00001' });
    expect(r.statusCode).toBe(422);
    await gqlRefused(t, OPERATION('compose'), r.json().errors[0].code, 422, { a: acct, amount: '1.00001' });

    // slippage_bps is bounded by the REST schema (0–1000).
    const bad = await gqlRefused(t, `mutation($input: BuyGcuInput!) { buyGcu(input: $input) { id } }`, 'VALIDATION_ERROR', 422, { input: { accountUuid: acct, spendAsset: 'USD', amount: '1', slippageBps: 5000 } });
    expect(bad.errors![0].extensions.pointer).toBe('/slippage_bps');

    const missing = await rest('GET', '/api/v2/baskets/NOPE');
    await gqlRefused(t, `{ basket(code: "NOPE") { code } }`, missing.json().errors[0].code, missing.statusCode);
  });
});

describe('governance over GraphQL', () => {
  it('a vote cast through GraphQL is the vote REST shows; the proposal reads the same', async () => {
    // A voter of its own: the power is exactly the 4 units held at the snapshot.
    const voter = await createTestUser();
    await holdGcu(t, voter.headers, '4');
    await pause(20);
    const p = await propose(t, operator.headers);
    await activateProposal(p.id, Date.now());

    const v = (await gqlOk(t, VOTE, { id: p.id, vote: 'for' }, voter.headers)).castGovernanceVote;
    expect(v).toMatchObject({ proposalId: p.id, vote: 'for', previousVote: null, power: '4', proposalStatus: 'active', tallies: { for: '4', voters: 1 } });

    const r = await rest('GET', `/api/v2/gcu/voting/proposals/${p.id}`, undefined, voter.headers);
    expect(r.json().data.my_vote).toMatchObject({ vote: 'for', power: '4' });
    const g = (await gqlOk(t, `query($id: ID!) { governanceProposal(id: $id) { ${PROPOSAL_FIELDS} } }`, { id: p.id }, voter.headers)).governanceProposal;
    expect(g).toEqual(camel(r.json().data));

    const list = (await gqlOk(t, `{ governanceProposals(status: "active") { data { id } paginatorInfo { total } } myGovernanceVotes { data { proposalId vote power } } }`, undefined, voter.headers));
    expect(list.governanceProposals.data.map((x: { id: string }) => x.id)).toContain(p.id);
    expect(list.myGovernanceVotes.data).toEqual([{ proposalId: p.id, vote: 'for', power: '4' }]);
  });

  it('refusals as REST: a pending proposal, a bad vote, a bad filter, operators only, read-only keys', async () => {
    const p = await propose(t, operator.headers, { voting_starts_at: new Date(Date.now() + 86_400_000).toISOString() });
    const pending = await rest('POST', `/api/v2/gcu/voting/proposals/${p.id}/vote`, { vote: 'for' });
    expect(pending.statusCode).toBe(422);
    await gqlRefused(t, VOTE, pending.json().errors[0].code, 422, { id: p.id, vote: 'for' });
    await gqlRefused(t, VOTE, 'VALIDATION_ERROR', 422, { id: p.id, vote: 'maybe' });
    const filter = await rest('GET', '/api/v2/gcu/voting/proposals?status=someday');
    await gqlRefused(t, '{ governanceProposals(status: "someday") { data { id } } }', filter.json().errors[0].code, filter.statusCode);

    const CANCEL = `mutation($id: ID!) { cancelGovernanceProposal(id: $id, reason: "test") { status cancelReason } }`;
    const customer = await rest('POST', `/api/v2/gcu/voting/proposals/${p.id}/cancel`, { reason: 'test' });
    await gqlRefused(t, CANCEL, customer.json().errors[0].code, customer.statusCode, { id: p.id });
    expect((await gqlOk(t, CANCEL, { id: p.id }, operator.headers)).cancelGovernanceProposal).toEqual({ status: 'canceled', cancelReason: 'test' });
    expect((await rest('GET', `/api/v2/gcu/voting/proposals/${p.id}`)).json().data.status).toBe('canceled');

    const reader = await createTestUser({ permissions: ['read'] });
    await gqlRefused(t, VOTE, 'INSUFFICIENT_PERMISSIONS', 403, { id: p.id, vote: 'for' }, reader.headers);
    await gqlRefused(t, OPERATION('compose'), 'INSUFFICIENT_PERMISSIONS', 403, { a: 'acct_x', amount: '1' }, reader.headers);
  });
});
