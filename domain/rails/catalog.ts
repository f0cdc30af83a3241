import { calendarDescription, holidays, RAIL_NAMES, RAILS, railAvailability, zoned, type Holiday, type RailDefinition } from './calendar';

export interface RailCatalogEntry {
  rail: RailDefinition;
  /** Banking days of the rail's own calendar, in words. */
  businessDays: string;
  /** Holidays of this year and next (the year as the rail's time zone sees it now). */
  holidays: Holiday[];
  /** Multi-currency rails (SWIFT): each currency's home-market calendar, which sets the value date. */
  settlementCalendars: Array<{ currency: string; businessDays: string; holidays: Holiday[] }> | null;
  /** Whether the rail accepts a payment right now and, if not, when it next does. */
  availability: ReturnType<typeof railAvailability>;
}

/** Every rail offered: its definition, banking calendars for this and next year, and availability at `now`. */
export function railCatalog(now: Date): RailCatalogEntry[] {
  return RAIL_NAMES.map((name) => {
    const r = RAILS[name];
    const year = parseInt(zoned(now, r.time_zone).date.slice(0, 4), 10);
    const twoYears = (cal: RailDefinition['calendar']) => [...holidays(cal, year), ...holidays(cal, year + 1)];
    return {
      rail: r,
      businessDays: calendarDescription(r.calendar),
      holidays: twoYears(r.calendar),
      settlementCalendars: r.settlement_calendars
        ? Object.entries(r.settlement_calendars).map(([currency, cal]) => ({ currency, businessDays: calendarDescription(cal), holidays: twoYears(cal) }))
        : null,
      availability: railAvailability(name, now),
    };
  });
}
