/**
 * Lending through the API (ethereum, sandbox): the markets' kinked rates, supply / borrow /
 * repay / withdraw with their ledger entries and scaled balances, the borrowing-power and
 * health-factor rules, interest accrual by index over block time (hand-computed), idempotent
 * retries, position events against the catalog, refusals, and another user's position a 404.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPool } from '../../domain/db/pool';
import { accrueMarket, getMarket, type LendingMarket } from '../../domain/defi/lending/markets';
import { getEntry } from '../../domain/ledger';
import { DecimalMoney as D } from '../../domain/money/amount';
import { createTestApp, createTestUser, type TestApp } from '../helpers/app';
import { book, catalogEvents, expectBalancedLedger, fundBook, openAccount } from './helpers';

let t: TestApp;
let acct: string;

beforeAll(async () => {
  t = await createTestApp();
  acct = await openAccount(t, t.headers);
  await fundBook(acct, 'WETH', 'ethereum', '100');
  await fundBook(acct, 'USDC', 'ethereum', '1000.000000');
}, 120_000);

afterAll(async () => {
  await t?.close();
});

const post = (op: string, payload: Record<string, unknown>, headers: Record<string, string> = t.headers) =>
  t.app.inject({ method: 'POST', url: `/api/v2/defi/lending/${op}`, headers, payload });
const get = (url: string, headers = t.headers) => t.app.inject({ method: 'GET', url, headers });
const refused = async (op: string, payload: Record<string, unknown>, status: number, code: string, headers = t.headers) => {
  const r = await post(op, payload, headers);
  expect({ status: r.statusCode, code: r.json().errors?.[0]?.code }, r.body).toEqual({ status, code });
};

const WETH = 'ethereum-aave-weth';
const USDC = 'ethereum-aave-usdc';

describe('money markets', () => {
  it('lists each market with the kinked rates of its utilization', async () => {
    const r = await get('/api/v2/defi/lending/markets?chain=ethereum');
    expect(r.statusCode, r.body).toBe(200);
    const usdc = r.json().data.find((m: { id: string }) => m.id === USDC);
    // Seed: 3,000,000,000 supplied, 2,400,000,000 borrowed: U = 0.8 below the optimal 0.92;
    // borrow = 0 + 0.06 x 0.8 / 0.92 = 0.05217391...; supply = borrow x 0.8 x (1 - 0.10) = 0.03756521...
    // (the borrows have grown by the interest since the database was made: U a hair above 0.8).
    expect(usdc).toMatchObject({ chain: 'ethereum', protocol: 'aave', asset_code: 'USDC', ltv: '0.75', liquidation_threshold: '0.78', usd_price: '1' });
    const near = (v: string, x: string) => expect(new D(v).minus(x).abs().lt('0.000001'), `${v} ≈ ${x}`).toBe(true);
    near(usdc.utilization, '0.8');
    near(usdc.borrow_rate, '0.05217391');
    near(usdc.supply_rate, '0.03756522');
    // The rates follow the utilization shown, by the kinked model.
    near(usdc.borrow_rate, new D('0.06').times(usdc.utilization).div('0.92').toFixed());
    expect(usdc.rate_model).toEqual({ base_rate: '0', slope1: '0.06', slope2: '0.6', optimal_utilization: '0.92', reserve_factor: '0.1' });
    expect(r.json().data.every((m: { chain: string }) => m.chain === 'ethereum')).toBe(true);
  });

  it('accrues by index over whole blocks: per-second compounding for debt, linear for supply (hand-computed)', () => {
    const m: LendingMarket = {
      environment: 'sandbox', id: 'x', chain: 'ethereum', protocol: 'aave', asset: 'USDC', precision: 6,
      model: { base: '0', slope1: '0.06', slope2: '0.6', optimalUtilization: '0.92', reserveFactor: '0.1' },
      ltv: '0.75', liquidationThreshold: '0.78', liquidationBonus: '0.045',
      cash: '20', scaledSupply: '100', scaledBorrows: '80', supplyIndex: '1', borrowIndex: '1', accruedAt: new Date('2026-01-01T00:00:00Z'), active: true,
    };
    // 86,400 s plus 11 s: the 11 s are less than one 12-second Ethereum block, so they wait.
    const a = accrueMarket(m, new Date('2026-01-02T00:00:11Z'));
    expect(a.accruedAt.toISOString()).toBe('2026-01-02T00:00:00.000Z');
    // r = 0.06 x 0.8 / 0.92 = 6/115; (1 + r / 31,536,000)^86,400 is e^(86,400 r / 31,536,000) less the
    // second-order term 86,400 (r / 31,536,000)^2 / 2 = 1.18e-13: compounding per second, not continuously.
    const r = new D(6).div(115);
    const borrow = new D(a.borrowIndex);
    const continuous = r.times(86_400).div(31_536_000).exp();
    expect(continuous.minus(borrow).toSignificantDigits(3).toNumber()).toBe(1.18e-13);
    expect(borrow.toFixed(12)).toBe('1.000142952444');
    // supply rate = r x 0.8 x 0.9 = 4.32/115; the index grows linearly: 1 + 4.32/115 x 86,400 / 31,536,000.
    expect(a.supplyIndex).toBe(new D(1).plus(new D('4.32').div(115).times(86_400).div(31_536_000)).toDecimalPlaces(27, D.ROUND_DOWN).toFixed());
    // Nothing elapsed (or a clock behind): unchanged.
    expect(accrueMarket(a, new Date('2026-01-02T00:00:05Z'))).toBe(a);
  });
});

describe('a lending position', () => {
  let positionId: string;

  it('supply opens the position: WETH from the chain book into the market in one balanced entry; position.opened', async () => {
    const before = await getMarket('sandbox', WETH);
    const r = await post('supply', { market_id: WETH, amount: '10', account_id: acct });
    expect(r.statusCode, r.body).toBe(200);
    const { operation, position } = r.json().data;
    positionId = position.position_id;
    expect(positionId).toMatch(/^ln_/);
    expect(operation).toMatchObject({ kind: 'supply', market_id: WETH, asset_code: 'WETH', amount: '10.000000000000000000', seized: null, health_factor: null });
    expect(position).toMatchObject({ position_type: 'lending', status: 'open', account_id: acct, chain: 'ethereum', protocol: 'aave', borrowed: [], debt_usd: '0.00', health_factor: null, liquidation_warning: false });
    // 10 WETH at 3400: 34,000 USD of collateral, 27,370 of borrowing power (LTV 0.805), 28,220 counted at the 0.83 threshold.
    expect(position.supplied).toEqual([expect.objectContaining({ market_id: WETH, asset_code: 'WETH', amount: '10.000000000000000000', usd_value: '34000.00' })]);
    expect(position).toMatchObject({ collateral_usd: '34000.00', borrowing_power_usd: '27370.00', liquidation_threshold_usd: '28220.00' });
    expect(await book(acct, 'WETH', 'ethereum')).toMatchObject({ total: '90.000000000000000000' });
    const entry = (await getEntry(operation.entry_id))!;
    expect(entry.type).toBe('lending_supply');
    expect(entry.lines.map((l) => [l.direction, l.amount])).toEqual([['debit', '10.000000000000000000'], ['credit', '10.000000000000000000']]);
    const after = await getMarket('sandbox', WETH);
    expect(new D(after.cash).minus(before.cash).toFixed()).toBe('10');
    const [opened] = await catalogEvents('position.opened', positionId);
    expect(opened).toMatchObject({ position_id: positionId, position_type: 'lending', market_id: WETH, asset: 'WETH', amount: '10.000000000000000000', operation: 'supply', entry_id: entry.id });
    await expectBalancedLedger();
  });

  it('borrows within the borrowing power and no further; the health factor follows', async () => {
    // A cent over the power: the supply's interest (it accrues per 12-second block: ~0.0002 USD of power
    // a block) must not carry the refusal over the line when a block passes between the tests.
    await refused('borrow', { market_id: USDC, amount: '27370.01' }, 422, 'INSUFFICIENT_COLLATERAL');
    const r = await post('borrow', { market_id: USDC, amount: '20000' });
    expect(r.statusCode, r.body).toBe(200);
    const { operation, position } = r.json().data;
    expect(operation).toMatchObject({ kind: 'borrow', amount: '20000.000000', position_id: positionId });
    expect(position.borrowed).toEqual([expect.objectContaining({ market_id: USDC, amount: '20000.000000', usd_value: '20000.00' })]);
    // 28,220 / 20,000
    expect(position.health_factor).toBe('1.411000');
    expect(await book(acct, 'USDC', 'ethereum')).toMatchObject({ total: '21000.000000' });
    expect((await getEntry(operation.entry_id))!.type).toBe('lending_borrow');
    await expectBalancedLedger();
  });

  it('the portfolio counts the position as collateral less debt and lists the supply among the yield positions', async () => {
    const pf = (await get('/api/v2/defi/portfolio')).json().data;
    const ln = pf.lending_positions.find((x: { position_id: string }) => x.position_id === positionId);
    expect(ln).toMatchObject({ collateral_usd: '34000.00', debt_usd: '20000.00' });
    // 1.411000 at the borrow; a 12-second block of debt interest since then may take it to 1.410999.
    expect(new D(ln.health_factor).minus('1.411').abs().lte('0.000002')).toBe(true);
    expect(pf.yield_positions).toContainEqual(
      expect.objectContaining({ position_id: positionId, position_type: 'lending', source: 'lending_supply', chain: 'ethereum', protocol: 'aave', asset_codes: ['WETH'], usd_value: '34000.00' }),
    );
    const holdings = pf.holdings.reduce((s: InstanceType<typeof D>, h: { usd_value: string | null }) => s.plus(h.usd_value ?? 0), new D(0));
    // Holdings (90 WETH, 21,000 USDC) plus the position's 14,000 net.
    expect(pf.total_usd_value).toBe(holdings.plus(14_000).toFixed(2));
    expect(pf.chains).toEqual([{ chain: 'ethereum', usd_value: pf.total_usd_value }]);
  });

  it('refuses a withdrawal that would take the health factor below 1, and one above the supply', async () => {
    // 28,220 - 20,000 = 8,220 USD of threshold headroom: 8,220 / (3400 x 0.83) = 2.9128... WETH.
    await refused('withdraw', { market_id: WETH, amount: '2.92' }, 422, 'HEALTH_FACTOR_TOO_LOW');
    await refused('withdraw', { market_id: WETH, amount: '11' }, 422, 'INSUFFICIENT_SUPPLY');
    const r = await post('withdraw', { market_id: WETH, amount: '2.9' });
    expect(r.statusCode, r.body).toBe(200);
    expect(new D(r.json().data.position.health_factor).gte(1)).toBe(true);
  });

  it('a retried request (same Idempotency-Key) answers the first operation and moves nothing more', async () => {
    const headers = { ...t.headers, 'idempotency-key': 'lend-repay-1' };
    const a = await post('repay', { market_id: USDC, amount: '500' }, headers);
    const b = await post('repay', { market_id: USDC, amount: '500' }, headers);
    expect(a.statusCode, a.body).toBe(200);
    expect(b.json().data.operation.id).toBe(a.json().data.operation.id);
    expect(await book(acct, 'USDC', 'ethereum')).toMatchObject({ total: '20500.000000' });
  });

  it('repay "max" clears the debt with its interest; withdraw "max" empties and closes the position (position.closed)', async () => {
    const repaid = await post('repay', { market_id: USDC, amount: 'max' });
    expect(repaid.statusCode, repaid.body).toBe(200);
    // 19,500 borrowed still, plus the interest of the seconds since (at least the principal).
    expect(new D(repaid.json().data.operation.amount).gte('19500')).toBe(true);
    expect(repaid.json().data.position).toMatchObject({ borrowed: [], health_factor: null });
    await refused('repay', { market_id: USDC, amount: '1' }, 422, 'NO_DEBT');
    const out = await post('withdraw', { market_id: WETH, amount: 'max' });
    expect(out.statusCode, out.body).toBe(200);
    expect(out.json().data.position).toMatchObject({ status: 'closed', supplied: [], borrowed: [] });
    // 10 in, 2.9 and the rest out: at least what went in (supply interest only adds).
    expect(new D((await book(acct, 'WETH', 'ethereum')).total).gte(100)).toBe(true);
    const [closed] = await catalogEvents('position.closed', positionId);
    expect(closed).toMatchObject({ position_id: positionId, position_type: 'lending', operation: 'withdraw', liquidations: 0 });
    const g = await get(`/api/v2/defi/lending/positions/${positionId}`);
    expect(g.json().data.operations.map((o: { kind: string }) => o.kind)).toEqual(['withdraw', 'repay', 'repay', 'withdraw', 'borrow', 'supply']);
    expect((await get('/api/v2/defi/lending/positions')).json().data.find((p: { position_id: string }) => p.position_id === positionId)).toBeUndefined();
    expect((await get('/api/v2/defi/lending/positions?status=all')).json().data.find((p: { position_id: string }) => p.position_id === positionId)).toBeDefined();
    await expectBalancedLedger();
  });

  it('refuses unknown markets, bad amounts, "max" supplies, borrowing without a position; another user sees a 404', async () => {
    await refused('supply', { market_id: 'ethereum-aave-doge', amount: '1' }, 422, 'UNKNOWN_MARKET');
    await refused('supply', { market_id: WETH, amount: '1.0000000000000000001' }, 422, 'AMOUNT_PRECISION');
    await refused('supply', { market_id: WETH, amount: 'max' }, 422, 'VALIDATION_ERROR');
    await refused('supply', { market_id: WETH, amount: '1000' }, 422, 'INSUFFICIENT_FUNDS');
    const other = await createTestUser();
    await openAccount(t, other.headers);
    await refused('borrow', { market_id: USDC, amount: '1' }, 422, 'NO_POSITION', other.headers);
    expect((await get(`/api/v2/defi/lending/positions/${positionId}`, other.headers)).statusCode).toBe(404);
    const { rows } = await getPool().query(`SELECT count(*)::int AS n FROM defi_lending_positions WHERE user_id = $1`, [other.userId]);
    expect(rows[0].n).toBe(0);
  });
});
