/**
 * Identifier checks an RTS 22 transaction report needs (Delegated Regulation (EU) 2017/590):
 * LEI (ISO 17442: 18 alphanumerics + 2 check digits, the whole read as a number with A=10 … Z=35
 * leaves remainder 1 modulo 97), ISIN (ISO 6166: 2-letter country, 9 alphanumerics, a Luhn check
 * digit over the letter-expanded digits), MIC (ISO 10383: 4 alphanumerics; XOFF off venue, XXXX
 * for an unlisted instrument) and the transaction reference number (at most 52 characters,
 * [A-Z0-9]), plus ISO 3166 country codes and the CFI format. Used by the transaction reports
 * (report.ts) and the settings (domain/platform/config.ts).
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

/** ISO 3166-1 alpha-2: the 249 officially assigned codes (no user-assigned or reserved ones such as EU, XK, ZZ). */
const COUNTRY_CODES = new Set(
  ('AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM ' +
    'CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW ' +
    'GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ' +
    'ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW ' +
    'PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG ' +
    'UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW').split(' '),
);

export function isValidCountryCode(code: string): boolean {
  return COUNTRY_CODES.has(code);
}

/** ISO 10962 CFI (2015): six capital letters. */
export function isValidCfi(cfi: string): boolean {
  return /^[A-Z]{6}$/.test(cfi);
}

/** Refuses a malformed identifier with a 422 naming the field. */
const CHECKS: Record<'LEI' | 'ISIN' | 'MIC' | 'TRN' | 'COUNTRY' | 'CFI', (v: string) => boolean> = {
  LEI: isValidLei,
  ISIN: isValidIsin,
  MIC: isValidMic,
  TRN: isValidTransactionReference,
  COUNTRY: isValidCountryCode,
  CFI: isValidCfi,
};

export function requireIdentifier(kind: keyof typeof CHECKS, value: string, pointer: string): string {
  const v = value.trim().toUpperCase();
  if (!CHECKS[kind](v)) {
    const what = kind === 'COUNTRY' ? 'ISO 3166-1 alpha-2 country code' : kind;
    throw new DomainError(`INVALID_${kind}`, `${value.slice(0, 60)} is not a valid ${what}`, pointer);
  }
  return v;
}
