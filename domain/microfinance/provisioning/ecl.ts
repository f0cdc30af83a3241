/**
 * IFRS 9 expected credit loss of one microfinance loan: pure rules, no I/O
 * (docs/microfinance-provisioning.md). The daily run (run.ts) gathers each loan's facts set-wise
 * in SQL (facts.ts) and applies these rules; the provision route applies the same ones to one loan.
 *
 * - Days past due = run date − due date of the oldest instalment not fully paid (0 when none is overdue).
 * - Stage 1 (≤ 30 dpd): 12-month ECL; stage 2 (> 30 dpd): lifetime ECL; stage 3 (> 90 dpd): credit-impaired.
 * - ECL = PD × LGD × EAD with PD and LGD of the stage from the policy in force on the run date. With
 *   one PD per stage, "12-month" versus "lifetime" lives in the PD figures: stage 1 carries a
 *   12-month PD, stages 2 and 3 lifetime PDs.
 * - EAD = outstanding principal + accrued interest, where accrued interest is the interest of
 *   instalments already due and unpaid plus the current period's interest accrued pro rata
 *   (actual days elapsed ÷ days in the period, the period running from the previous instalment's due
 *   date, or the disbursement date, to the current instalment's due date), less any interest
 *   already paid on that instalment (never below zero). Fees are not exposure.
 * - EAD and ECL are each rounded to the currency's minor unit, half to even.
 */
import { DecimalMoney } from '../../money/amount';

export type Stage = 1 | 2 | 3;
export const STAGES: readonly Stage[] = [1, 2, 3];

/** Stage 2 starts past this many days past due, stage 3 past STAGE_3_DPD (IFRS 9 rebuttable presumptions). */
export const STAGE_2_DPD = 30;
export const STAGE_3_DPD = 90;

export interface StageRates {
  /** Probability of default, a decimal string in [0, 1]. */
  pd: string;
  /** Loss given default, a decimal string in [0, 1]. */
  lgd: string;
}

export interface ProvisionPolicy {
  version: number;
  /** YYYY-MM-DD */
  effectiveFrom: string;
  stages: Record<Stage, StageRates>;
}

/** What the rules need to know about one loan on the run date (amounts: decimal strings, dates: YYYY-MM-DD). */
export interface LoanFacts {
  loanId: string;
  /** Σ (principal_due − principal_paid) over the schedule. */
  principalOutstanding: string;
  /** Due date of the oldest instalment not fully paid that falls due on or before the run date; null if none. */
  oldestUnpaidDueDate: string | null;
  /** Σ (interest_due − interest_paid) over instalments due on or before the run date. */
  overdueInterest: string;
  /** The first instalment due after the run date (the period accruing now); null after the last due date. */
  currentPeriod: { start: string; due: string; interestDue: string; interestPaid: string } | null;
}

export interface Provision {
  stage: Stage;
  daysPastDue: number;
  ead: string;
  pd: string;
  lgd: string;
  ecl: string;
}

const DAY_MS = 86_400_000;

function dayNumber(date: string): number {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) throw new Error(`not a date: ${date}`);
  const ms = Date.parse(`${date}T00:00:00Z`);
  if (Number.isNaN(ms)) throw new Error(`not a date: ${date}`);
  return Math.round(ms / DAY_MS);
}

/** Whole days from `from` to `to` (YYYY-MM-DD, UTC calendar days); negative when `to` is earlier. */
export function daysBetween(from: string, to: string): number {
  return dayNumber(to) - dayNumber(from);
}

/** Days past due on the run date: 0 when nothing unpaid is due yet. */
export function daysPastDue(runDate: string, oldestUnpaidDueDate: string | null): number {
  if (oldestUnpaidDueDate === null) return 0;
  return Math.max(0, daysBetween(oldestUnpaidDueDate, runDate));
}

export function stageFor(dpd: number): Stage {
  if (dpd > STAGE_3_DPD) return 3;
  if (dpd > STAGE_2_DPD) return 2;
  return 1;
}

/** Accrued interest on the run date, unrounded (see the header for the rule). */
export function accruedInterest(facts: LoanFacts, runDate: string): string {
  let accrued = new DecimalMoney(facts.overdueInterest);
  const p = facts.currentPeriod;
  if (p) {
    const length = daysBetween(p.start, p.due);
    const elapsed = Math.min(Math.max(daysBetween(p.start, runDate), 0), Math.max(length, 0));
    const share = length > 0 ? new DecimalMoney(p.interestDue).times(elapsed).dividedBy(length) : new DecimalMoney(p.interestDue);
    const unpaid = share.minus(p.interestPaid);
    if (unpaid.greaterThan(0)) accrued = accrued.plus(unpaid);
  }
  return accrued.toFixed();
}

/** Rounds to the currency's minor unit, half to even. */
export function roundMinor(value: string | InstanceType<typeof DecimalMoney>, precision: number): string {
  return new DecimalMoney(value).toDecimalPlaces(precision, DecimalMoney.ROUND_HALF_EVEN).toFixed(precision);
}

/** Exposure at default: outstanding principal + accrued interest, at the currency's minor unit. */
export function exposureAtDefault(facts: LoanFacts, runDate: string, precision: number): string {
  const ead = new DecimalMoney(facts.principalOutstanding).plus(accruedInterest(facts, runDate));
  return roundMinor(DecimalMoney.max(ead, 0), precision);
}

/** The loan's stage, exposure and expected credit loss on the run date under the policy. */
export function computeProvision(facts: LoanFacts, runDate: string, policy: ProvisionPolicy, precision: number): Provision {
  const dpd = daysPastDue(runDate, facts.oldestUnpaidDueDate);
  const stage = stageFor(dpd);
  const { pd, lgd } = policy.stages[stage];
  const ead = exposureAtDefault(facts, runDate, precision);
  const ecl = roundMinor(new DecimalMoney(pd).times(lgd).times(ead), precision);
  return { stage, daysPastDue: dpd, ead, pd: new DecimalMoney(pd).toFixed(), lgd: new DecimalMoney(lgd).toFixed(), ecl };
}

/** The policy version in force on a date: the latest effective_from on or before it (highest version on a tie). */
export function policyInForce<P extends { version: number; effectiveFrom: string }>(policies: readonly P[], date: string): P | null {
  let best: P | null = null;
  for (const p of policies) {
    if (p.effectiveFrom > date) continue;
    if (!best || p.effectiveFrom > best.effectiveFrom || (p.effectiveFrom === best.effectiveFrom && p.version > best.version)) best = p;
  }
  return best;
}

/** Portfolio at risk: outstanding principal of loans past the threshold ÷ gross portfolio, as a decimal string. */
export function portfolioAtRisk(atRisk: string, gross: string, places = 6): string {
  if (new DecimalMoney(gross).isZero()) return new DecimalMoney(0).toFixed(places);
  return new DecimalMoney(atRisk).dividedBy(gross).toDecimalPlaces(places, DecimalMoney.ROUND_HALF_EVEN).toFixed(places);
}
