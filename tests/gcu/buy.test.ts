import { randomBytes } from 'node:crypto';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { costOf, feeOf } from '../../domain/baskets/buy';
import { getPool } from '../../domain/db/pool';
import { EVENT_CATALOG } from '../../domain/events/catalog';
import { DecimalMoney as D } from '../../domain/money/amount';
import { getTemporalClient } from '../../domain/temporal/client';
import { createTestApp, createTestUser, type TestApp } from '../helpers/app';
import { startTestWorker, type TestWorker } from '../helpers/worker';
import { balance, openFundedAccount } from '../transfers/helpers';
import { expectReserveInvariant } from './helpers';

let t: TestApp;
let w: TestWorker | undefined;
// Buys start workflows on this queue; its worker starts only in the first test.
const queue = `test-buy-${randomBytes(4).toString('hex')}`;
beforeAll(async () => {
  t = await createTestApp();
  process.env.TEMPORAL_TASK_QUEUE = queue;
});
afterAll(async () => {
  await w?.stop();
  await t.close();
});

const buy = (body: Record<string, unknown>, headers: Record<string, string> = t.headers) => t.app.inject({ method: 'POST', url: '/api/v2/gcu/buy', headers, payload: body });
const getBuy = (id: string, headers = t.headers) => t.app.inject({ method: 'GET', url: `/api/v2/gcu/buy/${id}`, headers });

async function finished(data: { id: string; workflow_id: string }) {
  await (await getTemporalClient()).workflow.getHandle(data.workflow_id).result();
  return (await getBuy(data.id)).json().data;
}

const setRate = (asset: string, rate: string) =>
  getPool().query(`INSERT INTO exchange_rates (base_asset, quote_asset, rate, as_of, source) VALUES ($1, 'USD', $2, clock_timestamp(), 'test')`, [asset, rate]);

describe('buying GCU', () => {
  it('fails with compensation when the price moved beyond the slippage limit or the quote expired', async () => {
    // No worker polls yet: the buys wait while the market moves and a quote ages.
    const acct = await openFundedAccount(t, t.headers, '100.00');
    const slipped = (await buy({ account_uuid: acct, spend_asset: 'USD', amount: '10', slippage_bps: 0 })).json().data;
    const late = (await buy({ account_uuid: acct, spend_asset: 'USD', amount: '5', slippage_bps: 1000 })).json().data;
    expect(slipped.status).toBe('pending');
    await setRate('EUR', '1.20');
    await getPool().query(`UPDATE basket_buys SET quote_expires_at = now() - interval '1 second' WHERE id = $1`, [late.id]);
    w = await startTestWorker(queue);
    const a = await finished(slipped);
    const b = await finished(late);
    expect(a).toMatchObject({ status: 'failed', failure: { code: 'SLIPPAGE_EXCEEDED', compensation: 'voided' }, settlement_entry_id: null });
    expect(a.failure.reason).toMatch(/above the limit/);
    expect(b).toMatchObject({ status: 'failed', failure: { code: 'QUOTE_EXPIRED', compensation: 'voided' } });
    const usd = await balance(t, t.headers, acct, 'USD');
    expect(usd).toMatchObject({ available_balance: '100.00', reserved_balance: '0.00', total_balance: '100.00' });
    expect(await balance(t, t.headers, acct, 'GCU')).toBeNull();
    await setRate('EUR', '1.08');
  });

  it('buys an amount of units at the basket value: exact cost, fee and reserve', async () => {
    const acct = await openFundedAccount(t, t.headers, '100.00');
    const r = await buy({ account_uuid: acct, spend_asset: 'USD', amount: '10' });
    expect(r.statusCode, r.body).toBe(202);
    const q = r.json().data;
    // One GCU is worth USD 1.1 at these rates; 50 bps slippage; 25 bps fee, rounded up.
    expect(q).toMatchObject({ amount: '10.0000', quoted_price: '1.1', max_price: '1.1055', quoted_cost: '11.00', quoted_fee: '0.03', reserved_amount: '11.09', slippage_bps: 50, fee_bps: 25 });
    const done = await finished(q);
    expect(done).toMatchObject({ status: 'completed', execution_price: '1.1', cost: '11.00', fee: '0.03', total: '11.03', failure: null });
    expect(await balance(t, t.headers, acct, 'USD')).toMatchObject({ total_balance: '88.97', reserved_balance: '0.00' });
    expect((await balance(t, t.headers, acct, 'GCU')).total_balance).toBe('10.0000');
    await expectReserveInvariant('sandbox');
  });

  it('spend_amount buys the most units whose worst case (max price and fee) fits', async () => {
    const acct = await openFundedAccount(t, t.headers, '60.00');
    const q = (await buy({ account_uuid: acct, spend_asset: 'USD', spend_amount: '50.00' })).json().data;
    expect(new D(q.reserved_amount).lte('50.00')).toBe(true);
    const next = new D(q.amount).plus('0.0001').toFixed(4);
    const worst = costOf(next, q.max_price, 2);
    expect(new D(worst).plus(feeOf(worst, 25, 2)).gt('50.00')).toBe(true);
    const done = await finished(q);
    expect(done.status).toBe('completed');
    expect(new D(done.total).lte(q.reserved_amount)).toBe(true);
    expect(new D((await balance(t, t.headers, acct, 'USD')).total_balance).eq(new D('60.00').minus(done.total))).toBe(true);
    expect((await balance(t, t.headers, acct, 'GCU')).total_balance).toBe(q.amount);
    // Another asset pays too: EUR at its own rate (price = 1.1 / 1.08 EUR per GCU).
    const eurAcct = await openFundedAccount(t, t.headers, '30.00', 'EUR');
    const e = await finished((await buy({ account_uuid: eurAcct, spend_asset: 'eur', amount: '2.5' })).json().data);
    expect(e).toMatchObject({ status: 'completed', execution_price: '1.018518518519', cost: '2.55', fee: '0.01' });
    await expectReserveInvariant('sandbox');
  });

  it('an account that cannot pay fails the buy with nothing reserved or moved', async () => {
    const acct = await openFundedAccount(t, t.headers, '5.00');
    const done = await finished((await buy({ account_uuid: acct, spend_asset: 'USD', amount: '10' })).json().data);
    expect(done).toMatchObject({ status: 'failed', failure: { code: 'INSUFFICIENT_FUNDS', compensation: 'none' }, reservation_entry_id: null });
    expect(await balance(t, t.headers, acct, 'USD')).toMatchObject({ total_balance: '5.00', reserved_balance: '0.00' });
  });

  it('bad input is a clear 4xx and starts nothing', async () => {
    const acct = await openFundedAccount(t, t.headers, '10.00');
    const before = (await getPool().query('SELECT count(*)::int AS n FROM basket_buys')).rows[0].n;
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [{ account_uuid: acct, spend_asset: 'USD' }, 422, 'INVALID_INPUT'],
      [{ account_uuid: acct, spend_asset: 'USD', amount: '1', spend_amount: '1.00' }, 422, 'INVALID_INPUT'],
      [{ account_uuid: acct, spend_asset: 'USD', amount: '1.00001' }, 422, 'AMOUNT_PRECISION'],
      [{ account_uuid: acct, spend_asset: 'USD', amount: '0' }, 422, 'AMOUNT_NOT_POSITIVE'],
      [{ account_uuid: acct, spend_asset: 'USD', spend_amount: '1.001' }, 422, 'AMOUNT_PRECISION'],
      [{ account_uuid: acct, spend_asset: 'USD', spend_amount: '0.01' }, 422, 'AMOUNT_TOO_SMALL'],
      [{ account_uuid: acct, spend_asset: 'NOPE', amount: '1' }, 422, 'UNKNOWN_ASSET'],
      [{ account_uuid: acct, spend_asset: 'GCU', amount: '1' }, 422, 'INVALID_SPEND_ASSET'],
      [{ account_uuid: acct, spend_asset: 'USD', amount: '1', basket_code: 'USD' }, 422, 'UNKNOWN_BASKET'],
      [{ account_uuid: acct, spend_asset: 'USD', amount: '1', slippage_bps: 5000 }, 422, 'VALIDATION_ERROR'],
      [{ account_uuid: acct, spend_asset: 'USD', amount: 1 }, 422, 'VALIDATION_ERROR'],
      [{ account_uuid: 'acct_nope', spend_asset: 'USD', amount: '1' }, 404, 'ACCOUNT_NOT_FOUND'],
    ];
    for (const [body, status, code] of cases) {
      const r = await buy(body);
      expect(r.statusCode, JSON.stringify(body) + r.body).toBe(status);
      expect(r.json().errors[0].code).toBe(code);
    }
    const other = await createTestUser();
    expect((await buy({ account_uuid: acct, spend_asset: 'USD', amount: '1' }, other.headers)).statusCode).toBe(404);
    expect((await getPool().query('SELECT count(*)::int AS n FROM basket_buys')).rows[0].n).toBe(before);
  });

  it('the same Idempotency-Key returns the same buy; another user or environment gets 404', async () => {
    const acct = await openFundedAccount(t, t.headers, '10.00');
    const headers = { ...t.headers, 'idempotency-key': 'buy-once' };
    const a = (await buy({ account_uuid: acct, spend_asset: 'USD', amount: '1' }, headers)).json().data;
    const b = (await buy({ account_uuid: acct, spend_asset: 'USD', amount: '1' }, headers)).json().data;
    expect(b.id).toBe(a.id);
    await finished(a);
    expect((await balance(t, t.headers, acct, 'GCU')).total_balance).toBe('1.0000');
    const other = await createTestUser();
    const prod = await createTestUser({ environment: 'production' });
    for (const h of [other.headers, prod.headers]) {
      const r = await getBuy(a.id, h);
      expect(r.statusCode).toBe(404);
      expect(r.json().errors[0].code).toBe('BASKET_BUY_NOT_FOUND');
    }
  });

  it('writes basket.buy.completed and basket.buy.failed events that match the catalog', async () => {
    const ajv = new Ajv({ allErrors: true, strict: false });
    addFormats(ajv);
    for (const type of ['basket.buy.completed', 'basket.buy.failed']) {
      const validate = ajv.compile(EVENT_CATALOG.find((e) => e.type === type)!.data_schema);
      const { rows } = await getPool().query<{ data: unknown }>('SELECT data FROM platform_events WHERE type = $1', [type]);
      expect(rows.length).toBeGreaterThan(0);
      for (const r of rows) expect(validate(r.data), JSON.stringify(validate.errors)).toBe(true);
    }
  });
});
