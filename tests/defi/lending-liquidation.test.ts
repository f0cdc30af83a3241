/**
 * The lending watch on Temporal's time-skipping server: a position below the warning threshold
 * gets position.liquidation_warning once; at a health factor just above 1 nothing happens; thirty
 * days of interest (the server's clock) take it below 1 and the watch liquidates it with the
 * market's bonus as penalty, in one balanced ledger entry, exactly as the terms computed from the
 * state before say.
 */
import { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPool } from '../../domain/db/pool';
import { positionHealth } from '../../domain/defi/lending/health';
import { liquidationTerms } from '../../domain/defi/lending/liquidation';
import { accrueMarket, marketsById } from '../../domain/defi/lending/markets';
import { positionBalances } from '../../domain/defi/lending/positions';
import { getEntry } from '../../domain/ledger';
import { DecimalMoney as D } from '../../domain/money/amount';
import { latestRates } from '../../domain/rates';
import { createTestApp, type TestApp } from '../helpers/app';
import { startTimeSkipping, type TimeSkippingEnv } from '../helpers/time-skipping';
import { catalogEvents, expectBalancedLedger, fundBook, openAccount } from './helpers';

let t: TestApp;
let ts: TimeSkippingEnv;
let acct: string;
let positionId: string;
let runs = 0;

beforeAll(async () => {
  t = await createTestApp();
  ts = await startTimeSkipping();
  acct = await openAccount(t, t.headers);
  await fundBook(acct, 'WETH', 'ethereum', '10');
}, 120_000);

afterAll(async () => {
  await ts?.stop();
  await t?.close();
});

const post = (op: string, payload: Record<string, unknown>) => t.app.inject({ method: 'POST', url: `/api/v2/defi/lending/${op}`, headers: t.headers, payload });
// A plain client: the test environment's own client lets the server skip time while it awaits a
// result (to the finished run's timeout, years ahead); here time moves only by env.sleep.
const client = () => new Client({ connection: ts.env.connection });
const watch = (id = `lending-watch-test-${++runs}`) =>
  client().workflow.execute('lendingWatchWorkflow', { taskQueue: ts.taskQueue, workflowId: id, workflowIdReusePolicy: 'ALLOW_DUPLICATE' }) as Promise<{ checked: number; warned: number; liquidated: number }>;
const setPrice = (asset: string, rate: string) =>
  getPool().query(`INSERT INTO exchange_rates (base_asset, quote_asset, rate, as_of, source) VALUES ($1, 'USD', $2, now(), 'test')`, [asset, rate]);
const position = async () => (await t.app.inject({ method: 'GET', url: `/api/v2/defi/lending/positions/${positionId}`, headers: t.headers })).json().data;

describe('the lending watch', () => {
  it('warns once below the warning threshold (1.1), with the event the catalog describes', async () => {
    expect((await post('supply', { market_id: 'ethereum-aave-weth', amount: '10' })).statusCode).toBe(200);
    const b = await post('borrow', { market_id: 'ethereum-aave-usdc', amount: '27000' });
    expect(b.statusCode, b.body).toBe(200);
    positionId = b.json().data.position.position_id;
    // 10 x 3400 x 0.83 / 27,000 = 1.0451...
    expect(b.json().data.position.health_factor).toBe('1.045185');

    expect(await watch()).toEqual({ checked: 1, warned: 1, liquidated: 0 });
    const [warning] = await catalogEvents('position.liquidation_warning', positionId);
    expect(warning).toMatchObject({
      position_id: positionId,
      position_type: 'lending',
      account_id: acct,
      warning_threshold: '1.1',
      liquidation_at: '1',
      collateral_usd: '34000.00',
      liquidation_threshold_usd: '28220.00',
      supplied: [expect.objectContaining({ market_id: 'ethereum-aave-weth', asset: 'WETH', usd_value: '34000.00' })],
      borrowed: [expect.objectContaining({ market_id: 'ethereum-aave-usdc', asset: 'USDC' })],
    });
    expect(warning.health_factor).toMatch(/^1\.0451\d\d$/);
    expect((await position()).liquidation_warning).toBe(true);

    // Still below the threshold: no second warning for the same descent.
    expect(await watch()).toEqual({ checked: 1, warned: 0, liquidated: 0 });
    expect(await catalogEvents('position.liquidation_warning', positionId)).toHaveLength(1);
  });

  it('leaves a position just above a health factor of 1 alone', async () => {
    // 10 x 3254 x 0.83 = 27,008.20 against 27,000 and a few seconds of interest: 1.0003.
    await setPrice('WETH', '3254');
    expect(await watch()).toEqual({ checked: 1, warned: 0, liquidated: 0 });
    const p = await position();
    expect(p.health_factor).toMatch(/^1\.000[23]\d\d$/);
    expect(p.liquidations).toBe(0);
  });

  it('thirty days of interest take it below 1: the watch liquidates half the debt for the collateral plus the 5 % bonus', async () => {
    const balances = await positionBalances(getPool(), positionId);
    const before = await marketsById(getPool(), 'sandbox', balances.map((b) => b.marketId));
    const usdcCash = before.get('ethereum-aave-usdc')!.cash;

    await ts.env.sleep('30 days');
    expect(await watch()).toEqual({ checked: 1, warned: 0, liquidated: 1 });

    // Recompute the terms from the state before at the instant the watch accrued to: each market
    // moved by whole 12-second blocks, so the latest accrual time gives every market its blocks.
    const after = await marketsById(getPool(), 'sandbox', [...before.keys()]);
    const asOf = new Date(Math.max(...[...after.values()].map((m) => m.accruedAt.getTime())));
    expect(asOf.getTime() - Date.now()).toBeGreaterThan(29 * 86_400_000);
    const accrued = new Map([...before].map(([id, m]) => [id, accrueMarket(m, asOf)]));
    for (const [id, m] of accrued) expect(after.get(id)!.borrowIndex).toBe(m.borrowIndex);
    const rates = await latestRates(getPool());
    const health = positionHealth(balances, accrued, rates);
    expect(health.healthFactor!.lt(1)).toBe(true);
    expect(health.healthFactor!.gt('0.99')).toBe(true);
    const terms = liquidationTerms(health, rates)!;

    const p = await position();
    const liq = p.operations.find((o: { kind: string }) => o.kind === 'liquidation');
    expect(liq).toMatchObject({ market_id: 'ethereum-aave-usdc', asset_code: 'USDC', amount: terms.repay, seized: { market_id: 'ethereum-aave-weth', asset_code: 'WETH', amount: terms.seize, penalty: terms.penalty } });
    // By hand: half the debt, floored to the cent-millionth; collateral = repaid x 1 USD x 1.05 / 3254 USD.
    const debt = health.borrowed[0].amount;
    expect(terms.repay).toBe(new D(debt).div(2).toDecimalPlaces(6, D.ROUND_DOWN).toFixed(6));
    expect(terms.seize).toBe(new D(terms.repay).times('1.05').div(3254).toDecimalPlaces(18, D.ROUND_DOWN).toFixed(18));
    expect(terms.penalty).toBe(new D(terms.seize).minus(new D(terms.seize).div('1.05')).toDecimalPlaces(18, D.ROUND_DOWN).toFixed(18));
    expect(p).toMatchObject({ status: 'open', liquidations: 1 });
    expect(new D(p.health_factor).gt(1)).toBe(true);

    // One entry: the collateral from the market to the liquidators, the repayment from the liquidators into the market.
    const entry = (await getEntry(liq.entry_id))!;
    expect(entry.type).toBe('lending_liquidation');
    expect(entry.lines.map((l) => [l.assetCode, l.direction, l.amount])).toEqual([
      ['WETH', 'debit', terms.seize],
      ['WETH', 'credit', terms.seize],
      ['USDC', 'debit', terms.repay],
      ['USDC', 'credit', terms.repay],
    ]);
    expect(new D(after.get('ethereum-aave-usdc')!.cash).minus(usdcCash).toFixed(6)).toBe(terms.repay);
    await expectBalancedLedger();

    // The same run retried liquidates nothing more.
    const again = await watch(`lending-watch-test-${runs}`);
    expect(again).toMatchObject({ liquidated: 1 });
    expect((await position()).liquidations).toBe(1);
  });
});
