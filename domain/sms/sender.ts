/**
 * Who an SMS says it is from. Three kinds exist on the networks:
 * - alphanumeric: a brand name, 1 to 11 characters (the GSM originating-address field holds 11
 *   packed septets). Letters, digits and space, plus the four characters Twilio's Messaging API
 *   documents as valid (AlphaSender: "A-Z, a-z, 0-9, space, hyphen -, plus +, underscore _ and
 *   ampersand &. This value cannot contain only numbers."); it needs at least one letter, or
 *   handsets and operators take it for a number;
 * - numeric: a phone number in E.164 (+ and at most 15 digits) of a length some numbering plan allows;
 * - short code: 3 to 8 digits, no + (national short codes run from 3 digits, e.g. Germany, to 8).
 * Anything else is INVALID_SENDER_ID pointing at /from. Whether a destination country accepts the
 * kind (the US takes no alphanumeric senders, some countries want them registered) is the
 * operator's decision, reported back as a failed delivery.
 */
import { DomainError } from '../platform/errors';
import { isPossibleInternational } from './phone';

export type SenderKind = 'alphanumeric' | 'numeric' | 'short_code';

export interface SmsSender {
  kind: SenderKind;
  value: string;
}

const ALPHANUMERIC = /^[A-Za-z0-9 +\-_&]{1,11}$/;
const HAS_LETTER = /[A-Za-z]/;
const E164 = /^\+[1-9][0-9]{1,14}$/;
const SHORT_CODE = /^[0-9]{3,8}$/;

/** The sender ID, classified; surrounding blanks are dropped (operators would drop them too). */
export function parseSender(raw: string): SmsSender {
  const value = raw.trim();
  if (HAS_LETTER.test(value)) {
    if (ALPHANUMERIC.test(value)) return { kind: 'alphanumeric', value };
    throw invalid(
      value.length > 11
        ? `an alphanumeric sender has at most 11 characters, "${value.slice(0, 20)}" has ${value.length}`
        : 'an alphanumeric sender may hold only letters, digits, spaces and + - _ &',
    );
  }
  if (E164.test(value)) {
    if (isPossibleInternational(value)) return { kind: 'numeric', value };
    throw invalid('the sender number has a length no numbering plan allows');
  }
  if (SHORT_CODE.test(value)) return { kind: 'short_code', value };
  throw invalid('from must be a name of 1 to 11 letters, digits or spaces (at least one letter), a number in E.164 form (+…), or a short code of 3 to 8 digits');
}

function invalid(message: string): DomainError {
  return new DomainError('INVALID_SENDER_ID', message, '/from');
}
