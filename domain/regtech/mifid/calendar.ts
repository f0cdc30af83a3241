/**
 * The reporting deadline of a MiFID II transaction report: MiFIR Art. 26(1) asks for the report
 * "as quickly as possible, and no later than the close of the following working day". Working days
 * are the TARGET2 banking days of the payment rails' calendar (domain/rails/calendar.ts: Monday to
 * Friday except 1 January, Good Friday, Easter Monday, 1 May, 25 and 26 December), the one place
 * the platform decides them. Days are UTC calendar days and the close of a working day is its last
 * millisecond in UTC (23:59:59.999Z).
 */
import { addDays, easterSunday as easterDate, holidays, isBankingDay, nextBankingDayOnOrAfter } from '../../rails/calendar';

const DAY_MS = 86_400_000;
const ymd = (d: Date) => d.toISOString().slice(0, 10);
const midnight = (date: string) => new Date(`${date}T00:00:00.000Z`);

/** Easter Sunday of a Gregorian year, as a UTC midnight. */
export const easterSunday = (year: number): Date => midnight(easterDate(year));

/** Whether TARGET2 is closed on this UTC day (weekends aside). */
export function isTarget2Holiday(day: Date): boolean {
  const date = ymd(day);
  return holidays('target2', day.getUTCFullYear()).some((h) => h.date === date);
}

/** Monday to Friday and not a TARGET2 closing day (UTC). */
export const isWorkingDay = (day: Date): boolean => isBankingDay('target2', ymd(day));

/** The first working day after the UTC day of `at`, as its UTC midnight. */
export const nextWorkingDay = (at: Date): Date => midnight(nextBankingDayOnOrAfter('target2', addDays(ymd(at), 1)));

/** T+1: the close (last millisecond, UTC) of the working day after the trade's day. */
export function reportingDeadline(tradeExecutedAt: Date): Date {
  return new Date(nextWorkingDay(tradeExecutedAt).getTime() + DAY_MS - 1);
}
