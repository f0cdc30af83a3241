import { afterEach, describe, expect, it } from 'vitest';
import { countSegments, maxMessageChars } from '../../domain/sms/segments';
import { DomainError } from '../../domain/platform/errors';
import { statusForCode } from '../../api/error-status';
import { refusal } from '../helpers/refusal';

const a = (n: number) => 'a'.repeat(n);
const EMOJI = '😀'; // U+1F600, a surrogate pair: 2 UTF-16 units

describe('GSM-7', () => {
  it.each([
    [160, 1, 160],
    [161, 2, 153],
    [306, 2, 153],
    [307, 3, 153],
    [1530, 10, 153],
    [1531, 11, 153],
  ])('%i characters take %i part(s), %i per part', (n, parts, perPart) => {
    expect(countSegments(a(n))).toEqual({ encoding: 'GSM-7', parts, units: n, perPart });
  });

  it('extension-table characters count 2: 80 € are 160 units in one part, 81 take two', () => {
    expect(countSegments('€'.repeat(80))).toEqual({ encoding: 'GSM-7', parts: 1, units: 160, perPart: 160 });
    expect(countSegments('€'.repeat(81))).toEqual({ encoding: 'GSM-7', parts: 2, units: 162, perPart: 153 });
  });

  it('every extension character counts 2, form feed included; the basic table counts 1', () => {
    expect(countSegments('\f^{}\\[]~|€').units).toBe(20);
    expect(countSegments('@£$¥èéùìòÇØøÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ!"#¤%&\'()*+,-./:;<=>?¡ÄÖÑÜ§¿äöñüà\n\r').encoding).toBe('GSM-7');
    expect(countSegments('Ärger über Öl').units).toBe(13);
  });

  it('never splits an escape sequence: a € that would straddle the 153rd septet moves to the next part', () => {
    // 152 + 2 + 152 = 306 septets, which 2 × 153 would hold, but the escape cannot end part one.
    const r = countSegments(`${a(152)}€${a(152)}`);
    expect(r).toEqual({ encoding: 'GSM-7', parts: 3, units: 306, perPart: 153 });
  });
});

describe('UCS-2', () => {
  it('one character outside GSM-7 switches the whole message; an emoji is 2 units', () => {
    expect(countSegments(`${a(68)}${EMOJI}`)).toEqual({ encoding: 'UCS-2', parts: 1, units: 70, perPart: 70 });
    expect(countSegments(`${a(69)}${EMOJI}`)).toEqual({ encoding: 'UCS-2', parts: 2, units: 71, perPart: 67 });
    expect(countSegments('ç').encoding).toBe('UCS-2');
    expect(countSegments('Привет').units).toBe(6);
  });

  it('67 per part once split: 134 units in two parts, 135 in three', () => {
    expect(countSegments(`${a(132)}${EMOJI}`)).toEqual({ encoding: 'UCS-2', parts: 2, units: 134, perPart: 67 });
    expect(countSegments(`${a(133)}${EMOJI}`)).toEqual({ encoding: 'UCS-2', parts: 3, units: 135, perPart: 67 });
  });

  it('extension characters count 1 in UCS-2', () => {
    expect(countSegments(`€${EMOJI}`)).toEqual({ encoding: 'UCS-2', parts: 1, units: 3, perPart: 70 });
  });

  it('a grapheme longer than a part still takes the parts its units need (the library alone says 2)', () => {
    // 10 letters, then one letter carrying 140 combining accents: a single 141-unit grapheme.
    const r = countSegments(`${'b'.repeat(10)}a${'\u0301'.repeat(140)}`);
    expect(r).toEqual({ encoding: 'UCS-2', parts: 3, units: 151, perPart: 67 });
  });
});

describe('limits', () => {
  const saved = process.env.SMS_MAX_MESSAGE_CHARS;
  afterEach(() => {
    if (saved === undefined) delete process.env.SMS_MAX_MESSAGE_CHARS;
    else process.env.SMS_MAX_MESSAGE_CHARS = saved;
  });

  it('the maximum is 1600 UTF-16 units by default; one more is SMS_MESSAGE_TOO_LONG (422, /message)', () => {
    delete process.env.SMS_MAX_MESSAGE_CHARS;
    expect(maxMessageChars()).toBe(1600);
    expect(countSegments(a(1600)).parts).toBe(11);
    const e = refusal(() => countSegments(a(1601)));
    expect(e.code).toBe('SMS_MESSAGE_TOO_LONG');
    expect(e.pointer).toBe('/message');
    expect(e.details).toEqual({ max_chars: 1600, length: 1601 });
    expect(statusForCode(e.code)).toBe(422);
  });

  it('counts the limit in UTF-16 units: 800 emoji are 1600 units, 801 are too many', () => {
    delete process.env.SMS_MAX_MESSAGE_CHARS;
    // A surrogate pair is never split, so a part holds 33 emoji (66 units): 25 parts, not 1600 / 67 → 24.
    expect(countSegments(EMOJI.repeat(800))).toMatchObject({ encoding: 'UCS-2', units: 1600, parts: 25 });
    expect(refusal(() => countSegments(EMOJI.repeat(801))).code).toBe('SMS_MESSAGE_TOO_LONG');
  });

  it('follows SMS_MAX_MESSAGE_CHARS', () => {
    process.env.SMS_MAX_MESSAGE_CHARS = '160';
    expect(countSegments(a(160)).parts).toBe(1);
    expect(refusal(() => countSegments(a(161))).details).toEqual({ max_chars: 160, length: 161 });
  });

  it('an empty message is a validation error', () => {
    const e = refusal(() => countSegments(''));
    expect([e.code, e.pointer]).toEqual(['VALIDATION_ERROR', '/message']);
  });
});
