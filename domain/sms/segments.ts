/**
 * How many SMS parts a message takes, which is what it costs (operators bill per part).
 *
 * GSM-7 (3GPP TS 23.038): 160 septets in one part, 153 per part once split (the 6-octet
 * concatenation header takes the rest); characters of the extension table (form feed ^ { } \ [ ~ ] | €)
 * are an escape plus a septet, so they count 2. One character outside GSM-7 switches the whole
 * message to UCS-2: 70 UTF-16 code units in one part, 67 per part (an emoji outside the BMP is a
 * surrogate pair, 2 units).
 *
 * The splitting itself comes from sms-segments-calculator (Twilio's own calculator), which also
 * knows that an escape sequence or a surrogate pair is never cut between two parts, so a message
 * whose 153rd septet would be the first half of "€" takes one more part than units / 153 suggests.
 * Two things it gets wrong are corrected below, in countSegments and nowhere else:
 * - in UCS-2 its `numberOfCharacters` counts graphemes, not code units ('a'×69 + '😀' is 70 for it,
 *   71 units on the wire), so `units` is computed here;
 * - it never splits a grapheme, so one grapheme longer than a part (a letter with a hundred
 *   combining marks) lands whole in one overfull part and the count comes out low; the count here is
 *   at least what the units need.
 */
import { SegmentedMessage } from 'sms-segments-calculator';
import { loadConfig } from '../platform/config';
import { DomainError } from '../platform/errors';

export type SmsEncoding = 'GSM-7' | 'UCS-2';

export interface SegmentCount {
  encoding: SmsEncoding;
  /** Parts the message is sent (and billed) as. */
  parts: number;
  /** Septets (GSM-7, extension characters 2) or UTF-16 code units (UCS-2). */
  units: number;
  /** Units one part holds for this message: the single-part capacity when it fits in one, else the split capacity. */
  perPart: number;
}

/** Capacity of a part, by encoding: alone, and when the message is split (a concatenation header in each part). */
export const PART_CAPACITY: Readonly<Record<SmsEncoding, { single: number; split: number }>> = {
  'GSM-7': { single: 160, split: 153 },
  'UCS-2': { single: 70, split: 67 },
};

/**
 * The longest message accepted, in UTF-16 code units (JavaScript string length): the
 * SMS_MAX_MESSAGE_CHARS setting, 1600 by default. Read per call, like every setting.
 */
export function maxMessageChars(): number {
  return loadConfig().smsMaxMessageChars;
}

/**
 * Encoding, parts and units of a message. An empty message is VALIDATION_ERROR; one longer than
 * `maxChars` UTF-16 units is SMS_MESSAGE_TOO_LONG (both pointing at /message).
 */
export function countSegments(message: string, maxChars: number = maxMessageChars()): SegmentCount {
  if (message.length === 0) throw new DomainError('VALIDATION_ERROR', 'message must not be empty', '/message');
  if (message.length > maxChars) {
    throw new DomainError('SMS_MESSAGE_TOO_LONG', `message is ${message.length} characters (UTF-16 code units); at most ${maxChars} are accepted`, '/message', {
      max_chars: maxChars,
      length: message.length,
    });
  }
  const segmented = new SegmentedMessage(message, 'auto');
  const encoding: SmsEncoding = segmented.encodingName;
  // GSM-7: the library's septet count is right (extension characters are two code units there).
  const units = encoding === 'GSM-7' ? segmented.numberOfCharacters : message.length;
  const { single, split } = PART_CAPACITY[encoding];
  const byUnits = units <= single ? 1 : Math.ceil(units / split);
  const parts = Math.max(segmented.segmentsCount, byUnits);
  return { encoding, parts, units, perPart: parts === 1 ? single : split };
}
