/**
 * Liquidity positions through the API (arbitrum, sandbox): add and remove on each pool type with
 * the exact shares of the pool math, the ledger (chain book <-> pool liquidity account, balanced
 * per asset), pool reserves and LP supply; swap fees accruing to the LP; a round trip; the
 * portfolio; refusals; events validated against the catalog.
 */
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPool } from '../../domain/db/pool';
import { eventTypeInfo } from '../../domain/events/catalog';
import { getEntry } from '../../domain/ledger';
import { DecimalMoney as D } from '../../domain/money/amount';
import { addLiquidity, removeLiquidity } from '../../domain/defi/liquidity';
import { burnShares, initialSupply, mintShares } from '../../domain/defi/liquidity/math';
import { getPool as getDexPool } from '../../domain/defi/pools';
import { fromBaseUnits, toBaseUnits } from '../../domain/defi/swaps/pricing';
import { createTestApp, createTestUser, type TestApp } from '../helpers/app';
import { startTestWorker, type TestWorker } from '../helpers/worker';
import { book, expectBalancedLedger, fundBook, openAccount, reserves, waitSwap } from './helpers';

let t: TestApp;
let worker: TestWorker;
let acct: string;

beforeAll(async () => {
  t = await createTestApp();
  worker = await startTestWorker();
  acct = await openAccount(t, t.headers);
  await fundBook(acct, 'WETH', 'arbitrum', '100');
  await fundBook(acct, 'USDC', 'arbitrum', '500000.000000');
  await fundBook(acct, 'DAI', 'arbitrum', '10000');
}, 120_000);

afterAll(async () => {
  await worker?.stop();
  await t?.close();
});

const post = (url: string, payload: Record<string, unknown>, headers = t.headers) => t.app.inject({ method: 'POST', url, headers, payload });
const add = (payload: Record<string, unknown>, headers = t.headers) => post('/api/v2/defi/liquidity/add', payload, headers);
const remove = (payload: Record<string, unknown>, headers = t.headers) => post('/api/v2/defi/liquidity/remove', payload, headers);
const supplyOf = async (poolId: string): Promise<bigint | null> => {
  const { rows } = await getPool().query<{ s: string }>(`SELECT total_shares::text AS s FROM defi_pool_shares WHERE environment = 'sandbox' AND pool_id = $1`, [poolId]);
  return rows[0] ? BigInt(rows[0].s) : null;
};
const pool = async (id: string) => (await getDexPool(getPool(), 'sandbox', id))!;

/** Every position.* event in the outbox matches the catalog's schema; returns them. */
async function positionEvents(type: 'position.opened' | 'position.closed') {
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  const info = eventTypeInfo(type)!;
  expect(info.produced).toBe(true);
  const validate = ajv.compile(info.data_schema);
  const { rows } = await getPool().query<{ data: Record<string, unknown> }>('SELECT data FROM platform_events WHERE type = $1 ORDER BY occurred_at', [type]);
  for (const r of rows) expect(validate(r.data), ajv.errorsText(validate.errors)).toBe(true);
  return rows.map((r) => r.data);
}

const SUSHI = 'arbitrum-sushiswap-weth-usdc-3000';
const CURVE = 'arbitrum-curve-dai-usdc-usdt-100';
const BAL = 'arbitrum-balancer-weth-usdc-2500';

describe('liquidity positions', () => {
  it('constant product: shares by Uniswap V2 math, USDC trimmed to the ratio, one balanced entry, reserves and supply grown', async () => {
    const p0 = await pool(SUSHI);
    expect(await supplyOf(SUSHI)).toBeNull(); // the platform has not touched this pool yet
    const S = initialSupply(p0).total;
    const expected = mintShares(p0, S, [toBaseUnits('2', 18), toBaseUnits('10000', 6)]);
    const [weth0, usdc0] = [await book(acct, 'WETH', 'arbitrum'), await book(acct, 'USDC', 'arbitrum')];

    const r = await add({ pool_id: SUSHI, account_id: acct, amounts: { WETH: '2', USDC: '10000' } });
    expect(r.statusCode, r.body).toBe(201);
    const pos = r.json().data;
    const usedUsdc = fromBaseUnits(expected.used[1], 6);
    expect(pos).toMatchObject({ position_type: 'liquidity', status: 'open', account_id: acct, chain: 'arbitrum', dex: 'sushiswap', pool_id: SUSHI, tokens: ['WETH', 'USDC'] });
    expect(pos.deposited).toEqual(['2.000000000000000000', usedUsdc]);
    expect(pos.shares).toBe(fromBaseUnits(expected.shares, 18));
    // 2 WETH at the pool's 3395 USDC/WETH: about 6790 USDC, the rest of the 10000 stays on the book.
    expect(Number(usedUsdc)).toBeGreaterThan(6700);
    expect(Number(usedUsdc)).toBeLessThan(6900);

    expect(await reserves(SUSHI)).toEqual(expected.reserves);
    expect(await supplyOf(SUSHI)).toBe(S + expected.shares);
    expect((await book(acct, 'WETH', 'arbitrum')).available).toBe(new D(weth0.available).minus(2).toFixed(18));
    expect((await book(acct, 'USDC', 'arbitrum')).available).toBe(new D(usdc0.available).minus(usedUsdc).toFixed(6));

    const entry = (await getEntry(pos.open_entry_id))!;
    expect(entry.type).toBe('liquidity_add');
    const byAsset = new Map<string, number>();
    for (const l of entry.lines) byAsset.set(l.assetCode, (byAsset.get(l.assetCode) ?? 0) + (l.direction === 'debit' ? 1 : -1) * Number(l.amount));
    expect([...byAsset.values()].every((v) => Math.abs(v) < 1e-9)).toBe(true);
    expect(entry.lines).toHaveLength(4);
    await expectBalancedLedger();

    const events = await positionEvents('position.opened');
    expect(events.find((e) => e.position_id === pos.position_id)).toMatchObject({ pool_id: SUSHI, amounts: pos.deposited, shares: pos.shares, entry_id: pos.open_entry_id });
  });

  it('swap fees accrue to the LP: after swaps through the pool the position is worth its share of the grown reserves, paid out exactly on removal', async () => {
    const pos = (await add({ pool_id: SUSHI, amounts: { WETH: '1', USDC: '4000' } })).json().data;
    const shares = toBaseUnits(pos.shares, 18);
    const kPerShare = async () => {
      const p = await pool(SUSHI);
      const s = (await supplyOf(SUSHI))!;
      return (p.reserves[0] * p.reserves[1] * 10n ** 18n) / (s * s);
    };
    const k0 = await kPerShare();
    for (const [from, to, amount] of [['WETH', 'USDC', '5'], ['USDC', 'WETH', '17000']]) {
      const s = await post('/api/v2/defi/swap/execute', { from_token: from, to_token: to, amount, chain: 'arbitrum', dex_sources: ['sushiswap'], slippage_bps: 500 });
      expect(s.statusCode, s.body).toBe(201);
      expect((await waitSwap(t, t.headers, s.json().data.swap_id)).status).toBe('completed');
    }
    // x·y per LP share grew: the fees stayed in the pool.
    expect((await kPerShare()) > k0).toBe(true);

    const view = (await t.app.inject({ method: 'GET', url: `/api/v2/defi/liquidity/positions/${pos.position_id}`, headers: t.headers })).json().data;
    const p = await pool(SUSHI);
    const S = (await supplyOf(SUSHI))!;
    const expectedOut = burnShares(p.reserves, S, shares);
    expect(view.valuation.amounts).toEqual([fromBaseUnits(expectedOut[0], 18), fromBaseUnits(expectedOut[1], 6)]);
    expect(view.valuation.usd_value).toMatch(/^\d+\.\d{2}$/);
    expect(view.valuation.impermanent_loss_percent).toMatch(/^-?\d+\.\d{4}$/);
    expect(Number(view.valuation.usd_value) - Number(view.valuation.hold_usd_value)).toBeCloseTo(Number(view.valuation.impermanent_loss_usd), 2);

    const [w0, u0] = [await book(acct, 'WETH', 'arbitrum'), await book(acct, 'USDC', 'arbitrum')];
    const r = await remove({ position_id: pos.position_id });
    expect(r.statusCode, r.body).toBe(200);
    const out = r.json().data;
    expect(out.amounts).toEqual(view.valuation.amounts);
    expect(out.shares_burnt).toBe(pos.shares);
    expect(out.position).toMatchObject({ status: 'closed', shares: '0.000000000000000000', withdrawn: out.amounts });
    expect(await reserves(SUSHI)).toEqual([p.reserves[0] - expectedOut[0], p.reserves[1] - expectedOut[1]]);
    expect(await supplyOf(SUSHI)).toBe(S - shares);
    expect(toBaseUnits((await book(acct, 'WETH', 'arbitrum')).available, 18)).toBe(toBaseUnits(w0.available, 18) + expectedOut[0]);
    expect(toBaseUnits((await book(acct, 'USDC', 'arbitrum')).available, 6)).toBe(toBaseUnits(u0.available, 6) + expectedOut[1]);
    const closed = await positionEvents('position.closed');
    expect(closed.find((e) => e.position_id === pos.position_id)).toMatchObject({ amounts: out.amounts, total_withdrawn: out.amounts, shares_burnt: pos.shares, entry_id: out.entry_id });
    await expectBalancedLedger();

    // Closed: another removal is a conflict.
    const again = await remove({ position_id: pos.position_id });
    expect(again.statusCode).toBe(409);
    expect(again.json().errors[0].code).toBe('POSITION_CLOSED');
  });

  it('round trip without swaps: the book gets back the deposit less the rounding dust (at most one USDC unit\'s worth)', async () => {
    const [w0, u0] = [await book(acct, 'WETH', 'arbitrum'), await book(acct, 'USDC', 'arbitrum')];
    const [rw, ru] = await reserves(SUSHI);
    const pos = (await add({ pool_id: SUSHI, amounts: { WETH: '3', USDC: '20000' } })).json().data;
    const r = await remove({ position_id: pos.position_id });
    expect(r.statusCode, r.body).toBe(200);
    const dw = toBaseUnits(w0.available, 18) - toBaseUnits((await book(acct, 'WETH', 'arbitrum')).available, 18);
    const du = toBaseUnits(u0.available, 6) - toBaseUnits((await book(acct, 'USDC', 'arbitrum')).available, 6);
    // USDC is floored to the ledger's 6 decimals when trimmed to the ratio, so the shares follow
    // the USDC side: WETH loses at most what one USDC base unit is worth in WETH (plus floors).
    expect(dw >= 0n && dw <= rw / ru + 2n, String(dw)).toBe(true);
    expect(du >= 0n && du <= 1n, String(du)).toBe(true);
    await expectBalancedLedger();
  });

  it('StableSwap: a one-sided DAI deposit mints by D growth less the imbalance fee; removal in halves', async () => {
    const p0 = await pool(CURVE);
    const S = initialSupply(p0).total;
    const expected = mintShares(p0, S, [toBaseUnits('5000', 18), 0n, 0n]);
    const r = await add({ pool_id: CURVE, amounts: { DAI: '5000' } });
    expect(r.statusCode, r.body).toBe(201);
    const pos = r.json().data;
    expect(pos.shares).toBe(fromBaseUnits(expected.shares, 18));
    expect(pos.deposited).toEqual(['5000.000000000000000000', '0.000000', '0.000000']);
    expect(toBaseUnits(pos.shares, 18) < toBaseUnits('5000', 18)).toBe(true); // D ~ USD value; the fee on the imbalance
    const entry = (await getEntry(pos.open_entry_id))!;
    expect(entry.lines).toHaveLength(2);

    const half = await remove({ position_id: pos.position_id, share: '0.5' });
    expect(half.statusCode, half.body).toBe(200);
    const h = half.json().data;
    expect(h.position.status).toBe('open');
    expect(h.shares_burnt).toBe(fromBaseUnits(expected.shares / 2n, 18));
    // Proportional exit: some of each coin.
    expect(h.amounts.every((a: string) => Number(a) > 0)).toBe(true);
    const rest = await remove({ position_id: pos.position_id, share: '1' });
    expect(rest.json().data.position.status).toBe('closed');
    expect(rest.json().data.position.withdrawn).toEqual(h.amounts.map((a: string, i: number) => new D(a).plus(rest.json().data.amounts[i]).toFixed(i === 0 ? 18 : 6)));
    await expectBalancedLedger();
  });

  it('weighted: Balancer join by calcBptOutGivenExactTokensIn; the portfolio shows the position in USD', async () => {
    const p0 = await pool(BAL);
    const S = initialSupply(p0).total;
    const expected = mintShares(p0, S, [toBaseUnits('1', 18), toBaseUnits('850', 6)]);
    const r = await add({ pool_id: BAL, amounts: { WETH: '1', USDC: '850' } });
    expect(r.statusCode, r.body).toBe(201);
    expect(r.json().data.shares).toBe(fromBaseUnits(expected.shares, 18));

    const pf = (await t.app.inject({ method: 'GET', url: '/api/v2/defi/portfolio', headers: t.headers })).json().data;
    const lp = pf.liquidity_positions.find((x: { position_id: string }) => x.position_id === r.json().data.position_id);
    expect(lp).toMatchObject({ pool_id: BAL, status: 'open' });
    // About 3400 + 850 USD.
    expect(Number(lp.valuation.usd_value)).toBeGreaterThan(4100);
    expect(Number(lp.valuation.usd_value)).toBeLessThan(4300);
    expect(pf.lending_positions).toEqual([]);
    expect(pf.yield_positions).toContainEqual(expect.objectContaining({ position_id: lp.position_id, source: 'liquidity_fees', annual_rate: null, usd_value: lp.valuation.usd_value }));
    const holdingsUsd = pf.holdings.reduce((s: number, h: { usd_value: string | null }) => s + Number(h.usd_value ?? 0), 0);
    const lpUsd = pf.liquidity_positions.reduce((s: number, x: { valuation: { usd_value: string } }) => s + Number(x.valuation.usd_value), 0);
    expect(Number(pf.total_usd_value)).toBeCloseTo(holdingsUsd + lpUsd, 2);
  });

  it('the request\'s Idempotency-Key reaches the domain: a retried add or remove (a takeover of a dead request) moves nothing twice', async () => {
    const caller = { userId: t.user.userId, environment: 'sandbox' as const };
    const a1 = await addLiquidity({ ...caller, poolId: SUSHI, amounts: { WETH: '0.25', USDC: '1000' }, idempotencyKey: 'lp-retry-1' });
    const [r1, w1] = [await reserves(SUSHI), await book(acct, 'WETH', 'arbitrum')];
    const a2 = await addLiquidity({ ...caller, poolId: SUSHI, amounts: { WETH: '0.25', USDC: '1000' }, idempotencyKey: 'lp-retry-1' });
    expect(a2.id).toBe(a1.id);
    expect(await reserves(SUSHI)).toEqual(r1);
    expect(await book(acct, 'WETH', 'arbitrum')).toEqual(w1);
    const x1 = await removeLiquidity({ ...caller, positionId: a1.id, share: '0.5', idempotencyKey: 'lp-retry-2' });
    const x2 = await removeLiquidity({ ...caller, positionId: a1.id, share: '0.5', idempotencyKey: 'lp-retry-2' });
    expect(x2).toMatchObject({ amounts: x1.amounts, sharesBurnt: x1.sharesBurnt, entryId: x1.entryId });
    expect(x2.position.shares).toBe(a1.sharesMinted - x1.sharesBurnt);
    await expectBalancedLedger();
  });

  it('refusals: unknown pool, foreign token, funds, share, another user, production', async () => {
    const code = async (res: Awaited<ReturnType<typeof add>>, status: number, c: string, pointer?: string) => {
      expect(res.statusCode, res.body).toBe(status);
      expect(res.json().errors[0].code).toBe(c);
      if (pointer) expect(res.json().errors[0].source?.pointer).toBe(pointer);
    };
    await code(await add({ pool_id: 'nope', amounts: { WETH: '1' } }), 422, 'UNKNOWN_POOL', '/pool_id');
    await code(await add({ pool_id: SUSHI, amounts: { DAI: '1' } }), 422, 'UNKNOWN_TOKEN', '/amounts/DAI');
    await code(await add({ pool_id: SUSHI, amounts: { WETH: '1' } }), 422, 'AMOUNT_TOO_SMALL', '/amounts');
    await code(await add({ pool_id: SUSHI, amounts: { WETH: 1 } }), 422, 'VALIDATION_ERROR');
    await code(await add({ pool_id: SUSHI, amounts: { WETH: '1.0000001', USDC: '1.0000001' } }), 422, 'AMOUNT_PRECISION');
    const before = await reserves(SUSHI);
    const broke = await add({ pool_id: SUSHI, amounts: { WETH: '1000', USDC: '5000000' } });
    expect(broke.statusCode).toBe(422);
    expect(broke.json().errors[0].code).toBe('INSUFFICIENT_FUNDS');
    expect(await reserves(SUSHI)).toEqual(before); // nothing moved

    const pos = (await add({ pool_id: SUSHI, amounts: { WETH: '0.5', USDC: '2000' } })).json().data;
    await code(await remove({ position_id: pos.position_id, share: '1.5' }), 422, 'INVALID_SHARE', '/share');
    await code(await remove({ position_id: pos.position_id, share: '0' }), 422, 'INVALID_SHARE', '/share');
    const other = await createTestUser();
    await code(await remove({ position_id: pos.position_id }, other.headers), 404, 'POSITION_NOT_FOUND');
    expect((await t.app.inject({ method: 'GET', url: `/api/v2/defi/liquidity/positions/${pos.position_id}`, headers: other.headers })).statusCode).toBe(404);
    const prod = await createTestUser({ environment: 'production' });
    await code(await add({ pool_id: SUSHI, amounts: { WETH: '1', USDC: '4000' } }, prod.headers), 503, 'CHAIN_NOT_CONFIGURED');

    const list = (await t.app.inject({ method: 'GET', url: '/api/v2/defi/liquidity/positions?status=all', headers: t.headers })).json().data;
    expect(list.length).toBeGreaterThanOrEqual(5);
    expect(list.filter((x: { status: string }) => x.status === 'open').map((x: { position_id: string }) => x.position_id)).toContain(pos.position_id);
  });
});
