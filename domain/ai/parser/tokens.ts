/**
 * The query's tokens, found by one left-to-right pass over its characters (no backtracking
 * regular expressions over the whole text: the work is linear in its length). Punctuation is
 * dropped except dashes, which ranges use; anything the parser has no class for (emoji, other
 * scripts' digits) becomes an 'other' token, which always counts as not understood.
 */

export type TokenKind =
  | 'word' // letters, digits after the first letter, _ ' - inside: deposits, cross-chain, q1, what's
  | 'number' // 500, 1,200.50, 1.2k, 2m (value without separators, magnitude apart)
  | 'ordinal' // 1st, 15th (value is the number)
  | 'date' // 2026-01-15, 15/06/2026, 1.5.2026
  | 'email'
  | 'handle' // @bob
  | 'currency' // $ € £ ¥ ₿
  | 'op' // > < >= <= = ≥ ≤
  | 'dash' // - – —
  | 'other';

export interface Token {
  /** As written (after NFKC normalisation). */
  text: string;
  /** Lower case. */
  norm: string;
  kind: TokenKind;
  start: number;
  end: number;
  /** number / ordinal: the digits, without thousands separators ("1200.50"). */
  value?: string;
  /** number: the k / m / b suffix written on it ("1.2k"). */
  magnitude?: 'k' | 'm' | 'b';
}

const EMAIL = /^[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(\.[A-Za-z0-9-]{1,63}){0,8}\.[A-Za-z]{2,24}$/;
const HANDLE = /^@[A-Za-z0-9_][A-Za-z0-9_.]{0,49}$/;
const DATE = /^(\d{4}-\d{1,2}-\d{1,2}|\d{1,4}[/.]\d{1,2}[/.]\d{1,4})$/;
const LETTER = /[\p{L}\p{M}]/u;
const LEAD_STRIP = '([{"\'“‘«<';
const TRAIL_STRIP = '.,;:!?)]}"\'”’»>';
const CURRENCY_SYMBOLS = '$€£¥₿';
const DASHES = '-–—';
const MAGNITUDES: Record<string, 'k' | 'm' | 'b'> = { k: 'k', m: 'm', mm: 'm', mn: 'm', b: 'b', bn: 'b' };
const ORDINALS = new Set(['st', 'nd', 'rd', 'th']);
/** A whitespace-separated chunk longer than this is one 'other' token (nothing real is that long). */
const MAX_CHUNK = 100;

const isDigit = (c: string) => c >= '0' && c <= '9';
const isLetter = (c: string) => c === '_' || (c.length > 0 && LETTER.test(c));
const isSpace = (c: string) => /\s/.test(c);
/** ASCII and general punctuation the parser ignores. */
const isPunct = (c: string) => /[\p{P}]/u.test(c) || '*^~`|+\\#%&{}/@'.includes(c);

export function tokenize(text: string): Token[] {
  const out: Token[] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    while (i < n && isSpace(text[i])) i++;
    let j = i;
    while (j < n && !isSpace(text[j])) j++;
    if (j > i) chunk(text, i, j, out);
    i = j;
  }
  return out;
}

function push(out: Token[], text: string, start: number, end: number, kind: TokenKind, extra?: Partial<Token>) {
  const t = text.slice(start, end);
  out.push({ text: t, norm: t.toLowerCase(), kind, start, end, ...extra });
}

function chunk(text: string, a: number, b: number, out: Token[]) {
  if (b - a > MAX_CHUNK) {
    push(out, text, a, b, 'other');
    return;
  }
  let a2 = a;
  let b2 = b;
  while (a2 < b2 && LEAD_STRIP.includes(text[a2])) a2++;
  while (b2 > a2 && TRAIL_STRIP.includes(text[b2 - 1])) b2--;
  const core = text.slice(a2, b2);
  if (core.length > 0) {
    if (EMAIL.test(core)) return push(out, text, a2, b2, 'email');
    if (HANDLE.test(core)) return push(out, text, a2, b2, 'handle');
    if (DATE.test(core)) return push(out, text, a2, b2, 'date');
  }
  scan(text, a, b, out);
}

function scan(text: string, a: number, b: number, out: Token[]) {
  let i = a;
  while (i < b) {
    const c = text[i];
    if (isDigit(c)) {
      i = number(text, i, b, out);
    } else if (isLetter(c)) {
      let j = i + 1;
      while (j < b && (isLetter(text[j]) || isDigit(text[j]) || ("-'’".includes(text[j]) && j + 1 < b && isLetter(text[j + 1])))) j++;
      // A possessive or contracted 's is dropped: yesterday's, Bob's, what's.
      const possessive = j - i > 2 && (text[j - 2] === "'" || text[j - 2] === '’') && (text[j - 1] === 's' || text[j - 1] === 'S');
      push(out, text, i, possessive ? j - 2 : j, 'word');
      i = j;
    } else if (CURRENCY_SYMBOLS.includes(c)) {
      push(out, text, i, i + 1, 'currency');
      i++;
    } else if (c === '>' || c === '<') {
      const j = text[i + 1] === '=' && i + 1 < b ? i + 2 : i + 1;
      push(out, text, i, j, 'op');
      i = j;
    } else if (c === '=' || c === '≥' || c === '≤') {
      push(out, text, i, i + 1, 'op');
      i++;
    } else if (DASHES.includes(c)) {
      push(out, text, i, i + 1, 'dash');
      i++;
    } else if (isPunct(c)) {
      i++;
    } else {
      // Anything else (emoji, symbols, digits of other scripts): one token per run. Surrogate
      // pairs stay together because both halves land here.
      let j = i + 1;
      while (j < b && !isDigit(text[j]) && !isLetter(text[j]) && !isPunct(text[j]) && !DASHES.includes(text[j]) && !CURRENCY_SYMBOLS.includes(text[j]) && !'<>=≥≤'.includes(text[j])) j++;
      push(out, text, i, j, 'other');
      i = j;
    }
  }
}

/** 1200 · 1,200 · 1,200.50 · 1.2k · 2m · 15th; digits followed by other letters make one word (10am). */
function number(text: string, i: number, b: number, out: Token[]): number {
  const start = i;
  let j = i;
  while (j < b && isDigit(text[j])) j++;
  // Thousands groups: a comma followed by exactly three digits.
  while (j + 3 < b && text[j] === ',' && isDigit(text[j + 1]) && isDigit(text[j + 2]) && isDigit(text[j + 3]) && !(j + 4 < b && isDigit(text[j + 4]))) j += 4;
  if (j + 1 < b && text[j] === '.' && isDigit(text[j + 1])) {
    j++;
    while (j < b && isDigit(text[j])) j++;
  }
  const digitsEnd = j;
  let k = j;
  while (k < b && isLetter(text[k])) k++;
  const suffix = text.slice(j, k).toLowerCase();
  const value = text.slice(start, digitsEnd).replaceAll(',', '');
  if (suffix.length === 0) {
    push(out, text, start, digitsEnd, 'number', { value });
    return digitsEnd;
  }
  const after = k < b ? text[k] : '';
  if (!isDigit(after)) {
    if (MAGNITUDES[suffix]) {
      push(out, text, start, k, 'number', { value, magnitude: MAGNITUDES[suffix] });
      return k;
    }
    if (ORDINALS.has(suffix) && !value.includes('.')) {
      push(out, text, start, k, 'ordinal', { value });
      return k;
    }
  }
  // 10am, 3x, 1e5: one word the parser does not know.
  let w = k;
  while (w < b && (isLetter(text[w]) || isDigit(text[w]))) w++;
  push(out, text, start, w, 'word');
  return w;
}
