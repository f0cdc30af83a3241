import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPool } from '../../domain/db/pool';
import { getEntry } from '../../domain/ledger';
import { DecimalMoney as D } from '../../domain/money/amount';
import { getPool as getDexPool } from '../../domain/defi/pools';
import { floorToPrecision, fromBaseUnits, getAmountOut, toBaseUnits } from '../../domain/defi/swaps/pricing';
import { createTestApp, createTestUser, type TestApp } from '../helpers/app';
import { startTestWorker, type TestWorker } from '../helpers/worker';
import { allReserves, book, expectBalancedLedger, fundBook, openAccount, waitSwap } from './helpers';

let t: TestApp;
let worker: TestWorker;
let acct: string;

beforeAll(async () => {
  t = await createTestApp();
  worker = await startTestWorker();
  acct = await openAccount(t, t.headers);
  await fundBook(acct, 'WETH', 'arbitrum', '150');
  await fundBook(acct, 'USDC', 'arbitrum', '1000.000000');
}, 120_000);

afterAll(async () => {
  await worker?.stop();
  await t?.close();
});

const flash = (payload: Record<string, unknown>, headers = t.headers) => t.app.inject({ method: 'POST', url: '/api/v2/defi/flash-loan', headers, payload });
const lender = async () => (await getPool().query<{ liquidity: string; loan_count: string }>(`SELECT liquidity::text, loan_count FROM defi_lending_pools WHERE environment = 'sandbox' AND id = 'arbitrum-aave-usdc'`)).rows[0];
const entryCount = async () => Number((await getPool().query<{ n: string }>('SELECT count(*) AS n FROM journal_entries')).rows[0].n);

/** Everything a failed flash loan must leave as it was. */
async function snapshot() {
  return { pools: await allReserves(), lender: await lender(), entries: await entryCount(), usdc: await book(acct, 'USDC', 'arbitrum'), weth: await book(acct, 'WETH', 'arbitrum') };
}

const arbitrage = [
  { type: 'swap', from: 'USDC', to: 'WETH', dex: 'sushiswap' },
  { type: 'swap', from: 'WETH', to: 'USDC', dex: 'uniswap_v3' },
];

describe('flash loans', () => {
  it('a large swap leaves SushiSwap cheap; a flash loan buys there, sells on Uniswap, repays and keeps the profit', async () => {
    // Selling 100 WETH into the 750 WETH SushiSwap pool drops its WETH price by about a quarter.
    const sell = await t.app.inject({ method: 'POST', url: '/api/v2/defi/swap/execute', headers: t.headers, payload: { from_token: 'WETH', to_token: 'USDC', amount: '100', chain: 'arbitrum', dex_sources: ['sushiswap'], slippage_bps: 500 } });
    expect(sell.statusCode, sell.body).toBe(201);
    expect((await waitSwap(t, t.headers, sell.json().data.swap_id)).status).toBe('completed');

    const sushi = (await getDexPool(getPool(), 'sandbox', 'arbitrum-sushiswap-weth-usdc-3000'))!;
    const uni = await Promise.all(['arbitrum-uniswap_v3-weth-usdc-500', 'arbitrum-uniswap_v3-weth-usdc-3000'].map(async (id) => (await getDexPool(getPool(), 'sandbox', id))!));
    // What the contracts would pay, hop by hop, at the current reserves.
    const weth = getAmountOut(sushi, 'USDC', 'WETH', toBaseUnits('50000', 6));
    const outs = uni.map((p) => ({ id: p.id, out: floorToPrecision(getAmountOut(p, 'WETH', 'USDC', weth), 6, 6) })).sort((a, b) => (b.out > a.out ? 1 : -1));
    const [lender0, usdc0] = [await lender(), await book(acct, 'USDC', 'arbitrum')];

    const r = await flash({ token: 'USDC', amount: '50000', chain: 'arbitrum', operations: arbitrage });
    expect(r.statusCode, r.body).toBe(201);
    const loan = r.json().data;
    expect(loan).toMatchObject({ status: 'completed', chain: 'arbitrum', token: 'USDC', amount: '50000.000000', fee: '45.000000', lending_pool: 'arbitrum-aave-usdc', account_id: acct });
    expect(loan.operations).toEqual([
      { index: 0, type: 'swap', dex: 'sushiswap', pool_id: sushi.id, from: 'USDC', to: 'WETH', amount_in: '50000.000000', amount_out: fromBaseUnits(weth, 18) },
      { index: 1, type: 'swap', dex: 'uniswap_v3', pool_id: outs[0].id, from: 'WETH', to: 'USDC', amount_in: fromBaseUnits(weth, 18), amount_out: fromBaseUnits(outs[0].out, 6) },
    ]);
    expect(loan.final_amount).toBe(fromBaseUnits(outs[0].out, 6));
    expect(new D(loan.network_fee).gt(0)).toBe(true);
    expect(loan.profit).toBe(new D(loan.final_amount).minus('50000').minus('45').minus(loan.network_fee).toFixed(6));
    expect(new D(loan.profit).gt(1000)).toBe(true);

    // Profit on the customer's arbitrum book; the lender earned its fee; one balanced entry.
    expect((await book(acct, 'USDC', 'arbitrum')).total).toBe(new D(usdc0.total).plus(loan.profit).toFixed(6));
    const l1 = await lender();
    expect(BigInt(l1.liquidity) - BigInt(lender0.liquidity)).toBe(45_000_000n);
    expect(Number(l1.loan_count)).toBe(Number(lender0.loan_count) + 1);
    const entry = (await getEntry(loan.entry_id))!;
    expect(entry).toMatchObject({ status: 'posted', type: 'flash_loan' });
    expect(entry.lines.find((x) => x.customerAccountId === acct)).toMatchObject({ direction: 'credit', amount: loan.profit, assetCode: 'USDC' });
    await expectBalancedLedger();
    // Both pools moved by exactly the operations' amounts.
    const sushi1 = (await getDexPool(getPool(), 'sandbox', sushi.id))!;
    expect(sushi1.reserves[sushi.tokens.indexOf('USDC')] - sushi.reserves[sushi.tokens.indexOf('USDC')]).toBe(50_000_000_000n);
    expect(sushi.reserves[sushi.tokens.indexOf('WETH')] - sushi1.reserves[sushi.tokens.indexOf('WETH')]).toBe(weth);

    const got = await t.app.inject({ method: 'GET', url: `/api/v2/defi/flash-loans/${loan.id}`, headers: t.headers });
    expect(got.json().data).toEqual(loan);
    const stranger = await createTestUser();
    expect((await t.app.inject({ method: 'GET', url: `/api/v2/defi/flash-loans/${loan.id}`, headers: stranger.headers })).statusCode).toBe(404);
  });

  it('an operation that cannot run rolls everything back (even the swap before it) and names its index', async () => {
    const before = await snapshot();
    const r = await flash({ token: 'USDC', amount: '10000', chain: 'arbitrum', operations: [arbitrage[0], { type: 'swap', from: 'WETH', to: 'USDC', dex: 'curve' }] });
    expect(r.statusCode).toBe(422);
    expect(r.json().errors[0]).toMatchObject({ code: 'NO_POOL', source: { pointer: '/operations/1' }, meta: { failed_step: 'operation', operation_index: 1, rolled_back: true } });
    expect(r.json().errors[0].detail).toMatch(/^Operation 1 failed: curve has no WETH\/USDC pool/);
    expect(await snapshot()).toEqual(before);
  });

  it('a final balance that cannot repay amount + fee rolls back, as does ending in another token', async () => {
    const before = await snapshot();
    // There and back through one pool pays its fee twice: less than borrowed comes back.
    const roundTrip = await flash({ token: 'USDC', amount: '10000', chain: 'arbitrum', operations: [{ type: 'swap', from: 'USDC', to: 'WETH', dex: 'sushiswap' }, { type: 'swap', from: 'WETH', to: 'USDC', dex: 'sushiswap' }] });
    expect(roundTrip.statusCode).toBe(422);
    expect(roundTrip.json().errors[0]).toMatchObject({ code: 'NOT_REPAID', source: { pointer: '/operations' }, meta: { failed_step: 'repay', operation_index: null } });
    expect(roundTrip.json().errors[0].detail).toMatch(/repaying needs 10009.000000 \(10000.000000 \+ fee 9.000000\)/);
    const dangling = await flash({ token: 'USDC', amount: '100', chain: 'arbitrum', operations: [arbitrage[0]] });
    expect(dangling.json().errors[0]).toMatchObject({ code: 'NOT_REPAID', meta: { failed_step: 'repay' } });
    expect(dangling.json().errors[0].detail).toMatch(/end holding WETH/);
    const nothing = await flash({ token: 'USDC', amount: '100', chain: 'arbitrum', operations: [{ type: 'swap', from: 'WETH', to: 'USDC', dex: 'uniswap_v3' }] });
    expect(nothing.json().errors[0]).toMatchObject({ code: 'NOTHING_TO_SWAP', source: { pointer: '/operations/0' } });
    const tooMuch = await flash({ token: 'USDC', amount: '900000000', chain: 'arbitrum', operations: arbitrage });
    expect(tooMuch.json().errors[0]).toMatchObject({ code: 'INSUFFICIENT_LIQUIDITY', source: { pointer: '/amount' }, meta: { failed_step: 'borrow' } });
    expect(await snapshot()).toEqual(before);
  });

  it('refuses malformed requests before anything runs', async () => {
    const bad = async (body: Record<string, unknown>, code: string, pointer: string) => {
      const r = await flash({ token: 'USDC', amount: '100', chain: 'arbitrum', operations: arbitrage, ...body });
      expect(r.statusCode, r.body).toBe(422);
      expect(r.json().errors[0]).toMatchObject({ code, source: { pointer } });
    };
    await bad({ operations: [{ type: 'lend', from: 'USDC', to: 'WETH', dex: 'sushiswap' }] }, 'UNSUPPORTED_OPERATION', '/operations/0/type');
    await bad({ operations: [arbitrage[0], { type: 'swap', from: 'WETH', to: 'USDC', dex: 'pancakeswap' }] }, 'UNKNOWN_DEX', '/operations/1/dex');
    await bad({ operations: [{ type: 'swap', from: 'PEPE', to: 'WETH', dex: 'sushiswap' }] }, 'UNKNOWN_TOKEN', '/operations/0/from');
    await bad({ operations: [] }, 'VALIDATION_ERROR', '/operations');
    await bad({ token: 'USDC', amount: '1.0000001' }, 'AMOUNT_PRECISION', '/amount');
    await bad({ chain: 'solana', token: 'USDC', operations: [{ type: 'swap', from: 'USDC', to: 'WETH', dex: 'raydium' }, { type: 'swap', from: 'WETH', to: 'USDC', dex: 'orca' }] }, 'NO_LENDING_POOL', '/amount');
  });
});

describe('portfolio', () => {
  it('shows holdings per chain with USD values, swaps and flash loans; no positions yet', async () => {
    const r = await t.app.inject({ method: 'GET', url: '/api/v2/defi/portfolio', headers: t.headers });
    expect(r.statusCode).toBe(200);
    const p = r.json().data;
    const weth = p.holdings.find((h: any) => h.chain === 'arbitrum' && h.asset_code === 'WETH');
    expect(weth).toMatchObject({ account_id: acct, token: 'WETH', total_balance: (await book(acct, 'WETH', 'arbitrum')).total });
    expect(weth.usd_value).toBe(new D(weth.total_balance).times(3400).toDecimalPlaces(2, D.ROUND_HALF_EVEN).toFixed(2));
    const usdc = p.holdings.find((h: any) => h.chain === 'arbitrum' && h.asset_code === 'USDC');
    expect(p.chains).toEqual([{ chain: 'arbitrum', usd_value: new D(weth.usd_value).plus(usdc.usd_value).toFixed(2) }]);
    expect(p.total_usd_value).toBe(p.chains[0].usd_value);
    expect(p.swaps).toHaveLength(1);
    expect(p.swaps[0]).toMatchObject({ status: 'completed', token_in: 'WETH', token_out: 'USDC' });
    expect(p.flash_loans).toHaveLength(1);
    expect(p.flash_loans[0].profit).toMatch(/^\d+\.\d{6}$/);
    for (const k of ['lending_positions', 'staking_positions', 'liquidity_positions', 'yield_positions']) expect(p[k]).toEqual([]);
    expect(p.note).toMatch(/lending positions at collateral less debt/);
    const stranger = await createTestUser();
    const empty = (await t.app.inject({ method: 'GET', url: '/api/v2/defi/portfolio', headers: stranger.headers })).json().data;
    expect(empty).toMatchObject({ total_usd_value: '0.00', holdings: [], swaps: [], flash_loans: [] });
  });
});
