/**
 * Loan schedule math and repayment allocation: pure functions on decimal strings (DecimalMoney),
 * exact to the currency's minor unit. No I/O; tests/microfinance/schedule.test.ts checks every row
 * of hand-computed schedules.
 *
 * - Periodic rate i = annual / 12 (monthly), / 26 (biweekly), / 52 (weekly).
 * - Declining balance (equal instalments): A = P·i / (1 − (1+i)^−m) over the m = n − grace
 *   amortising instalments, rounded to the minor unit; each period's interest is the outstanding
 *   balance × i rounded to the minor unit, principal = A − interest; the last instalment takes the
 *   remaining balance as principal (it absorbs the rounding), so principal sums exactly to P.
 *   With i = 0, principal is spread evenly (last absorbs).
 * - Flat: total interest P·r·t (t = n / periods per year), spread evenly over all n instalments,
 *   principal spread evenly over the amortising ones; the last instalment absorbs both roundings.
 * - Grace instalments (the first `grace`) are interest-only: interest on the full principal
 *   (declining) or the flat interest share, no principal.
 * - Due dates count from the disbursement date: weekly +7 days, biweekly +14, monthly the same day
 *   of the month k months later, clamped to the month's end (31 Jan → 28/29 Feb → 31 Mar: each date
 *   is computed from the disbursement date, never from the previous due date, so nothing drifts).
 */
import Decimal from 'decimal.js';
import { DecimalMoney as D } from '../money/amount';

export type InterestMethod = 'flat' | 'declining_balance';
export type RepaymentFrequency = 'weekly' | 'biweekly' | 'monthly';

export const PERIODS_PER_YEAR: Record<RepaymentFrequency, number> = { weekly: 52, biweekly: 26, monthly: 12 };

export interface ScheduleTerms {
  principal: string;
  /** Nominal annual rate as a decimal string (0.12 = 12 %). */
  annualInterestRate: string;
  interestMethod: InterestMethod;
  termInstalments: number;
  repaymentFrequency: RepaymentFrequency;
  graceInstalments?: number;
  /** YYYY-MM-DD (UTC). */
  disbursementDate: string;
  /** Minor-unit decimals of the currency (USD 2, JPY 0). */
  precision: number;
}

export interface ScheduleRow {
  number: number;
  dueDate: string;
  principal: string;
  interest: string;
  /** principal + interest */
  total: string;
  /** Outstanding principal after this instalment. */
  balance: string;
}

const round = (d: Decimal, p: number) => d.toDecimalPlaces(p, Decimal.ROUND_HALF_EVEN);

/** YYYY-MM-DD of a due date `k` periods after the disbursement date. */
export function dueDate(disbursementDate: string, frequency: RepaymentFrequency, k: number): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(disbursementDate);
  if (!m) throw new Error(`invalid date ${disbursementDate}`);
  const [y, mo, d] = [Number(m[1]), Number(m[2]) - 1, Number(m[3])];
  if (frequency !== 'monthly') {
    const days = (frequency === 'weekly' ? 7 : 14) * k;
    return new Date(Date.UTC(y, mo, d + days)).toISOString().slice(0, 10);
  }
  const target = mo + k;
  const last = new Date(Date.UTC(y, target + 1, 0)).getUTCDate();
  return new Date(Date.UTC(y, target, Math.min(d, last))).toISOString().slice(0, 10);
}

/** Declining-balance equal instalment A = P·i / (1 − (1+i)^−n), unrounded. */
export function equalInstalment(principal: string, periodicRate: string, n: number): Decimal {
  const P = new D(principal);
  const i = new D(periodicRate);
  if (i.isZero()) return P.div(n);
  return P.times(i).div(new D(1).minus(i.plus(1).pow(-n)));
}

export function periodicRate(annualInterestRate: string, frequency: RepaymentFrequency): Decimal {
  return new D(annualInterestRate).div(PERIODS_PER_YEAR[frequency]);
}

/** The full schedule of a loan (see the file comment for the rules). */
export function buildSchedule(t: ScheduleTerms): ScheduleRow[] {
  const n = t.termInstalments;
  const grace = t.graceInstalments ?? 0;
  const p = t.precision;
  if (!Number.isInteger(n) || n < 1) throw new Error('termInstalments must be a positive integer');
  if (!Number.isInteger(grace) || grace < 0 || grace >= n) throw new Error('graceInstalments must be below termInstalments');
  const P = new D(t.principal);
  const i = periodicRate(t.annualInterestRate, t.repaymentFrequency);
  const m = n - grace;
  const rows: ScheduleRow[] = [];
  let balance = P;

  if (t.interestMethod === 'flat') {
    const totalInterest = round(P.times(t.annualInterestRate).times(n).div(PERIODS_PER_YEAR[t.repaymentFrequency]), p);
    const interestShare = round(totalInterest.div(n), p);
    const principalShare = round(P.div(m), p);
    let interestLeft = totalInterest;
    for (let k = 1; k <= n; k++) {
      const interest = k === n ? interestLeft : Decimal.min(interestShare, interestLeft);
      const principal = k <= grace ? new D(0) : k === n ? balance : Decimal.min(principalShare, balance);
      interestLeft = interestLeft.minus(interest);
      balance = balance.minus(principal);
      rows.push(row(k, t, principal, interest, balance, p));
    }
    return rows;
  }

  const A = round(equalInstalment(t.principal, i.toString(), m), p);
  for (let k = 1; k <= n; k++) {
    const interest = round(balance.times(i), p);
    let principal: Decimal;
    if (k <= grace) principal = new D(0);
    else if (k === n) principal = balance;
    else principal = Decimal.max(0, Decimal.min(A.minus(interest), balance));
    balance = balance.minus(principal);
    rows.push(row(k, t, principal, interest, balance, p));
  }
  return rows;
}

function row(k: number, t: ScheduleTerms, principal: Decimal, interest: Decimal, balance: Decimal, p: number): ScheduleRow {
  return {
    number: k,
    dueDate: dueDate(t.disbursementDate, t.repaymentFrequency, k),
    principal: principal.toFixed(p),
    interest: interest.toFixed(p),
    total: principal.plus(interest).toFixed(p),
    balance: balance.toFixed(p),
  };
}

/** What is still owed on one instalment. */
export interface InstalmentOwed {
  number: number;
  fee: string;
  interest: string;
  principal: string;
}

export interface AllocationLine {
  number: number;
  fee: string;
  interest: string;
  principal: string;
}

export interface Allocation {
  lines: AllocationLine[];
  fee: string;
  interest: string;
  principal: string;
  /** Part of the amount nothing was owed for (callers refuse a repayment that leaves any). */
  unallocated: string;
}

/**
 * Allocates a payment to what is owed, Fineract's default ("mifos-standard") strategy: the oldest
 * instalment first, and within it fees, then interest, then principal; then the next instalment.
 * Instalments are taken in the order of their number; amounts are decimal strings.
 */
export function allocateRepayment(amount: string, owed: readonly InstalmentOwed[], precision: number): Allocation {
  let left = new D(amount);
  const totals = { fee: new D(0), interest: new D(0), principal: new D(0) };
  const lines: AllocationLine[] = [];
  for (const o of [...owed].sort((a, b) => a.number - b.number)) {
    if (left.lte(0)) break;
    const take = (due: string) => {
      const x = Decimal.min(left, new D(due));
      left = left.minus(x);
      return x;
    };
    const fee = take(o.fee);
    const interest = take(o.interest);
    const principal = take(o.principal);
    if (fee.plus(interest).plus(principal).isZero()) continue;
    totals.fee = totals.fee.plus(fee);
    totals.interest = totals.interest.plus(interest);
    totals.principal = totals.principal.plus(principal);
    lines.push({ number: o.number, fee: fee.toFixed(precision), interest: interest.toFixed(precision), principal: principal.toFixed(precision) });
  }
  return {
    lines,
    fee: totals.fee.toFixed(precision),
    interest: totals.interest.toFixed(precision),
    principal: totals.principal.toFixed(precision),
    unallocated: left.toFixed(precision),
  };
}

/** Whole days from `from` to `to` (YYYY-MM-DD, UTC); negative when `to` is earlier. */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

/** YYYY-MM-DD (UTC) of an instant. */
export function isoDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}
