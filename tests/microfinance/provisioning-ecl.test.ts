import { describe, expect, it } from 'vitest';
import { computeProvision, daysPastDue, exposureAtDefault, policyInForce, portfolioAtRisk, roundMinor, stageFor, type LoanFacts, type ProvisionPolicy } from '../../domain/microfinance/provisioning/ecl';

const policy: ProvisionPolicy = {
  version: 1,
  effectiveFrom: '2000-01-01',
  stages: { 1: { pd: '0.02', lgd: '0.45' }, 2: { pd: '0.25', lgd: '0.45' }, 3: { pd: '1', lgd: '0.65' } },
};

const facts = (over: Partial<LoanFacts> = {}): LoanFacts => ({
  loanId: 'l1',
  principalOutstanding: '750',
  oldestUnpaidDueDate: '2026-02-10',
  overdueInterest: '20',
  currentPeriod: { start: '2026-03-10', due: '2026-04-10', interestDue: '10', interestPaid: '0' },
  ...over,
});

describe('IFRS 9 ECL rules (pure)', () => {
  it('days past due and stage boundaries at 31 and 91 days', () => {
    expect(daysPastDue('2026-03-15', null)).toBe(0);
    expect(daysPastDue('2026-03-15', '2026-03-20')).toBe(0);
    expect(daysPastDue('2026-03-15', '2026-02-10')).toBe(33);
    expect([0, 30, 31, 90, 91, 400].map(stageFor)).toEqual([1, 1, 2, 2, 3, 3]);
  });

  it('EAD = outstanding principal + overdue interest + current interest pro rata, to the cent', () => {
    // 750 + 20 + 10 x 5/31 = 771.6129... -> 771.61
    expect(exposureAtDefault(facts(), '2026-03-15', 2)).toBe('771.61');
    // interest already paid on the current instalment is not exposure
    expect(exposureAtDefault(facts({ currentPeriod: { start: '2026-03-10', due: '2026-04-10', interestDue: '10', interestPaid: '10' } }), '2026-03-15', 2)).toBe('770.00');
    // JPY: 0 decimals
    expect(exposureAtDefault(facts({ principalOutstanding: '75000', overdueInterest: '2000', currentPeriod: null }), '2026-03-15', 0)).toBe('77000');
  });

  it('ECL = PD x LGD x EAD with the stage\'s rates, half-even', () => {
    const p = computeProvision(facts(), '2026-03-15', policy, 2);
    // stage 2: 0.25 x 0.45 x 771.61 = 86.806125 -> 86.81
    expect(p).toEqual({ stage: 2, daysPastDue: 33, ead: '771.61', pd: '0.25', lgd: '0.45', ecl: '86.81' });
    const s1 = computeProvision(facts({ oldestUnpaidDueDate: null, overdueInterest: '0' }), '2026-03-15', policy, 2);
    // 0.02 x 0.45 x 751.61 = 6.76449 -> 6.76
    expect(s1).toMatchObject({ stage: 1, daysPastDue: 0, ead: '751.61', ecl: '6.76' });
    const s3 = computeProvision(facts({ oldestUnpaidDueDate: '2025-12-01' }), '2026-03-15', policy, 2);
    // 1 x 0.65 x 771.61 = 501.5465 -> 501.55
    expect(s3).toMatchObject({ stage: 3, daysPastDue: 104, ecl: '501.55' });
    expect(roundMinor('0.125', 2)).toBe('0.12');
    expect(roundMinor('0.135', 2)).toBe('0.14');
    const tie: ProvisionPolicy = { ...policy, stages: { ...policy.stages, 1: { pd: '0.5', lgd: '0.5' } } };
    // 0.25 x 0.50 = 0.125 -> 0.12 (half-even, not 0.13)
    expect(computeProvision(facts({ principalOutstanding: '0.5', oldestUnpaidDueDate: null, overdueInterest: '0', currentPeriod: null }), '2026-03-15', tie, 2).ecl).toBe('0.12');
  });

  it('the policy in force is the latest effective on or before the date', () => {
    const ps = [
      { version: 1, effectiveFrom: '2000-01-01' },
      { version: 2, effectiveFrom: '2030-01-01' },
      { version: 3, effectiveFrom: '2030-01-01' },
    ];
    expect(policyInForce(ps, '2029-12-31')?.version).toBe(1);
    expect(policyInForce(ps, '2030-01-01')?.version).toBe(3);
    expect(policyInForce(ps, '1999-01-01')).toBeNull();
  });

  it('PAR is a decimal string ratio', () => {
    expect(portfolioAtRisk('250', '1000')).toBe('0.250000');
    expect(portfolioAtRisk('0', '0')).toBe('0.000000');
  });
});
