/**
 * What an SMS costs. Providers list a price per part and destination country in EUR (sms_rates,
 * seeded from a published list: see its migration); the platform is paid in USDC, quoted in atomic
 * units (6 decimals, "48000" = 0.048 USDC) as the spec asks.
 *
 * EUR → USDC goes through the platform's own exchange rates (exchange_rates: the latest USD price
 * of EUR and of USDC), so a quote follows the same feed every other conversion uses: rate_usdc =
 * rate_eur × USD/EUR ÷ USD/USDC. The result is rounded up to the atomic unit: the platform never
 * quotes below what the provider charges. decimal.js throughout, never a float.
 */
import { getPool, type Queryable } from '../db/pool';
import { DecimalMoney as D } from '../money/amount';
import { DomainError } from '../platform/errors';
import { latestRate } from '../rates';
import { parseDestination } from './phone';
import { countSegments, type SmsEncoding } from './segments';

/** USDC's decimals: one atomic unit is 10^-6 USDC. */
export const USDC_DECIMALS = 6;

export interface SmsRate {
  /** Country name (English) */
  country: string;
  /** ISO 3166-1 alpha-2 */
  country_code: string;
  /** Price of one part in EUR, decimal string as listed */
  rate_eur: string;
  /** Price of one part in USDC atomic units, integer string */
  rate_usdc: string;
}

export interface SmsPriceQuote {
  /** The destination in E.164 */
  destination: string;
  country_code: string;
  parts: number;
  encoding: SmsEncoding;
  /** Per part, USDC atomic units */
  rate_usdc: string;
  /** parts × rate_usdc, USDC atomic units */
  price_usdc: string;
}

/**
 * EUR → USDC atomic units at the platform's latest rates, rounded up. Without a USD price for EUR
 * the quote is refused (RATE_UNAVAILABLE); without one for USDC it counts 1:1 with USD.
 */
export async function eurToUsdcAtomic(amountEur: string, client: Queryable = getPool()): Promise<string> {
  const eur = await latestRate('EUR', client);
  if (!eur || !new D(eur.rate).isPositive()) throw new DomainError('RATE_UNAVAILABLE', 'No USD rate for EUR to price SMS in USDC');
  const usdc = await latestRate('USDC', client);
  const usdPerUsdc = usdc && new D(usdc.rate).isPositive() ? new D(usdc.rate) : new D(1);
  return new D(amountEur)
    .times(eur.rate)
    .div(usdPerUsdc)
    .times(new D(10).pow(USDC_DECIMALS))
    .toDecimalPlaces(0, D.ROUND_CEIL)
    .toFixed(0);
}

async function rateFor(countryCode: string, pointer: string, client: Queryable): Promise<SmsRate> {
  const code = countryCode.toUpperCase();
  const { rows } = await client.query<{ country_code: string; country_name: string; rate_eur: string }>(
    'SELECT country_code, country_name, rate_eur::text AS rate_eur FROM sms_rates WHERE country_code = $1',
    [code],
  );
  const row = rows[0];
  if (!row) {
    throw new DomainError('SMS_COUNTRY_NOT_SUPPORTED', `SMS to ${code} is not offered: no published rate for that country`, pointer, { country_code: code });
  }
  const rateEur = new D(row.rate_eur).toFixed();
  return { country: row.country_name, country_code: row.country_code, rate_eur: rateEur, rate_usdc: await eurToUsdcAtomic(rateEur, client) };
}

/**
 * The price of one SMS part to a country (ISO 3166-1 alpha-2, either case). Not two letters:
 * VALIDATION_ERROR; a country without a rate: SMS_COUNTRY_NOT_SUPPORTED (422: the destination is
 * refused, the resource "rates" exists). Both point at /country.
 */
export async function getSmsRate(countryCode: string, client: Queryable = getPool()): Promise<SmsRate> {
  if (!/^[A-Za-z]{2}$/.test(countryCode)) {
    throw new DomainError('VALIDATION_ERROR', 'country must be an ISO 3166-1 alpha-2 code, e.g. DE', '/country');
  }
  return rateFor(countryCode, '/country', client);
}

/**
 * What sending `message` to `to` costs: destination checked (INVALID_PHONE_NUMBER, /to), parts
 * counted (SMS_MESSAGE_TOO_LONG, /message), the country's rate (SMS_COUNTRY_NOT_SUPPORTED, /to),
 * and price_usdc = parts × rate_usdc, exact.
 */
export async function priceMessage(input: { to: string; message: string }, client: Queryable = getPool()): Promise<SmsPriceQuote> {
  const destination = parseDestination(input.to);
  const segments = countSegments(input.message);
  const rate = await rateFor(destination.countryCode, '/to', client);
  return {
    destination: destination.e164,
    country_code: destination.countryCode,
    parts: segments.parts,
    encoding: segments.encoding,
    rate_usdc: rate.rate_usdc,
    price_usdc: new D(rate.rate_usdc).times(segments.parts).toFixed(0),
  };
}
