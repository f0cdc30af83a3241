import Decimal from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getAsset, listAssets } from '../../domain/assets';
import { closePool, getPool } from '../../domain/db/pool';
import { writeOutboxEvent } from '../../domain/events/outbox';
import { AmountError, formatAmount, parseAmount } from '../../domain/money/amount';
import { latestRate, refreshRates, SANDBOX_RATES, SandboxRateProvider, usdEquivalent } from '../../domain/rates';
import { useTestDatabase } from '../helpers/db';

beforeAll(async () => {
  await useTestDatabase();
});
afterAll(async () => closePool());

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(AmountError);
    return (e as AmountError).code;
  }
  return undefined;
}

describe('amounts', () => {
  it('parses and canonicalises at the asset precision', () => {
    expect(parseAmount('1.5', 2)).toBe('1.50');
    expect(parseAmount('1.50', 2)).toBe('1.50');
    expect(parseAmount('007', 2)).toBe('7.00');
    expect(parseAmount('100', 0)).toBe('100');
    expect(parseAmount('0.000000000000000001', 18)).toBe('0.000000000000000001');
    expect(parseAmount('99999999999999999999.99', 2)).toBe('99999999999999999999.99');
  });

  it('canonicalises by string exactly as decimal.js toFixed does, for every spelling it accepts', () => {
    // parseAmount builds the canonical spelling without decimal.js (it runs for every ledger line):
    // leading zeros, short and full fractions, zero integer parts, precisions 0 to 18.
    const ints = ['0', '00', '1', '007', '10', '100', '12345678901234567890', '00012345678901234567890'];
    const fracs = ['', '0', '5', '05', '50', '000000000000000001', '123456789012345678', '10', '99'];
    let checked = 0;
    for (const precision of [0, 1, 2, 6, 8, 18]) {
      for (const i of ints) {
        for (const f of fracs) {
          const value = f ? `${i}.${f}` : i;
          if (f.length > precision || new Decimal(value).isZero()) continue;
          expect(parseAmount(value, precision), `${value} at ${precision}`).toBe(new Decimal(value).toFixed(precision));
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(150);
    expect(code(() => parseAmount('000.000', 3))).toBe('AMOUNT_NOT_POSITIVE');
    expect(code(() => parseAmount('00', 0))).toBe('AMOUNT_NOT_POSITIVE');
  });

  it('refuses malformed, non-positive and over-precise amounts with typed codes', () => {
    expect(code(() => parseAmount('1.234', 2))).toBe('AMOUNT_PRECISION');
    expect(code(() => parseAmount('1.0', 0))).toBe('AMOUNT_PRECISION');
    expect(code(() => parseAmount('0', 2))).toBe('AMOUNT_NOT_POSITIVE');
    expect(code(() => parseAmount('0.00', 2))).toBe('AMOUNT_NOT_POSITIVE');
    expect(code(() => parseAmount('-1', 2))).toBe('AMOUNT_NOT_POSITIVE');
    for (const bad of [1.5, 10, null, undefined, '', ' 1', '1 ', '+1', '1e2', '.5', '5.', '1,00', '0x10', 'NaN', 'Infinity', '١٢', '123456789012345678901']) {
      expect(code(() => parseAmount(bad, 2))).toBe('INVALID_AMOUNT');
    }
  });

  it('formats at a precision without floats', () => {
    expect(formatAmount('0.1', 2)).toBe('0.10');
    expect(formatAmount('-70', 2)).toBe('-70.00');
    expect(formatAmount('1.000000000000000001', 18)).toBe('1.000000000000000001');
    // Spellings at the right scale but not canonical still go through the decimal arithmetic.
    const table: Array<[string, number, string]> = [
      ['10.00', 2, '10.00'], ['0.00', 2, '0.00'], ['010.00', 2, '10.00'], ['00.50', 2, '0.50'], ['-0.50', 2, '-0.50'],
      ['7', 0, '7'], ['07', 0, '7'], ['7.', 0, '7'], ['2.5', 0, '2'], ['3.5', 0, '4'], ['1.005', 2, '1.00'], ['1.015', 2, '1.02'],
      ['123.4500', 4, '123.4500'], ['1e2', 2, '100.00'],
    ];
    for (const [value, precision, expected] of table) expect(formatAmount(value, precision), `${value} at ${precision}`).toBe(expected);
  });
});

describe('assets and rates', () => {
  it('seeds the assets with their precisions', async () => {
    const assets = await listAssets();
    expect(Object.fromEntries(assets.map((a) => [a.code, [a.type, a.precision]]))).toEqual({
      BTC: ['crypto', 8], CHF: ['fiat', 2], ETH: ['crypto', 18], EUR: ['fiat', 2], GBP: ['fiat', 2], GCU: ['basket', 4],
      JPY: ['fiat', 0], USD: ['fiat', 2], USDC: ['crypto', 6], XAU: ['commodity', 4],
      // Tokens of the chains migration.
      DAI: ['crypto', 18], USDT: ['crypto', 6], WBTC: ['crypto', 8], WETH: ['crypto', 18],
    });
    expect((await getAsset('usd'))?.code).toBe('USD');
    expect(await getAsset('DOGE')).toBeNull();
  });

  it('has a seeded rate for every asset and converts to USD exactly', async () => {
    for (const a of await listAssets()) expect(await latestRate(a.code)).not.toBeNull();
    expect(await usdEquivalent('BTC', '0.5')).toBe('47500.00');
    expect(await usdEquivalent('JPY', '1000')).toBe('6.70');
    expect(await usdEquivalent('EUR', '-10')).toBe('-10.80');
    expect(await usdEquivalent('ETH', '0.000000000000000001')).toBe('0.00');
  });

  it('stores a provider snapshot; the newest rate wins', async () => {
    const provider = new SandboxRateProvider({ ...SANDBOX_RATES, EUR: '1.1234' }, () => new Date('2026-11-22T00:00:00Z'));
    expect(await refreshRates(provider)).toBe(Object.keys(SANDBOX_RATES).length);
    expect(await latestRate('EUR')).toMatchObject({ rate: '1.1234', source: 'sandbox' });
    expect(await usdEquivalent('EUR', '100')).toBe('112.34');
  });

  it('writes outbox events with the helper', async () => {
    const id = await writeOutboxEvent(getPool(), { type: 'account.updated', environment: 'sandbox', aggregateType: 'account', aggregateId: 'acct_x', data: { a: 1 } });
    const { rows } = await getPool().query(`SELECT * FROM outbox_events WHERE id = $1`, [id]);
    expect(id).toMatch(/^evt_/);
    expect(rows[0]).toMatchObject({ type: 'account.updated', published_at: null, attempts: 0, data: { a: 1 }, user_id: null });
  });
});
