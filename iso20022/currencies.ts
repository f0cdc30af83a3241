/**
 * ISO 4217 active currency codes and their minor units. Codes without minor
 * units in the standard (precious metals, SDR, testing codes: "N.A.") map to
 * null, meaning the amount's scale is not constrained beyond the schema.
 */
const ZERO = 'BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF';
const THREE = 'BHD IQD JOD KWD LYD OMR TND';
const FOUR = 'CLF UYW';
const NONE = 'XAG XAU XBA XBB XBC XBD XDR XPD XPT XSU XTS XUA XXX';
const TWO =
  'AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BMD BND BOB BOV BRL BSD BTN BWP BYN BZD CAD CDF ' +
  'CHE CHF CHW CNY COP COU CRC CUP CVE CZK DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GTQ GYD ' +
  'HKD HNL HTG HUF IDR ILS INR IRR JMD KES KGS KHR KPW KYD KZT LAK LBP LKR LRD LSL MAD MDL MGA MKD MMK MNT ' +
  'MOP MRU MUR MVR MWK MXN MXV MYR MZN NAD NGN NIO NOK NPR NZD PAB PEN PGK PHP PKR PLN QAR RON RSD RUB ' +
  'SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SVC SYP SZL THB TJS TMT TOP TRY TTD TWD TZS UAH USD USN ' +
  'UYU UZS VED VES WST XCD XCG YER ZAR ZMW ZWG';

const MINOR_UNITS = new Map<string, number | null>();
for (const [list, units] of [
  [TWO, 2],
  [ZERO, 0],
  [THREE, 3],
  [FOUR, 4],
  [NONE, null],
] as const) {
  for (const code of list.split(' ')) MINOR_UNITS.set(code, units);
}

export function isCurrency(code: string): boolean {
  return MINOR_UNITS.has(code);
}

/** Minor units of a currency: number of decimals, null when ISO 4217 defines none, undefined when unknown. */
export function minorUnits(code: string): number | null | undefined {
  return MINOR_UNITS.get(code);
}
