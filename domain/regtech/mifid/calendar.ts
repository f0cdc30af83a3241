/**
 * The reporting deadline of a MiFID II transaction report: MiFIR Art. 26(1) asks for the report
 * "as quickly as possible, and no later than the close of the following working day". Working days
 * here are Monday to Friday except the TARGET2 closing days (1 January, Good Friday, Easter
 * Monday, 1 May, 25 and 26 December). Days are UTC calendar days and the close of a working day
 * is its last millisecond in UTC (23:59:59.999Z). The whole calendar is this file; nothing else
 * decides what a working day is.
 */

const DAY_MS = 86_400_000;

/** Easter Sunday of a Gregorian year (anonymous Gregorian algorithm, Meeus/Jones/Butcher), as a UTC midnight. */
export function easterSunday(year: number): Date {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return new Date(Date.UTC(year, month - 1, day));
}

const startOfDay = (d: Date) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));

/** Whether TARGET2 is closed on this UTC day (weekends aside). */
export function isTarget2Holiday(day: Date): boolean {
  const m = day.getUTCMonth() + 1;
  const d = day.getUTCDate();
  if ((m === 1 && d === 1) || (m === 5 && d === 1) || (m === 12 && (d === 25 || d === 26))) return true;
  const easter = easterSunday(day.getUTCFullYear()).getTime();
  const t = startOfDay(day).getTime();
  return t === easter - 2 * DAY_MS || t === easter + DAY_MS; // Good Friday, Easter Monday
}

/** Monday to Friday and not a TARGET2 closing day (UTC). */
export function isWorkingDay(day: Date): boolean {
  const wd = day.getUTCDay();
  return wd !== 0 && wd !== 6 && !isTarget2Holiday(day);
}

/** The first working day after the UTC day of `at`, as its UTC midnight. */
export function nextWorkingDay(at: Date): Date {
  let d = new Date(startOfDay(at).getTime() + DAY_MS);
  while (!isWorkingDay(d)) d = new Date(d.getTime() + DAY_MS);
  return d;
}

/** T+1: the close (last millisecond, UTC) of the working day after the trade's day. */
export function reportingDeadline(tradeExecutedAt: Date): Date {
  return new Date(nextWorkingDay(tradeExecutedAt).getTime() + DAY_MS - 1);
}
