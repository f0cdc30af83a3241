import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKENS } from '../../domain/chains/registry';
import { getPool } from '../../domain/db/pool';
import { getEntry } from '../../domain/ledger';
import { getTemporalClient } from '../../domain/temporal/client';
import { SA } from '../../domain/temporal/search-attributes';
import { DecimalMoney as D } from '../../domain/money/amount';
import { getPool as getDexPool } from '../../domain/defi/pools';
import { applySwap, fromBaseUnits, getAmountOut, toBaseUnits } from '../../domain/defi/swaps/pricing';
import { createTestApp, createTestUser, type TestApp } from '../helpers/app';
import { startTestWorker, type TestWorker } from '../helpers/worker';
import { allReserves, book, custodyAddress, expectBalancedLedger, EVM_WALLET, fundBook, openAccount, reserves, swapEvents, waitSwap } from './helpers';

let t: TestApp;
let worker: TestWorker;
let acct: string;

beforeAll(async () => {
  t = await createTestApp();
  worker = await startTestWorker();
  acct = await openAccount(t, t.headers);
  await fundBook(acct, 'USDC', 'arbitrum', '500000.000000');
  await fundBook(acct, 'WBTC', 'arbitrum', '2.00000000');
  await fundBook(acct, 'ETH', 'arbitrum', '10');
}, 120_000);

afterAll(async () => {
  await worker?.stop();
  await t?.close();
});

const post = (url: string, payload: Record<string, unknown>, headers = t.headers) => t.app.inject({ method: 'POST', url, headers, payload });
const quote = async (body: Record<string, unknown>, headers = t.headers) => {
  const r = await post('/api/v1/defi/swap/quote', { chain: 'arbitrum', ...body }, headers);
  expect(r.statusCode, r.body).toBe(201);
  return r.json().data;
};
const execute = (quoteId: string, extra: Record<string, unknown> = {}, headers = t.headers) =>
  post('/api/v1/defi/swap/execute', { quote_id: quoteId, wallet_address: custodyAddress(acct, 'arbitrum'), max_gas_price_gwei: 50, deadline_minutes: 10, ...extra }, headers);

describe('pools', () => {
  it('are seeded for every environment with the registry\'s tokens and decimals', async () => {
    const { rows } = await getPool().query<{ environment: string; chain: string; tokens: string[]; decimals: number[] }>('SELECT environment, chain, tokens, decimals FROM defi_pools');
    expect(new Set(rows.map((r) => r.environment))).toEqual(new Set(['sandbox', 'production']));
    expect(new Set(rows.map((r) => r.chain))).toEqual(new Set(['ethereum', 'polygon', 'arbitrum', 'optimism', 'base', 'avalanche', 'bsc', 'solana']));
    for (const r of rows) {
      r.tokens.forEach((asset, i) => {
        // WETH pools serve native ETH too; every pool token is a registry token with the same decimals.
        const tok = TOKENS[r.chain].find((x) => x.assetCode === asset);
        expect(tok, `${r.chain} ${asset}`).toBeDefined();
        expect(r.decimals[i], `${r.chain} ${asset}`).toBe(tok!.decimals);
      });
    }
  });
});

describe('swap quotes', () => {
  it('finds the best route across DEXes with alternatives, gas in USD and a 30 s expiry', async () => {
    const before = Date.now();
    const q = await quote({ token_in: 'USDC', token_out: 'WETH', amount_in: '1000', slippage_tolerance: 0.005 });
    expect(q).toMatchObject({ chain: 'arbitrum', token_in: 'USDC', token_out: 'WETH', amount_in: '1000.000000', slippage_bps: 50 });
    expect(q.quote_id).toMatch(/^swq_/);
    expect(new Date(q.quote_expires_at).getTime() - before).toBeGreaterThanOrEqual(29_000);
    expect(new Date(q.quote_expires_at).getTime() - Date.now()).toBeLessThanOrEqual(30_000);
    expect(q.best_route.path).toEqual(['USDC', 'WETH']);
    // The estimate is exactly the pool's contract math at the stored reserves.
    const pool = (await getDexPool(getPool(), 'sandbox', q.best_route.pools[0]))!;
    const out = getAmountOut(pool, 'USDC', 'WETH', toBaseUnits('1000', 6));
    expect(q.estimated_output).toBe(fromBaseUnits(out, 18));
    expect(q.minimum_output).toBe(new D(q.estimated_output).times('0.995').toDecimalPlaces(18, D.ROUND_DOWN).toFixed(18));
    // Every other DEX with a route is an alternative, none better net of gas.
    // (Curve's pool on arbitrum is stable-only, so it has no route for this pair.)
    expect(q.alternative_routes.map((a: any) => a.dex).sort()).toEqual(['balancer', 'sushiswap', 'uniswap_v3'].filter((d) => d !== q.best_route.dex).sort());
    for (const a of q.alternative_routes) expect(new D(a.estimated_output).minus(q.estimated_output).times(3400).lte(new D(a.estimated_gas_usd))).toBe(true);
    expect(new D(q.estimated_gas_usd).gt(0)).toBe(true);
    expect(new D(q.price_impact_percent).gte(0)).toBe(true);
    expect(new D(q.network_fee).gt(0)).toBe(true);
  });

  it('routes through WETH when no DEX pools the pair directly', async () => {
    const q = await quote({ token_in: 'WBTC', token_out: 'DAI', amount_in: '0.1', dex_sources: ['sushiswap'] });
    expect(q.best_route).toMatchObject({ dex: 'sushiswap', path: ['WBTC', 'WETH', 'DAI'], fee_tier: '0.3% / 0.3%' });
    expect(q.best_route.pools).toEqual(['arbitrum-sushiswap-wbtc-weth-3000', 'arbitrum-sushiswap-weth-dai-3000']);
    const [p1, p2] = await Promise.all(q.best_route.pools.map((id: string) => getDexPool(getPool(), 'sandbox', id)));
    const mid = getAmountOut(p1!, 'WBTC', 'WETH', toBaseUnits('0.1', 8));
    expect(q.estimated_output).toBe(fromBaseUnits(getAmountOut(p2!, 'WETH', 'DAI', mid), 18));
    expect(q.alternative_routes).toEqual([]);
  });

  it('handles chains whose token decimals differ from the ledger (bsc 18-decimal USDC, solana 8-decimal WETH)', async () => {
    const bsc = await quote({ chain: 'bsc', token_in: 'ETH', token_out: 'USDC', amount_in: '1' });
    expect(bsc.best_route.path).toEqual(['ETH', 'USDC']);
    // 18 on-chain decimals, floored to the ledger's 6.
    expect(bsc.estimated_output).toMatch(/^\d+\.\d{6}$/);
    const pool = (await getDexPool(getPool(), 'sandbox', bsc.best_route.pools[0]))!;
    const raw = getAmountOut(pool, 'ETH', 'USDC', 10n ** 18n);
    expect(bsc.estimated_output).toBe(fromBaseUnits(raw, 18, 6));
    const sol = await quote({ chain: 'solana', token_in: 'USDC', token_out: 'WETH', amount_in: '3400' });
    expect(['raydium', 'orca']).toContain(sol.best_route.dex);
    // WETH has 8 decimals on solana: the 18-place ledger amount ends in ten zeros.
    expect(sol.estimated_output).toMatch(/^0\.\d{8}0{10}$/);
    // Solana gas: 5000 lamports + compute units x micro-lamports, SOL at its reference price.
    expect(new D(sol.estimated_gas_usd).lt('0.05')).toBe(true);
    const stable = await quote({ chain: 'solana', token_in: 'USDC', token_out: 'USDT', amount_in: '10000' });
    expect(stable.best_route).toMatchObject({ dex: 'saber', fee_tier: '0.01%' });
  });

  it('refuses bad input with a clear 422 and a pointer', async () => {
    const bad = async (body: Record<string, unknown>, code: string, pointer: string) => {
      const r = await post('/api/v1/defi/swap/quote', { chain: 'arbitrum', token_in: 'USDC', token_out: 'WETH', amount_in: '100', ...body });
      expect(r.statusCode, `${code} ${r.body}`).toBe(422);
      expect(r.json().errors[0]).toMatchObject({ code, source: { pointer } });
    };
    await bad({ chain: 'dogechain' }, 'UNKNOWN_CHAIN', '/chain');
    await bad({ token_in: 'SHIB' }, 'UNKNOWN_TOKEN', '/token_in');
    await bad({ chain: 'base', token_out: 'WBTC' }, 'UNKNOWN_TOKEN', '/token_out');
    await bad({ dex_sources: ['uniswap_v3', 'pancakeswap'] }, 'UNKNOWN_DEX', '/dex_sources/1');
    await bad({ dex_sources: ['raydium'] }, 'NO_ROUTE', '/dex_sources');
    await bad({ amount_in: '1.0000001' }, 'AMOUNT_PRECISION', '/amount_in');
    await bad({ amount_in: '0' }, 'AMOUNT_NOT_POSITIVE', '/amount_in');
    await bad({ amount_in: '0.000001' }, 'AMOUNT_TOO_SMALL', '/amount_in');
    await bad({ amount_in: '900000000' }, 'INSUFFICIENT_LIQUIDITY', '/amount_in');
    await bad({ token_in: 'ETH' }, 'SAME_TOKEN', '/token_out');
    await bad({ slippage_tolerance: 0.9 }, 'VALIDATION_ERROR', '/slippage_tolerance');
    await bad({ amount_in: 100 }, 'VALIDATION_ERROR', '/amount_in');
    // Production keys reach real chains only when RPC endpoints are configured.
    const prod = await createTestUser({ environment: 'production' });
    const p = await post('/api/v1/defi/swap/quote', { chain: 'arbitrum', token_in: 'USDC', token_out: 'WETH', amount_in: '100' }, prod.headers);
    expect(p.statusCode).toBe(503);
    expect(p.json().errors[0].code).toBe('CHAIN_NOT_CONFIGURED');
  });
});

describe('swap execution', () => {
  it('quote -> execute: submitted with a tx hash, settled in one entry, pools moved, a second quote is worse', async () => {
    const q = await quote({ token_in: 'USDC', token_out: 'WETH', amount_in: '5000' });
    const poolId = q.best_route.pools[0];
    const [r0, usdc0, weth0] = await Promise.all([reserves(poolId), book(acct, 'USDC', 'arbitrum'), book(acct, 'WETH', 'arbitrum')]);
    const r = await execute(q.quote_id);
    expect(r.statusCode, r.body).toBe(201);
    const s = r.json().data;
    expect(s).toMatchObject({ quote_id: q.quote_id, status: 'submitted', chain: 'arbitrum', token_in: 'USDC', token_out: 'WETH', dex: q.best_route.dex, amount_in: '5000.000000', expected_output: q.estimated_output, account_id: acct });
    expect(s.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(new D(s.gas_price_gwei).gt(0)).toBe(true);

    const done = await waitSwap(t, t.headers, s.swap_id);
    expect(done).toMatchObject({ status: 'completed', actual_output: q.estimated_output, tx_hash: s.tx_hash, failure: null });
    expect(new D(done.amount_received).plus(done.network_fee).toFixed(18)).toBe(done.actual_output);
    // Ledger: USDC left the arbitrum book, WETH (less the network fee) arrived on it.
    expect(await book(acct, 'USDC', 'arbitrum')).toMatchObject({ total: new D(usdc0.total).minus(5000).toFixed(6), reserved: '0.000000' });
    expect((await book(acct, 'WETH', 'arbitrum')).total).toBe(new D(weth0.total).plus(done.amount_received).toFixed(18));
    // Pool: exactly the amounts in and out.
    const r1 = await reserves(poolId);
    const pool = (await getDexPool(getPool(), 'sandbox', poolId))!;
    const [iu, iw] = [pool.tokens.indexOf('USDC'), pool.tokens.indexOf('WETH')];
    expect(r1[iu] - r0[iu]).toBe(5_000_000_000n);
    expect(r0[iw] - r1[iw]).toBe(toBaseUnits(done.actual_output, 18));
    expect(r1[0] * r1[1] >= r0[0] * r0[1]).toBe(true);
    // One settlement entry with both legs; the reservation was released into it.
    const { rows } = await getPool().query('SELECT reservation_entry_id, settlement_entry_id FROM defi_swaps WHERE id = $1', [s.swap_id]);
    const settle = (await getEntry(rows[0].settlement_entry_id))!;
    expect(settle.status).toBe('posted');
    expect(new Set(settle.lines.map((l) => l.assetCode))).toEqual(new Set(['USDC', 'WETH']));
    expect((await getEntry(rows[0].reservation_entry_id))!.status).toBe('voided');
    // Operators find the workflow by the swap's id, account, chain and status.
    const handle = (await getTemporalClient()).workflow.getHandle(s.workflow_id);
    expect(await handle.result()).toEqual({ swap_id: s.swap_id, status: 'completed' });
    const d = await handle.describe();
    expect(d.typedSearchAttributes.get(SA.operationId)).toBe(s.swap_id);
    expect(d.typedSearchAttributes.get(SA.chain)).toBe('arbitrum');
    expect(d.typedSearchAttributes.get(SA.accountIds)).toEqual([acct]);
    expect(d.typedSearchAttributes.get(SA.businessStatus)).toBe('completed');
    const ev = (await swapEvents()).find((e) => e.swap_id === s.swap_id);
    expect(ev).toMatchObject({ amount_in: '5000.000000', amount_out: done.actual_output, tx_hash: s.tx_hash, entry_id: settle.id });
    await expectBalancedLedger();

    // The executed swap moved the price: the same quote again gives less.
    const again = await quote({ token_in: 'USDC', token_out: 'WETH', amount_in: '5000', dex_sources: [q.best_route.dex] });
    expect(new D(again.estimated_output).lt(q.estimated_output)).toBe(true);
  });

  it('multi-hop and native ETH through the v2 routes (GET quote, POST execute)', async () => {
    const g = await t.app.inject({ method: 'GET', url: '/api/v2/defi/swap/quote?from=WBTC&to=DAI&amount=0.05&chain=arbitrum&dex_sources=sushiswap', headers: t.headers });
    expect(g.statusCode, g.body).toBe(200);
    expect(g.json().data.best_route.path).toEqual(['WBTC', 'WETH', 'DAI']);
    const hop = await execute(g.json().data.quote_id);
    const multi = await waitSwap(t, t.headers, hop.json().data.swap_id);
    expect(multi.status).toBe('completed');
    expect((await book(acct, 'DAI', 'arbitrum')).total).toBe(multi.amount_received);

    const eth0 = await book(acct, 'ETH', 'arbitrum');
    const r = await post('/api/v2/defi/swap/execute', { from_token: 'ETH', to_token: 'USDC', amount: '0.5', slippage_bps: 100, chain: 'arbitrum' });
    expect(r.statusCode, r.body).toBe(201);
    const s = r.json().data;
    expect(s.quote.best_route.path).toEqual(['ETH', 'USDC']);
    expect(s.status).toBe('submitted');
    const done = await waitSwap(t, t.headers, s.swap_id);
    expect(done.status).toBe('completed');
    expect((await book(acct, 'ETH', 'arbitrum')).total).toBe(new D(eth0.total).minus('0.5').toFixed(18));
  });

  it('gas above the cap: refused before submission, reservation voided, nothing moved', async () => {
    const q = await quote({ token_in: 'USDC', token_out: 'WETH', amount_in: '100' });
    const [pools0, usdc0] = [await allReserves(), await book(acct, 'USDC', 'arbitrum')];
    const r = await execute(q.quote_id, { max_gas_price_gwei: 0.000001 });
    expect(r.statusCode).toBe(201);
    const s = await waitSwap(t, t.headers, r.json().data.swap_id);
    expect(s).toMatchObject({ status: 'failed', tx_hash: null, compensation_executed: true, failure: { code: 'GAS_PRICE_ABOVE_LIMIT' } });
    expect(s.failure.reason).toMatch(/above the limit of 0.000001/);
    expect(await book(acct, 'USDC', 'arbitrum')).toEqual(usdc0);
    expect(await allReserves()).toEqual(pools0);
    const { rows } = await getPool().query('SELECT reservation_entry_id FROM defi_swaps WHERE id = $1', [s.swap_id]);
    expect((await getEntry(rows[0].reservation_entry_id))!).toMatchObject({ status: 'voided' });
  });

  it('reverted on chain: the reservation is voided with the reason, pools unchanged', async () => {
    const q = await quote({ token_in: 'USDC', token_out: 'WETH', amount_in: '100' });
    const [pools0, usdc0] = [await allReserves(), await book(acct, 'USDC', 'arbitrum')];
    const r = await execute(q.quote_id, { sandbox_outcome: 'revert' });
    expect(r.json().data.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    const s = await waitSwap(t, t.headers, r.json().data.swap_id);
    expect(s).toMatchObject({ status: 'failed', compensation_executed: true, failure: { code: 'TX_REVERTED' } });
    expect(await book(acct, 'USDC', 'arbitrum')).toEqual(usdc0);
    expect(await allReserves()).toEqual(pools0);
    const { rows } = await getPool().query('SELECT reservation_entry_id FROM defi_swaps WHERE id = $1', [s.swap_id]);
    expect((await getEntry(rows[0].reservation_entry_id))!.voidReason).toMatch(/^TX_REVERTED: /);
  });

  it('slippage exceeded: a swap executed in between leaves the second below its minimum; it reverts and refunds', async () => {
    const body = { token_in: 'USDC', token_out: 'WETH', amount_in: '20000', dex_sources: ['sushiswap'], slippage_tolerance: 0.001 };
    const first = await quote(body);
    const second = await quote(body);
    expect(second.estimated_output).toBe(first.estimated_output);
    const a = await waitSwap(t, t.headers, (await execute(first.quote_id)).json().data.swap_id);
    expect(a.status).toBe('completed');
    const [pools0, usdc0, weth0] = [await allReserves(), await book(acct, 'USDC', 'arbitrum'), await book(acct, 'WETH', 'arbitrum')];
    const b = await waitSwap(t, t.headers, (await execute(second.quote_id)).json().data.swap_id);
    expect(b).toMatchObject({ status: 'failed', actual_output: null, compensation_executed: true, failure: { code: 'SLIPPAGE_EXCEEDED' } });
    expect(b.failure.reason).toContain(`below the minimum of ${second.minimum_output}`);
    expect(await allReserves()).toEqual(pools0);
    expect(await book(acct, 'USDC', 'arbitrum')).toEqual(usdc0);
    expect(await book(acct, 'WETH', 'arbitrum')).toEqual(weth0);
    await expectBalancedLedger();
  });

  it('a quote is spent once, only by its owner; swaps are private; funds and addresses are checked', async () => {
    const q = await quote({ token_in: 'USDC', token_out: 'WETH', amount_in: '10' });
    const stranger = await createTestUser();
    await openAccount(t, stranger.headers);
    const foreign = await execute(q.quote_id, {}, stranger.headers);
    expect(foreign.statusCode).toBe(422);
    expect(foreign.json().errors[0]).toMatchObject({ code: 'QUOTE_NOT_FOUND', source: { pointer: '/quote_id' } });
    const bad = await execute(q.quote_id, { wallet_address: '0x52908400098527886E0F7030069857D2E4169Ee7' });
    expect(bad.json().errors[0]).toMatchObject({ code: 'INVALID_ADDRESS', source: { pointer: '/wallet_address' } });
    // A wallet that is not the account's custody address: the platform cannot sign for it; nothing is spent.
    const elsewhere = await execute(q.quote_id, { wallet_address: EVM_WALLET });
    expect([elsewhere.statusCode, elsewhere.json().errors[0].code, elsewhere.json().errors[0].source]).toEqual([422, 'WALLET_NOT_CUSTODIAL', { pointer: '/wallet_address' }]);
    expect(elsewhere.json().errors[0].detail).toContain(custodyAddress(acct, 'arbitrum'));
    const ok = await execute(q.quote_id);
    expect(ok.statusCode).toBe(201);
    const reuse = await execute(q.quote_id);
    expect(reuse.statusCode).toBe(422);
    expect(reuse.json().errors[0].code).toBe('QUOTE_ALREADY_USED');
    expect((await t.app.inject({ method: 'GET', url: `/api/v1/defi/swap/${ok.json().data.swap_id}`, headers: stranger.headers })).statusCode).toBe(404);
    expect((await waitSwap(t, t.headers, ok.json().data.swap_id)).status).toBe('completed');

    const poor = await quote({ token_in: 'USDC', token_out: 'WETH', amount_in: '10' }, stranger.headers);
    const r = await execute(poor.quote_id, {}, stranger.headers);
    expect(r.statusCode).toBe(422);
    expect(r.json().errors[0].code).toBe('INSUFFICIENT_FUNDS');
    const unknown = await execute('swq_nope');
    expect(unknown.json().errors[0].code).toBe('QUOTE_NOT_FOUND');
  });
});

describe('concurrency', () => {
  it('many swaps on one pool at once keep x*y from falling, match the pool flows and keep the ledger balanced', async () => {
    const poolId = 'arbitrum-sushiswap-weth-usdc-3000';
    const pool0 = (await getDexPool(getPool(), 'sandbox', poolId))!;
    const [usdc0, weth0] = [await book(acct, 'USDC', 'arbitrum'), await book(acct, 'WETH', 'arbitrum')];
    const requests = Array.from({ length: 12 }, (_, i) =>
      i % 3 === 2
        ? { from_token: 'WETH', to_token: 'USDC', amount: '0.4' }
        : { from_token: 'USDC', to_token: 'WETH', amount: String(1000 + i * 37) },
    );
    const started = await Promise.all(requests.map((b) => post('/api/v2/defi/swap/execute', { ...b, chain: 'arbitrum', slippage_bps: 5000, dex_sources: ['sushiswap'] })));
    for (const r of started) expect(r.statusCode, r.body).toBe(201);
    const done = await Promise.all(started.map((r) => waitSwap(t, t.headers, r.json().data.swap_id, 40_000)));
    for (const s of done) expect(s).toMatchObject({ status: 'completed', route: { pools: [poolId] } });
    const pool1 = (await getDexPool(getPool(), 'sandbox', poolId))!;
    expect(pool1.reserves[0] * pool1.reserves[1] > pool0.reserves[0] * pool0.reserves[1]).toBe(true);
    // The pool moved by exactly the swaps' amounts: every swap saw the reserves the previous one left.
    const iw = pool0.tokens.indexOf('WETH');
    let dw = 0n;
    let du = 0n;
    for (const s of done) {
      if (s.token_in === 'WETH') {
        dw += toBaseUnits(s.amount_in, 18);
        du -= toBaseUnits(s.actual_output, 6);
      } else {
        du += toBaseUnits(s.amount_in, 6);
        dw -= toBaseUnits(s.actual_output, 18);
      }
    }
    expect(pool1.reserves[iw] - pool0.reserves[iw]).toBe(dw);
    expect(pool1.reserves[1 - iw] - pool0.reserves[1 - iw]).toBe(du);
    // Replaying the swaps in settlement order over the starting reserves gives each one's output.
    const order = await getPool().query<{ id: string }>(`SELECT s.id FROM defi_swaps s JOIN ledger_lines l ON l.entry_id = s.settlement_entry_id WHERE s.id = ANY($1) GROUP BY s.id ORDER BY min(l.seq)`, [done.map((s) => s.swap_id)]);
    let state = pool0 as import('../../domain/defi/swaps/pricing').PoolState;
    const byId = new Map(done.map((s) => [s.swap_id, s]));
    for (const { id } of order.rows) {
      const s = byId.get(id)!;
      const [tin, tout, din, dout] = s.token_in === 'WETH' ? ['WETH', 'USDC', 18, 6] : ['USDC', 'WETH', 6, 18];
      const out = getAmountOut(state, tin as string, tout as string, toBaseUnits(s.amount_in, din as number));
      expect(fromBaseUnits(out, dout as number)).toBe(s.actual_output);
      state = applySwap(state, tin as string, tout as string, toBaseUnits(s.amount_in, din as number), out);
      expect(state.reserves[0] * state.reserves[1] >= pool0.reserves[0] * pool0.reserves[1]).toBe(true);
    }
    // The customer's books moved by exactly what the swaps say.
    const sum = (token: string, f: (s: any) => string) => done.filter((s) => s.token_in === token || s.token_out === token).reduce((acc, s) => acc.plus(s.token_in === token ? new D(s.amount_in).neg() : f(s)), new D(0));
    expect((await book(acct, 'USDC', 'arbitrum')).total).toBe(new D(usdc0.total).plus(sum('USDC', (s) => s.amount_received)).toFixed(6));
    expect((await book(acct, 'WETH', 'arbitrum')).total).toBe(new D(weth0.total).plus(sum('WETH', (s) => s.amount_received)).toFixed(18));
    await expectBalancedLedger();
    await swapEvents();
  });
});
