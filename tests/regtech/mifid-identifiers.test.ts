import { describe, expect, it } from 'vitest';
import { isValidIsin, isValidLei, isValidMic, isValidTransactionReference, requireIdentifier } from '../../domain/regtech/mifid/identifiers';

describe('RTS 22 identifiers', () => {
  it('LEI: ISO 17442 check digits (mod 97 = 1)', () => {
    // Published LEIs: GLEIF itself, Deutsche Bank, Apple.
    for (const lei of ['506700GE1G29325QX363', '7LTWFZYICNSX8D621K86', 'HWUPKR0MPOU8FGXBT394']) expect(isValidLei(lei), lei).toBe(true);
    expect(isValidLei('506700GE1G29325QX364')).toBe(false); // check digit off by one
    expect(isValidLei('506700GE1G29325QX36')).toBe(false); // 19 characters
    expect(isValidLei('506700ge1g29325qx363')).toBe(false); // lower case is not the format
  });

  it('ISIN: Luhn over the letter-expanded digits', () => {
    for (const isin of ['US0378331005', 'DE0005140008', 'GB0002634946', 'IE00B4L5Y983']) expect(isValidIsin(isin), isin).toBe(true);
    expect(isValidIsin('US0378331006')).toBe(false);
    expect(isValidIsin('US037833100')).toBe(false);
    expect(isValidIsin('0S0378331005')).toBe(false);
  });

  it('MIC and transaction reference number formats', () => {
    expect(isValidMic('XOFF')).toBe(true);
    expect(isValidMic('XNAS')).toBe(true);
    expect(isValidMic('XOF')).toBe(false);
    expect(isValidTransactionReference('A'.repeat(52))).toBe(true);
    expect(isValidTransactionReference('A'.repeat(53))).toBe(false);
    expect(isValidTransactionReference('TX-1')).toBe(false);
  });

  it('a malformed identifier is a coded refusal naming the field', () => {
    expect(requireIdentifier('ISIN', ' us0378331005 ', '/isin')).toBe('US0378331005');
    expect(() => requireIdentifier('LEI', 'NOTALEI', '/executing_entity_lei')).toThrow(expect.objectContaining({ code: 'INVALID_LEI', pointer: '/executing_entity_lei' }));
  });
});
