/**
 * What a loan looks like to its readers: the schedule with what was paid, totals, outstanding
 * principal/interest/fees, days past due (today − due date of the oldest unpaid instalment, as the
 * provisioning run reads it) and the arrears amount (owed on instalments already due).
 */
import type { Principal } from '../auth/principal';
import { getPool } from '../db/pool';
import { DecimalMoney as D } from '../money/amount';
import { getLoan, visibleLoan, type Loan, type VisibleLoan } from './loans';
import { daysBetween, isoDate } from './schedule';

export interface InstalmentView {
  number: number;
  dueDate: string;
  principalDue: string;
  interestDue: string;
  feeDue: string;
  principalPaid: string;
  interestPaid: string;
  feePaid: string;
  totalDue: string;
  totalPaid: string;
  paidOn: string | null;
}

export interface RepaymentView {
  id: string;
  amount: string;
  source: string;
  /** Shown to operators and to the owner of the paying account (the guarantee fund's: the leader). */
  payerAccountId: string | null;
  entryId: string;
  allocation: unknown;
  paidOn: string;
  createdAt: Date;
}

export interface LoanView {
  loan: VisibleLoan;
  schedule: InstalmentView[];
  repayments: RepaymentView[];
  totals: { paid: string; principalPaid: string; interestPaid: string; feesPaid: string; outstandingPrincipal: string; outstandingInterest: string; outstandingFees: string; arrears: string };
  daysPastDue: number;
}

export async function loanSchedule(loan: Pick<Loan, 'id' | 'precision'>): Promise<InstalmentView[]> {
  const p = loan.precision;
  const { rows } = await getPool().query(
    `SELECT number, to_char(due_date, 'YYYY-MM-DD') AS due_date, to_char(paid_on, 'YYYY-MM-DD') AS paid_on,
            round(principal_due, $2)::text AS principal_due, round(interest_due, $2)::text AS interest_due, round(fee_due, $2)::text AS fee_due,
            round(principal_paid, $2)::text AS principal_paid, round(interest_paid, $2)::text AS interest_paid, round(fee_paid, $2)::text AS fee_paid
       FROM mf_loan_instalments WHERE loan_id = $1 ORDER BY number`,
    [loan.id, p],
  );
  return rows.map((r) => ({
    number: r.number, dueDate: r.due_date, principalDue: r.principal_due, interestDue: r.interest_due, feeDue: r.fee_due,
    principalPaid: r.principal_paid, interestPaid: r.interest_paid, feePaid: r.fee_paid, paidOn: r.paid_on,
    totalDue: new D(r.principal_due).plus(r.interest_due).plus(r.fee_due).toFixed(p),
    totalPaid: new D(r.principal_paid).plus(r.interest_paid).plus(r.fee_paid).toFixed(p),
  }));
}

export async function getLoanView(principal: Principal, id: string, nowMs = Date.now()): Promise<LoanView> {
  const loan = await getLoan(principal, id);
  const schedule = await loanSchedule(loan);
  const p = loan.precision;
  const today = isoDate(nowMs);
  const sum = (f: (i: InstalmentView) => InstanceType<typeof D> | string) => schedule.reduce((s, i) => s.plus(f(i)), new D(0));
  const open = loan.status === 'active';
  const oldestUnpaid = schedule.find((i) => i.paidOn === null);
  const arrears = open ? sum((i) => (i.paidOn === null && i.dueDate < today ? new D(i.totalDue).minus(i.totalPaid) : '0')) : new D(0);
  // Other members' accounts stay hidden, as in the group's view.
  const { rows } = await getPool().query(
    `SELECT r.id, round(r.amount, $2)::text AS amount, r.source, CASE WHEN $3 OR a.user_id = $4 THEN r.payer_account_id END AS payer_account_id,
            r.entry_id, r.allocation, to_char(r.paid_on, 'YYYY-MM-DD') AS paid_on, r.created_at
       FROM mf_loan_repayments r LEFT JOIN accounts a ON a.id = r.payer_account_id WHERE r.loan_id = $1 ORDER BY r.created_at, r.id`,
    [loan.id, p, principal.isAdmin, principal.userId],
  );
  return {
    loan: visibleLoan(principal, loan),
    schedule,
    repayments: rows.map((r) => ({ id: r.id, amount: r.amount, source: r.source, payerAccountId: r.payer_account_id, entryId: r.entry_id, allocation: r.allocation, paidOn: r.paid_on, createdAt: r.created_at })),
    totals: {
      paid: sum((i) => i.totalPaid).toFixed(p),
      principalPaid: sum((i) => i.principalPaid).toFixed(p),
      interestPaid: sum((i) => i.interestPaid).toFixed(p),
      feesPaid: sum((i) => i.feePaid).toFixed(p),
      outstandingPrincipal: (open ? sum((i) => new D(i.principalDue).minus(i.principalPaid)) : new D(0)).toFixed(p),
      outstandingInterest: (open ? sum((i) => new D(i.interestDue).minus(i.interestPaid)) : new D(0)).toFixed(p),
      outstandingFees: (open ? sum((i) => new D(i.feeDue).minus(i.feePaid)) : new D(0)).toFixed(p),
      arrears: arrears.toFixed(p),
    },
    daysPastDue: open && oldestUnpaid ? Math.max(0, daysBetween(oldestUnpaid.dueDate, today)) : 0,
  };
}
