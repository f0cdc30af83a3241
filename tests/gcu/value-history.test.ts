import type { ScheduleDescription } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBasket } from '../../domain/baskets/definitions';
import { bucketStart, MAX_HISTORY_BUCKETS, performance, valueHistory, type HistoryInterval } from '../../domain/baskets/history';
import { valueBasket } from '../../domain/baskets/valuation';
import { BASKET_VALUATION_SCHEDULE_ID, ensureBasketValuationSchedule } from '../../domain/baskets/valuation-schedule';
import { recordValuations } from '../../domain/baskets/valuations';
import { getPool } from '../../domain/db/pool';
import { DecimalMoney as D } from '../../domain/money/amount';
import { DomainError } from '../../domain/platform/errors';
import { latestRate, SANDBOX_RATES } from '../../domain/rates';
import { DriftingSandboxRateProvider, hourOf, MAX_DRIFT_PPM, rateProviderFor } from '../../domain/rates/feed';
import { getTemporalClient } from '../../domain/temporal/client';
import { createTestApp, createTestUser, type TestApp } from '../helpers/app';
import { startTestWorker, type TestWorker } from '../helpers/worker';

let t: TestApp;
let w: TestWorker;
beforeAll(async () => {
  t = await createTestApp();
  w = await startTestWorker();
});
afterAll(async () => {
  await (await getTemporalClient()).schedule.getHandle(BASKET_VALUATION_SCHEDULE_ID).delete().catch(() => undefined);
  await w.stop();
  await t.close();
});

const HOUR = 3_600_000;
const feed = new DriftingSandboxRateProvider();
const ratesOf = async (at: Date) => Object.fromEntries((await feed.fetchRates(at)).map((q) => [q.base, q.rate]));

describe('the sandbox rates feed', () => {
  it('is a pure function of asset and hour: the same hour gives the same rates, another hour other rates; USD is exactly 1', async () => {
    const at = new Date('2026-11-23T10:17:42Z');
    const a = await ratesOf(at);
    expect(await ratesOf(new Date('2026-11-23T10:59:59.999Z'))).toEqual(a);
    expect(await ratesOf(at)).toEqual(await ratesOf(new Date('2026-11-23T10:00:00Z')));
    // A new provider object (another process) serves the same figures.
    expect(Object.fromEntries((await new DriftingSandboxRateProvider().fetchRates(at)).map((q) => [q.base, q.rate]))).toEqual(a);
    const next = await ratesOf(new Date('2026-11-23T11:00:00Z'));
    for (const asset of ['EUR', 'GBP', 'CHF', 'JPY', 'XAU', 'BTC', 'ETH']) expect(next[asset], asset).not.toBe(a[asset]);
    for (const pegged of ['USD', 'USDC', 'USDT', 'DAI']) expect(a[pegged]).toBe('1');
    expect(a.WETH).toBe(a.ETH);
    expect(a.WBTC).toBe(a.BTC);
    // GCU is priced by its valuation, not by the feed.
    expect(a.GCU).toBeUndefined();
    expect(Object.keys(a).sort()).toEqual(Object.keys(SANDBOX_RATES).filter((k) => k !== 'GCU').sort());
    const quotes = await feed.fetchRates(at);
    for (const q of quotes) {
      expect(q.rate).toMatch(/^\d+(\.\d+)?$/);
      expect(q).toMatchObject({ quote: 'USD', source: 'sandbox-feed', asOf: new Date('2026-11-23T10:00:00Z') });
    }
  });

  it('moves a few tenths of a percent an hour at most and stays within ±10 % over any 30 days', () => {
    const start = Date.UTC(2026, 10, 1);
    for (const asset of ['EUR', 'JPY', 'XAU', 'BTC']) {
      const base = new D(SANDBOX_RATES[asset]);
      const series = Array.from({ length: 24 * 60 }, (_, h) => new D(feed.rateAt(asset, new Date(start + h * HOUR))!));
      let maxStep = new D(0);
      let moved = 0;
      for (let i = 1; i < series.length; i++) {
        const step = series[i].div(series[i - 1]).minus(1).abs();
        if (step.gt(maxStep)) maxStep = step;
        if (!step.isZero()) moved++;
      }
      expect(maxStep.lte('0.005'), `${asset} hourly step ${maxStep.toFixed()}`).toBe(true);
      expect(moved).toBeGreaterThan(series.length * 0.9);
      for (const r of series) expect(r.div(base).minus(1).abs().lte(new D(MAX_DRIFT_PPM).div(1e6).plus('0.000001'))).toBe(true);
      for (let i = 0; i + 720 < series.length; i += 24) expect(series[i + 720].div(series[i]).minus(1).abs().lt('0.10')).toBe(true);
      // Over 60 days it does move: not a flat line.
      const values = series.map((r) => r.toNumber());
      expect(Math.max(...values) / Math.min(...values)).toBeGreaterThan(1.005);
    }
  });

  it('rateProviderFor: the feed unless RATES_PROVIDER names a provider that is not configured', () => {
    expect(rateProviderFor({})).toBeInstanceOf(DriftingSandboxRateProvider);
    expect(rateProviderFor({ RATES_PROVIDER: 'sandbox' }).name).toBe('sandbox-feed');
    expect(() => rateProviderFor({ RATES_PROVIDER: 'bloomberg' })).toThrow(/RATES_PROVIDER="bloomberg" is not configured/);
  });
});

type ValuationRow = { environment: string; basket_code: string; value_usd: string; version: number; components: Array<{ asset_code: string; amount: string; rate: string; usd_equivalent: string }> };
const valuationsAt = async (at: Date) =>
  (await getPool().query<ValuationRow>('SELECT environment, basket_code, value_usd::text, version, components FROM basket_valuations WHERE valued_at = $1 ORDER BY basket_code, environment', [at])).rows;
const feedRowsAt = async (at: Date) =>
  (await getPool().query<{ base_asset: string; rate: string }>(`SELECT base_asset, rate::text FROM exchange_rates WHERE source = 'sandbox-feed' AND as_of = $1 ORDER BY base_asset`, [at])).rows;

describe('recorded valuations', () => {
  it('values every basket in both environments at the feed rates it stores, once per hour, and prices each basket at its production value', async () => {
    // A second basket (operator-defined), and a sandbox GCU that differs from production's (as after a sandbox vote).
    await createBasket({ code: 'DUO', name: 'Duo', components: [{ assetCode: 'EUR', weight: '0.5' }, { assetCode: 'GBP', weight: '0.5' }], createdBy: t.user.userId });
    await getPool().query(`UPDATE basket_components SET amount = 0.5 WHERE environment = 'sandbox' AND basket_code = 'GCU' AND asset_code = 'USD'`);

    const instant = new Date('2026-11-23T10:00:00Z');
    const first = await recordValuations(new Date('2026-11-23T10:41:05Z'));
    expect(first.valuedAt).toEqual(instant);
    expect(first.ratesRecorded).toBe(Object.keys(SANDBOX_RATES).length - 1);
    expect(first.skipped).toEqual([]);
    expect(first.valuations.map((v) => `${v.environment}:${v.basketCode}:${v.inserted}`).sort()).toEqual(
      ['production:DUO:true', 'production:GCU:true', 'sandbox:DUO:true', 'sandbox:GCU:true'],
    );

    // The rates stored are the feed's for that hour, and exactly what the valuations used.
    const feedRows = await feedRowsAt(instant);
    const served = await ratesOf(instant);
    expect(Object.fromEntries(feedRows.map((r) => [r.base_asset, new D(r.rate).toFixed()]))).toEqual(served);
    const rows = await valuationsAt(instant);
    expect(rows).toHaveLength(4);
    for (const row of rows) {
      for (const c of row.components) expect(new D(c.rate).eq(served[c.asset_code]), `${row.basket_code} ${c.asset_code}`).toBe(true);
      const again = valueBasket(row.components.map((c) => ({ assetCode: c.asset_code, amount: c.amount, rate: c.rate })));
      expect(new D(row.value_usd).eq(again.valueUsd)).toBe(true);
      expect(row.components.map((c) => c.usd_equivalent)).toEqual(again.components.map((c) => c.usdEquivalent));
    }
    const gcu = (env: string) => rows.find((r) => r.basket_code === 'GCU' && r.environment === env)!;
    expect(new D(gcu('sandbox').value_usd).gt(gcu('production').value_usd)).toBe(true);
    expect(gcu('production').components.map((c) => c.asset_code)).toEqual(['CHF', 'EUR', 'GBP', 'JPY', 'USD', 'XAU']);
    // The feed moved GCU off its seeded 1.10, and GCU's price is now its production valuation: one rates source.
    expect(new D(gcu('production').value_usd).eq('1.1')).toBe(false);
    expect(await latestRate('GCU')).toMatchObject({ rate: new D(gcu('production').value_usd).toFixed(), source: 'basket-valuation', asOf: instant });
    expect(first.prices.map((p) => p.basketCode).sort()).toEqual(['DUO', 'GCU']);

    // Again (a retried activity, a second worker): nothing new, the same figures reported.
    const second = await recordValuations(instant);
    expect(second.ratesRecorded).toBe(0);
    expect(second.valuations.every((v) => !v.inserted)).toBe(true);
    expect(second.valuations.map((v) => v.valueUsd).sort()).toEqual(first.valuations.map((v) => v.valueUsd).sort());
    expect(second.rates).toEqual(first.rates);
    expect(await feedRowsAt(instant)).toEqual(feedRows);
    expect(await valuationsAt(instant)).toEqual(rows);
    const prices = await getPool().query(`SELECT 1 FROM exchange_rates WHERE source = 'basket-valuation' AND as_of = $1`, [instant]);
    expect(prices.rowCount).toBe(2);

    // Concurrent runs for one new hour store its rates once.
    const h2 = new Date('2026-11-23T11:00:00Z');
    const both = await Promise.all([recordValuations(h2), recordValuations(h2)]);
    expect(both.map((r) => r.ratesRecorded).sort()).toEqual([0, Object.keys(SANDBOX_RATES).length - 1]);
    expect(await feedRowsAt(h2)).toHaveLength(Object.keys(SANDBOX_RATES).length - 1);
    expect(await valuationsAt(h2)).toHaveLength(4);
  });

  it('the valuation workflow, run on the worker, records the hour it is given', async () => {
    const client = await getTemporalClient();
    const handle = await client.workflow.start('basketValuationWorkflow', {
      taskQueue: w.taskQueue,
      workflowId: `basket-valuation-test-${Date.now()}`,
      args: [{ at: '2026-11-23T12:30:00Z' }],
    });
    const summary = await handle.result();
    expect(summary).toMatchObject({ valuedAt: '2026-11-23T12:00:00.000Z', ratesRecorded: Object.keys(SANDBOX_RATES).length - 1, skipped: [] });
    expect(summary.valuations).toHaveLength(4);
    expect(await valuationsAt(new Date('2026-11-23T12:00:00Z'))).toHaveLength(4);
    const sa = (await handle.describe()).typedSearchAttributes;
    expect(sa.get({ name: 'BusinessStatus', type: 'KEYWORD' } as never)).toBe('recorded');
  });
});

/** The parts of the schedule that matter: when it fires, what it runs where, and its policies. */
function essence(d: ScheduleDescription) {
  const cal = d.spec.calendars ?? [];
  const a = d.action as Extract<ScheduleDescription['action'], { type: 'startWorkflow' }>;
  return {
    ...{ calendars: cal.length, hour: cal[0]?.hour, minute: cal[0]?.minute, second: cal[0]?.second, timezone: d.spec.timezone ?? 'UTC' },
    ...{ workflowType: a.workflowType, taskQueue: a.taskQueue, args: a.args, overlap: d.policies.overlap, catchupWindowMs: d.policies.catchupWindow },
  };
}

describe('the hourly valuation schedule', () => {
  it('is created at minute 0 of every UTC hour (overlap skip, one hour of catch-up), kept when equal, repaired when edited, and its runs record the scheduled hour', async () => {
    const client = await getTemporalClient();
    const handle = client.schedule.getHandle(BASKET_VALUATION_SCHEDULE_ID);
    try {
      expect(await ensureBasketValuationSchedule()).toEqual({ id: 'basket-valuation-hourly', outcome: 'created' });
      const wanted = {
        ...{ calendars: 1, hour: [{ start: 0, end: 23, step: 1 }], minute: [{ start: 0, end: 0, step: 1 }], second: [{ start: 0, end: 0, step: 1 }], timezone: 'UTC' },
        ...{ workflowType: 'basketValuationWorkflow', taskQueue: w.taskQueue, args: [], overlap: 'SKIP', catchupWindowMs: HOUR },
      };
      expect(essence(await handle.describe())).toEqual(wanted);
      // The next runs are at the top of the coming hours.
      const next = (await handle.describe()).info.nextActionTimes.slice(0, 3).map((d) => d.getTime());
      expect(next.every((ms) => ms % HOUR === 0)).toBe(true);
      expect(next[1] - next[0]).toBe(HOUR);

      expect(await ensureBasketValuationSchedule()).toEqual({ id: 'basket-valuation-hourly', outcome: 'unchanged' });
      await handle.update((prev) => ({ ...prev, spec: { calendars: [{ hour: 3, minute: 30 }], timezone: 'Europe/Paris' }, action: { ...(prev.action as Extract<typeof prev.action, { type: 'startWorkflow' }>), taskQueue: 'elsewhere' } }));
      expect(essence(await handle.describe())).toMatchObject({ timezone: 'Europe/Paris', taskQueue: 'elsewhere' });
      expect(await ensureBasketValuationSchedule()).toEqual({ id: 'basket-valuation-hourly', outcome: 'updated' });
      expect(essence(await handle.describe())).toEqual(wanted);

      // A run the schedule starts values the hour it was scheduled for (TemporalScheduledStartTime).
      const before = Date.now();
      await handle.trigger();
      let run: { workflowId: string; firstExecutionRunId: string } | undefined;
      for (let i = 0; i < 200 && !run; i++) {
        run = (await handle.describe()).info.recentActions[0]?.action.workflow;
        if (!run) await new Promise((r) => setTimeout(r, 50));
      }
      expect(run!.workflowId).toMatch(/^basket-valuation-hourly-run/);
      const summary = await client.workflow.getHandle(run!.workflowId, run!.firstExecutionRunId).result();
      const hours = [hourOf(new Date(before)).toISOString(), hourOf(new Date()).toISOString()];
      expect(hours).toContain(summary.valuedAt);
      expect(await valuationsAt(new Date(summary.valuedAt))).toHaveLength(4);

      // A backfilled (caught-up) run starts now but records the past hour it was due for.
      const due = new Date('2026-11-23T05:00:00Z');
      expect(await valuationsAt(due)).toHaveLength(0);
      await handle.backfill([{ start: new Date('2026-11-23T04:30:00Z'), end: new Date('2026-11-23T05:30:00Z'), overlap: 'ALLOW_ALL' }]);
      for (let i = 0; i < 200 && (await valuationsAt(due)).length === 0; i++) await new Promise((r) => setTimeout(r, 50));
      expect(await valuationsAt(due)).toHaveLength(4);
      expect(await feedRowsAt(due)).toHaveLength(Object.keys(SANDBOX_RATES).length - 1);
    } finally {
      // No further runs against this file's database.
      await handle.delete().catch(() => undefined);
    }
  });
});

/** Synthetic recorded history for basket HST (production): hourly from 2030-01-01 for 70 days. */
const S = Date.UTC(2030, 0, 1);
const N = 24 * 70;
const valueAt = (i: number) => new D(1).plus(new D((i * 37) % 101).div(10_000)).toFixed();
const eurAt = (i: number) => new D('1.08').plus(new D(i).div(100_000)).toFixed();
const NOW = new Date(S + N * HOUR + 30 * 60_000); // 2030-03-12T00:30Z, half an hour after the last valuation

/** The expected buckets, grouped here independently of the SQL. */
function expected(interval: HistoryInterval, fromMs: number) {
  const groups = new Map<number, string[]>();
  for (let i = 0; i < N; i++) {
    const at = S + i * HOUR;
    if (at <= fromMs || at > NOW.getTime()) continue;
    const k = bucketStart(new Date(at), interval).getTime();
    groups.set(k, [...(groups.get(k) ?? []), valueAt(i)]);
  }
  return [...groups].map(([k, vs]) => ({
    start: new Date(k).toISOString(),
    open: vs[0],
    close: vs[vs.length - 1],
    high: D.max(...vs).toFixed(),
    low: D.min(...vs).toFixed(),
    samples: vs.length,
  }));
}

const summarise = (buckets: Awaited<ReturnType<typeof valueHistory>>['buckets']) =>
  buckets.map((b) => ({ start: b.start.toISOString(), open: b.open, close: b.close, high: b.high, low: b.low, samples: b.samples }));

describe('value history and performance (recorded valuations only)', () => {
  beforeAll(async () => {
    await createBasket({ code: 'HST', name: 'History', components: [{ assetCode: 'EUR', weight: '0.5' }, { assetCode: 'USD', weight: '0.5' }], createdBy: t.user.userId });
    const idx = Array.from({ length: N }, (_, i) => i);
    await getPool().query(
      `INSERT INTO basket_valuations (environment, basket_code, valued_at, value_usd, version, components)
       SELECT 'production', 'HST', x.at, x.v::numeric, 1, jsonb_build_array(jsonb_build_object('asset_code', 'EUR', 'amount', '0.5', 'rate', x.eur, 'usd_equivalent', '0'))
         FROM unnest($1::timestamptz[], $2::text[], $3::text[]) x(at, v, eur)`,
      [idx.map((i) => new Date(S + i * HOUR)), idx.map(valueAt), idx.map(eurAt)],
    );
  });

  const history = (period: string, interval: string, now = NOW, environment: 'production' | 'sandbox' = 'production') =>
    valueHistory({ basketCode: 'HST', environment, period, interval, now });

  it('hourly, daily, weekly (from Monday) and monthly buckets carry open, high, low, close and the sample count', async () => {
    const h24 = await history('24h', 'hourly');
    // (now − 24h, now]: 01:00 to 23:00 of 11 March, one valuation per hour.
    expect(h24.buckets).toHaveLength(23);
    expect(summarise(h24.buckets)).toEqual(expected('hourly', NOW.getTime() - 24 * HOUR));
    expect(h24.buckets.every((b) => b.samples === 1 && b.open === b.close && b.value === b.close)).toBe(true);
    expect(h24.buckets[0].end.getTime() - h24.buckets[0].start.getTime()).toBe(HOUR);

    const d7 = await history('7d', 'daily');
    expect(summarise(d7.buckets)).toEqual(expected('daily', NOW.getTime() - 7 * 24 * HOUR));
    // A full day: 24 valuations; its open is 00:00's value and its close 23:00's.
    const full = d7.buckets.find((b) => b.start.toISOString() === '2030-03-10T00:00:00.000Z')!;
    const i0 = (Date.UTC(2030, 2, 10) - S) / HOUR;
    expect(full).toMatchObject({ samples: 24, open: valueAt(i0), close: valueAt(i0 + 23), value: valueAt(i0 + 23), end: new Date('2030-03-11T00:00:00Z') });
    expect(full.high).toBe(D.max(...Array.from({ length: 24 }, (_, k) => valueAt(i0 + k))).toFixed());
    expect(new D(full.high).gt(full.low)).toBe(true);

    const w30 = await history('30d', 'weekly');
    expect(summarise(w30.buckets)).toEqual(expected('weekly', NOW.getTime() - 30 * 24 * HOUR));
    expect(w30.buckets.every((b) => b.start.getUTCDay() === 1 && b.end.getTime() - b.start.getTime() === 7 * 24 * HOUR)).toBe(true);

    const all = await history('all', 'monthly');
    expect(all.from).toEqual(new Date(S));
    expect(summarise(all.buckets)).toEqual(expected('monthly', S - 1));
    expect(all.buckets.map((b) => [b.start.toISOString(), b.end.toISOString(), b.samples])).toEqual([
      ['2030-01-01T00:00:00.000Z', '2030-02-01T00:00:00.000Z', 31 * 24],
      ['2030-02-01T00:00:00.000Z', '2030-03-01T00:00:00.000Z', 28 * 24],
      ['2030-03-01T00:00:00.000Z', '2030-04-01T00:00:00.000Z', 11 * 24],
    ]);
    expect((await history('90d', 'hourly')).buckets).toHaveLength(N);

    // Nothing is invented: no valuations in the other environment, or before the first one.
    expect((await history('30d', 'daily', NOW, 'sandbox')).buckets).toEqual([]);
    expect((await history('7d', 'daily', new Date(S - 1))).buckets).toEqual([]);
    expect((await history('all', 'daily', new Date(S - 1))).from).toBeNull();
  });

  it('performance: latest valuation against the last one at or before now − 24h / 7d / 30d; null without such history', async () => {
    const p = await performance({ basketCode: 'HST', environment: 'production', now: NOW });
    const last = N - 1;
    expect(p.asOf).toEqual(new Date(S + last * HOUR));
    expect(p.valueUsd).toBe(valueAt(last));
    const refs = { '24h': (NOW.getTime() - 24 * HOUR - S - 30 * 60_000) / HOUR, '7d': N - 7 * 24, '30d': N - 30 * 24 } as const;
    for (const [period, i] of Object.entries(refs)) {
      const c = p.changes[period as keyof typeof refs]!;
      expect(c.since).toEqual(new Date(S + i * HOUR));
      expect(c.changeUsd).toBe(new D(valueAt(last)).minus(valueAt(i)).toFixed());
      expect(c.changePercent).toBe(new D(valueAt(last)).minus(valueAt(i)).div(valueAt(i)).times(100).toDecimalPlaces(4).toFixed(4));
    }
    // EUR's recorded rate, compared the same way.
    expect(p.components.EUR).toEqual({
      '24h': new D(eurAt(last)).div(eurAt(refs['24h'])).minus(1).times(100).toDecimalPlaces(4).toFixed(4),
      '7d': new D(eurAt(last)).div(eurAt(refs['7d'])).minus(1).times(100).toDecimalPlaces(4).toFixed(4),
    });

    const young = await performance({ basketCode: 'HST', environment: 'production', now: new Date(S + 10 * 24 * HOUR) });
    expect(young.changes['24h']).not.toBeNull();
    expect(young.changes['7d']).not.toBeNull();
    expect(young.changes['30d']).toBeNull();
    const none = await performance({ basketCode: 'HST', environment: 'sandbox', now: NOW });
    expect(none).toEqual({ asOf: null, valueUsd: null, changes: { '24h': null, '7d': null, '30d': null }, components: {} });
  });

  it('refuses more than 10,000 buckets (hourly over years of "all") and unknown periods, intervals and baskets', async () => {
    await getPool().query(
      `INSERT INTO basket_valuations (environment, basket_code, valued_at, value_usd, version, components) VALUES ('production', 'HST', '2028-06-01T00:00:00Z', 1, 1, '[]')`,
    );
    const refused = await history('all', 'hourly').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(DomainError);
    expect(refused).toMatchObject({ code: 'HISTORY_TOO_MANY_BUCKETS', details: { max_buckets: MAX_HISTORY_BUCKETS } });
    expect((refused as DomainError).details!.buckets as number).toBeGreaterThan(15_000);
    // Daily over the same span is fine, and the old valuation is its first bucket.
    const daily = await history('all', 'daily');
    expect(daily.buckets[0]).toMatchObject({ start: new Date('2028-06-01T00:00:00Z'), samples: 1, open: '1', close: '1' });
    expect(daily.buckets).toHaveLength(1 + 70);
    await expect(history('2w', 'daily')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(history('7d', 'minutely')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(valueHistory({ basketCode: 'NOPE', environment: 'production' })).rejects.toMatchObject({ code: 'BASKET_NOT_FOUND' });
  });
});

describe('GET /api/v2/gcu/value-history', () => {
  const get = (query: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url: `/api/v2/gcu/value-history${query}`, headers });

  it('serves the recorded GCU valuations of the caller’s environment without credentials (production) or with a key (its environment)', async () => {
    // Valuations of the last hours (the feed, as the schedule records them).
    const now = Date.now();
    for (let h = 1; h <= 3; h++) await recordValuations(new Date(now - h * HOUR));
    const r = await get('?period=24h&interval=hourly');
    expect(r.statusCode, r.body).toBe(200);
    const body = r.json();
    expect(body.meta).toMatchObject({ basket_code: 'GCU', environment: 'production', period: '24h', interval: 'hourly', aggregation: 'ohlc' });
    expect(body.data.length).toBeGreaterThanOrEqual(3);
    const stored = await getPool().query<{ valued_at: Date; value_usd: string }>(
      `SELECT valued_at, value_usd::text FROM basket_valuations WHERE environment = 'production' AND basket_code = 'GCU' AND valued_at > now() - interval '24 hours' ORDER BY valued_at`,
    );
    expect(body.data.map((p: { timestamp: string; value: string }) => [p.timestamp, p.value])).toEqual(stored.rows.map((s) => [s.valued_at.toISOString(), new D(s.value_usd).toFixed()]));
    for (const p of body.data) {
      expect(p).toMatchObject({ samples: 1, open: p.close, high: p.close, low: p.close, period_start: p.timestamp });
      expect(p.value).toMatch(/^\d+\.\d+$/);
      expect(new Date(p.period_end).getTime() - new Date(p.period_start).getTime()).toBe(HOUR);
    }
    // Defaults: 30 days, daily.
    expect((await get('')).json().meta).toMatchObject({ period: '30d', interval: 'daily' });

    // A sandbox key reads the sandbox's own valuations (its GCU differs: see the first test).
    const sandbox = await get('?period=24h&interval=hourly', t.headers);
    expect(sandbox.statusCode).toBe(200);
    expect(sandbox.json().meta.environment).toBe('sandbox');
    expect(sandbox.json().data.map((p: { value: string }) => p.value)).not.toEqual(body.data.map((p: { value: string }) => p.value));
    const live = await createTestUser({ environment: 'production', permissions: ['read'] });
    expect((await get('?period=24h&interval=hourly', live.headers)).json().meta.environment).toBe('production');
  });

  it('bad period or interval is a 4xx in the error envelope; a bad credential is refused, not ignored', async () => {
    for (const q of ['?period=2w', '?interval=minutely', '?period=', '?period=7d&interval=hourly&extra=1']) {
      const r = await get(q);
      expect(r.statusCode, q).toBeGreaterThanOrEqual(400);
      expect(r.statusCode, q).toBeLessThan(500);
      expect(r.json().data ?? null).toBeNull();
      expect(r.json().errors[0].code).toBe('VALIDATION_ERROR');
    }
    expect((await get('?period=2w')).json().errors[0].source).toMatchObject({ parameter: 'period' });
    expect((await get('', { authorization: 'Bearer sk_sandbox_not_a_key' })).statusCode).toBe(401);
    // Hourly over years of history: 422 with the refusal's code.
    await getPool().query(
      `INSERT INTO basket_valuations (environment, basket_code, valued_at, value_usd, version, components) VALUES ('production', 'GCU', '2024-01-01T00:00:00Z', 1.1, 1, '[]')`,
    );
    const tooMany = await get('?period=all&interval=hourly');
    expect(tooMany.statusCode).toBe(422);
    expect(tooMany.json().errors[0].code).toBe('HISTORY_TOO_MANY_BUCKETS');
    expect((await get('?period=all&interval=weekly')).statusCode).toBe(200);
  });
});
