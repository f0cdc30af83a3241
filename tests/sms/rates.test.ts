import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statusForCode } from '../../api/error-status';
import { closePool, getPool } from '../../domain/db/pool';
import { DomainError } from '../../domain/platform/errors';
import { eurToUsdcAtomic, getSmsRate, priceMessage } from '../../domain/sms/rates';
import { useTestDatabase } from '../helpers/db';

beforeAll(async () => {
  await useTestDatabase();
});
afterAll(async () => closePool());

async function refused(p: Promise<unknown>): Promise<DomainError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof DomainError)) throw new Error(`expected a DomainError, got ${String(err)}`);
  return err;
}

async function setRate(base: string, rate: string, asOf: string) {
  await getPool().query(`INSERT INTO exchange_rates (base_asset, quote_asset, rate, as_of, source) VALUES ($1, 'USD', $2, $3, 'test')`, [base, rate, asOf]);
}

const EU_EEA = ['AT', 'BE', 'BG', 'HR', 'CY', 'CZ', 'DK', 'EE', 'FI', 'FR', 'DE', 'GR', 'HU', 'IE', 'IT', 'LV', 'LT', 'LU', 'MT', 'NL', 'PL', 'PT', 'RO', 'SK', 'SI', 'ES', 'SE', 'IS', 'LI', 'NO'];

describe('sms_rates (seeded from the seven.io list)', () => {
  it('covers the EU/EEA and the required markets, every row naming its source and date', async () => {
    const { rows } = await getPool().query<{ country_code: string; rate_eur: string; source: string; effective_date: string }>(
      `SELECT country_code, rate_eur::text, source, to_char(effective_date, 'YYYY-MM-DD') AS effective_date FROM sms_rates ORDER BY country_code`,
    );
    expect(rows).toHaveLength(231);
    const codes = new Set(rows.map((r) => r.country_code));
    for (const c of [...EU_EEA, 'US', 'CA', 'GB', 'IN', 'BR', 'NG', 'ZA', 'AU', 'JP']) expect(codes, c).toContain(c);
    for (const r of rows) {
      expect(r.source).toMatch(/^seven\.io outbound SMS price list \(EUR per message\)/);
      expect(r.effective_date).toBe('2026-11-25');
      expect(Number(r.rate_eur)).toBeGreaterThan(0);
    }
  });

  it('holds the list’s figures unchanged', async () => {
    const { rows } = await getPool().query<{ country_code: string; rate_eur: string }>(
      `SELECT country_code, rate_eur::text FROM sms_rates WHERE country_code IN ('DE', 'US', 'NG', 'BR', 'MG', 'AM', 'SI')`,
    );
    expect(Object.fromEntries(rows.map((r) => [r.country_code, r.rate_eur]))).toEqual({
      DE: '0.075000',
      US: '0.075000',
      NG: '0.306000',
      BR: '0.028000',
      MG: '0.468000',
      AM: '0.189840',
      SI: '0.136560',
    });
  });

  it('refuses a non-positive rate', async () => {
    await expect(getPool().query(`INSERT INTO sms_rates VALUES ('QQ', 'Nowhere', 0, 'test', DATE '2026-11-25')`)).rejects.toThrow(/check/i);
  });
});

describe('getSmsRate', () => {
  it('converts EUR to USDC atomic units at the platform rates (seeded: 1 EUR = 1.08 USD, USDC 1:1)', async () => {
    expect(await getSmsRate('DE')).toEqual({ country: 'Germany', country_code: 'DE', rate_eur: '0.075', rate_usdc: '81000' });
    expect(await getSmsRate('ng')).toEqual({ country: 'Nigeria', country_code: 'NG', rate_eur: '0.306', rate_usdc: '330480' });
  });

  it('follows the latest rates, dividing by the USDC price, rounding up to the atomic unit', async () => {
    await setRate('EUR', '1.0836', '2026-11-25T10:00:00Z');
    await setRate('USDC', '0.9998', '2026-11-25T10:00:00Z');
    // 0.075 × 1.0836 / 0.9998 = 0.081286257… USDC → 81287; 0.306 × … = 0.331647929… → 331648.
    expect((await getSmsRate('DE')).rate_usdc).toBe('81287');
    expect((await getSmsRate('NG')).rate_usdc).toBe('331648');
    expect(await eurToUsdcAtomic('0.000001')).toBe('2'); // 1.0838… atomic units: never rounded down to 1
  });

  it.each(['ZZ', 'AQ', 'zz'])('%s has no rate: SMS_COUNTRY_NOT_SUPPORTED, 422, /country', async (code) => {
    const e = await refused(getSmsRate(code));
    expect([e.code, e.pointer, statusForCode(e.code)]).toEqual(['SMS_COUNTRY_NOT_SUPPORTED', '/country', 422]);
    expect(e.details).toEqual({ country_code: code.toUpperCase() });
  });

  it.each(['', 'D', 'DEU', '1A', 'D-'])('%j is not a country code: VALIDATION_ERROR, /country', async (code) => {
    const e = await refused(getSmsRate(code));
    expect([e.code, e.pointer, statusForCode(e.code)]).toEqual(['VALIDATION_ERROR', '/country', 422]);
  });
});

describe('priceMessage', () => {
  it('prices parts × rate, exactly', async () => {
    const rate = (await getSmsRate('DE')).rate_usdc;
    expect(await priceMessage({ to: '+49 151 12345678', message: 'Hello' })).toEqual({
      destination: '+4915112345678',
      country_code: 'DE',
      parts: 1,
      encoding: 'GSM-7',
      rate_usdc: rate,
      price_usdc: rate,
    });
    const long = await priceMessage({ to: '+4915112345678', message: 'a'.repeat(307) });
    expect([long.parts, long.price_usdc]).toEqual([3, String(3n * BigInt(rate))]);
    const unicode = await priceMessage({ to: '+2348031234567', message: `${'a'.repeat(69)}😀` });
    expect(unicode).toMatchObject({ country_code: 'NG', parts: 2, encoding: 'UCS-2', rate_usdc: '331648', price_usdc: '663296' });
  });

  it('refuses a bad number, a too-long message and a country without a rate, pointing at the field', async () => {
    const bad = await refused(priceMessage({ to: '+4930123456', message: 'Hi' }));
    expect([bad.code, bad.pointer]).toEqual(['INVALID_PHONE_NUMBER', '/to']);
    const long = await refused(priceMessage({ to: '+4915112345678', message: 'a'.repeat(1601) }));
    expect([long.code, long.pointer]).toEqual(['SMS_MESSAGE_TOO_LONG', '/message']);
    // Guernsey (+44 7911 12…): a valid mobile number, but the list prices no GG.
    const gg = await refused(priceMessage({ to: '+447911123456', message: 'Hi' }));
    expect([gg.code, gg.pointer]).toEqual(['SMS_COUNTRY_NOT_SUPPORTED', '/to']);
  });
});

describe('without platform rates', () => {
  it('counts USDC 1:1 with USD when the rates table has no USDC price', async () => {
    await getPool().query(`DELETE FROM exchange_rates WHERE base_asset = 'USDC'`);
    // 0.075 × 1.0836 = 0.08127 USDC exactly.
    expect((await getSmsRate('DE')).rate_usdc).toBe('81270');
  });

  it('refuses to quote without a EUR rate (RATE_UNAVAILABLE)', async () => {
    await getPool().query(`DELETE FROM exchange_rates WHERE base_asset = 'EUR'`);
    const e = await refused(getSmsRate('DE'));
    expect(e.code).toBe('RATE_UNAVAILABLE');
  });
});
