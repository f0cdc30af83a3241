import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getBasket, reserveTarget } from '../../domain/baskets';
import { getPool } from '../../domain/db/pool';
import { EVENT_CATALOG } from '../../domain/events/catalog';
import { DecimalMoney as D } from '../../domain/money/amount';
import { createTestApp, createTestUser, type TestApp } from '../helpers/app';
import { balance, openFundedAccount } from '../transfers/helpers';
import { expectReserveInvariant, fundComponents, gcuFunding, internalBalance } from './helpers';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

const op = (kind: 'compose' | 'decompose', account: string, body: unknown, headers = t.headers) =>
  t.app.inject({ method: 'POST', url: `/api/v2/accounts/${account}/baskets/${kind}`, headers, payload: body as object });

async function balances(account: string, headers = t.headers): Promise<Record<string, string>> {
  const r = await t.app.inject({ method: 'GET', url: `/api/v2/accounts/${account}/balances`, headers });
  return Object.fromEntries(r.json().data.balances.map((b: { asset_code: string; total_balance: string }) => [b.asset_code, b.total_balance]));
}

/** Deterministic PRNG (mulberry32) so a failing sequence can be replayed. */
function prng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

describe('basket definitions', () => {
  it('lists GCU with its fixed amounts and derived weights; unknown code is 404; reads need no credentials', async () => {
    const list = await t.app.inject({ method: 'GET', url: '/api/v2/baskets' });
    expect(list.statusCode).toBe(200);
    const gcu = list.json().data.find((b: { code: string }) => b.code === 'GCU');
    expect(gcu).toMatchObject({ code: 'GCU', type: 'basket', is_primary: true, precision: 4, environment: 'production', version: 1, rebalance_frequency: 'monthly' });
    expect(gcu.components.map((c: { asset_code: string }) => c.asset_code)).toEqual(['CHF', 'EUR', 'GBP', 'JPY', 'USD', 'XAU']);
    const usd = gcu.components.find((c: { asset_code: string }) => c.asset_code === 'USD');
    expect(usd).toMatchObject({ amount: '0.385', target_weight: '0.35' });
    // Weights are amount × rate / value at the latest rates, and sum to 1.
    const sum = gcu.components.reduce((s: InstanceType<typeof D>, c: { current_weight: string }) => s.plus(c.current_weight), new D(0));
    expect(sum.minus(1).abs().lt('1e-12')).toBe(true);
    expect(new D(gcu.value_usd).minus('1.1').abs().lt('0.001')).toBe(true);

    const one = await t.app.inject({ method: 'GET', url: '/api/v2/baskets/gcu', headers: t.headers });
    expect(one.json().data).toMatchObject({ code: 'GCU', environment: 'sandbox' });
    const missing = await t.app.inject({ method: 'GET', url: '/api/v2/baskets/NOPE' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().errors[0].code).toBe('BASKET_NOT_FOUND');
    const badKey = await t.app.inject({ method: 'GET', url: '/api/v2/baskets', headers: { authorization: 'Bearer nonsense' } });
    expect(badKey.statusCode).toBe(401);
  });

  it('operators define baskets from target weights; customers cannot; weights must sum to 1', async () => {
    const body = { code: 'DUO', name: 'Dollar-euro', components: [{ asset_code: 'USD', weight: '0.5' }, { asset_code: 'EUR', weight: '0.5' }] };
    const customer = await t.app.inject({ method: 'POST', url: '/api/v2/baskets', headers: t.headers, payload: body });
    expect(customer.statusCode).toBe(403);
    const admin = await createTestUser({ admin: true });
    const bad = await t.app.inject({ method: 'POST', url: '/api/v2/baskets', headers: admin.headers, payload: { ...body, components: [{ asset_code: 'USD', weight: '0.5' }, { asset_code: 'EUR', weight: '0.4' }] } });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors[0].code).toBe('WEIGHTS_INVALID');
    const nested = await t.app.inject({ method: 'POST', url: '/api/v2/baskets', headers: admin.headers, payload: { ...body, components: [{ asset_code: 'GCU', weight: '0.5' }, { asset_code: 'EUR', weight: '0.5' }] } });
    expect(nested.json().errors[0].code).toBe('INVALID_COMPONENT');
    const r = await t.app.inject({ method: 'POST', url: '/api/v2/baskets', headers: admin.headers, payload: body });
    expect(r.statusCode, r.body).toBe(201);
    // USD 0.5 / 1 = 0.5; EUR 0.5 / 1.08 = 0.46296 (five significant digits): one unit is worth 1.
    expect(r.json().data.components).toEqual([
      expect.objectContaining({ asset_code: 'EUR', amount: '0.46296', target_weight: '0.5' }),
      expect.objectContaining({ asset_code: 'USD', amount: '0.5', target_weight: '0.5' }),
    ]);
    // Σ equivalents 0.999997; units per USD 1/0.999997 = 1.00000 (six significant digits); value 1.
    expect(r.json().data.value_usd).toBe('1');
    const again = await t.app.inject({ method: 'POST', url: '/api/v2/baskets', headers: admin.headers, payload: body });
    expect(again.json().errors[0].code).toBe('ASSET_EXISTS');
    // The new basket composes like GCU.
    const acct = await openFundedAccount(t, t.headers, '10.00');
    await fundComponents(t, t.headers, acct, { EUR: '10.00' });
    const c = await op('compose', acct, { basket_code: 'DUO', amount: '2' });
    expect(c.statusCode, c.body).toBe(201);
    expect(c.json().data.components).toEqual([{ asset_code: 'EUR', amount: '0.93' }, { asset_code: 'USD', amount: '1.00' }]);
  });
});

describe('compose and decompose', () => {
  it('compose takes each component, credits units and leaves the reserve exact; decompose gives them back', async () => {
    const acct = await openFundedAccount(t, t.headers, '0');
    await fundComponents(t, t.headers, acct, gcuFunding(10));
    const before = await balances(acct);
    const r = await op('compose', acct, { basket_code: 'GCU', amount: '10' });
    expect(r.statusCode, r.body).toBe(201);
    const data = r.json().data;
    expect(data).toMatchObject({ type: 'compose', basket_code: 'GCU', amount: '10.0000', account_uuid: acct, version: 1 });
    // ceil(10 × amount) at each precision: the reserve started empty.
    expect(data.components).toEqual([
      { asset_code: 'CHF', amount: '0.98' },
      { asset_code: 'EUR', amount: '2.55' },
      { asset_code: 'GBP', amount: '0.87' },
      { asset_code: 'JPY', amount: '165' },
      { asset_code: 'USD', amount: '3.85' },
      { asset_code: 'XAU', amount: '0.0005' },
    ]);
    const after = await balances(acct);
    for (const c of data.components) expect(new D(before[c.asset_code]).minus(after[c.asset_code]).eq(c.amount)).toBe(true);
    expect(after.GCU).toBe('10.0000');
    await expectReserveInvariant('sandbox');

    const d = await op('decompose', acct, { basket_code: 'gcu', amount: '10' });
    expect(d.statusCode, d.body).toBe(201);
    expect(d.json().data.components).toEqual(data.components);
    expect(await balances(acct)).toMatchObject({ ...before, GCU: '0.0000' });
    await expectReserveInvariant('sandbox');
  });

  it('a missing component is 422 naming the asset, and nothing moves', async () => {
    const acct = await openFundedAccount(t, t.headers, '0');
    const funding = gcuFunding(5);
    delete (funding as Record<string, string>).JPY;
    await fundComponents(t, t.headers, acct, funding);
    const before = await balances(acct);
    const entriesBefore = (await getPool().query('SELECT count(*)::int AS n FROM journal_entries')).rows[0].n;
    const r = await op('compose', acct, { basket_code: 'GCU', amount: '5' });
    expect(r.statusCode).toBe(422);
    expect(r.json().errors[0]).toMatchObject({ code: 'INSUFFICIENT_FUNDS' });
    expect(r.json().errors[0].detail ?? r.json().errors[0].message ?? r.body).toMatch(/JPY/);
    expect(await balances(acct)).toEqual(before);
    expect((await getPool().query('SELECT count(*)::int AS n FROM journal_entries')).rows[0].n).toBe(entriesBefore);
    const tooMany = await op('decompose', acct, { basket_code: 'GCU', amount: '1' });
    expect(tooMany.statusCode).toBe(422);
    expect(tooMany.body).toMatch(/GCU/);
  });

  it('bad input is a 4xx in the envelope and writes nothing', async () => {
    const acct = await openFundedAccount(t, t.headers, '100.00');
    const cases: Array<[unknown, number, string?]> = [
      [{ basket_code: 'NOPE', amount: '1' }, 422, 'UNKNOWN_BASKET'],
      [{ basket_code: 'USD', amount: '1' }, 422, 'UNKNOWN_BASKET'],
      [{ basket_code: 'GCU', amount: '1.00001' }, 422, 'AMOUNT_PRECISION'],
      [{ basket_code: 'GCU', amount: '0' }, 422, 'AMOUNT_NOT_POSITIVE'],
      [{ basket_code: 'GCU', amount: '-1' }, 422, 'VALIDATION_ERROR'],
      [{ basket_code: 'GCU', amount: 1 }, 422, 'VALIDATION_ERROR'],
      [{ basket_code: 'GCU' }, 422, 'VALIDATION_ERROR'],
      [{ basket_code: 'GCU', amount: '99999999999999999999999' }, 422, 'AMOUNT_TOO_LARGE'],
    ];
    for (const [body, status, code] of cases) {
      const r = await op('compose', acct, body);
      expect(r.statusCode, JSON.stringify(body) + r.body).toBe(status);
      expect(r.json().errors.length).toBeGreaterThan(0);
      if (code) expect(r.json().errors[0].code).toBe(code);
    }
    const other = await createTestUser();
    expect((await op('compose', acct, { basket_code: 'GCU', amount: '1' }, other.headers)).statusCode).toBe(404);
    const prod = await createTestUser({ environment: 'production' });
    expect((await op('compose', acct, { basket_code: 'GCU', amount: '1' }, prod.headers)).statusCode).toBe(404);
    expect((await getPool().query('SELECT count(*)::int AS n FROM basket_operations WHERE account_id = $1', [acct])).rows[0].n).toBe(0);
  });

  it('an Idempotency-Key replay returns the same operation and moves nothing twice', async () => {
    const acct = await openFundedAccount(t, t.headers, '0');
    await fundComponents(t, t.headers, acct, gcuFunding(4));
    const headers = { ...t.headers, 'idempotency-key': 'compose-once' };
    const a = await op('compose', acct, { basket_code: 'GCU', amount: '2' }, headers);
    const b = await op('compose', acct, { basket_code: 'GCU', amount: '2' }, headers);
    expect(a.statusCode).toBe(201);
    expect(b.json().data.id).toBe(a.json().data.id);
    expect((await balances(acct)).GCU).toBe('2.0000');
  });

  it('random compose/decompose sequences keep every reserve exactly at ceil(outstanding × amount)', async () => {
    const rand = prng(20261124);
    const accounts = [await openFundedAccount(t, t.headers, '0'), await openFundedAccount(t, t.headers, '0')];
    for (const a of accounts) await fundComponents(t, t.headers, a, gcuFunding(200));
    const held = new Map(accounts.map((a) => [a, new D(0)]));
    for (let i = 0; i < 60; i++) {
      const acct = accounts[Math.floor(rand() * accounts.length)];
      const units = new D(Math.floor(rand() * 99_999) + 1).div(10_000); // 0.0001 .. 9.9999
      const mine = held.get(acct)!;
      const kind = mine.gte(units) && rand() < 0.45 ? 'decompose' : 'compose';
      const r = await op(kind, acct, { basket_code: 'GCU', amount: units.toFixed(4) });
      expect(r.statusCode, `${i} ${kind} ${units} ${r.body}`).toBe(201);
      held.set(acct, kind === 'compose' ? mine.plus(units) : mine.minus(units));
      await expectReserveInvariant('sandbox');
    }
    for (const a of accounts) expect(new D((await balances(a)).GCU).eq(held.get(a)!)).toBe(true);
  });

  it('20 parallel composes on one account never overdraw: exactly the affordable ones succeed', async () => {
    const acct = await openFundedAccount(t, t.headers, '0');
    const basket = await getBasket('GCU', 'sandbox');
    // Enough USD for exactly 12 more units at the current supply; plenty of everything else.
    const usdAmount = basket.components.find((c) => c.assetCode === 'USD')!.amount;
    const n0 = basket.outstanding;
    const usdFor12 = new D(reserveTarget(new D(n0).plus(12).toFixed(), usdAmount, 2)).minus(reserveTarget(n0, usdAmount, 2)).toFixed(2);
    const funding = gcuFunding(40);
    funding.USD = usdFor12;
    await fundComponents(t, t.headers, acct, funding);
    const results = await Promise.all(Array.from({ length: 20 }, () => op('compose', acct, { basket_code: 'GCU', amount: '1' })));
    const ok = results.filter((r) => r.statusCode === 201);
    const refused = results.filter((r) => r.statusCode !== 201);
    expect(ok).toHaveLength(12);
    for (const r of refused) {
      expect(r.statusCode).toBe(422);
      expect(r.json().errors[0].code).toBe('INSUFFICIENT_FUNDS');
      expect(r.body).toMatch(/USD/);
    }
    const usd = await balance(t, t.headers, acct, 'USD');
    expect(usd.total_balance).toBe('0.00');
    expect((await balances(acct)).GCU).toBe('12.0000');
    await expectReserveInvariant('sandbox');
  });

  it('a compose cannot be reversed, by customers or operators: the detail names decompose', async () => {
    const acct = await openFundedAccount(t, t.headers, '0');
    await fundComponents(t, t.headers, acct, gcuFunding(1));
    const c = await op('compose', acct, { basket_code: 'GCU', amount: '1' });
    const { rows } = await getPool().query<{ id: string }>(`SELECT id FROM ledger_lines WHERE entry_id = $1 AND account_id = $2 AND asset_code = 'GCU'`, [c.json().data.entry_id, acct]);
    const admin = await createTestUser({ admin: true });
    for (const headers of [t.headers, admin.headers]) {
      const r = await t.app.inject({ method: 'POST', url: '/api/transactions/reverse', headers, payload: { transaction_id: rows[0].id, reason: 'undo', force: headers === admin.headers } });
      expect(r.statusCode).toBe(422);
      expect(r.json().errors[0].code).toBe('NOT_REVERSIBLE');
      expect(r.json().errors[0].detail).toMatch(/decompose/);
    }
  });

  it('writes basket.composed and basket.decomposed events that match the catalog', async () => {
    const ajv = new Ajv({ allErrors: true, strict: false });
    addFormats(ajv);
    for (const type of ['basket.composed', 'basket.decomposed']) {
      const schema = EVENT_CATALOG.find((e) => e.type === type)!.data_schema;
      const validate = ajv.compile(schema);
      const { rows } = await getPool().query<{ data: unknown }>('SELECT data FROM platform_events WHERE type = $1', [type]);
      expect(rows.length).toBeGreaterThan(0);
      for (const r of rows) expect(validate(r.data), JSON.stringify(validate.errors)).toBe(true);
    }
    expect(await internalBalance('production', 'basket_reserve:GCU', 'USD')).toBe('0');
  });
});
