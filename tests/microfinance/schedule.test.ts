import { describe, expect, it } from 'vitest';
import { allocateRepayment, buildSchedule, dueDate, daysBetween } from '../../domain/microfinance/schedule';

const rows = (s: ReturnType<typeof buildSchedule>) => s.map((r) => [r.dueDate, r.principal, r.interest, r.total, r.balance]);

describe('declining balance, equal instalments', () => {
  it('1,000 USD at 12 %/year over 12 monthly instalments: 88.85 a month, the last 88.84', () => {
    // i = 0.01; A = 1000·0.01 / (1 − 1.01^−12) = 88.8488 → 88.85. Interest = balance × 0.01 rounded.
    const s = buildSchedule({ principal: '1000.00', annualInterestRate: '0.12', interestMethod: 'declining_balance', termInstalments: 12, repaymentFrequency: 'monthly', disbursementDate: '2026-01-31', precision: 2 });
    expect(rows(s)).toEqual([
      ['2026-02-28', '78.85', '10.00', '88.85', '921.15'],
      ['2026-03-31', '79.64', '9.21', '88.85', '841.51'],
      ['2026-04-30', '80.43', '8.42', '88.85', '761.08'],
      ['2026-05-31', '81.24', '7.61', '88.85', '679.84'],
      ['2026-06-30', '82.05', '6.80', '88.85', '597.79'],
      ['2026-07-31', '82.87', '5.98', '88.85', '514.92'],
      ['2026-08-31', '83.70', '5.15', '88.85', '431.22'],
      ['2026-09-30', '84.54', '4.31', '88.85', '346.68'],
      ['2026-10-31', '85.38', '3.47', '88.85', '261.30'],
      ['2026-11-30', '86.24', '2.61', '88.85', '175.06'],
      ['2026-12-31', '87.10', '1.75', '88.85', '87.96'],
      ['2027-01-31', '87.96', '0.88', '88.84', '0.00'],
    ]);
  });

  it('JPY (0 decimals): 100,000 at 18 % over 6 months: 17,553, the last 17,550', () => {
    // i = 0.015; A = 1500 / (1 − 1.015^−6) = 17552.52 → 17553.
    const s = buildSchedule({ principal: '100000', annualInterestRate: '0.18', interestMethod: 'declining_balance', termInstalments: 6, repaymentFrequency: 'monthly', disbursementDate: '2026-03-15', precision: 0 });
    expect(rows(s)).toEqual([
      ['2026-04-15', '16053', '1500', '17553', '83947'],
      ['2026-05-15', '16294', '1259', '17553', '67653'],
      ['2026-06-15', '16538', '1015', '17553', '51115'],
      ['2026-07-15', '16786', '767', '17553', '34329'],
      ['2026-08-15', '17038', '515', '17553', '17291'],
      ['2026-09-15', '17291', '259', '17550', '0'],
    ]);
  });

  it('grace instalments are interest-only; zero rate spreads principal evenly', () => {
    const g = buildSchedule({ principal: '300.00', annualInterestRate: '0.12', interestMethod: 'declining_balance', termInstalments: 3, graceInstalments: 1, repaymentFrequency: 'monthly', disbursementDate: '2026-01-01', precision: 2 });
    // Grace: 300 × 0.01 = 3.00 interest only. Then A over 2: 300·0.01/(1−1.01^−2) = 3/0.019704 = 152.2537 → 152.25.
    expect(rows(g)).toEqual([
      ['2026-02-01', '0.00', '3.00', '3.00', '300.00'],
      ['2026-03-01', '149.25', '3.00', '152.25', '150.75'],
      ['2026-04-01', '150.75', '1.51', '152.26', '0.00'],
    ]);
    const z = buildSchedule({ principal: '100.00', annualInterestRate: '0', interestMethod: 'declining_balance', termInstalments: 3, repaymentFrequency: 'weekly', disbursementDate: '2026-01-01', precision: 2 });
    expect(rows(z)).toEqual([
      ['2026-01-08', '33.33', '0.00', '33.33', '66.67'],
      ['2026-01-15', '33.33', '0.00', '33.33', '33.34'],
      ['2026-01-22', '33.34', '0.00', '33.34', '0.00'],
    ]);
  });
});

describe('flat interest', () => {
  it('1,000 at 12 % over 12 months: interest 120 (10.00 a month), principal 83.33, the last 83.37', () => {
    const s = buildSchedule({ principal: '1000.00', annualInterestRate: '0.12', interestMethod: 'flat', termInstalments: 12, repaymentFrequency: 'monthly', disbursementDate: '2026-01-10', precision: 2 });
    expect(s.slice(0, 11).every((r) => r.principal === '83.33' && r.interest === '10.00' && r.total === '93.33')).toBe(true);
    expect(s[11]).toMatchObject({ dueDate: '2027-01-10', principal: '83.37', interest: '10.00', total: '93.37', balance: '0.00' });
    expect(s.map((r) => r.balance).slice(0, 3)).toEqual(['916.67', '833.34', '750.01']);
  });

  it('biweekly JPY: 10,000 at 26 % over 4: interest 10000·0.26·4/26 = 400, 100 each; principal 2,500', () => {
    const s = buildSchedule({ principal: '10000', annualInterestRate: '0.26', interestMethod: 'flat', termInstalments: 4, repaymentFrequency: 'biweekly', disbursementDate: '2026-12-25', precision: 0 });
    expect(rows(s)).toEqual([
      ['2027-01-08', '2500', '100', '2600', '7500'],
      ['2027-01-22', '2500', '100', '2600', '5000'],
      ['2027-02-05', '2500', '100', '2600', '2500'],
      ['2027-02-19', '2500', '100', '2600', '0'],
    ]);
  });

  it('weekly 100 at 10 % over 3: interest 100·0.1·3/52 = 0.5769 → 0.58; 0.19, 0.19, last 0.20', () => {
    const s = buildSchedule({ principal: '100.00', annualInterestRate: '0.10', interestMethod: 'flat', termInstalments: 3, repaymentFrequency: 'weekly', disbursementDate: '2026-01-01', precision: 2 });
    expect(s.map((r) => [r.principal, r.interest])).toEqual([['33.33', '0.19'], ['33.33', '0.19'], ['33.34', '0.20']]);
  });
});

describe('due dates', () => {
  it('monthly clamps to the month end without drifting; leap years', () => {
    expect([1, 2, 3].map((k) => dueDate('2027-12-31', 'monthly', k))).toEqual(['2028-01-31', '2028-02-29', '2028-03-31']);
    expect(dueDate('2026-11-30', 'monthly', 3)).toBe('2027-02-28');
    expect(daysBetween('2026-02-28', '2026-03-02')).toBe(2);
  });
});

describe('repayment allocation (fees, interest, principal; oldest instalment first)', () => {
  const owed = [
    { number: 2, fee: '0', interest: '9.21', principal: '79.64' },
    { number: 1, fee: '1.00', interest: '10.00', principal: '78.85' },
  ];
  it('pays instalment 1 in full (fee, interest, principal) before instalment 2, and 2’s interest before its principal', () => {
    const a = allocateRepayment('100.00', owed, 2);
    expect(a.lines).toEqual([
      { number: 1, fee: '1.00', interest: '10.00', principal: '78.85' },
      { number: 2, fee: '0.00', interest: '9.21', principal: '0.94' },
    ]);
    expect(a).toMatchObject({ fee: '1.00', interest: '19.21', principal: '79.79', unallocated: '0.00' });
  });
  it('a partial payment covers the fee then part of the interest; an overpayment leaves the rest unallocated', () => {
    expect(allocateRepayment('5.00', owed, 2)).toMatchObject({ lines: [{ number: 1, fee: '1.00', interest: '4.00', principal: '0.00' }], unallocated: '0.00' });
    expect(allocateRepayment('200.00', owed, 2).unallocated).toBe('21.30');
  });
});
