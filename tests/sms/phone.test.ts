import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { statusForCode } from '../../api/error-status';
import { countryNameOf, parseDestination, toE164 } from '../../domain/sms/phone';
import { DomainError } from '../../domain/platform/errors';
import { refusal } from '../helpers/refusal';

describe('parseDestination', () => {
  it.each([
    ['+49 151 12345678', '+4915112345678', 'DE', 'Germany'],
    ['+49 (0)151 12345678', '+4915112345678', 'DE', 'Germany'],
    ['+44 7400 123456', '+447400123456', 'GB', 'United Kingdom'],
    ['+1 (415) 555-2671', '+14155552671', 'US', 'United States'],
    ['+1 613 555 0123', '+16135550123', 'CA', 'Canada'],
    ['+33 6 12 34 56 78', '+33612345678', 'FR', 'France'],
    ['+353 85 123 4567', '+353851234567', 'IE', 'Ireland'],
    ['+41 79 123 45 67', '+41791234567', 'CH', 'Switzerland'],
    ['+91 98123 45678', '+919812345678', 'IN', 'India'],
    ['+55 11 98765-4321', '+5511987654321', 'BR', 'Brazil'],
    ['+234 803 123 4567', '+2348031234567', 'NG', 'Nigeria'],
    ['+27 82 123 4567', '+27821234567', 'ZA', 'South Africa'],
    ['+61 412 345 678', '+61412345678', 'AU', 'Australia'],
    ['+81 90-1234-5678', '+819012345678', 'JP', 'Japan'],
  ])('%s is %s in %s', (raw, e164, countryCode, countryName) => {
    expect(parseDestination(raw)).toEqual({ e164, countryCode, countryName });
  });

  it('names the region libphonenumber assigns: +44 7624 is the Isle of Man, +44 7911 12 Guernsey', () => {
    expect(parseDestination('+447624123456')).toMatchObject({ countryCode: 'IM', countryName: 'Isle of Man' });
    expect(parseDestination('+447911123456').countryCode).toBe('GG');
  });

  it.each([
    ['004915112345678', /international E\.164/],
    ['015112345678', /international E\.164/],
    ['', /international E\.164/],
    ['+49151', /not a valid/],
    ['+12', /not a valid/],
    ['+999 1234567', /not a valid/],
    ['+44 7400 12345a', /not a valid/],
    ['hello', /international E\.164/],
    ['+1 415 555 2671 ext. 3', /extension/],
    ['+870 772 123 456', /non-geographic/], // Inmarsat: a mobile number of no country
  ])('%j is INVALID_PHONE_NUMBER (%s)', (raw, message) => {
    const e = refusal(() => parseDestination(raw));
    expect(e.code).toBe('INVALID_PHONE_NUMBER');
    expect(e.pointer).toBe('/to');
    expect(e.message).toMatch(message);
    expect(statusForCode(e.code)).toBe(422);
  });

  it.each([
    ['+49 30 123456', 'fixed_line'],
    ['+44 20 7946 0000', 'fixed_line'],
    ['+1 800 555 0199', 'toll_free'],
    ['+1 900 555 0100', 'premium_rate'],
    ['+44 871 234 5678', 'premium_rate'],
    ['+1 500 555 0006', 'personal_number'],
  ])('%s is refused: a %s number takes no SMS', (raw, type) => {
    const e = refusal(() => parseDestination(raw));
    expect(e.code).toBe('INVALID_PHONE_NUMBER');
    expect(e.details).toEqual({ number_type: type });
  });
});

describe('one parser for the mobile profiles and SMS', () => {
  it('only domain/sms/phone.ts uses libphonenumber', () => {
    const root = resolve(__dirname, '../..');
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? files(join(dir, d.name)) : d.name.endsWith('.ts') ? [join(dir, d.name)] : []));
    const users = ['domain', 'api', 'activities', 'workflows', 'worker', 'scripts']
      .flatMap((dir) => files(join(root, dir)))
      .filter((f) => readFileSync(f, 'utf8').includes("from 'google-libphonenumber'"))
      .map((f) => relative(root, f));
    expect(users).toEqual(['domain/sms/phone.ts']);
    expect(readFileSync(join(root, 'domain/mobile/profiles.ts'), 'utf8')).toContain("from '../sms/phone'");
  });

  it('toE164 (profiles) accepts any valid international number', () => {
    expect(toE164(' +44 7400 123456 ')).toBe('+447400123456');
    expect(toE164('+4930123456')).toBe('+4930123456'); // profiles keep landlines: SMS is what refuses them
    expect(toE164('07400 123456')).toBeNull();
    expect(toE164('+999')).toBeNull();
  });

  it('country names come from CLDR', () => {
    expect(countryNameOf('de')).toBe('Germany');
    expect(countryNameOf('XK')).toBe('Kosovo');
  });
});
