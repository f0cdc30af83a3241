/**
 * Banking calendars and cut-offs of the payment rails. Pure functions of `now` (no clock reads),
 * so the API, activities and unit tests all agree, and workflows get the same answer on replay.
 * Holidays are computed per year (never a table for one year).
 */

export type CalendarId = 'us_fed' | 'target2' | 'uk' | 'weekdays' | 'always';
export type RailName = 'ach_standard' | 'ach_same_day' | 'fedwire' | 'rtp' | 'fednow' | 'sepa_ct' | 'sepa_instant' | 'swift';

export interface Holiday {
  date: string; // YYYY-MM-DD
  name: string;
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');
export const ymd = (y: number, m: number, d: number) => `${y}-${pad(m)}-${pad(d)}`;

/** Day of week (0 Sunday) of a civil date. */
export function weekday(date: string): number {
  const [y, m, d] = date.split('-').map((x) => parseInt(x, 10));
  return new Date(Date.UTC(y, m - 1, d)).getUTCDay();
}

/** Adds calendar days to a civil date. */
export function addDays(date: string, n: number): string {
  const [y, m, d] = date.split('-').map((x) => parseInt(x, 10));
  const t = new Date(Date.UTC(y, m - 1, d + n));
  return ymd(t.getUTCFullYear(), t.getUTCMonth() + 1, t.getUTCDate());
}

/** n-th (1-based) weekday `wd` of a month; n = -1 is the last one. */
function nthWeekday(year: number, month: number, wd: number, n: number): string {
  if (n > 0) {
    const first = weekday(ymd(year, month, 1));
    return ymd(year, month, 1 + ((wd - first + 7) % 7) + (n - 1) * 7);
  }
  const lastDay = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const last = weekday(ymd(year, month, lastDay));
  return ymd(year, month, lastDay - ((last - wd + 7) % 7));
}

/**
 * Federal Reserve holidays. The Fed observes a Sunday holiday on the Monday after; a Saturday
 * holiday is NOT moved (Reserve Banks are open the Friday before), per the Fed's holiday schedule.
 */
export function usFederalReserveHolidays(year: number): Holiday[] {
  const fixed = (m: number, d: number, name: string): Holiday => {
    const date = ymd(year, m, d);
    return { date: weekday(date) === 0 ? addDays(date, 1) : date, name };
  };
  return [
    fixed(1, 1, "New Year's Day"),
    { date: nthWeekday(year, 1, 1, 3), name: 'Birthday of Martin Luther King, Jr.' },
    { date: nthWeekday(year, 2, 1, 3), name: "Washington's Birthday" },
    { date: nthWeekday(year, 5, 1, -1), name: 'Memorial Day' },
    fixed(6, 19, 'Juneteenth National Independence Day'),
    fixed(7, 4, 'Independence Day'),
    { date: nthWeekday(year, 9, 1, 1), name: 'Labor Day' },
    { date: nthWeekday(year, 10, 1, 2), name: 'Columbus Day' },
    fixed(11, 11, 'Veterans Day'),
    { date: nthWeekday(year, 11, 4, 4), name: 'Thanksgiving Day' },
    fixed(12, 25, 'Christmas Day'),
  ].filter((h) => weekday(h.date) !== 6);
}

/** Easter Sunday (Gregorian, anonymous algorithm). */
export function easterSunday(year: number): string {
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
  return ymd(year, month, day);
}

/** TARGET2 (T2) closing days besides weekends: New Year, Good Friday, Easter Monday, 1 May, 25 and 26 December. */
export function target2ClosingDays(year: number): Holiday[] {
  const easter = easterSunday(year);
  return [
    { date: ymd(year, 1, 1), name: "New Year's Day" },
    { date: addDays(easter, -2), name: 'Good Friday' },
    { date: addDays(easter, 1), name: 'Easter Monday' },
    { date: ymd(year, 5, 1), name: 'Labour Day' },
    { date: ymd(year, 12, 25), name: 'Christmas Day' },
    { date: ymd(year, 12, 26), name: 'Christmas Holiday' },
  ];
}

/**
 * UK (England and Wales) bank holidays, the days CHAPS and the London market are closed, by the
 * Banking and Financial Dealings Act rules: a fixed holiday on a weekend moves to the next free
 * weekday (Christmas on a Saturday: 27th; Boxing Day then the 28th). One-off changes by royal
 * proclamation (e.g. 2020's VE Day move, 2022's Jubilee and state funeral, 2023's Coronation)
 * cannot be computed and are not included.
 */
export function ukBankHolidays(year: number): Holiday[] {
  const easter = easterSunday(year);
  const nextWeekday = (date: string, taken: Set<string>) => {
    let d = date;
    while (weekday(d) === 0 || weekday(d) === 6 || taken.has(d)) d = addDays(d, 1);
    return d;
  };
  const newYear = nextWeekday(ymd(year, 1, 1), new Set());
  // A day that falls on a weekday keeps it; the others take the next free weekdays, Christmas first.
  const isWeekday = (d: string) => weekday(d) !== 0 && weekday(d) !== 6;
  const [xmas, box] = [ymd(year, 12, 25), ymd(year, 12, 26)];
  const taken = new Set([xmas, box].filter(isWeekday));
  const christmas = isWeekday(xmas) ? xmas : nextWeekday(xmas, taken);
  taken.add(christmas);
  const boxing = isWeekday(box) ? box : nextWeekday(box, taken);
  const sub = (d: string, fixed: string, name: string) => ({ date: d, name: d === fixed ? name : `${name} (substitute day)` });
  return [
    sub(newYear, ymd(year, 1, 1), "New Year's Day"),
    { date: addDays(easter, -2), name: 'Good Friday' },
    { date: addDays(easter, 1), name: 'Easter Monday' },
    { date: nthWeekday(year, 5, 1, 1), name: 'Early May bank holiday' },
    { date: nthWeekday(year, 5, 1, -1), name: 'Spring bank holiday' },
    { date: nthWeekday(year, 8, 1, -1), name: 'Summer bank holiday' },
    sub(christmas, ymd(year, 12, 25), 'Christmas Day'),
    sub(boxing, ymd(year, 12, 26), 'Boxing Day'),
  ].sort((a, b) => a.date.localeCompare(b.date));
}

export function holidays(calendar: CalendarId, year: number): Holiday[] {
  if (calendar === 'us_fed') return usFederalReserveHolidays(year);
  if (calendar === 'target2') return target2ClosingDays(year);
  if (calendar === 'uk') return ukBankHolidays(year);
  return [];
}

/** How the calendar's business days read in the API. */
export function calendarDescription(calendar: CalendarId): string {
  switch (calendar) {
    case 'always':
      return '24x7x365';
    case 'weekdays':
      return 'Monday-Friday';
    case 'us_fed':
      return 'Monday-Friday except Federal Reserve holidays';
    case 'target2':
      return 'Monday-Friday except TARGET2 closing days';
    case 'uk':
      return 'Monday-Friday except UK (England and Wales) bank holidays';
  }
}

const holidayCache = new Map<string, Set<string>>();
function holidaySet(calendar: CalendarId, year: number): Set<string> {
  const key = `${calendar}:${year}`;
  let s = holidayCache.get(key);
  if (!s) {
    s = new Set(holidays(calendar, year).map((h) => h.date));
    holidayCache.set(key, s);
  }
  return s;
}

export function isBankingDay(calendar: CalendarId, date: string): boolean {
  if (calendar === 'always') return true;
  const wd = weekday(date);
  if (wd === 0 || wd === 6) return false;
  return !holidaySet(calendar, parseInt(date.slice(0, 4), 10)).has(date);
}

/** The first banking day on or after `date`. */
export function nextBankingDayOnOrAfter(calendar: CalendarId, date: string): string {
  let d = date;
  while (!isBankingDay(calendar, d)) d = addDays(d, 1);
  return d;
}

/** `n` banking days after `date` (n >= 1). */
export function addBankingDays(calendar: CalendarId, date: string, n: number): string {
  let d = date;
  for (let i = 0; i < n; i++) d = nextBankingDayOnOrAfter(calendar, addDays(d, 1));
  return d;
}

// ---------------------------------------------------------------------------------------------
// Time zones (Intl only; no tz database of our own)
// ---------------------------------------------------------------------------------------------

const fmtCache = new Map<string, Intl.DateTimeFormat>();
function fmt(tz: string): Intl.DateTimeFormat {
  let f = fmtCache.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    fmtCache.set(tz, f);
  }
  return f;
}

/** Civil date (YYYY-MM-DD) and minutes after midnight of an instant in a time zone. */
export function zoned(now: Date, tz: string): { date: string; minutes: number; offsetMinutes: number } {
  const parts = Object.fromEntries(fmt(tz).formatToParts(now).map((p) => [p.type, p.value]));
  const date = `${parts.year}-${parts.month}-${parts.day}`;
  const minutes = parseInt(parts.hour, 10) * 60 + parseInt(parts.minute, 10);
  const asUtc = Date.UTC(+parts.year, +parts.month - 1, +parts.day, +parts.hour, +parts.minute, +parts.second);
  return { date, minutes, offsetMinutes: Math.round((asUtc - Math.floor(now.getTime() / 1000) * 1000) / 60000) };
}

/** The instant of a civil date and "HH:MM" in a time zone (DST-correct). */
export function instantAt(tz: string, date: string, hhmm: string): Date {
  const [y, m, d] = date.split('-').map((x) => parseInt(x, 10));
  const [hh, mm] = hhmm.split(':').map((x) => parseInt(x, 10));
  const guess = Date.UTC(y, m - 1, d, hh, mm);
  // Two passes settle the offset across a DST change.
  let t = guess - zoned(new Date(guess), tz).offsetMinutes * 60000;
  t = guess - zoned(new Date(t), tz).offsetMinutes * 60000;
  return new Date(t);
}

const toMinutes = (hhmm: string) => parseInt(hhmm.slice(0, 2), 10) * 60 + parseInt(hhmm.slice(3, 5), 10);

// ---------------------------------------------------------------------------------------------
// Rails
// ---------------------------------------------------------------------------------------------

export interface SettlementWindow {
  /** Submission deadline, local time of the rail. */
  cutoff: string;
  /** When money submitted in this window settles (local time). */
  settles: string;
  /** Banking days after the submission day that the window settles (standard ACH: 1). */
  settlementDayOffset: number;
}

export interface RailDefinition {
  name: RailName;
  display_name: string;
  network: string;
  currencies: string[];
  min_amount: string;
  max_amount: string;
  settlement_speed: 'instant' | 'same_day' | 'next_day' | 'real_time_gross';
  settlement_description: string;
  time_zone: string;
  calendar: CalendarId;
  message_format: 'nacha' | 'pacs.008';
  /** Reachable through: routing number (US) or IBAN (SEPA) or both (SWIFT by BIC). */
  addressing: Array<'routing_number' | 'iban' | 'bic'>;
  /** Sandbox price per payment in the rail's first currency (used by auto routing). */
  cost: string;
  /** Opening time (local) on banking days; omitted = open all day. */
  opens?: string;
  /** Opening on the previous evening (Fedwire opens 21:00 ET the evening before the value date). */
  opens_previous_evening?: boolean;
  windows?: SettlementWindow[];
  /** Instant rails settle within this many seconds, 24x7x365. */
  instant_seconds?: number;
  return_window_banking_days?: number;
  /**
   * Multi-currency rails (SWIFT): the calendar of each currency's home market, which decides the
   * value (settlement) date; `calendar` is then the platform desk's, which decides submission days.
   */
  settlement_calendars?: Record<string, CalendarId>;
}

export const RAILS: Readonly<Record<RailName, RailDefinition>> = {
  ach_standard: {
    name: 'ach_standard',
    display_name: 'ACH (next day)',
    network: 'FedACH',
    currencies: ['USD'],
    min_amount: '0.01',
    // NACHA's amount field is 10 digits of cents.
    max_amount: '99999999.99',
    settlement_speed: 'next_day',
    settlement_description: 'Sent in the 17:00 ET file; settles 08:30 ET on the effective date (next banking day). Returns up to 2 banking days after settlement.',
    time_zone: 'America/New_York',
    calendar: 'us_fed',
    message_format: 'nacha',
    addressing: ['routing_number'],
    cost: '0.01',
    windows: [{ cutoff: '17:00', settles: '08:30', settlementDayOffset: 1 }],
    return_window_banking_days: 2,
  },
  ach_same_day: {
    name: 'ach_same_day',
    display_name: 'Same Day ACH',
    network: 'FedACH',
    currencies: ['USD'],
    min_amount: '0.01',
    max_amount: '1000000.00',
    settlement_speed: 'same_day',
    settlement_description: 'FedACH same-day windows: submit by 10:30, 14:45 or 16:45 ET; settles 13:00, 17:00 or 18:00 ET. Returns up to 2 banking days after settlement.',
    time_zone: 'America/New_York',
    calendar: 'us_fed',
    message_format: 'nacha',
    addressing: ['routing_number'],
    cost: '0.06',
    windows: [
      { cutoff: '10:30', settles: '13:00', settlementDayOffset: 0 },
      { cutoff: '14:45', settles: '17:00', settlementDayOffset: 0 },
      { cutoff: '16:45', settles: '18:00', settlementDayOffset: 0 },
    ],
    return_window_banking_days: 2,
  },
  fedwire: {
    name: 'fedwire',
    display_name: 'Fedwire Funds',
    network: 'Fedwire Funds Service (ISO 20022)',
    currencies: ['USD'],
    min_amount: '0.01',
    max_amount: '9999999999.99',
    settlement_speed: 'real_time_gross',
    settlement_description: 'Real-time gross settlement; opens 21:00 ET the evening before the value date, customer transfers until 18:00 ET.',
    time_zone: 'America/New_York',
    calendar: 'us_fed',
    message_format: 'pacs.008',
    addressing: ['routing_number'],
    cost: '25.00',
    opens: '21:00',
    opens_previous_evening: true,
    windows: [{ cutoff: '18:00', settles: '18:00', settlementDayOffset: 0 }],
  },
  rtp: {
    name: 'rtp',
    display_name: 'RTP (The Clearing House)',
    network: 'RTP',
    currencies: ['USD'],
    min_amount: '0.01',
    max_amount: '10000000.00',
    settlement_speed: 'instant',
    settlement_description: 'Instant, 24x7x365; final within seconds.',
    time_zone: 'America/New_York',
    calendar: 'always',
    message_format: 'pacs.008',
    addressing: ['routing_number'],
    cost: '0.045',
    instant_seconds: 15,
  },
  fednow: {
    name: 'fednow',
    display_name: 'FedNow',
    network: 'FedNow Service',
    currencies: ['USD'],
    min_amount: '0.01',
    max_amount: '1000000.00',
    settlement_speed: 'instant',
    settlement_description: 'Instant, 24x7x365; final within seconds.',
    time_zone: 'America/New_York',
    calendar: 'always',
    message_format: 'pacs.008',
    addressing: ['routing_number'],
    cost: '0.045',
    instant_seconds: 20,
  },
  sepa_ct: {
    name: 'sepa_ct',
    display_name: 'SEPA Credit Transfer',
    network: 'SEPA SCT (STEP2)',
    currencies: ['EUR'],
    min_amount: '0.01',
    max_amount: '999999999.99',
    settlement_speed: 'same_day',
    settlement_description: 'Submitted by 15:00 CET on a TARGET2 day settles 16:00 CET that day; later the next TARGET2 day.',
    time_zone: 'Europe/Berlin',
    calendar: 'target2',
    message_format: 'pacs.008',
    addressing: ['iban'],
    cost: '0.20',
    windows: [{ cutoff: '15:00', settles: '16:00', settlementDayOffset: 0 }],
  },
  sepa_instant: {
    name: 'sepa_instant',
    display_name: 'SEPA Instant Credit Transfer',
    network: 'SCT Inst (TIPS/RT1)',
    currencies: ['EUR'],
    min_amount: '0.01',
    max_amount: '999999999.99',
    settlement_speed: 'instant',
    settlement_description: 'Instant, 24x7x365; final within 10 seconds.',
    time_zone: 'Europe/Berlin',
    calendar: 'always',
    message_format: 'pacs.008',
    addressing: ['iban'],
    cost: '0.20',
    instant_seconds: 10,
  },
  swift: {
    name: 'swift',
    display_name: 'SWIFT (CBPR+)',
    network: 'SWIFT gpi, CBPR+ pacs.008',
    currencies: ['USD', 'EUR', 'GBP', 'CHF', 'JPY'],
    min_amount: '0.01',
    max_amount: '9999999999.99',
    settlement_speed: 'next_day',
    settlement_description:
      "Submitted by 16:00 London time on a UK business day; value date the next business day of the currency's market (USD Fed, EUR TARGET2, GBP UK bank holidays; CHF and JPY weekdays only).",
    time_zone: 'Europe/London',
    calendar: 'uk',
    // CHF (SIX SIC) and JPY (BOJ-NET) closing days are not modelled: weekdays only.
    settlement_calendars: { USD: 'us_fed', EUR: 'target2', GBP: 'uk', CHF: 'weekdays', JPY: 'weekdays' },
    message_format: 'pacs.008',
    addressing: ['iban', 'bic'],
    cost: '15.00',
    windows: [{ cutoff: '16:00', settles: '10:00', settlementDayOffset: 1 }],
  },
};

export const RAIL_NAMES = Object.keys(RAILS) as RailName[];

export interface ExecutionPlan {
  rail: RailName;
  /** When the payment can be handed to the rail (now, or when it next opens). */
  submitAt: Date;
  /** When it is expected to settle. */
  settleAt: Date;
  /** Settlement / effective date in the rail's calendar (YYYY-MM-DD). */
  settlementDate: string;
  /** The cut-off the payment makes (absent for instant rails). */
  cutoff: Date | null;
}

/**
 * When a payment handed over at `now` will be submitted and settle on `rail`: the first window
 * whose cut-off is still ahead on a banking day (Fedwire also needs the day to have opened).
 */
export function planExecution(railName: RailName, now: Date, currency?: string): ExecutionPlan {
  const rail = RAILS[railName];
  const settlementCalendar = (currency && rail.settlement_calendars?.[currency]) || rail.calendar;
  if (rail.instant_seconds !== undefined) {
    return { rail: railName, submitAt: now, settleAt: new Date(now.getTime() + rail.instant_seconds * 1000), settlementDate: zoned(now, rail.time_zone).date, cutoff: null };
  }
  const local = zoned(now, rail.time_zone);
  let day = local.date;
  for (let guard = 0; guard < 30; guard++, day = addDays(day, 1)) {
    if (!isBankingDay(rail.calendar, day)) continue;
    for (const w of rail.windows!) {
      const cutoff = instantAt(rail.time_zone, day, w.cutoff);
      if (cutoff.getTime() <= now.getTime()) continue;
      let submitAt = now;
      if (rail.opens) {
        const openDay = rail.opens_previous_evening ? addDays(day, -1) : day;
        const opens = instantAt(rail.time_zone, openDay, rail.opens);
        if (opens.getTime() > now.getTime()) submitAt = opens;
      }
      const settlementDate = w.settlementDayOffset === 0 ? day : addBankingDays(settlementCalendar, day, w.settlementDayOffset);
      return { rail: railName, submitAt, settleAt: instantAt(rail.time_zone, settlementDate, w.settles), settlementDate, cutoff };
    }
  }
  throw new Error(`no window found for ${railName}`);
}

/** Whether the rail accepts a payment right now and, if not, when it next does. */
export function railAvailability(railName: RailName, now: Date, currency?: string) {
  const rail = RAILS[railName];
  const plan = planExecution(railName, now, currency);
  const local = zoned(now, rail.time_zone);
  let available = plan.submitAt.getTime() === now.getTime();
  // A cut-off later today on a banking day means open now; a plan for another day means closed.
  if (rail.instant_seconds === undefined && plan.cutoff) {
    const cutoffDay = zoned(plan.cutoff, rail.time_zone).date;
    available = available && cutoffDay === local.date;
  }
  return {
    available_now: available,
    next_cutoff: plan.cutoff ? plan.cutoff.toISOString() : null,
    next_submission_at: plan.submitAt.toISOString(),
    expected_settlement_at: plan.settleAt.toISOString(),
    settlement_date: plan.settlementDate,
    is_banking_day_today: isBankingDay(rail.calendar, local.date),
    local_time: `${local.date}T${pad(Math.floor(local.minutes / 60))}:${pad(local.minutes % 60)}`,
  };
}

/** Minutes before a window's cut-off at which the platform transmits its file. */
export function minutesOf(hhmm: string): number {
  return toMinutes(hhmm);
}
