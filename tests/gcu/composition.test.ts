import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCompositionService, nextRebalance } from '../../domain/baskets/composition';
import { backfillValuations, recordValuations } from '../../domain/baskets/valuations';
import { DriftingSandboxRateProvider } from '../../domain/rates/feed';
import { getPool, type Queryable } from '../../domain/db/pool';
import { DecimalMoney as D } from '../../domain/money/amount';
import { latestRates } from '../../domain/rates';
import { createTestApp, createTestUser, type TestApp } from '../helpers/app';
import { openFundedAccount } from '../transfers/helpers';
import { fundComponents, gcuFunding } from './helpers';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

const HOUR = 3_600_000;
const AMOUNTS: Record<string, string> = { USD: '0.385', EUR: '0.25463', GBP: '0.086614', CHF: '0.097345', JPY: '16.418', XAU: '0.000041509' };
const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Component = {
  asset_code: string;
  asset_name: string;
  asset_type: string;
  amount: string;
  weight: number;
  current_price_usd: number;
  value_contribution_usd: number;
  percentage_of_basket: number;
  '24h_change': number | null;
  '7d_change': number | null;
};

/** Exact sum of JSON numbers (each prints back as the short decimal it was made from). */
const sum = (xs: number[]) => xs.reduce((s, x) => s.plus(String(x)), new D(0));

/** The wire composition against amounts × the latest rates, computed here from the rates table. */
async function expectDerivedFromLatestRates(data: { total_value_usd: number; composition: Component[] }, amounts = AMOUNTS) {
  const rates = await latestRates();
  const equivalents = Object.fromEntries(Object.entries(amounts).map(([a, amt]) => [a, new D(amt).times(rates.get(a)!).toDecimalPlaces(6, D.ROUND_HALF_UP)]));
  const total = Object.values(equivalents).reduce((s, x) => s.plus(x), new D(0));
  expect(data.composition.map((c) => c.asset_code)).toEqual(Object.keys(amounts).sort());
  for (const c of data.composition) {
    expect(c.amount).toBe(amounts[c.asset_code]);
    expect(String(c.current_price_usd)).toBe(rates.get(c.asset_code));
    expect(String(c.value_contribution_usd)).toBe(equivalents[c.asset_code].toFixed());
    expect(Math.abs(c.weight - equivalents[c.asset_code].div(total).toNumber())).toBeLessThan(1e-10);
    expect(Math.abs(c.percentage_of_basket - c.weight * 100)).toBeLessThan(1e-6);
  }
  expect(new D(String(data.total_value_usd)).eq(total)).toBe(true);
  // Contributions sum to the total exactly; weights to 1 and percentages to 100 up to their rounding.
  expect(sum(data.composition.map((c) => c.value_contribution_usd)).eq(String(data.total_value_usd))).toBe(true);
  expect(sum(data.composition.map((c) => c.weight)).minus(1).abs().lte('1e-9')).toBe(true);
  expect(sum(data.composition.map((c) => c.percentage_of_basket)).minus(100).abs().lte('1e-6')).toBe(true);
}

describe('GET /api/v2/gcu/composition', () => {
  it('is public (production without credentials): each component’s weight, price, contribution and share from its amount and the latest rates', async () => {
    const r = await get('/api/v2/gcu/composition');
    expect(r.statusCode, r.body).toBe(200);
    const d = r.json().data;
    expect(d).toMatchObject({ basket_code: 'GCU', environment: 'production', version: 1, value_usd: '1.1', units_per_usd: '0.909091' });
    expect(typeof d.total_value_usd).toBe('number');
    await expectDerivedFromLatestRates(d);
    const xau = d.composition.find((c: Component) => c.asset_code === 'XAU');
    expect(xau).toMatchObject({ asset_name: 'Gold (troy ounce)', asset_type: 'commodity', current_price_usd: 2650 });
    expect(d.composition.find((c: Component) => c.asset_code === 'EUR')).toMatchObject({ asset_name: 'Euro', asset_type: 'fiat' });
    // Seeded rates of 2026-11-21; no valuation recorded yet, so no changes: null rather than an invented 0.
    expect(d.last_updated).toBe('2026-11-21T00:00:00.000Z');
    expect(d.composition.every((c: Component) => c['24h_change'] === null && c['7d_change'] === null)).toBe(true);
    expect(d.performance).toEqual({
      '24h_change_usd': null, '24h_change_percent': null, '7d_change_usd': null, '7d_change_percent': null, '30d_change_usd': null, '30d_change_percent': null, as_of: null,
    });
    const now = new Date();
    expect(d.rebalancing).toEqual({
      frequency: 'monthly',
      last_rebalanced: '2026-11-21T00:00:00.000Z',
      next_rebalance: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString(),
      automatic: false,
    });
  });

  it('a new EUR rate changes EUR’s price, contribution and weight (and every other weight) once the one-second view expires', async () => {
    const before = (await get('/api/v2/gcu/composition')).json().data;
    const eurBefore = before.composition.find((c: Component) => c.asset_code === 'EUR');
    const { rows } = await getPool().query<{ as_of: Date }>(`INSERT INTO exchange_rates (base_asset, quote_asset, rate, as_of, source) VALUES ('EUR', 'USD', 1.25, now(), 'test') RETURNING as_of`);
    await sleep(1100);
    const after = (await get('/api/v2/gcu/composition')).json().data;
    await expectDerivedFromLatestRates(after);
    const eur = after.composition.find((c: Component) => c.asset_code === 'EUR');
    expect(eur.current_price_usd).toBe(1.25);
    expect(eur.value_contribution_usd).toBe(0.318288); // 0.25463 × 1.25 = 0.3182875 → six decimals, half up
    expect(eur.weight).toBeGreaterThan(eurBefore.weight);
    for (const c of after.composition.filter((x: Component) => x.asset_code !== 'EUR')) {
      expect(c.weight).toBeLessThan(before.composition.find((x: Component) => x.asset_code === c.asset_code).weight);
      expect(c.value_contribution_usd).toBe(before.composition.find((x: Component) => x.asset_code === c.asset_code).value_contribution_usd);
    }
    expect(new D(String(after.total_value_usd)).minus(String(before.total_value_usd)).eq('0.043288')).toBe(true);
    expect(after.last_updated).toBe(rows[0].as_of.toISOString());
  });

  it('a sandbox key reads the sandbox composition, which governance there may have changed; a bad key is 401', async () => {
    await getPool().query(`UPDATE basket_components SET amount = 0.5 WHERE environment = 'sandbox' AND basket_code = 'GCU' AND asset_code = 'USD'`);
    await sleep(1100);
    const sandbox = (await get('/api/v2/gcu/composition', t.headers)).json().data;
    expect(sandbox.environment).toBe('sandbox');
    await expectDerivedFromLatestRates(sandbox, { ...AMOUNTS, USD: '0.5' });
    const production = (await get('/api/v2/gcu/composition')).json().data;
    expect(production.environment).toBe('production');
    expect(production.composition.find((c: Component) => c.asset_code === 'USD').amount).toBe('0.385');
    const live = await createTestUser({ environment: 'production', permissions: ['read'] });
    expect((await get('/api/v2/gcu/composition', live.headers)).json().data.environment).toBe('production');
    const bad = await get('/api/v2/gcu/composition', { authorization: 'Bearer sk_sandbox_nonsense' });
    expect(bad.statusCode).toBe(401);
    expect(bad.json().errors[0].code).toBeDefined();
  });

  it('changes and performance come from recorded valuations', async () => {
    const now = Date.now();
    const early = await recordValuations(new Date(now - 25 * HOUR));
    const late = await recordValuations(new Date(now - HOUR));
    await sleep(1100);
    const d = (await get('/api/v2/gcu/composition')).json().data;
    const value = (r: typeof early) => r.valuations.find((v) => v.environment === 'production' && v.basketCode === 'GCU')!.valueUsd;
    expect(d.performance.as_of).toBe(late.valuedAt.toISOString());
    expect(new D(String(d.performance['24h_change_usd'])).eq(new D(value(late)).minus(value(early)))).toBe(true);
    expect(d.performance['24h_change_percent']).toBe(Number(new D(value(late)).minus(value(early)).div(value(early)).times(100).toDecimalPlaces(4).toFixed(4)));
    expect(d.performance['7d_change_usd']).toBeNull();
    expect(d.performance['30d_change_percent']).toBeNull();
    for (const c of d.composition as Component[]) {
      const change = new D(late.rates[c.asset_code]).div(early.rates[c.asset_code]).minus(1).times(100).toDecimalPlaces(4).toNumber();
      expect(c['24h_change'], c.asset_code).toBe(change);
      expect(c['7d_change']).toBeNull();
    }
    expect(d.composition.find((c: Component) => c.asset_code === 'USD')['24h_change']).toBe(0);
    expect(d.composition.find((c: Component) => c.asset_code === 'XAU')['24h_change']).not.toBe(0);
    // EUR's test rate (as of now) is still the latest; the others are the feed's of the last recorded hour.
    await expectDerivedFromLatestRates(d);
    expect(d.composition.find((c: Component) => c.asset_code === 'EUR').current_price_usd).toBe(1.25);
    expect(String(d.composition.find((c: Component) => c.asset_code === 'XAU').current_price_usd)).toBe(late.rates.XAU);
  });
});

describe('GET /api/v2/gcu', () => {
  it('basket information in the caller’s environment: value, supply outstanding there, version, last valuation and links', async () => {
    // Two GCU composed in sandbox (funding for three: sandbox GCU holds 0.5 USD since the test above); production's supply is untouched.
    const acct = await openFundedAccount(t, t.headers, '0');
    await fundComponents(t, t.headers, acct, gcuFunding(3));
    const composed = await t.app.inject({ method: 'POST', url: `/api/v2/accounts/${acct}/baskets/compose`, headers: t.headers, payload: { basket_code: 'GCU', amount: '2' } });
    expect(composed.statusCode, composed.body).toBe(201);
    await sleep(1100);

    const r = await get('/api/v2/gcu');
    expect(r.statusCode).toBe(200);
    const body = r.json();
    const composition = (await get('/api/v2/gcu/composition')).json().data;
    expect(body.data).toMatchObject({
      code: 'GCU',
      name: 'Global Currency Unit',
      environment: 'production',
      precision: 4,
      version: 1,
      outstanding_units: '0',
      component_count: 6,
      rebalance_frequency: 'monthly',
      value_usd: composition.value_usd,
      units_per_usd: composition.units_per_usd,
      last_updated: composition.last_updated,
      last_valuation_at: composition.performance.as_of,
    });
    expect(new D(body.data.value_usd).eq(new D(1).div(body.data.units_per_usd).toSignificantDigits(6))).toBe(true);
    expect(body.links).toEqual({ self: '/api/v2/gcu', composition: '/api/v2/gcu/composition', value_history: '/api/v2/gcu/value-history', voting: '/api/v2/gcu/voting/proposals' });
    const sandbox = (await get('/api/v2/gcu', t.headers)).json().data;
    expect(sandbox).toMatchObject({ environment: 'sandbox', outstanding_units: '2' });
  });
});

describe('the composition service (per-process cache)', () => {
  it('serves a view for at most its time to live: repeated reads do no SQL, a later read sees new rates', async () => {
    let queries = 0;
    const counting: Queryable = {
      query: ((...args: Parameters<Queryable['query']>) => {
        queries++;
        return (getPool().query as (...a: unknown[]) => unknown)(...args);
      }) as Queryable['query'],
    };
    let clock = new Date('2026-12-15T10:00:00Z');
    const service = createCompositionService({ client: counting, now: () => clock, ttlMs: 60_000 });
    const first = await service.view('production');
    const perView = queries;
    expect(perView).toBeGreaterThan(0);
    // The time to live is capped at one second whatever is asked.
    const views = await Promise.all(Array.from({ length: 200 }, () => service.view('production')));
    expect(views.every((v) => v === views[0])).toBe(true);
    expect(queries).toBe(perView);
    clock = new Date(clock.getTime() + 999);
    await service.view('production');
    expect(queries).toBe(perView);

    await getPool().query(`INSERT INTO exchange_rates (base_asset, quote_asset, rate, as_of, source) VALUES ('GBP', 'USD', 1.5, now(), 'test')`);
    clock = new Date(clock.getTime() + 2);
    const next = await service.view('production');
    expect(queries).toBe(2 * perView);
    expect(next.components.find((c) => c.assetCode === 'GBP')!.priceUsd).toBe('1.5');
    expect(first.components.find((c) => c.assetCode === 'GBP')!.priceUsd).not.toBe('1.5');
    expect(next.rebalancing.nextRebalance).toEqual(new Date('2027-01-01T00:00:00Z'));
    // Environments are cached apart; an unknown basket is refused and not kept.
    expect((await service.view('sandbox')).basket.environment).toBe('sandbox');
    await expect(service.view('production', 'NOPE')).rejects.toMatchObject({ code: 'BASKET_NOT_FOUND' });
    await expect(service.view('production', 'NOPE')).rejects.toMatchObject({ code: 'BASKET_NOT_FOUND' });
  });

  it('next rebalance: the first day of the next month (monthly) or quarter (quarterly), 00:00 UTC; none for never', () => {
    expect(nextRebalance('monthly', new Date('2026-12-15T10:00:00Z'))).toEqual(new Date('2027-01-01T00:00:00Z'));
    expect(nextRebalance('monthly', new Date('2026-11-30T23:59:59Z'))).toEqual(new Date('2026-12-01T00:00:00Z'));
    expect(nextRebalance('quarterly', new Date('2026-11-23T00:00:00Z'))).toEqual(new Date('2027-01-01T00:00:00Z'));
    expect(nextRebalance('quarterly', new Date('2026-01-01T00:00:00Z'))).toEqual(new Date('2026-04-01T00:00:00Z'));
    expect(nextRebalance('quarterly', new Date('2026-06-30T12:00:00Z'))).toEqual(new Date('2026-07-01T00:00:00Z'));
    expect(nextRebalance('never', new Date())).toBeNull();
  });
});

describe('a fresh start (issue 42: the spec types the changes as numbers)', () => {
  it('backfills the last 30 days from the feed’s own history: every change and performance figure comes from recorded valuations', async () => {
    // A fixed instant (no wall clock), with no valuation recorded in the 30 days before it.
    const clock = new Date('2026-10-15T10:30:00Z');
    const first = await backfillValuations(clock);
    expect(first).toEqual({ recorded: 30 * 24 + 1, skippedReason: null });
    expect((await backfillValuations(clock)).recorded).toBe(0);
    const view = await createCompositionService({ now: () => clock, ttlMs: 0 }).view('production');
    const valued = async (at: Date) =>
      (await getPool().query<{ value_usd: string }>(`SELECT value_usd::text FROM basket_valuations WHERE environment = 'production' AND basket_code = 'GCU' AND valued_at = $1`, [at])).rows[0].value_usd;
    const hour = new Date('2026-10-15T10:00:00Z');
    expect(view.performance.asOf).toEqual(hour);
    for (const [period, hours] of [['24h', 24], ['7d', 168], ['30d', 720]] as const) {
      const change = view.performance.changes[period];
      expect(change, period).not.toBeNull();
      expect(change!.since).toEqual(new Date(hour.getTime() - hours * HOUR));
      expect(new D(change!.changeUsd).eq(new D(await valued(hour)).minus(await valued(change!.since)))).toBe(true);
    }
    for (const c of view.components) {
      expect(c.change24h, c.assetCode).not.toBeNull();
      expect(c.change7d, c.assetCode).not.toBeNull();
    }
    // The feed's rates of a past hour are what its valuation used: nothing invented at request time.
    const feed = new DriftingSandboxRateProvider();
    const { rows } = await getPool().query<{ components: Array<{ asset_code: string; rate: string }> }>(
      `SELECT components FROM basket_valuations WHERE environment = 'production' AND basket_code = 'GCU' AND valued_at = $1`,
      [new Date(hour.getTime() - 720 * HOUR)],
    );
    const xau = rows[0].components.find((x) => x.asset_code === 'XAU')!;
    expect(new D(xau.rate).eq(feed.rateAt('XAU', new Date(hour.getTime() - 720 * HOUR))!)).toBe(true);
  });
});
