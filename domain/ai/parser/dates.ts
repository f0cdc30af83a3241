/**
 * Dates: half-open ranges [from, to) of UTC instants, computed in the user's time zone.
 *
 * The parser finds date expressions at the token level (so that "between 1 and 15 June" or
 * "from 100 to 200 EUR" are never misread as times) and hands each day-level expression to
 * chrono-node (formats, ordinals, abbreviations, weekdays, "3 days ago", "yesterday"), with the
 * reference instant and the zone's offset at that instant. Calendar periods (weeks from Monday,
 * months, quarters, years, "past N days") are computed here, and every wall-clock boundary is
 * turned into an instant with the zone's own rules at that date (domain/ai/parser/zone.ts), so
 * ranges across a DST change are exact. Years chrono only guesses are decided here: the most
 * recent such date that is not in the future.
 */
import * as chrono from 'chrono-node';
import type { Token } from './tokens';
import { AMBIGUOUS_MONTHS, CURRENCY_PHRASES, MAGNITUDE_WORDS, MONTHS, NUMBER_WORDS, PhraseTable, QUARTER_WORDS, UNITS, WEEKDAYS, type Unit } from './vocabulary';
import { addDays, addMonths, compareCivil, daysInMonth, isoWeekday, startOfDay, wallClock, zonedToUtc, type CivilDate } from './zone';

export interface DateContext {
  tokens: readonly Token[];
  text: string;
  now: number;
  timeZone: string;
  today: CivilDate;
  chronoReference: { instant: Date; timezone: number };
}

/** A date expression before it becomes a range: calendar units keep whether their year was written. */
type Atom =
  | { kind: 'day'; c: CivilDate; yearImplied: boolean }
  | { kind: 'month'; y: number; m: number; yearImplied: boolean }
  | { kind: 'quarter'; y: number; q: number; yearImplied: boolean }
  | { kind: 'year'; y: number }
  | { kind: 'period'; from: number; to: number };

export interface DateMatch {
  end: number;
  from: number | null;
  to: number | null;
}

type Keyword = 'since' | 'from' | 'after' | 'before' | 'until' | 'in' | 'between';
const KEYWORDS = new PhraseTable<Keyword>()
  .add(['since', 'starting', 'starting from', 'beginning', 'as of', 'as from'], 'since')
  .add(['from'], 'from')
  .add(['after', 'later than'], 'after')
  .add(['before', 'prior to', 'earlier than'], 'before')
  .add(['until', 'till', 'til', 'through', 'thru', 'up to', 'up until', 'upto'], 'until')
  .add(['in', 'on', 'during', 'for', 'of', 'within', 'over', 'throughout'], 'in')
  .add(['between'], 'between');
/** After these a bare year (2025) is a date; elsewhere a number is left to the amounts. */
const YEAR_KEYWORDS = new Set(['since', 'starting', 'from', 'after', 'before', 'until', 'till', 'til', 'through', 'thru', 'in', 'during', 'for', 'of', 'between', 'throughout', 'as']);
const RANGE_SEPARATORS = new Set(['to', 'and', 'until', 'till', 'through', 'thru', '-', '–', '—']);
const CHRONO_DAY_WORDS = new Set(['today', 'yesterday', 'tomorrow']);

const num = (t: Token | undefined): number | null => {
  if (!t) return null;
  if ((t.kind === 'number' && !t.magnitude && /^\d+$/.test(t.value ?? '')) || t.kind === 'ordinal') return Number(t.value);
  return NUMBER_WORDS[t.norm] ?? null;
};
const dayNumber = (t: Token | undefined): number | null => {
  if (!t || (t.kind !== 'number' && t.kind !== 'ordinal')) return null;
  const n = num(t);
  return n !== null && n >= 1 && n <= 31 ? n : null;
};
const yearNumber = (t: Token | undefined): number | null => {
  if (!t || t.kind !== 'number' || t.magnitude || !/^\d{4}$/.test(t.value ?? '')) return null;
  const y = Number(t.value);
  return y >= 1970 && y <= 2099 ? y : null;
};
/** A number followed by a currency or magnitude is an amount, never a day or a year. */
const amountFollows = (tokens: readonly Token[], i: number) => {
  const t = tokens[i];
  return !!t && (t.kind === 'currency' || MAGNITUDE_WORDS[t.norm] !== undefined || CURRENCY_PHRASES.match(tokens, i) !== null);
};

// ------------------------------------------------------------------------------------------ ranges

function range(a: Atom, ctx: DateContext): [number, number] {
  const tz = ctx.timeZone;
  switch (a.kind) {
    case 'day':
      return [startOfDay(a.c, tz), startOfDay(addDays(a.c, 1), tz)];
    case 'month':
      return [startOfDay({ y: a.y, m: a.m, d: 1 }, tz), startOfDay(addMonths({ y: a.y, m: a.m, d: 1 }, 1), tz)];
    case 'quarter': {
      const first = { y: a.y, m: (a.q - 1) * 3 + 1, d: 1 };
      return [startOfDay(first, tz), startOfDay(addMonths(first, 3), tz)];
    }
    case 'year':
      return [startOfDay({ y: a.y, m: 1, d: 1 }, tz), startOfDay({ y: a.y + 1, m: 1, d: 1 }, tz)];
    case 'period':
      return [a.from, a.to];
  }
}

function withYear(a: Atom, y: number): Atom {
  if (a.kind === 'day') return { ...a, c: { ...a.c, y } };
  if (a.kind === 'month' || a.kind === 'quarter') return { ...a, y };
  return a;
}
const yearOf = (a: Atom): number | null => (a.kind === 'day' ? a.c.y : a.kind === 'month' || a.kind === 'quarter' || a.kind === 'year' ? a.y : null);
const implied = (a: Atom) => (a.kind === 'day' || a.kind === 'month' || a.kind === 'quarter') && a.yearImplied;

/** A year nobody wrote: this year, unless that date is still to come, then last year. */
function inferYear(a: Atom, today: CivilDate): Atom {
  if (!implied(a)) return a;
  const y = today.y;
  if (a.kind === 'day') return withYear(a, compareCivil({ ...a.c, y }, today) > 0 ? y - 1 : y);
  if (a.kind === 'month') return withYear(a, a.m > today.m ? y - 1 : y);
  if (a.kind === 'quarter') return withYear(a, (a.q - 1) * 3 + 1 > today.m ? y - 1 : y);
  return a;
}

/**
 * [from of A, end of B). A year left out of A is inferred (the latest A not in the future) or
 * taken from B; a year left out of B follows A, moved a year on if B would end before A starts.
 */
function between(a0: Atom, b0: Atom, ctx: DateContext): [number, number] {
  let a = inferYear(a0, ctx.today);
  let b = b0;
  const ya = yearOf(a);
  const yb = yearOf(b0);
  if (implied(b0)) {
    b = ya !== null ? withYear(b0, ya) : inferYear(b0, ctx.today);
    if (range(b, ctx)[1] <= range(a, ctx)[0]) {
      b = withYear(b, yearOf(b)! + 1);
      // "from November to February" in November: the one that has begun, a year back.
      if (implied(a0) && range(b, ctx)[0] > ctx.now) {
        a = withYear(a, yearOf(a)! - 1);
        b = withYear(b, yearOf(b)! - 1);
      }
    }
  } else if (implied(a0) && yb !== null) {
    a = withYear(a0, yb);
    if (range(a, ctx)[0] >= range(b, ctx)[1]) a = withYear(a, yb - 1);
  }
  return [range(a, ctx)[0], range(b, ctx)[1]];
}

// ------------------------------------------------------------------------------------------ atoms

function calendarPeriod(unit: Unit | 'weekend', back: number, ctx: DateContext): Atom | null {
  const { today, timeZone: tz } = ctx;
  const at = (from: CivilDate, to: CivilDate): Atom => ({ kind: 'period', from: startOfDay(from, tz), to: startOfDay(to, tz) });
  switch (unit) {
    case 'week': {
      const monday = addDays(today, -(isoWeekday(today) - 1) - 7 * back);
      return at(monday, addDays(monday, 7));
    }
    case 'weekend': {
      const monday = addDays(today, -(isoWeekday(today) - 1) - 7 * back);
      return at(addDays(monday, 5), addDays(monday, 7));
    }
    case 'month': {
      const first = addMonths({ y: today.y, m: today.m, d: 1 }, -back);
      return at(first, addMonths(first, 1));
    }
    case 'quarter': {
      const first = addMonths({ y: today.y, m: Math.floor((today.m - 1) / 3) * 3 + 1, d: 1 }, -3 * back);
      return at(first, addMonths(first, 3));
    }
    case 'year':
      return at({ y: today.y - back, m: 1, d: 1 }, { y: today.y - back + 1, m: 1, d: 1 });
    default:
      return null;
  }
}

/** The last n units up to now, same wall-clock time n units ago ("past 7 days"). */
function rolling(unit: Unit, n: number, ctx: DateContext): Atom {
  const { now, timeZone: tz } = ctx;
  if (unit === 'hour') return { kind: 'period', from: now - n * 3_600_000, to: now };
  const w = wallClock(now, tz);
  const back = unit === 'day' ? addDays(w, -n) : unit === 'week' ? addDays(w, -7 * n) : addMonths(w, -n * (unit === 'month' ? 1 : unit === 'quarter' ? 3 : 12));
  return { kind: 'period', from: zonedToUtc(back, tz, w.hh, w.mi) + (now % 60_000), to: now };
}

/** Own periods: this/last/past week|month|quarter|year|weekend, last N days, year to date, Q1 2026, March 2025. */
function periodAt(ctx: DateContext, j: number, keyword: boolean, allowYear: boolean): { atom: Atom; end: number } | null {
  const t = ctx.tokens;
  const w = t[j]?.norm;
  if (w === undefined) return null;
  if ((w === 'this' || w === 'current') && t[j + 1]) {
    const u = t[j + 1].norm === 'weekend' ? 'weekend' : UNITS[t[j + 1].norm];
    const a = u && !t[j + 1].norm.endsWith('s') ? calendarPeriod(u, 0, ctx) : null;
    if (a) return { atom: a, end: j + 2 };
  }
  if ((w === 'last' || w === 'previous' || w === 'prior' || w === 'past') && t[j + 1]) {
    const next = t[j + 1].norm;
    const u = next === 'weekend' ? 'weekend' : UNITS[next];
    if (u && !next.endsWith('s')) {
      const a = w === 'past' && u !== 'weekend' ? rolling(u, 1, ctx) : calendarPeriod(u, 1, ctx);
      if (a) return { atom: a, end: j + 2 };
    }
    const n = num(t[j + 1]);
    const u2 = t[j + 2] ? UNITS[t[j + 2].norm] : undefined;
    if (n !== null && n >= 1 && n <= 5000 && u2) return { atom: rolling(u2, n, ctx), end: j + 3 };
  }
  if ((w === 'year' || w === 'month' || w === 'week') && t[j + 1]?.norm === 'to' && t[j + 2]?.norm === 'date') {
    const p = calendarPeriod(w, 0, ctx) as { kind: 'period'; from: number };
    return { atom: { kind: 'period', from: p.from, to: ctx.now }, end: j + 3 };
  }
  if (w === 'ytd' || w === 'mtd') {
    const p = calendarPeriod(w === 'ytd' ? 'year' : 'month', 0, ctx) as { kind: 'period'; from: number };
    return { atom: { kind: 'period', from: p.from, to: ctx.now }, end: j + 1 };
  }
  // Quarters: Q1, q3 2025, first quarter (of) 2025.
  let q: number | null = null;
  let k = j;
  if (/^q[1-4]$/.test(w)) {
    q = Number(w[1]);
    k = j + 1;
  } else if (QUARTER_WORDS[w] && t[j + 1]?.norm === 'quarter') {
    q = QUARTER_WORDS[w];
    k = j + 2;
  }
  if (q !== null) {
    if (t[k]?.norm === 'of' && yearNumber(t[k + 1]) !== null) k++;
    const y = yearNumber(t[k]);
    if (y !== null && !amountFollows(t, k + 1)) return { atom: { kind: 'quarter', q, y, yearImplied: false }, end: k + 1 };
    return { atom: { kind: 'quarter', q, y: ctx.today.y, yearImplied: true }, end: k };
  }
  // A month alone or with its year (a day next to it is chrono's).
  const m = MONTHS[w];
  if (m !== undefined && t[j].kind === 'word' && dayNumber(t[j + 1]) === null) {
    const y = yearNumber(t[j + 1]);
    if (y !== null && !amountFollows(t, j + 2)) return { atom: { kind: 'month', y, m, yearImplied: false }, end: j + 2 };
    if (!AMBIGUOUS_MONTHS.has(w) || keyword) return { atom: { kind: 'month', y: ctx.today.y, m, yearImplied: true }, end: j + 1 };
  }
  if (allowYear) {
    const y = yearNumber(t[j]);
    if (y !== null && !amountFollows(t, j + 1)) return { atom: { kind: 'year', y }, end: j + 1 };
  }
  return null;
}

/** Where a day-level expression chrono should read ends, or -1. */
function chronoSpan(ctx: DateContext, j: number, keyword: boolean): number {
  const t = ctx.tokens;
  const a = t[j];
  if (!a) return -1;
  if (a.kind === 'date') return j + 1;
  if (CHRONO_DAY_WORDS.has(a.norm)) return j + 1;
  // [last|this|past|previous] weekday; abbreviations (sat, sun) only after a keyword or modifier.
  const modifier = ['last', 'this', 'past', 'previous'].includes(a.norm);
  const wd = t[modifier ? j + 1 : j];
  if (wd && WEEKDAYS[wd.norm] !== undefined && wd.kind === 'word' && (wd.norm.length > 4 || keyword || modifier)) return modifier ? j + 2 : j + 1;
  // N units ago, a week ago.
  const n = a.norm === 'a' || a.norm === 'an' ? 1 : num(a);
  if (n !== null && t[j + 1] && UNITS[t[j + 1].norm] && t[j + 2]?.norm === 'ago') return j + 3;
  // D [of] M [Y] and M D [Y].
  const d1 = dayNumber(a);
  if (d1 !== null) {
    let k = j + 1;
    if (t[k]?.norm === 'of') k++;
    if (t[k] && MONTHS[t[k].norm] !== undefined) return yearNumber(t[k + 1]) !== null && !amountFollows(t, k + 2) ? k + 2 : k + 1;
    return -1;
  }
  if (MONTHS[a.norm] !== undefined && dayNumber(t[j + 1]) !== null && !amountFollows(t, j + 2)) {
    return yearNumber(t[j + 2]) !== null && !amountFollows(t, j + 3) ? j + 3 : j + 2;
  }
  return -1;
}

function chronoAt(ctx: DateContext, j: number, keyword: boolean): { atom: Atom; end: number } | null {
  const end = chronoSpan(ctx, j, keyword);
  if (end < 0) return null;
  const slice = ctx.text.slice(ctx.tokens[j].start, ctx.tokens[end - 1].end);
  const [r] = chrono.casual.parse(slice, ctx.chronoReference);
  // chrono must read the whole expression, and find a date in it (not only a time of day).
  if (!r || r.index !== 0 || r.text.length < slice.replace(/[\s.,]+$/, '').length) return null;
  const s = r.start;
  if (s.isCertain('weekday') && !s.isCertain('day')) {
    // A weekday is the latest one on or before today ("last friday" on a Friday: a week ago).
    const want = (s.get('weekday') ?? 0) === 0 ? 7 : s.get('weekday')!;
    const strictlyBefore = /^(last|previous|past)\b/i.test(slice);
    let back = (isoWeekday(ctx.today) - want + 7) % 7;
    if (back === 0 && strictlyBefore) back = 7;
    return { atom: { kind: 'day', c: addDays(ctx.today, -back), yearImplied: false }, end };
  }
  const y = s.get('year');
  const m = s.get('month');
  const d = s.get('day');
  if (y === null || m === null) return null;
  if (s.isCertain('day') && d !== null) return { atom: { kind: 'day', c: { y, m, d }, yearImplied: !s.isCertain('year') }, end };
  if (s.isCertain('month')) return { atom: { kind: 'month', y, m, yearImplied: !s.isCertain('year') }, end };
  return null;
}

function atomAt(ctx: DateContext, j: number, keyword: boolean, allowYear: boolean) {
  return periodAt(ctx, j, keyword, allowYear) ?? chronoAt(ctx, j, keyword);
}

/** "1-15 June", "between 1 and 15 June 2025", "June 1 to 15": two days of one month. */
function dayRangeAt(ctx: DateContext, j: number): { a: Atom; b: Atom; end: number } | null {
  const t = ctx.tokens;
  const sep = (k: number) => t[k] !== undefined && RANGE_SEPARATORS.has(t[k].norm);
  const make = (d1: number, d2: number, m: number, yTok: number) => {
    const written = yearNumber(t[yTok]);
    const explicit = written !== null && !amountFollows(t, yTok + 1);
    // One year for both days: the written one, else the latest in which the first day is not in the future.
    const y = explicit ? written! : compareCivil({ y: ctx.today.y, m, d: d1 }, ctx.today) > 0 ? ctx.today.y - 1 : ctx.today.y;
    if (d2 > daysInMonth(y, m)) return null;
    const c = (d: number): Atom => ({ kind: 'day', c: { y, m, d }, yearImplied: false });
    return { a: c(d1), b: c(d2), end: explicit ? yTok + 1 : yTok };
  };
  const d1 = dayNumber(t[j]);
  if (d1 !== null && sep(j + 1)) {
    const d2 = dayNumber(t[j + 2]);
    const m = t[j + 3] ? MONTHS[t[j + 3].norm] : undefined;
    if (d2 !== null && m !== undefined && d1 <= d2) return make(d1, d2, m, j + 4);
  }
  const m = t[j] ? MONTHS[t[j].norm] : undefined;
  const e1 = dayNumber(t[j + 1]);
  if (m !== undefined && e1 !== null && sep(j + 2)) {
    const e2 = dayNumber(t[j + 3]);
    if (e2 !== null && e1 <= e2 && !(t[j + 4] && MONTHS[t[j + 4].norm] !== undefined)) return make(e1, e2, m, j + 4);
  }
  return null;
}

/**
 * A date construct at token i: [keyword] [the] expression [separator expression]. Keywords:
 * since X → [X, now); after X → [end of X, open); before X → [open, X); until/through X →
 * [open, end of X); between X and Y, from X to Y, X to Y → [X, end of Y); in/on/during X, from X
 * without an end ("deposits from last month") and X alone → X's own range.
 */
export function matchDate(ctx: DateContext, i: number): DateMatch | null {
  const t = ctx.tokens;
  const kw = KEYWORDS.match(t, i);
  let j = kw ? kw.end : i;
  if (kw && t[j]?.norm === 'the') j++;
  const keyword = kw !== null;
  const allowYear = keyword && YEAR_KEYWORDS.has(t[i].norm);
  const kind: Keyword | 'bare' = kw?.value ?? 'bare';

  if (kind === 'between' || kind === 'from' || kind === 'bare') {
    const days = dayRangeAt(ctx, j);
    if (days) {
      const [from, to] = between(days.a, days.b, ctx);
      return { end: days.end, from, to };
    }
  }
  const a = atomAt(ctx, j, keyword, allowYear);
  if (!a) return null;
  if (kind === 'between' || kind === 'from' || kind === 'bare') {
    const s = a.end;
    if (t[s] && RANGE_SEPARATORS.has(t[s].norm) && (kind !== 'bare' || t[s].norm !== 'and')) {
      const b = atomAt(ctx, t[s + 1]?.norm === 'the' ? s + 2 : s + 1, true, kind !== 'bare' || yearNumber(t[j]) !== null);
      if (b) {
        const [from, to] = between(a.atom, b.atom, ctx);
        return { end: b.end, from, to };
      }
    }
    if (kind === 'between') return null;
  }
  const [from, to] = range(inferYear(a.atom, ctx.today), ctx);
  switch (kind) {
    case 'since':
      return { end: a.end, from, to: ctx.now };
    case 'after':
      return { end: a.end, from: to, to: null };
    case 'before':
      return { end: a.end, from: null, to: from };
    case 'until':
      return { end: a.end, from: null, to };
    default:
      return { end: a.end, from, to };
  }
}
