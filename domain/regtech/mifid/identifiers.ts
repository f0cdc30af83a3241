/**
 * Identifier checks an RTS 22 transaction report needs (Delegated Regulation (EU) 2017/590):
 * LEI (ISO 17442: 18 alphanumerics + 2 check digits, the whole read as a number with A=10 … Z=35
 * leaves remainder 1 modulo 97), ISIN (ISO 6166: 2-letter country, 9 alphanumerics, a Luhn check
 * digit over the letter-expanded digits), MIC (ISO 10383: 4 alphanumerics; XOFF off venue, XXXX
 * for an unlisted instrument) and the transaction reference number (at most 52 characters,
 * [A-Z0-9]). The first building block of MiFID II transaction reports (issue 16, still open).
 */
import { DomainError } from '../../platform/errors';

const expand = (s: string) => [...s].map((c) => (/[0-9]/.test(c) ? c : String(c.charCodeAt(0) - 55))).join('');

export function isValidLei(lei: string): boolean {
  if (!/^[A-Z0-9]{18}[0-9]{2}$/.test(lei)) return false;
  return BigInt(expand(lei)) % 97n === 1n;
}

export function isValidIsin(isin: string): boolean {
  if (!/^[A-Z]{2}[A-Z0-9]{9}[0-9]$/.test(isin)) return false;
  const digits = expand(isin.slice(0, 11));
  let sum = 0;
  // Luhn from the rightmost digit of the expanded string: every second digit (starting with it) doubles.
  for (let i = digits.length - 1, double = true; i >= 0; i--, double = !double) {
    let d = Number(digits[i]);
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return (10 - (sum % 10)) % 10 === Number(isin[11]);
}

export function isValidMic(mic: string): boolean {
  return /^[A-Z0-9]{4}$/.test(mic);
}

export function isValidTransactionReference(trn: string): boolean {
  return /^[A-Z0-9]{1,52}$/.test(trn);
}

/** Refuses a malformed identifier with a 422 naming the field. */
export function requireIdentifier(kind: 'LEI' | 'ISIN' | 'MIC' | 'TRN', value: string, pointer: string): string {
  const v = value.trim().toUpperCase();
  const ok = kind === 'LEI' ? isValidLei(v) : kind === 'ISIN' ? isValidIsin(v) : kind === 'MIC' ? isValidMic(v) : isValidTransactionReference(v);
  if (!ok) throw new DomainError(`INVALID_${kind}`, `${value.slice(0, 60)} is not a valid ${kind}`, pointer);
  return v;
}
