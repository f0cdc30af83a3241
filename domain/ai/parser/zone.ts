/**
 * Civil dates in an IANA time zone, with Intl only (no time-zone library): the wall-clock parts of
 * an instant, and the instant of a wall-clock time, DST gaps and overlaps included. Civil dates
 * are plain { y, m, d } (m 1-12); day arithmetic goes through Date.UTC, which has no DST.
 */

export interface CivilDate {
  y: number;
  m: number;
  d: number;
}

export interface WallClock extends CivilDate {
  hh: number;
  mi: number;
  ss: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    if (formatters.size > 500) formatters.clear();
    formatters.set(timeZone, f);
  }
  return f;
}

/** The zone if Intl knows it, else UTC (the parser never fails on a bad zone). */
export function resolveTimeZone(timeZone: unknown): string {
  if (typeof timeZone !== 'string' || timeZone.length === 0 || timeZone.length > 64) return 'UTC';
  try {
    formatter(timeZone);
    return timeZone;
  } catch {
    return 'UTC';
  }
}

export function wallClock(ms: number, timeZone: string): WallClock {
  const p: Record<string, number> = {};
  for (const part of formatter(timeZone).formatToParts(new Date(ms))) {
    if (part.type !== 'literal') p[part.type] = Number(part.value);
  }
  return { y: p.year, m: p.month, d: p.day, hh: p.hour === 24 ? 0 : p.hour, mi: p.minute, ss: p.second };
}

/** Minutes the zone is ahead of UTC at this instant (Berlin in winter: 60). */
export function offsetMinutes(ms: number, timeZone: string): number {
  const w = wallClock(ms, timeZone);
  const asUtc = Date.UTC(w.y, w.m - 1, w.d, w.hh, w.mi, w.ss);
  return Math.round((asUtc - Math.floor(ms / 1000) * 1000) / 60_000);
}

/**
 * The instant the zone's clocks show this wall-clock time. In an overlap (clocks set back) the
 * earlier instant; in a gap (clocks set forward, e.g. a midnight that does not exist) the first
 * instant after the gap, so the start of a day is always the day's first instant.
 */
export function zonedToUtc(c: CivilDate, timeZone: string, hh = 0, mi = 0): number {
  const key = `${timeZone}|${c.y}-${c.m}-${c.d}|${hh}:${mi}`;
  let t = instants.get(key);
  if (t === undefined) {
    t = computeZonedToUtc(c, timeZone, hh, mi);
    if (instants.size >= 5000) instants.clear();
    instants.set(key, t);
  }
  return t;
}

/** Wall-clock times already converted (the zone rules of a date do not change within a process). */
const instants = new Map<string, number>();

function computeZonedToUtc(c: CivilDate, timeZone: string, hh: number, mi: number): number {
  const guess = Date.UTC(c.y, c.m - 1, c.d, hh, mi);
  const offsets = new Set([offsetMinutes(guess - 86_400_000, timeZone), offsetMinutes(guess, timeZone), offsetMinutes(guess + 86_400_000, timeZone)]);
  const valid: number[] = [];
  const all: number[] = [];
  for (const o of offsets) {
    const t = guess - o * 60_000;
    all.push(t);
    const w = wallClock(t, timeZone);
    if (w.y === c.y && w.m === c.m && w.d === c.d && w.hh === hh && w.mi === mi) valid.push(t);
  }
  return valid.length > 0 ? Math.min(...valid) : Math.max(...all);
}

export function startOfDay(c: CivilDate, timeZone: string): number {
  return zonedToUtc(c, timeZone);
}

export function addDays(c: CivilDate, n: number): CivilDate {
  const t = new Date(Date.UTC(c.y, c.m - 1, c.d + n));
  return { y: t.getUTCFullYear(), m: t.getUTCMonth() + 1, d: t.getUTCDate() };
}

/** Calendar months later (or earlier), the day clamped to the month's length (31 May - 1 month = 30 April). */
export function addMonths(c: CivilDate, n: number): CivilDate {
  const idx = c.y * 12 + (c.m - 1) + n;
  const y = Math.floor(idx / 12);
  const m = idx - y * 12 + 1;
  return { y, m, d: Math.min(c.d, daysInMonth(y, m)) };
}

export function daysInMonth(y: number, m: number): number {
  return new Date(Date.UTC(y, m, 0)).getUTCDate();
}

/** ISO weekday: Monday 1 ... Sunday 7. */
export function isoWeekday(c: CivilDate): number {
  const w = new Date(Date.UTC(c.y, c.m - 1, c.d)).getUTCDay();
  return w === 0 ? 7 : w;
}

export function compareCivil(a: CivilDate, b: CivilDate): number {
  return a.y - b.y || a.m - b.m || a.d - b.d;
}
