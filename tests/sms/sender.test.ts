import { describe, expect, it } from 'vitest';
import { statusForCode } from '../../api/error-status';
import { DomainError } from '../../domain/platform/errors';
import { parseSender } from '../../domain/sms/sender';
import { refusal } from '../helpers/refusal';

describe('parseSender', () => {
  it.each([
    ['Acme', 'Acme'],
    ['A', 'A'],
    ['ACME Bank 1', 'ACME Bank 1'], // 11 characters
    ['Shop24', 'Shop24'],
    ['1Shop', '1Shop'],
    ['R&D-Alerts', 'R&D-Alerts'],
    ['Pay_Now+', 'Pay_Now+'],
    ['  Acme  ', 'Acme'],
  ])('%j is alphanumeric %j', (raw, value) => {
    expect(parseSender(raw)).toEqual({ kind: 'alphanumeric', value });
  });

  it.each(['+14155552671', '+4915112345678', '+447400123456', '+31612345678'])('%s is a numeric sender', (raw) => {
    expect(parseSender(raw)).toEqual({ kind: 'numeric', value: raw });
  });

  it.each(['123', '12345', '87654321'])('%s is a short code', (raw) => {
    expect(parseSender(raw)).toEqual({ kind: 'short_code', value: raw });
  });

  it.each([
    ['', /from must be/],
    ['   ', /from must be/],
    ['ACME Bank 12', /at most 11 characters/],
    ['Acme!', /only letters, digits, spaces/],
    ['Café', /only letters, digits, spaces/],
    ['Ac.me', /only letters, digits, spaces/],
    ['12', /from must be/], // too short for a short code
    ['123456789', /from must be/], // 9 digits without +: neither a short code nor E.164
    ['+1234567890123456', /from must be/], // 16 digits
    ['+0123456789', /from must be/], // no country code starts with 0
    ['+12', /length no numbering plan allows/],
    ['+123456789012345', /length no numbering plan allows/], // 15 digits, but no +1 number is that long
    ['+', /from must be/],
    ['12 34', /from must be/], // digits only: no letter, not a number either
  ])('%j is INVALID_SENDER_ID (%s)', (raw, message) => {
    const e = refusal(() => parseSender(raw));
    expect(e.code).toBe('INVALID_SENDER_ID');
    expect(e.pointer).toBe('/from');
    expect(e.message).toMatch(message);
    expect(statusForCode(e.code)).toBe(422);
  });
});
