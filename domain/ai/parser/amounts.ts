/**
 * Amounts and amount ranges. Values stay decimal strings: magnitudes (1.2k, 2m, 3 million) are
 * applied with decimal.js, never with JS numbers, and a value outside the filter's decimal shape
 * (20 integer digits, 18 decimals) is not understood rather than rounded.
 */
import Decimal from 'decimal.js';
import type { AiCurrency } from '../filter';
import type { Token } from './tokens';
import { COMPARATORS, CURRENCY_PHRASES, CURRENCY_SYMBOLS, MAGNITUDE_WORDS } from './vocabulary';

const Dec = Decimal.clone({ precision: 80, toExpPos: 1000, toExpNeg: -1000 });
const FACTORS = { k: '1000', m: '1000000', b: '1000000000' } as const;
const DECIMAL = /^\d{1,20}(\.\d{1,18})?$/;
const RANGE_SEPARATORS = new Set(['and', 'to', '-', '–', '—', 'until', 'through']);

export interface Bound {
  value: string;
  exclusive: boolean;
}
export interface AmountMatch {
  end: number;
  min: Bound | null;
  max: Bound | null;
  currency: AiCurrency | null;
  /** The construct contradicts itself: its words count as not understood. */
  conflict?: true;
}

interface Amount {
  end: number;
  value: string;
  currency: AiCurrency | null;
}

function suffixCurrency(tokens: readonly Token[], j: number): { currency: AiCurrency; end: number } | null {
  const t = tokens[j];
  if (!t) return null;
  if (t.kind === 'currency') return { currency: CURRENCY_SYMBOLS[t.text], end: j + 1 };
  const m = CURRENCY_PHRASES.match(tokens, j);
  return m ? { currency: m.value, end: m.end } : null;
}

/** [$ | € | USD] number [k | thousand | million] [USD | dollars | usdc | $]. */
function amountAt(tokens: readonly Token[], i: number): Amount | null {
  let j = i;
  let currency: AiCurrency | null = null;
  const first = tokens[j];
  if (!first) return null;
  if (first.kind === 'currency') {
    currency = CURRENCY_SYMBOLS[first.text];
    j++;
  } else if (first.kind === 'word' && tokens[j + 1]?.kind === 'number') {
    const code = CURRENCY_PHRASES.match(tokens, j);
    if (code && code.end === j + 1 && first.norm === code.value.toLowerCase()) {
      currency = code.value;
      j++;
    }
  }
  const n = tokens[j];
  if (!n || n.kind !== 'number' || n.value === undefined) return null;
  j++;
  let magnitude = n.magnitude;
  if (!magnitude && tokens[j] && MAGNITUDE_WORDS[tokens[j].norm] && tokens[j].kind === 'word') {
    magnitude = MAGNITUDE_WORDS[tokens[j].norm];
    j++;
  }
  const after = suffixCurrency(tokens, j);
  if (after && (currency === null || after.currency === currency)) {
    currency = after.currency;
    j = after.end;
  }
  let value: string;
  try {
    const d = magnitude ? new Dec(n.value).times(FACTORS[magnitude]) : new Dec(n.value);
    value = d.toFixed();
  } catch {
    return null;
  }
  if (!DECIMAL.test(value)) return null;
  return { end: j, value, currency };
}

function merge(a: Amount, b: Amount): AiCurrency | null | undefined {
  if (a.currency && b.currency && a.currency !== b.currency) return undefined;
  return a.currency ?? b.currency;
}

/** between A and B, from A to B, A-B USD: [A, B] inclusive (swapped if written the other way round). */
function rangeOf(a: Amount, b: Amount): AmountMatch | null {
  const currency = merge(a, b);
  // Two currencies in one range: understood as a range, but not one the filter can hold.
  if (currency === undefined) return { end: b.end, min: null, max: null, currency: null, conflict: true };
  const [lo, hi] = new Dec(a.value).lte(b.value) ? [a.value, b.value] : [b.value, a.value];
  return { end: b.end, min: { value: lo, exclusive: false }, max: { value: hi, exclusive: false }, currency };
}

function secondOfRange(tokens: readonly Token[], a: Amount): Amount | null {
  const sep = tokens[a.end];
  return sep && RANGE_SEPARATORS.has(sep.norm) ? amountAt(tokens, a.end + 1) : null;
}

export function matchAmount(tokens: readonly Token[], i: number): AmountMatch | null {
  const t = tokens[i];
  if (!t) return null;
  const cmp = COMPARATORS.match(tokens, i);
  if (cmp) {
    const a = amountAt(tokens, cmp.end);
    if (!a) return null;
    const bound = (exclusive: boolean): Bound => ({ value: a.value, exclusive });
    switch (cmp.value) {
      case 'minExclusive':
        return { end: a.end, min: bound(true), max: null, currency: a.currency };
      case 'minInclusive':
        return { end: a.end, min: bound(false), max: null, currency: a.currency };
      case 'maxExclusive':
        return { end: a.end, min: null, max: bound(true), currency: a.currency };
      case 'maxInclusive':
        return { end: a.end, min: null, max: bound(false), currency: a.currency };
      case 'exact':
        return { end: a.end, min: bound(false), max: bound(false), currency: a.currency };
    }
  }
  if (t.norm === 'between' || t.norm === 'from') {
    const a = amountAt(tokens, i + 1);
    const b = a && secondOfRange(tokens, a);
    return a && b ? rangeOf(a, b) : null;
  }
  const a = amountAt(tokens, i);
  if (!a) return null;
  const b = secondOfRange(tokens, a);
  if (b && tokens[a.end].norm !== 'and' && (a.currency || b.currency)) return rangeOf(a, b);
  // A bare amount counts only with its currency ("$500", "500 EUR"): it is that amount exactly.
  if (!a.currency) return null;
  return { end: a.end, min: { value: a.value, exclusive: false }, max: { value: a.value, exclusive: false }, currency: a.currency };
}
