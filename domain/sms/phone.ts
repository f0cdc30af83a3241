/**
 * Phone numbers, parsed in one place with libphonenumber (Google's metadata of every numbering
 * plan): the mobile app's profiles and P2P lookups (domain/mobile/profiles.ts) and SMS destinations
 * both come here, so "valid number" means the same thing everywhere.
 *
 * Only international form is accepted (a + and the country code): the platform has no home country
 * to read a national number against.
 */
import libphonenumber from 'google-libphonenumber';
import { DomainError } from '../platform/errors';

const util = libphonenumber.PhoneNumberUtil.getInstance();
const { PhoneNumberType, PhoneNumberFormat } = libphonenumber;

export interface ParsedPhone {
  e164: string;
  /** ISO 3166-1 alpha-2 region of the number, as libphonenumber assigns it (a Jersey mobile is JE, not GB). */
  countryCode: string;
  type: libphonenumber.PhoneNumberType;
  /** Written with an extension ("ext. 3"), which E.164 drops. */
  hasExtension: boolean;
}

/** A valid number written with + and country code, else null (no region guessing, no exceptions). */
export function parseInternational(raw: string): ParsedPhone | null {
  try {
    // Region ZZ: only numbers that carry their country code parse.
    const n = util.parse(raw.trim(), 'ZZ');
    if (!util.isValidNumber(n)) return null;
    return {
      e164: util.format(n, PhoneNumberFormat.E164),
      countryCode: util.getRegionCodeForNumber(n) ?? '',
      type: util.getNumberType(n),
      hasExtension: Boolean(n.getExtension()),
    };
  } catch {
    return null;
  }
}

/** E.164 form of a valid number written with + and country code; null when it is not one. */
export function toE164(raw: string): string | null {
  return parseInternational(raw)?.e164 ?? null;
}

/** Whether a +digits string has a length some numbering plan allows (sender numbers: we cannot know their type). */
export function isPossibleInternational(raw: string): boolean {
  try {
    return util.isPossibleNumber(util.parse(raw, 'ZZ'));
  } catch {
    return false;
  }
}

/**
 * Number types an SMS can reach. MOBILE, and FIXED_LINE_OR_MOBILE where the plan does not tell them
 * apart (the United States, Canada and the rest of +1). Refused: FIXED_LINE (most landlines take no
 * SMS and the few that do read it out as speech, billed all the same), TOLL_FREE, PREMIUM_RATE and
 * SHARED_COST (service numbers, and premium ones are where SMS pumping fraud pays out), VOIP,
 * PERSONAL_NUMBER, PAGER, UAN and VOICEMAIL (reachability depends on the service behind them), and
 * UNKNOWN.
 */
export const SMS_REACHABLE_TYPES: ReadonlySet<libphonenumber.PhoneNumberType> = new Set([
  PhoneNumberType.MOBILE,
  PhoneNumberType.FIXED_LINE_OR_MOBILE,
]);

const TYPE_NAMES = new Map(Object.entries(PhoneNumberType).map(([name, value]) => [value, name.toLowerCase()]));

const regionNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'code' });

/** English name of an ISO 3166-1 alpha-2 region (CLDR, through Intl). */
export function countryNameOf(countryCode: string): string {
  return regionNames.of(countryCode.toUpperCase()) ?? countryCode.toUpperCase();
}

export interface SmsDestination {
  e164: string;
  /** ISO 3166-1 alpha-2 */
  countryCode: string;
  countryName: string;
}

/**
 * An SMS destination: a valid number in international form whose type can receive SMS. Anything
 * else is INVALID_PHONE_NUMBER pointing at /to, with the reason in the message.
 */
export function parseDestination(raw: string): SmsDestination {
  if (!raw.trim().startsWith('+')) {
    throw new DomainError('INVALID_PHONE_NUMBER', 'to must be a phone number in international E.164 form, e.g. +4915112345678', '/to');
  }
  const p = parseInternational(raw);
  if (!p || !p.countryCode) throw new DomainError('INVALID_PHONE_NUMBER', 'to is not a valid phone number', '/to');
  // +800, +870, +882/883 and the like belong to no country (region "001"): no country, no rate.
  if (!/^[A-Z]{2}$/.test(p.countryCode)) throw new DomainError('INVALID_PHONE_NUMBER', 'to is a non-geographic number, which belongs to no country', '/to');
  if (p.hasExtension) throw new DomainError('INVALID_PHONE_NUMBER', 'to has an extension; an SMS reaches a whole number only', '/to');
  if (!SMS_REACHABLE_TYPES.has(p.type)) {
    const kind = TYPE_NAMES.get(p.type) ?? 'unknown';
    throw new DomainError('INVALID_PHONE_NUMBER', `to is a ${kind.replaceAll('_', ' ')} number, which cannot receive SMS; send to a mobile number`, '/to', {
      number_type: kind,
    });
  }
  return { e164: p.e164, countryCode: p.countryCode, countryName: countryNameOf(p.countryCode) };
}
