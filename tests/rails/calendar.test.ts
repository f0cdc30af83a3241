import { describe, expect, it } from 'vitest';
import {
  addBankingDays,
  easterSunday,
  instantAt,
  isBankingDay,
  planExecution,
  railAvailability,
  target2ClosingDays,
  ukBankHolidays,
  usFederalReserveHolidays,
} from '../../domain/rails/calendar';
import { chooseRail, ibanValid, reachableRails } from '../../domain/rails/routing';

const et = (date: string, hhmm: string) => instantAt('America/New_York', date, hhmm);
const cet = (date: string, hhmm: string) => instantAt('Europe/Berlin', date, hhmm);
const london = (date: string, hhmm: string) => instantAt('Europe/London', date, hhmm);

describe('banking calendars', () => {
  it('computes Federal Reserve holidays per year with the Sunday->Monday rule and no Saturday shift', () => {
    const h2026 = usFederalReserveHolidays(2026).map((h) => h.date);
    expect(h2026).toEqual(['2026-01-01', '2026-01-19', '2026-02-16', '2026-05-25', '2026-06-19', '2026-09-07', '2026-10-12', '2026-11-11', '2026-11-26', '2026-12-25']);
    // 2026-07-04 is a Saturday: the Fed does not observe it on Friday.
    expect(isBankingDay('us_fed', '2026-07-03')).toBe(true);
    const h2027 = usFederalReserveHolidays(2027).map((h) => h.date);
    // 2027: Juneteenth and Christmas fall on Saturday (not observed); July 4 on Sunday -> Monday 5th.
    expect(h2027).toContain('2027-07-05');
    expect(h2027).not.toContain('2027-06-18');
    expect(h2027).not.toContain('2027-12-24');
    expect(h2027).toContain('2027-11-25');
    expect(isBankingDay('us_fed', '2026-11-26')).toBe(false);
    expect(isBankingDay('us_fed', '2026-11-27')).toBe(true);
  });

  it('computes TARGET2 closing days from Easter', () => {
    expect(easterSunday(2026)).toBe('2026-04-05');
    expect(easterSunday(2027)).toBe('2027-03-28');
    expect(target2ClosingDays(2026).map((h) => h.date)).toEqual(['2026-01-01', '2026-04-03', '2026-04-06', '2026-05-01', '2026-12-25', '2026-12-26']);
    expect(isBankingDay('target2', '2026-04-06')).toBe(false);
    expect(addBankingDays('target2', '2026-04-02', 1)).toBe('2026-04-07');
  });

  it('computes UK bank holidays with substitute days (gov.uk dates)', () => {
    expect(ukBankHolidays(2026).map((h) => h.date)).toEqual(['2026-01-01', '2026-04-03', '2026-04-06', '2026-05-04', '2026-05-25', '2026-08-31', '2026-12-25', '2026-12-28']);
    // Christmas on a Saturday: Christmas moves to Monday 27th, Boxing Day to Tuesday 28th.
    expect(ukBankHolidays(2027).map((h) => h.date)).toEqual(['2027-01-01', '2027-03-26', '2027-03-29', '2027-05-03', '2027-05-31', '2027-08-30', '2027-12-27', '2027-12-28']);
    // Christmas on a Sunday: Boxing Day stays on Monday 26th, Christmas is observed on Tuesday 27th; New Year's Day on a Saturday: Monday 3rd.
    const h2022 = ukBankHolidays(2022);
    expect(h2022.filter((h) => h.date.startsWith('2022-12'))).toEqual([
      { date: '2022-12-26', name: 'Boxing Day' },
      { date: '2022-12-27', name: 'Christmas Day (substitute day)' },
    ]);
    expect(h2022[0]).toEqual({ date: '2022-01-03', name: "New Year's Day (substitute day)" });
    expect(isBankingDay('uk', '2026-08-31')).toBe(false);
  });

  it('SWIFT: submission on London business days, value date on the currency market\'s next business day', () => {
    // Thursday before Easter 2027: EUR skips Good Friday and Easter Monday (TARGET2), USD settles on Good Friday (the Fed is open), GBP skips both (UK).
    const thu = london('2027-03-25', '12:00');
    expect(planExecution('swift', thu, 'EUR').settlementDate).toBe('2027-03-30');
    expect(planExecution('swift', thu, 'USD').settlementDate).toBe('2027-03-26');
    expect(planExecution('swift', thu, 'GBP').settlementDate).toBe('2027-03-30');
    expect(planExecution('swift', thu, 'JPY').settlementDate).toBe('2027-03-26');
    // US Thanksgiving 2026 (Thursday 26th) is a London business day: submitted Wednesday, USD value Friday, EUR value Thursday.
    expect(planExecution('swift', london('2026-11-25', '12:00'), 'USD').settlementDate).toBe('2026-11-27');
    expect(planExecution('swift', london('2026-11-25', '12:00'), 'EUR').settlementDate).toBe('2026-11-26');
    // On the UK Summer bank holiday the desk's cut-off is Tuesday's; USD value Wednesday.
    const holiday = planExecution('swift', london('2026-08-31', '12:00'), 'USD');
    expect(holiday.cutoff!.toISOString()).toBe(london('2026-09-01', '16:00').toISOString());
    expect(holiday.settlementDate).toBe('2026-09-02');
    expect(railAvailability('swift', london('2026-08-31', '12:00'), 'USD').available_now).toBe(false);
  });

  it('converts local cut-offs across daylight saving changes', () => {
    expect(et('2026-03-06', '10:30').toISOString()).toBe('2026-03-06T15:30:00.000Z'); // EST
    expect(et('2026-03-09', '10:30').toISOString()).toBe('2026-03-09T14:30:00.000Z'); // EDT
    expect(cet('2026-07-01', '15:00').toISOString()).toBe('2026-07-01T13:00:00.000Z'); // CEST
  });
});

describe('cut-offs and settlement plans', () => {
  it('same-day ACH uses the FedACH windows and rolls past the last one to the next banking day', () => {
    const morning = planExecution('ach_same_day', et('2026-11-24', '10:00'));
    expect(morning.cutoff!.toISOString()).toBe(et('2026-11-24', '10:30').toISOString());
    expect(morning.settleAt.toISOString()).toBe(et('2026-11-24', '13:00').toISOString());
    const afternoon = planExecution('ach_same_day', et('2026-11-24', '15:00'));
    expect(afternoon.settleAt.toISOString()).toBe(et('2026-11-24', '18:00').toISOString());
    // After 16:45 on the day before Thanksgiving: the next window is Friday 10:30.
    const late = planExecution('ach_same_day', et('2026-11-25', '16:50'));
    expect(late.cutoff!.toISOString()).toBe(et('2026-11-27', '10:30').toISOString());
  });

  it('standard ACH settles on the next banking day, skipping weekends and holidays', () => {
    const p = planExecution('ach_standard', et('2026-11-25', '18:00'));
    expect(p.cutoff!.toISOString()).toBe(et('2026-11-27', '17:00').toISOString());
    expect(p.settlementDate).toBe('2026-11-30');
    expect(p.settleAt.toISOString()).toBe(et('2026-11-30', '08:30').toISOString());
  });

  it('Fedwire waits for the 21:00 ET opening of the next value date; SEPA CT skips TARGET2 holidays', () => {
    const sunday = planExecution('fedwire', et('2026-11-22', '12:00'));
    expect(sunday.submitAt.toISOString()).toBe(et('2026-11-22', '21:00').toISOString());
    expect(sunday.settlementDate).toBe('2026-11-23');
    expect(railAvailability('fedwire', et('2026-11-23', '12:00')).available_now).toBe(true);
    expect(railAvailability('fedwire', et('2026-11-23', '18:30')).available_now).toBe(false);
    const goodFriday = planExecution('sepa_ct', cet('2026-04-03', '09:00'));
    expect(goodFriday.settlementDate).toBe('2026-04-07');
    expect(railAvailability('sepa_ct', cet('2026-04-03', '09:00')).available_now).toBe(false);
  });

  it('instant rails are open 24x7, holidays included', () => {
    for (const rail of ['rtp', 'fednow', 'sepa_instant'] as const) {
      expect(railAvailability(rail, et('2026-12-25', '03:00')).available_now).toBe(true);
    }
  });
});

describe('auto routing', () => {
  const now = et('2026-11-24', '09:00');
  const us = { name: 'Bob', account_number: '123456789', routing_number: '021000021' };

  it('picks by urgency, limits and reachability, and explains', () => {
    expect(chooseRail({ amount: '100.00', currency: 'USD', creditor: us, urgency: 'standard', now }).rail).toBe('ach_standard');
    const instant = chooseRail({ amount: '100.00', currency: 'USD', creditor: us, urgency: 'instant', now });
    expect(instant.rail).toBe('rtp');
    expect(instant.reason).toMatch(/instant/);
    expect(instant.alternatives.map((a) => a.rail)).toEqual(expect.arrayContaining(['fednow', 'fedwire', 'ach_standard']));
    // FedNow-only bank for instant; above every instant limit goes to Fedwire.
    expect(chooseRail({ amount: '100.00', currency: 'USD', creditor: { ...us, routing_number: '011000015' }, urgency: 'instant', now }).rail).toBe('fednow');
    expect(chooseRail({ amount: '20000000.00', currency: 'USD', creditor: us, urgency: 'instant', now }).rail).toBe('fedwire');
    expect(chooseRail({ amount: '5000.00', currency: 'USD', creditor: { ...us, routing_number: '091000019' }, urgency: 'same_day', now }).rail).toBe('ach_same_day');
  });

  it('routes IBANs to SEPA (instant when the bank participates) and non-SEPA or non-EUR to SWIFT', () => {
    expect(ibanValid('DE89370400440532013000')).toBe(true);
    expect(ibanValid('DE89370400440532013001')).toBe(false);
    const de = { name: 'Eva', iban: 'DE89370400440532013000' };
    expect(chooseRail({ amount: '50.00', currency: 'EUR', creditor: de, urgency: 'standard', now }).rail).toBe('sepa_instant');
    expect(chooseRail({ amount: '50.00', currency: 'EUR', creditor: { ...de, bic: 'NOINDEFFXXX' }, urgency: 'standard', now }).rail).toBe('sepa_ct');
    expect(chooseRail({ amount: '50.00', currency: 'USD', creditor: de, urgency: 'standard', now }).rail).toBe('swift');
    expect(reachableRails({ name: 'x', iban: 'BR1800360305000010009795493C1' }).rails).toEqual(['swift']);
    expect(() => chooseRail({ amount: '50.00', currency: 'GBP', creditor: us, urgency: 'standard', now })).toThrow(/No rail/);
  });
});
