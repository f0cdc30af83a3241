// The deterministic natural-language parser (issue 20): the golden queries of tests/ai/queries.ts
// with a fixed reference time, validateFilter, and robustness (injections, 10,000-character
// strings, random Unicode). Pure functions: no database, no Temporal.
import { describe, expect, it } from 'vitest';
import { EMPTY_FILTER, TRANSACTION_FILTER_SCHEMA, validateFilter, type TransactionFilter } from '../../domain/ai/filter';
import { MAX_QUERY_CHARS, parseTransactionQuery } from '../../domain/ai/parser';
import { BENCH_QUERIES, GOLDEN, HOSTILE_LONG_INPUTS, INJECTIONS, REFERENCE_NOW, at } from './queries';

const BERLIN = 'Europe/Berlin';
const filterOf = (expected: Partial<TransactionFilter>): TransactionFilter => ({ ...EMPTY_FILTER, ...expected });
const parse = (text: string, timeZone = BERLIN, now = REFERENCE_NOW) => parseTransactionQuery(text, { now, timeZone });

describe('golden queries (reference 2026-11-25T14:30:00Z)', () => {
  it('has at least 60 queries, each once', () => {
    expect(GOLDEN.length).toBeGreaterThanOrEqual(60);
    expect(new Set(GOLDEN.map((g) => `${g.timeZone ?? BERLIN}|${g.query}`)).size).toBe(GOLDEN.length);
  });

  for (const g of GOLDEN) {
    it(`${g.timeZone && g.timeZone !== BERLIN ? `[${g.timeZone}] ` : ''}${g.query}`, () => {
      const r = parse(g.query, g.timeZone ?? BERLIN);
      expect(r.filter).toEqual(filterOf(g.expect));
      expect(r.confidence).toBeGreaterThanOrEqual(g.minConfidence ?? 0.9);
      expect(r.confidence).toBeLessThanOrEqual(g.maxConfidence ?? 1);
      expect(validateFilter(r.filter)).toEqual({ ok: true, filter: r.filter });
    });
  }
});

describe('dates in the user time zone', () => {
  it('"last month" on 2026-03-10 in Berlin is February in Berlin time', () => {
    const r = parse('last month', BERLIN, new Date('2026-03-10T12:00:00Z'));
    expect([r.filter.dateFrom, r.filter.dateTo]).toEqual([at('2026-02-01T00:00:00+01:00'), at('2026-03-01T00:00:00+01:00')]);
  });

  it('a day across a DST change has 23 or 25 hours', () => {
    const spring = parse('today', BERLIN, new Date('2026-03-29T12:00:00Z')).filter;
    expect([spring.dateFrom, spring.dateTo]).toEqual([at('2026-03-29T00:00:00+01:00'), at('2026-03-30T00:00:00+02:00')]);
    const autumn = parse('today', BERLIN, new Date('2026-10-25T12:00:00Z')).filter;
    expect([autumn.dateFrom, autumn.dateTo]).toEqual([at('2026-10-25T00:00:00+02:00'), at('2026-10-26T00:00:00+01:00')]);
  });

  it('"today" follows the user clock, not UTC: 00:30 in Berlin is already the next day', () => {
    const f = parse('today', BERLIN, new Date('2026-11-25T23:30:00Z')).filter;
    expect([f.dateFrom, f.dateTo]).toEqual([at('2026-11-26T00:00:00+01:00'), at('2026-11-27T00:00:00+01:00')]);
  });

  it('a month name is the latest one not in the future', () => {
    const march = parse('in March', BERLIN, new Date('2026-03-10T12:00:00Z')).filter;
    expect(march.dateFrom).toBe(at('2026-03-01T00:00:00+01:00'));
    const april = parse('in April', BERLIN, new Date('2026-03-10T12:00:00Z')).filter;
    expect(april.dateFrom).toBe(at('2025-04-01T00:00:00+02:00'));
  });

  it('an unknown time zone is read as UTC', () => {
    const r = parse('today', 'Mars/Olympus_Mons');
    expect([r.filter.dateFrom, r.filter.dateTo]).toEqual(['2026-11-25T00:00:00.000Z', '2026-11-26T00:00:00.000Z']);
  });

  it('date constructs that leave nothing are not applied', () => {
    const r = parse('deposits since tomorrow');
    expect(r.filter).toEqual(filterOf({ types: ['deposit'] }));
    expect(r.confidence).toBeLessThan(0.5);
  });
});

describe('confidence', () => {
  it('an empty or ununderstood query is the empty filter with confidence at most 0.2', () => {
    for (const q of ['', '   ', 'show me all', 'asdf qwerty zxcv', '?!?!', 'lorem ipsum dolor sit amet']) {
      const r = parse(q);
      expect(r.filter, q).toEqual(EMPTY_FILTER);
      expect(r.confidence, q).toBeLessThanOrEqual(0.2);
    }
  });

  it('unknown words lower it; stop words do not', () => {
    const full = parse('deposits last week');
    const polite = parse('please show me all my deposits of the last week');
    const noisy = parse('deposits from coinbase and kraken last week');
    expect(full.confidence).toBe(1);
    expect(polite.confidence).toBe(1);
    expect(polite.filter).toEqual(full.filter);
    expect(noisy.filter).toEqual(full.filter);
    expect(noisy.confidence).toBeLessThan(0.6);
    expect(noisy.unrecognized).toEqual(['coinbase', 'kraken']);
  });

  it('is rounded to two decimals', () => {
    const c = parse('deposits from coinbase last week').confidence;
    expect(Math.round(c * 100) / 100).toBe(c);
  });
});

describe('validateFilter', () => {
  const good = (): Record<string, unknown> => ({ ...filterOf({}), types: [], statuses: [], chains: [], bridges: [], counterparties: [] });

  it('accepts every golden output and the empty filter', () => {
    expect(validateFilter(EMPTY_FILTER).ok).toBe(true);
    for (const g of GOLDEN) expect(validateFilter(parse(g.query, g.timeZone ?? BERLIN).filter).ok, g.query).toBe(true);
  });

  it('is draft-07 with every field required and no others', () => {
    expect(TRANSACTION_FILTER_SCHEMA.$schema).toBe('http://json-schema.org/draft-07/schema#');
    expect(TRANSACTION_FILTER_SCHEMA.additionalProperties).toBe(false);
    expect([...TRANSACTION_FILTER_SCHEMA.required].sort()).toEqual(Object.keys(EMPTY_FILTER).sort());
  });

  const refused: Array<[string, Record<string, unknown>]> = [
    ['an extra field', { sql: 'SELECT 1' }],
    ['an unknown type', { types: ['loan'] }],
    ['a repeated type', { types: ['deposit', 'deposit'] }],
    ['an unknown status', { statuses: ['cancelled'] }],
    ['an unknown chain', { chains: ['tron'] }],
    ['an unknown bridge', { bridges: ['hop'] }],
    ['an unknown currency', { currency: 'XYZ' }],
    ['a lower-case currency', { currency: 'usd' }],
    ['an unknown intent', { intent: 'delete' }],
    ['an unknown direction', { direction: 'sideways' }],
    ['a sort on another column', { sort: { field: 'password', order: 'asc' } }],
    ['a sort with extra keys', { sort: { field: 'amount', order: 'asc', nulls: 'first' } }],
    ['an exponent', { amountMin: '1e5' }],
    ['a negative amount', { amountMin: '-5' }],
    ['a number instead of a decimal string', { amountMax: 500 }],
    ['21 integer digits', { amountMax: '123456789012345678901' }],
    ['19 decimals', { amountMax: '1.1234567890123456789' }],
    ['a trailing dot', { amountMin: '1.' }],
    ['min above max', { amountMin: '200', amountMax: '100' }],
    ['min equal to an exclusive max', { amountMin: '100', amountMax: '100', amountMaxExclusive: true }],
    ['from after to', { dateFrom: '2026-02-01T00:00:00.000Z', dateTo: '2026-01-01T00:00:00.000Z' }],
    ['from equal to to', { dateFrom: '2026-01-01T00:00:00.000Z', dateTo: '2026-01-01T00:00:00.000Z' }],
    ['a date that does not exist', { dateFrom: '2026-02-30T00:00:00Z' }],
    ['a date with an offset', { dateFrom: '2026-01-01T00:00:00+01:00' }],
    ['a date only', { dateTo: '2026-01-01' }],
    ['limit 0', { limit: 0 }],
    ['limit above the cap', { limit: 1001 }],
    ['a fractional limit', { limit: 1.5 }],
    ['six counterparties', { counterparties: ['a', 'b', 'c', 'd', 'e', 'f'] }],
    ['a counterparty of 101 characters', { counterparties: ['x'.repeat(101)] }],
    ['a counterparty with a control character', { counterparties: ['bob\u0000'] }],
    ['an untrimmed counterparty', { counterparties: [' bob'] }],
    ['null for a list', { types: null }],
    ['a string for a boolean', { hasComplianceFlags: 'yes' }],
  ];
  for (const [what, patch] of refused) {
    it(`refuses ${what}`, () => {
      const r = validateFilter({ ...good(), ...patch });
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.errors.length).toBeGreaterThan(0);
    });
  }

  it('refuses a missing field and values that are not objects', () => {
    const { intent: _intent, ...missing } = good();
    for (const v of [missing, null, 'filter', 42, [], undefined]) expect(validateFilter(v).ok).toBe(false);
  });

  it('accepts equal inclusive bounds and a copy it can own', () => {
    const value = { ...good(), amountMin: '100', amountMax: '100', types: ['deposit'] };
    const r = validateFilter(value);
    expect(r).toEqual({ ok: true, filter: value });
    if (r.ok) expect(r.filter.types).not.toBe(value.types);
  });
});

describe('robustness', () => {
  it('injection strings have no effect and low confidence', () => {
    for (const q of INJECTIONS) {
      const r = parse(q);
      expect(r.filter, q).toEqual(EMPTY_FILTER);
      expect(r.confidence, q).toBeLessThanOrEqual(0.2);
    }
  });

  it('an injection beside a real query changes nothing beyond what was understood', () => {
    const r = parse("deposits'; DROP TABLE transactions; --");
    expect(r.filter).toEqual(filterOf({ types: ['deposit'] }));
    expect(r.confidence).toBeLessThan(0.5);
    expect(r.unrecognized).toEqual(['DROP', 'TABLE']);
    // "balance" and "Users" (a counterparty after FROM) are words the parser knows, but the
    // query is mostly not understood: nothing is filtered.
    for (const q of ["1; UPDATE accounts SET balance = 1000000 WHERE '1'='1", 'UNION SELECT password FROM Users']) {
      const x = parse(q);
      expect(x.filter, q).toEqual(EMPTY_FILTER);
      expect(x.recognized.length, q).toBeGreaterThan(0);
      expect(x.confidence, q).toBeLessThan(0.2);
    }
  });

  // The 50 ms target for these is measured by `npm run bench ai parse`; here only a ceiling no
  // catastrophic backtracking (seconds to hours on 10,000 characters) could stay under on any machine.
  it('10,000-character hostile strings parse to a valid filter without catastrophic backtracking', () => {
    for (const s of HOSTILE_LONG_INPUTS) parse(s);
    for (const s of HOSTILE_LONG_INPUTS) {
      const t0 = performance.now();
      const r = parse(s);
      expect(performance.now() - t0, s.slice(0, 20)).toBeLessThan(1_000);
      expect(validateFilter(r.filter).ok).toBe(true);
    }
  });

  it('reads only the first 500 characters; the words after them count as not understood', () => {
    const r = parse(`deposits last week${' '.repeat(600)}fees`);
    expect(r.filter).toEqual(filterOf({ types: ['deposit'], dateFrom: at('2026-11-16T00:00:00+01:00'), dateTo: at('2026-11-23T00:00:00+01:00') }));
    expect(r.confidence).toBe(0.65);
    expect(r.unrecognized).toEqual([`(1 more word after ${MAX_QUERY_CHARS} characters not read)`]);
    const long = parse(`deposits last week ${'and more words '.repeat(100)}`);
    expect(long.filter).toEqual(EMPTY_FILTER);
    expect(long.confidence).toBe(0);
    expect(long.unrecognized.at(-1)).toMatch(`after ${MAX_QUERY_CHARS} characters`);
  });

  it('random Unicode and word salad never throw, and only allow-listed values or input text reach the filter', () => {
    let seed = 20;
    const rnd = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
    const planes = [[0x20, 0x7e], [0xa0, 0x2fff], [0x3000, 0x9fff], [0xd800, 0xdfff], [0x1f300, 0x1faff], [0, 0x1f]];
    const words = ['over', '$', '500', 'last', 'month', 'between', 'and', 'June', '1', 'to', 'Bob', 'deposits', 'since', 'may', 'Q1', 'eth', 'on', 'top', '3', '-',
      '2026-01-15', 'not', 'from', '@x', 'a@b.co', 'k', 'm', 'yesterday', 'ago', 'days', 'week', '1.5', ',', 'the', 'With', 'Zoë', 'flagged', 'how', 'much'];
    for (let n = 0; n < 3_000; n++) {
      let s = '';
      if (n % 2 === 0) {
        for (let k = Math.floor(rnd() * 80); k > 0; k--) {
          const [a, b] = planes[Math.floor(rnd() * planes.length)];
          s += String.fromCodePoint(a + Math.floor(rnd() * (b - a)));
        }
      } else s = Array.from({ length: Math.floor(rnd() * 14) }, () => words[Math.floor(rnd() * words.length)]).join(rnd() < 0.8 ? ' ' : '');
      const r = parseTransactionQuery(s, { now: REFERENCE_NOW, timeZone: n % 3 ? BERLIN : 'America/New_York' });
      expect(validateFilter(r.filter).ok, JSON.stringify(s)).toBe(true);
      expect(r.confidence).toBeGreaterThanOrEqual(0);
      expect(r.confidence).toBeLessThanOrEqual(1);
      for (const cp of r.filter.counterparties) expect(s.normalize('NFKC')).toContain(cp);
    }
  });

  it('never throws for input that is not text or options that are wrong', () => {
    const odd: unknown[] = [undefined, null, 42, {}, ['deposits'], Symbol('x')];
    for (const v of odd) expect(parseTransactionQuery(v as string, { now: REFERENCE_NOW, timeZone: BERLIN }).filter).toEqual(EMPTY_FILTER);
    const r = parseTransactionQuery('deposits', { now: new Date(Number.NaN), timeZone: 42 as unknown as string });
    expect(r.filter).toEqual(filterOf({ types: ['deposit'] }));
    expect(parseTransactionQuery('deposits', undefined as unknown as { now: Date; timeZone: string }).filter.types).toEqual(['deposit']);
  });

  it('parses the whole bench mix into valid filters', () => {
    expect(BENCH_QUERIES.length).toBeGreaterThanOrEqual(100);
    for (const q of BENCH_QUERIES) expect(validateFilter(parse(q).filter).ok, q).toBe(true);
  });
});
