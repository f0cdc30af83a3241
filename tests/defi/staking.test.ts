/**
 * Staking positions (docs/defi.md "Staking"), on a real database and Temporal's time-skipping
 * server (the API starts its workflows there): reward math by hand (per epoch, rounded down;
 * compound vs payout); stake with its ledger entry and event; harvests paying each epoch once
 * (retried, concurrent, through the API); the daily harvest workflow after skipped epochs, its
 * yield.harvested events against YIELD_HARVESTED; unstake -> unbonding -> the timer -> principal
 * and unpaid rewards back, withdrawn, position.closed; refusals.
 */
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPool } from '../../domain/db/pool';
import { stake } from '../../domain/defi/staking';
import { STAKING_POSITION_CLOSED, STAKING_POSITION_OPENED, YIELD_HARVESTED } from '../../domain/defi/staking/events';
import { harvestStakingPosition } from '../../domain/defi/staking/harvest';
import { completedEpochs, rewardEpochsAtUnstake, rewardForEpochs, rewardPerEpoch } from '../../domain/defi/staking/math';
import { getEntry } from '../../domain/ledger';
import { DecimalMoney as D } from '../../domain/money/amount';
import { closeTemporal } from '../../domain/temporal/client';
import { createTestApp, createTestUser, type TestApp } from '../helpers/app';
import { startTimeSkipping, type TimeSkippingEnv } from '../helpers/time-skipping';
import { book, expectBalancedLedger, fundBook, openAccount } from './helpers';

const ETH = 'ethereum-beacon-eth';
const E = 384_000; // the beacon chain's epoch, ms
const ETH_TERMS = { annualRate: '0.031', epochSeconds: 384, precision: 18 };
// By hand (Python decimal, 80 digits, then floored to 18 places):
// 32 × 0.031 × 384 / 31,536,000 = 0.0000120791476407914764...
const R32 = '0.000012079147640791';
// 10 × 0.031 × 384 / 31,536,000 = 0.00000377473363774733...
const R10 = '0.000003774733637747';

let t: TestApp;
let ts: TimeSkippingEnv;
let acct: string;

beforeAll(async () => {
  t = await createTestApp();
  ts = await startTimeSkipping();
  // The API starts its workflows on the time-skipping server, on the worker's queue.
  process.env.TEMPORAL_ADDRESS = ts.env.address;
  process.env.TEMPORAL_TASK_QUEUE = ts.taskQueue;
  await closeTemporal();
  acct = await openAccount(t, t.headers);
  await fundBook(acct, 'ETH', 'ethereum', '200');
  await fundBook(acct, 'WETH', 'arbitrum', '10');
}, 120_000);

afterAll(async () => {
  if (ts?.worker.getState() === 'RUNNING') ts.worker.shutdown();
  await t?.close();
  await ts?.stop();
});

const post = (url: string, payload: Record<string, unknown>, headers: Record<string, string> = t.headers) => t.app.inject({ method: 'POST', url, headers, payload });
const get = (url: string, headers = t.headers) => t.app.inject({ method: 'GET', url, headers });
const me = () => ({ userId: t.user.userId, environment: 'sandbox' as const });
const tsNow = async () => new Date(await ts.env.currentTimeMs());

async function expectRefused(res: Awaited<ReturnType<typeof post>>, status: number, code: string, pointer?: string) {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.json().errors[0].code).toBe(code);
  if (pointer) expect(res.json().errors[0].source?.pointer).toBe(pointer);
}

/** Staking events of a type, each valid against its schema. */
async function events(type: string, schema: Record<string, unknown>): Promise<Array<Record<string, any>>> {
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  const validate = ajv.compile(schema);
  const { rows } = await getPool().query<{ data: Record<string, unknown> }>(`SELECT data FROM platform_events WHERE type = $1 AND data->>'position_type' = 'staking' ORDER BY occurred_at`, [type]);
  for (const r of rows) expect(validate(r.data), ajv.errorsText(validate.errors)).toBe(true);
  return rows.map((r) => r.data);
}

describe('reward math', () => {
  it('per completed epoch, each rounded down to the ledger precision', () => {
    expect(rewardPerEpoch('32', ETH_TERMS)).toBe(R32);
    // Ten epochs pay ten rounded rewards: 4 wei less than the exact 0.000120791476407914...
    expect(rewardForEpochs('32', 10, ETH_TERMS)).toBe('0.000120791476407910');
    expect(rewardForEpochs('32', 0, ETH_TERMS)).toBe('0.000000000000000000');
    // A stake too small for a wei per epoch earns nothing (3e-15 ETH x 0.031 x 384 / 31,536,000 < 1e-18).
    expect(rewardPerEpoch('0.000000000000003', ETH_TERMS)).toBe('0.000000000000000000');
    expect(completedEpochs(0, E - 1, 384)).toBe(0);
    expect(completedEpochs(0, 10 * E, 384)).toBe(10);
    // Unstaking mid-epoch: the epoch in progress still earns; exactly at its start it does not.
    expect(rewardEpochsAtUnstake(0, 3.5 * E, 384)).toBe(4);
    expect(rewardEpochsAtUnstake(0, 3 * E, 384)).toBe(3);
  });
});

describe('staking', () => {
  it('lists the products', async () => {
    const r = await get('/api/v2/defi/staking/products');
    expect(r.statusCode, r.body).toBe(200);
    const eth = r.json().data.find((p: { id: string }) => p.id === ETH);
    expect(eth).toEqual({
      id: ETH, chain: 'ethereum', protocol: 'beacon', asset: 'ETH', name: 'Ethereum native staking (beacon chain)', annual_rate: '0.031',
      epoch_seconds: 384, unbonding_seconds: 518400, minimum_stake: '0.010000000000000000', active: true,
    });
    expect(r.json().data.map((p: { id: string }) => p.id)).toContain('arbitrum-lido-weth');
  });

  it('stake: one balanced entry from the chain book into the staking pool, the position, position.opened', async () => {
    const before = await book(acct, 'ETH', 'ethereum');
    const r = await post('/api/v2/defi/staking/stake', { product_id: ETH, amount: '32', account_id: acct });
    expect(r.statusCode, r.body).toBe(201);
    const p = r.json().data;
    expect(p).toMatchObject({
      position_type: 'staking', status: 'staked', account_id: acct, product_id: ETH, chain: 'ethereum', protocol: 'beacon', asset: 'ETH',
      staked_amount: '32.000000000000000000', principal: '32.000000000000000000', auto_compound: false, rewards_harvested: '0.000000000000000000', harvested_epochs: 0,
    });
    expect(p.position_id).toMatch(/^st_/);
    expect((await book(acct, 'ETH', 'ethereum')).available).toBe(new D(before.available).minus(32).toFixed(18));

    const entry = (await getEntry(p.stake_entry_id))!;
    expect(entry.type).toBe('staking_stake');
    expect(entry.lines.map((l) => [l.direction, l.amount])).toEqual([['debit', '32.000000000000000000'], ['credit', '32.000000000000000000']]);
    const { rows } = await getPool().query<{ code: string }>('SELECT code FROM ledger_accounts WHERE id = $1', [entry.lines.find((l) => l.direction === 'credit')!.accountId]);
    expect(rows[0].code).toBe('staking_pool:ethereum:beacon');
    await expectBalancedLedger();

    const opened = await events('position.opened', STAKING_POSITION_OPENED);
    expect(opened.find((e) => e.position_id === p.position_id)).toEqual({
      position_id: p.position_id, position_type: 'staking', account_id: acct, chain: 'ethereum', protocol: 'beacon', product_id: ETH, asset: 'ETH',
      amount: '32.000000000000000000', auto_compound: false, annual_rate: '0.031', epoch_seconds: 384, unbonding_seconds: 518400, entry_id: p.stake_entry_id, opened_at: p.staked_at,
    });

    const view = (await get(`/api/v2/defi/staking/positions/${p.position_id}`)).json().data;
    expect(view).toMatchObject({ pending_epochs: 0, pending_rewards: '0.000000000000000000', usd_value: '108800.00', annual_rate: '0.031' });
    const list = (await get('/api/v2/defi/staking/positions')).json().data;
    expect(list.map((x: { position_id: string }) => x.position_id)).toContain(p.position_id);
  });

  it('harvest pays each completed epoch once, rounded down: payout keeps the principal, compounding grows it', async () => {
    const t0 = new Date(Date.now() - 30 * 86_400_000);
    const payout = await stake({ ...me(), productId: ETH, amount: '32', accountId: acct, asOf: t0 });
    const compound = await stake({ ...me(), productId: ETH, amount: '32', accountId: acct, asOf: t0, autoCompound: true });
    const at = (epochs: number) => new Date(t0.getTime() + epochs * E + 1000);

    // No epoch has completed yet: nothing is paid, nothing posted.
    expect(await harvestStakingPosition({ positionId: payout.id, asOf: new Date(t0.getTime() + E - 1) })).toBeNull();

    const b0 = await book(acct, 'ETH', 'ethereum');
    const h1 = (await harvestStakingPosition({ positionId: payout.id, asOf: at(10), idempotencyKey: 'test:harvest:1' }))!;
    expect(h1.harvest).toMatchObject({ fromEpoch: 0, toEpoch: 10, mode: 'paid_out', amount: '0.000120791476407910', principal: '32.000000000000000000' });
    // The same harvest again: the key answers the first; without it nothing is due any more.
    const again = (await harvestStakingPosition({ positionId: payout.id, asOf: at(10), idempotencyKey: 'test:harvest:1' }))!;
    expect(again.harvest).toEqual(h1.harvest);
    expect(await harvestStakingPosition({ positionId: payout.id, asOf: at(10) })).toBeNull();
    expect((await book(acct, 'ETH', 'ethereum')).available).toBe(new D(b0.available).plus('0.000120791476407910').toFixed(18));
    const entry = (await getEntry(h1.harvest.entryId))!;
    expect(entry.type).toBe('staking_reward');
    const { rows } = await getPool().query<{ code: string }>('SELECT code FROM ledger_accounts WHERE id = $1', [entry.lines.find((l) => l.direction === 'debit')!.accountId]);
    expect(rows[0].code).toBe('staking_rewards:ethereum:beacon');

    const c1 = (await harvestStakingPosition({ positionId: compound.id, asOf: at(10) }))!;
    expect(c1.harvest).toMatchObject({ mode: 'compounded', amount: '0.000120791476407910', principal: '32.000120791476407910' });
    expect(c1.position.principal).toBe('32.000120791476407910');
    // Compounding leaves the book alone.
    expect((await book(acct, 'ETH', 'ethereum')).available).toBe(new D(b0.available).plus('0.000120791476407910').toFixed(18));

    // Ten more epochs: payout earns the same again; compound earns on 32.000120791476407910:
    // × 0.031 × 384 / 31,536,000 = 0.0000120791932363560... -> 0.000012079193236356 per epoch.
    const h2 = (await harvestStakingPosition({ positionId: payout.id, asOf: at(20) }))!;
    expect(h2.harvest).toMatchObject({ fromEpoch: 10, toEpoch: 20, amount: '0.000120791476407910' });
    expect(h2.position).toMatchObject({ rewardsHarvested: '0.000241582952815820', harvestedEpochs: 20, principal: '32.000000000000000000' });
    const c2 = (await harvestStakingPosition({ positionId: compound.id, asOf: at(20) }))!;
    expect(c2.harvest).toMatchObject({ fromEpoch: 10, toEpoch: 20, amount: '0.000120791932363560', principal: '32.000241583408771470' });
    await expectBalancedLedger();

    const harvested = await events('yield.harvested', YIELD_HARVESTED);
    expect(harvested.find((e) => e.entry_id === c2.harvest.entryId)).toEqual({
      position_id: compound.id, position_type: 'staking', account_id: acct, chain: 'ethereum', protocol: 'beacon', product_id: ETH, asset: 'ETH',
      amount: '0.000120791932363560', mode: 'compounded', epochs: 10, from_epoch: 10, to_epoch: 20, principal: '32.000241583408771470',
      entry_id: c2.harvest.entryId, harvested_at: at(20).toISOString(),
    });
    expect(harvested.filter((e) => e.position_id === payout.id)).toHaveLength(2);
  });

  it('concurrent harvests of the same epochs pay once (row lock, one harvest row per first epoch)', async () => {
    const t0 = new Date(Date.now() - 86_400_000);
    const p = await stake({ ...me(), productId: ETH, amount: '10', accountId: acct, asOf: t0 });
    const asOf = new Date(t0.getTime() + 3 * E + 5);
    const results = await Promise.all([1, 2, 3, 4].map((i) => harvestStakingPosition({ positionId: p.id, asOf, idempotencyKey: `test:race:${i}` })));
    const paid = results.filter((r) => r !== null);
    expect(paid).toHaveLength(1);
    expect(paid[0]!.harvest.amount).toBe(new D(R10).times(3).toFixed(18));
    const { rows } = await getPool().query('SELECT 1 FROM defi_staking_harvests WHERE position_id = $1', [p.id]);
    expect(rows).toHaveLength(1);
    await expectBalancedLedger();
  });

  it('POST harvest pays out now (Idempotency-Key answers the first); 422 NOTHING_TO_HARVEST before an epoch completes', async () => {
    const fresh = (await post('/api/v2/defi/staking/stake', { product_id: ETH, amount: '1' })).json().data;
    await expectRefused(await post('/api/v2/defi/staking/harvest', { position_id: fresh.position_id }), 422, 'NOTHING_TO_HARVEST', '/position_id');

    const old = await stake({ ...me(), productId: ETH, amount: '10', accountId: acct, asOf: new Date(Date.now() - 5 * E - 5_000), autoCompound: true });
    const before = await book(acct, 'ETH', 'ethereum');
    const headers = { ...t.headers, 'idempotency-key': `harvest-${old.id}` };
    const r = await post('/api/v2/defi/staking/harvest', { position_id: old.id }, headers);
    expect(r.statusCode, r.body).toBe(200);
    // Five epochs of 10 ETH, paid out even though the position compounds on its own schedule.
    expect(r.json().data.harvest).toMatchObject({ amount: new D(R10).times(5).toFixed(18), mode: 'paid_out', epochs: 5, from_epoch: 0, to_epoch: 5, principal: '10.000000000000000000' });
    expect(r.json().data.position).toMatchObject({ harvested_epochs: 5, rewards_harvested: '0.000018873668188735' });
    const retry = await post('/api/v2/defi/staking/harvest', { position_id: old.id }, headers);
    expect(retry.json().data.harvest.entry_id).toBe(r.json().data.harvest.entry_id);
    expect((await book(acct, 'ETH', 'ethereum')).available).toBe(new D(before.available).plus('0.000018873668188735').toFixed(18));
    await expectRefused(await post('/api/v2/defi/staking/harvest', { position_id: old.id }), 422, 'NOTHING_TO_HARVEST');
  });

  it('refusals: minimum, unknown product, funds, bad amounts, another user\'s position or account, production', async () => {
    const stakeIt = (body: Record<string, unknown>, headers = t.headers) => post('/api/v2/defi/staking/stake', body, headers);
    await expectRefused(await stakeIt({ product_id: ETH, amount: '0.001' }), 422, 'AMOUNT_BELOW_MINIMUM', '/amount');
    await expectRefused(await stakeIt({ product_id: 'nope', amount: '1' }), 422, 'UNKNOWN_PRODUCT', '/product_id');
    const before = await book(acct, 'ETH', 'ethereum');
    await expectRefused(await stakeIt({ product_id: ETH, amount: '5000', account_id: acct }), 422, 'INSUFFICIENT_FUNDS');
    expect(await book(acct, 'ETH', 'ethereum')).toEqual(before);
    await expectRefused(await stakeIt({ product_id: ETH, amount: '1.0000000000000000001' }), 422, 'AMOUNT_PRECISION', '/amount');
    await expectRefused(await stakeIt({ product_id: ETH, amount: 1 }), 422, 'VALIDATION_ERROR');
    await expectRefused(await stakeIt({ product_id: ETH, amount: '-1' }), 422, 'VALIDATION_ERROR');

    const mine = (await stakeIt({ product_id: ETH, amount: '1' })).json().data;
    const other = await createTestUser();
    await expectRefused(await get(`/api/v2/defi/staking/positions/${mine.position_id}`, other.headers), 404, 'POSITION_NOT_FOUND');
    await expectRefused(await post('/api/v2/defi/staking/unstake', { position_id: mine.position_id }, other.headers), 404, 'POSITION_NOT_FOUND');
    await expectRefused(await post('/api/v2/defi/staking/harvest', { position_id: mine.position_id }, other.headers), 404, 'POSITION_NOT_FOUND');
    await expectRefused(await stakeIt({ product_id: ETH, amount: '1', account_id: acct }, other.headers), 404, 'ACCOUNT_NOT_FOUND');
    expect((await get('/api/v2/defi/staking/positions', other.headers)).json().data).toEqual([]);
    const prod = await createTestUser({ environment: 'production' });
    await expectRefused(await stakeIt({ product_id: ETH, amount: '1' }, prod.headers), 503, 'CHAIN_NOT_CONFIGURED');
    // Only `mine` moved anything.
    expect((await book(acct, 'ETH', 'ethereum')).available).toBe(new D(before.available).minus(1).toFixed(18));
  });
});

describe('workflows on the time-skipping server', () => {
  it('the daily harvest after ten skipped epochs: compounds or pays out each due position once, yield.harvested per harvest', async () => {
    const asOf = await tsNow();
    const paid = await stake({ ...me(), productId: ETH, amount: '10', accountId: acct, asOf });
    const compounding = await stake({ ...me(), productId: ETH, amount: '10', accountId: acct, asOf, autoCompound: true });
    // Ten epochs and a minute on the server's clock.
    await ts.env.sleep(10 * E + 60_000);
    const b0 = await book(acct, 'ETH', 'ethereum');
    const run = (id: string, args: unknown[] = [{}]) => ts.env.client.workflow.execute('stakingHarvestWorkflow', { taskQueue: ts.taskQueue, workflowId: id, args });
    const r = (await run(`test-staking-harvest-${paid.id}`)) as { asOfMs: number; harvested: number; failed: number; payouts: Array<{ positionId: string; mode: string; amount: string; epochs: number }> };
    expect(r.failed).toBe(0);
    const ten = new D(R10).times(10).toFixed(18);
    expect(r.payouts.find((x) => x.positionId === paid.id)).toMatchObject({ mode: 'paid_out', amount: ten, epochs: 10 });
    expect(r.payouts.find((x) => x.positionId === compounding.id)).toMatchObject({ mode: 'compounded', amount: ten, epochs: 10 });
    expect((await getPool().query<{ principal: string }>('SELECT principal::text FROM defi_staking_positions WHERE id = $1', [compounding.id])).rows[0].principal).toBe(
      new D(10).plus(ten).toFixed(18),
    );
    const harvested = await events('yield.harvested', YIELD_HARVESTED);
    const ev = harvested.find((e) => e.position_id === paid.id)!;
    expect(ev).toMatchObject({ mode: 'paid_out', amount: ten, epochs: 10, from_epoch: 0, to_epoch: 10, principal: '10.000000000000000000', harvested_at: new Date(r.asOfMs).toISOString() });
    expect(harvested.find((e) => e.position_id === compounding.id)).toMatchObject({ mode: 'compounded', principal: new D(10).plus(ten).toFixed(18) });
    // Every paid-out harvest of the run reached the book (the earlier tests' positions are due too).
    const paidOut = r.payouts.filter((x) => x.mode === 'paid_out').reduce((s, x) => s.plus(x.amount), new D(0));
    expect((await book(acct, 'ETH', 'ethereum')).available).toBe(new D(b0.available).plus(paidOut).toFixed(18));

    // The same run's time again (another run, or a retry): nothing is due, nothing paid twice.
    const again = (await run(`test-staking-harvest-again-${paid.id}`, [{ asOfMs: r.asOfMs }])) as typeof r;
    expect(again.payouts).toEqual([]);
    expect((await events('yield.harvested', YIELD_HARVESTED)).filter((e) => e.position_id === paid.id)).toHaveLength(1);
    await expectBalancedLedger();
  });

  it('unstake: unbonding at once, refusals while unbonding, after the timer principal + unpaid rewards back, withdrawn, position.closed', async () => {
    // Staked 3.5 epochs ago on the server's clock; three epochs harvested, the fourth in progress.
    const now = await tsNow();
    const p = await stake({ ...me(), productId: ETH, amount: '10', accountId: acct, asOf: new Date(now.getTime() - 3.5 * E) });
    const h = (await harvestStakingPosition({ positionId: p.id, asOf: now }))!;
    expect(h.harvest).toMatchObject({ toEpoch: 3, amount: new D(R10).times(3).toFixed(18) });
    const before = await book(acct, 'ETH', 'ethereum');

    const r = await post('/api/v2/defi/staking/unstake', { position_id: p.id });
    expect(r.statusCode, r.body).toBe(202);
    const u = r.json().data;
    expect(u).toMatchObject({ status: 'unbonding', reward_epochs: 4, workflow_id: `staking-unbond-${p.id}` });
    expect(new Date(u.unbonding_ends_at).getTime() - new Date(u.unbond_requested_at).getTime()).toBe(518_400_000);
    await expectRefused(await post('/api/v2/defi/staking/unstake', { position_id: p.id }), 409, 'POSITION_UNBONDING');
    await expectRefused(await post('/api/v2/defi/staking/harvest', { position_id: p.id }), 409, 'POSITION_UNBONDING');
    // Nothing is back yet.
    expect(await book(acct, 'ETH', 'ethereum')).toEqual(before);

    // Awaiting the result lets the server skip the six days.
    const handle = ts.env.client.workflow.getHandle(`staking-unbond-${p.id}`);
    const done = await handle.result();
    // Principal + the fourth epoch (in progress at the request), nothing after it.
    expect(done).toMatchObject({ positionId: p.id, principal: '10.000000000000000000', rewards: R10, amount: new D(10).plus(R10).toFixed(18) });
    expect((await book(acct, 'ETH', 'ethereum')).available).toBe(new D(before.available).plus(10).plus(R10).toFixed(18));
    const view = (await get(`/api/v2/defi/staking/positions/${p.id}`)).json().data;
    expect(view).toMatchObject({ status: 'withdrawn', final_rewards: R10, harvested_epochs: 4, withdraw_entry_id: done.entryId, usd_value: null });
    expect(new Date(view.withdrawn_at).getTime()).toBeGreaterThanOrEqual(new Date(u.unbonding_ends_at).getTime());
    const entry = (await getEntry(done.entryId))!;
    expect(entry.type).toBe('staking_withdrawal');
    expect(entry.lines).toHaveLength(3);

    const closed = await events('position.closed', STAKING_POSITION_CLOSED);
    expect(closed.find((e) => e.position_id === p.id)).toEqual({
      position_id: p.id, position_type: 'staking', account_id: acct, chain: 'ethereum', protocol: 'beacon', product_id: ETH, asset: 'ETH',
      amount: new D(10).plus(R10).toFixed(18), principal: '10.000000000000000000', rewards: R10, staked_amount: '10.000000000000000000',
      total_rewards: new D(R10).times(4).toFixed(18), reward_epochs: 4, entry_id: done.entryId, unbond_requested_at: u.unbond_requested_at, closed_at: view.withdrawn_at,
    });
    const described = await handle.describe();
    expect(described.searchAttributes).toMatchObject({ OperationId: [p.id], BusinessStatus: ['withdrawn'], AssetCode: ['ETH'], Chain: ['ethereum'] });
    await expectRefused(await post('/api/v2/defi/staking/unstake', { position_id: p.id }), 409, 'POSITION_CLOSED');
    const all = (await get('/api/v2/defi/staking/positions?status=all')).json().data;
    expect(all.find((x: { position_id: string }) => x.position_id === p.id)).toMatchObject({ status: 'withdrawn' });
    expect((await get('/api/v2/defi/staking/positions')).json().data.map((x: { position_id: string }) => x.position_id)).not.toContain(p.id);
    await expectBalancedLedger();
  });
});
