import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { amountsForWeights, valueBasket, type ValuationComponent } from '../../domain/baskets/valuation';
import { DecimalMoney as D } from '../../domain/money/amount';
import { REPO_ROOT } from '../../domain/platform/config';
import { SANDBOX_RATES } from '../../domain/rates';

// The IMF reference lives beside the repository (never copied in), like the ISO 20022 schemas
// (iso20022/config.ts); GCU_REFERENCE_DIR points elsewhere.
const REFERENCE = path.join(process.env.GCU_REFERENCE_DIR || path.resolve(REPO_ROOT, '../shared/reference/gcu'), 'sdr-valuation.md');

/** Currency unit names on the IMF page → ISO codes, and which rates are quoted per USD (footnote 1). */
const CODES: Record<string, string> = { 'Chinese yuan': 'CNY', Euro: 'EUR', 'Japanese yen': 'JPY', 'U.K. pound': 'GBP', 'U.S. dollar': 'USD' };
const PER_USD = new Set(['CNY', 'JPY']);

interface Row {
  code: string;
  amount: string;
  rate: string;
  equivalent: string;
}

/** The valuation table of section 2 (29 Nov 2022), and the published SDR per USD and USD per SDR. */
function imfValuation(): { rows: Row[]; sum: string; sdrPerUsd: string; usdPerSdr: string } {
  const text = readFileSync(REFERENCE, 'utf8');
  const section = text.slice(text.indexOf('## 2.'), text.indexOf('## 3.'));
  expect(section).toContain('Tuesday, November 29, 2022');
  const rows: Row[] = [];
  let sum = '';
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((c) => c.trim().replace(/\*\*/g, ''));
    if (cells.length < 6) continue;
    const [, unit, amount, rate, equivalent] = cells;
    if (unit === 'Sum') sum = equivalent;
    else if (CODES[unit]) rows.push({ code: CODES[unit], amount, rate, equivalent });
  }
  const sdrPerUsd = /U\.S\.\$1\.00 = SDR ([0-9.]+)/.exec(section)![1];
  const usdPerSdr = /SDR 1 = US\$ ([0-9.]+)/.exec(section)![1];
  return { rows, sum, sdrPerUsd, usdPerSdr };
}

describe('IMF SDR valuation (reference: 29 November 2022)', () => {
  it('the reference table holds the published figures these tests assert', () => {
    const ref = imfValuation();
    expect(ref.rows.map((r) => [r.code, r.amount, r.rate, r.equivalent])).toEqual([
      ['CNY', '1.0993', '7.16950', '0.153330'],
      ['EUR', '0.37379', '1.03815', '0.388050'],
      ['JPY', '13.452', '137.96000', '0.097507'],
      ['GBP', '0.080870', '1.20235', '0.097234'],
      ['USD', '0.57813', '1.00000', '0.578130'],
    ]);
    expect([ref.sum, ref.sdrPerUsd, ref.usdPerSdr]).toEqual(['1.314251', '0.760890', '1.314250']);
  });

  it('valueBasket reproduces every USD equivalent, the sum, SDR per USD and USD per SDR with the same method and rounding', () => {
    const ref = imfValuation();
    const components: ValuationComponent[] = ref.rows.map((r) => ({
      assetCode: r.code,
      amount: r.amount,
      rate: r.rate,
      quote: PER_USD.has(r.code) ? 'units_per_usd' : 'usd_per_unit',
    }));
    const v = valueBasket(components);
    expect(v.components.map((c) => c.usdEquivalent)).toEqual(['0.153330', '0.388050', '0.097507', '0.097234', '0.578130']);
    expect(v.components.map((c) => c.usdEquivalent)).toEqual(ref.rows.map((r) => r.equivalent));
    expect(v.sumUsd).toBe('1.314251');
    expect(v.sumUsd).toBe(ref.sum);
    // Rule O-2: SDR per USD is the reciprocal of the sum, six significant digits; the published SDR value its reciprocal.
    expect(new D(v.unitsPerUsd).toFixed(6)).toBe('0.760890');
    expect(new D(v.unitsPerUsd).toFixed(6)).toBe(ref.sdrPerUsd);
    expect(new D(v.valueUsd).toFixed(6)).toBe('1.314250');
    expect(new D(v.valueUsd).toFixed(6)).toBe(ref.usdPerSdr);
    // The derived weights are shares of the sum (they drifted from the 2022 review weights, as the reference says).
    expect(v.components.reduce((s, c) => s.plus(c.weight), new D(0)).toDecimalPlaces(20).eq(1)).toBe(true);
    expect(new D(v.components[4].weight).toDecimalPlaces(4).toFixed(4)).toBe('0.4399');
  });

  it('per-USD quotes are divided and per-unit quotes multiplied (a wrong convention gives another value)', () => {
    const ref = imfValuation();
    const allPerUnit = valueBasket(ref.rows.map((r) => ({ assetCode: r.code, amount: r.amount, rate: r.rate })));
    expect(allPerUnit.sumUsd).not.toBe('1.314251');
    expect(allPerUnit.components[0].usdEquivalent).toBe(new D('1.0993').times('7.16950').toDecimalPlaces(6).toFixed(6));
  });
});

describe('amountsForWeights (IMF transition method)', () => {
  it('new amounts keep the value at the transition rates and make the new weights hold there', () => {
    // The SDR basket at the 2022 transition: new weights, value carried over. USD prices of CNY/JPY are reciprocals.
    const prices = { USD: '1', EUR: '1.03815', CNY: new D(1).div('7.16950').toFixed(), JPY: new D(1).div('137.96').toFixed(), GBP: '1.20235' };
    const weights = { USD: '0.4338', EUR: '0.2931', CNY: '0.1228', JPY: '0.0759', GBP: '0.0744' };
    const value = '1.314250';
    const amounts = amountsForWeights(
      Object.entries(weights).map(([assetCode, weight]) => ({ assetCode, weight, priceUsd: prices[assetCode as keyof typeof prices] })),
      value,
    );
    const v = valueBasket(amounts.map((a) => ({ assetCode: a.assetCode, amount: a.amount, rate: prices[a.assetCode as keyof typeof prices] })));
    // Five significant digits per amount move the value by at most a few millionths.
    expect(new D(v.sumUsd).minus(value).abs().lte('0.00001')).toBe(true);
    for (const c of v.components) expect(new D(c.weight).minus(weights[c.assetCode as keyof typeof weights]).abs().lte('0.00001')).toBe(true);
    for (const a of amounts) expect(new D(a.amount).precision(true)).toBeLessThanOrEqual(5);
  });

  it('GCU’s seeded amounts are the weights at the seeded rates: one GCU is USD 1.10', () => {
    const seed = { USD: '0.385', EUR: '0.25463', GBP: '0.086614', CHF: '0.097345', JPY: '16.418', XAU: '0.000041509' };
    const weights = { USD: '0.35', EUR: '0.25', GBP: '0.1', CHF: '0.1', JPY: '0.1', XAU: '0.1' };
    const amounts = amountsForWeights(Object.entries(weights).map(([assetCode, weight]) => ({ assetCode, weight, priceUsd: SANDBOX_RATES[assetCode] })), '1.10');
    expect(Object.fromEntries(amounts.map((a) => [a.assetCode, a.amount]))).toEqual(seed);
    const v = valueBasket(amounts.map((a) => ({ assetCode: a.assetCode, amount: a.amount, rate: SANDBOX_RATES[a.assetCode] })));
    expect(v.valueUsd).toBe('1.1');
  });

  it('refuses weights that do not sum to 1 and non-positive weights', () => {
    expect(() => amountsForWeights([{ assetCode: 'USD', weight: '0.5', priceUsd: '1' }, { assetCode: 'EUR', weight: '0.4', priceUsd: '1.08' }], '1')).toThrow(/sum to 1/);
    expect(() => amountsForWeights([{ assetCode: 'USD', weight: '1.2', priceUsd: '1' }, { assetCode: 'EUR', weight: '-0.2', priceUsd: '1.08' }], '1')).toThrow(/positive/);
  });
});
