/** IBAN length per country (SWIFT IBAN registry). Unlisted countries are checked for format and mod 97 only. */
const IBAN_LENGTHS: Record<string, number> = Object.fromEntries(
  (
    'AD24 AE23 AL28 AT20 AZ28 BA20 BE16 BG22 BH22 BI27 BR29 BY28 CH21 CR22 CY28 CZ24 DE22 DJ27 DK18 DO28 EE20 ' +
    'EG29 ES24 FI18 FK18 FO18 FR27 GB22 GE22 GI23 GL18 GR27 GT28 HR21 HU28 IE22 IL23 IQ23 IS26 IT27 JO30 KW30 ' +
    'KZ20 LB28 LC32 LI21 LT20 LU20 LV21 LY25 MC27 MD24 ME22 MK19 MN20 MR27 MT31 MU30 NI28 NL18 NO15 OM23 PK24 ' +
    'PL28 PS29 PT25 QA29 RO24 RS22 RU33 SA24 SC31 SD18 SE24 SI19 SK24 SM27 SO23 ST25 SV28 TL23 TN24 TR26 UA29 ' +
    'VA22 VG24 XK20 YE30'
  )
    .split(' ')
    .map((e) => [e.slice(0, 2), Number(e.slice(2))]),
);

/** Returns null when the IBAN is valid, otherwise why not. */
export function ibanProblem(raw: string): string | null {
  const iban = raw.replace(/\s+/g, '').toUpperCase();
  if (!/^[A-Z]{2}[0-9]{2}[A-Z0-9]{1,30}$/.test(iban)) return `IBAN "${raw}" is not in IBAN format`;
  const expected = IBAN_LENGTHS[iban.slice(0, 2)];
  if (expected !== undefined && iban.length !== expected) {
    return `IBAN "${raw}" has ${iban.length} characters; ${iban.slice(0, 2)} IBANs have ${expected}`;
  }
  if (mod97(iban.slice(4) + iban.slice(0, 4)) !== 1) return `IBAN "${raw}" has invalid check digits (mod 97)`;
  return null;
}

/** ISO 7064 mod 97-10 over the letter-expanded string, in chunks to stay within integer range. */
function mod97(s: string): number {
  let rem = 0;
  for (const ch of s) {
    const code = ch.charCodeAt(0);
    const digits = code >= 65 ? String(code - 55) : ch;
    for (const d of digits) rem = (rem * 10 + (d.charCodeAt(0) - 48)) % 97;
  }
  return rem;
}

/** Builds a valid IBAN from country and BBAN by computing the check digits. */
export function makeIban(country: string, bban: string): string {
  const check = 98 - mod97(bban + country + '00');
  return country + String(check).padStart(2, '0') + bban;
}

const BIC_RE = /^[A-Z0-9]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$/;

export function bicProblem(bic: string): string | null {
  return BIC_RE.test(bic) ? null : `BIC "${bic}" is not a valid BIC (4 bank + 2 country + 2 location + optional 3 branch characters)`;
}
