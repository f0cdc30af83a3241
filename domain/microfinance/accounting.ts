/**
 * The ledger side of group loans: the internal accounts (per environment and currency) and the one
 * posting that applies a payment to a loan. Every state change is one database transaction: the
 * ledger entry (postEntry takes the transaction's client) and the instalment/repayment rows.
 *
 * - mf_loan_portfolio (debit-normal): principal lent and not yet repaid or written off.
 * - mf_interest_income (credit-normal): interest, recognised when paid (cash basis).
 * - fee revenue (system account): disbursement fees and instalment fees.
 * - mf_write_off_expense (debit-normal): principal written off.
 */
import type pg from 'pg';
import { ensureCustomerLedgerAccount } from '../accounts';
import { internalLedgerAccountId, postEntry, postGuaranteeFundEntry, systemAccount, type LineInput } from '../ledger';
import { DecimalMoney as D } from '../money/amount';
import type { Environment } from '../platform/environment';
import { DomainError } from '../platform/errors';
import { newId } from '../platform/ids';
import { allocateRepayment, type Allocation } from './schedule';

export type InternalAccount = 'portfolio' | 'interest_income' | 'write_off_expense';
const INTERNAL: Record<InternalAccount, { code: string; name: string; normal: 'debit' | 'credit' }> = {
  portfolio: { code: 'mf_loan_portfolio', name: 'Microfinance loan portfolio', normal: 'debit' },
  interest_income: { code: 'mf_interest_income', name: 'Microfinance interest income', normal: 'credit' },
  write_off_expense: { code: 'mf_write_off_expense', name: 'Microfinance loan write-offs', normal: 'debit' },
};

export async function mfAccount(environment: Environment, currency: string, which: InternalAccount, c: pg.PoolClient): Promise<string> {
  const a = INTERNAL[which];
  return internalLedgerAccountId({ environment, assetCode: currency, code: a.code, name: `${environment} ${currency} ${a.name}`, normalBalance: a.normal }, c);
}

export interface LoanForPosting {
  id: string;
  environment: Environment;
  currency: string;
  precision: number;
  userId: string;
}

export type RepaymentSource = 'borrower' | 'group_member' | 'guarantee_fund';

interface OwedRow { number: number; fee: string; interest: string; principal: string }

/** What is still owed, instalment by instalment (oldest first), at the currency's precision. */
export async function owedInstalments(loanId: string, precision: number, c: pg.PoolClient, upToNumber?: number): Promise<OwedRow[]> {
  const { rows } = await c.query<OwedRow>(
    `SELECT number, round(fee_due - fee_paid, $2)::text AS fee, round(interest_due - interest_paid, $2)::text AS interest,
            round(principal_due - principal_paid, $2)::text AS principal
       FROM mf_loan_instalments WHERE loan_id = $1 AND paid_on IS NULL AND ($3::int IS NULL OR number <= $3) ORDER BY number`,
    [loanId, precision, upToNumber ?? null],
  );
  return rows;
}

export function totalOwed(rows: OwedRow[]): string {
  return rows.reduce((s, r) => s.plus(r.fee).plus(r.interest).plus(r.principal), new D(0)).toFixed();
}

/**
 * Applies a payment (the loan row is locked by the caller): allocates it (schedule.ts
 * allocateRepayment), posts Dr payer / Cr portfolio, interest income, fee revenue, updates the
 * instalments, records the repayment and closes the loan when nothing is owed. Refuses a payment
 * above what is owed (MF_REPAYMENT_EXCEEDS_OUTSTANDING). `upToNumber` limits it to instalments up to
 * that number (joint liability covers an overdue instalment, never future ones).
 */
export async function applyPayment(
  loan: LoanForPosting,
  pay: { amount: string; source: RepaymentSource; payerAccountId: string; idempotencyKey: string; paidOn: string; userId: string; upToNumber?: number },
  c: pg.PoolClient,
): Promise<{ repaymentId: string; entryId: string; allocation: Allocation; closed: boolean }> {
  const owed = await owedInstalments(loan.id, loan.precision, c, pay.upToNumber);
  const allocation = allocateRepayment(pay.amount, owed, loan.precision);
  if (new D(allocation.unallocated).gt(0)) {
    throw new DomainError('MF_REPAYMENT_EXCEEDS_OUTSTANDING', `the amount is more than the ${totalOwed(owed)} ${loan.currency} outstanding`, '/amount', {
      outstanding: new D(totalOwed(owed)).toFixed(loan.precision),
    });
  }
  const payer = await ensureCustomerLedgerAccount(pay.payerAccountId, loan.currency, c);
  const lines: LineInput[] = [{ accountId: payer, direction: 'debit', amount: pay.amount }];
  const credit = (accountId: string, amount: string) => {
    if (new D(amount).gt(0)) lines.push({ accountId, direction: 'credit', amount });
  };
  credit(await mfAccount(loan.environment, loan.currency, 'portfolio', c), allocation.principal);
  credit(await mfAccount(loan.environment, loan.currency, 'interest_income', c), allocation.interest);
  if (new D(allocation.fee).gt(0)) credit(await systemAccount(loan.environment, loan.currency, 'fee_revenue', pay.idempotencyKey, c), allocation.fee);
  // The guarantee fund is frozen for life: only the fund's own posting may debit it, never below zero.
  const post = pay.source === 'guarantee_fund' ? postGuaranteeFundEntry : postEntry;
  const entry = await post(
    {
      environment: loan.environment,
      idempotencyKey: pay.idempotencyKey,
      type: pay.source === 'borrower' ? 'mf_repayment' : 'mf_joint_liability',
      description: `Loan ${loan.id} repayment (${pay.source})`,
      reference: loan.id,
      lines,
      userId: pay.userId,
      metadata: { mf_loan_id: loan.id, source: pay.source, allocation: { fee: allocation.fee, interest: allocation.interest, principal: allocation.principal } },
    },
    c,
  );
  for (const l of allocation.lines) {
    await c.query(
      `UPDATE mf_loan_instalments SET fee_paid = fee_paid + $3, interest_paid = interest_paid + $4, principal_paid = principal_paid + $5,
              paid_on = CASE WHEN fee_paid + $3 = fee_due AND interest_paid + $4 = interest_due AND principal_paid + $5 = principal_due THEN $6::date END
        WHERE loan_id = $1 AND number = $2`,
      [loan.id, l.number, l.fee, l.interest, l.principal, pay.paidOn],
    );
  }
  const repaymentId = newId('mfr');
  await c.query(
    `INSERT INTO mf_loan_repayments (id, loan_id, amount, source, payer_account_id, entry_id, allocation, idempotency_key, paid_on, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, clock_timestamp())`,
    [repaymentId, loan.id, pay.amount, pay.source, pay.payerAccountId, entry.id, JSON.stringify(allocation), pay.idempotencyKey, pay.paidOn],
  );
  const left = await c.query('SELECT 1 FROM mf_loan_instalments WHERE loan_id = $1 AND paid_on IS NULL LIMIT 1', [loan.id]);
  const closed = left.rowCount === 0;
  if (closed) await c.query(`UPDATE mf_loans SET status = 'closed', closed_at = now() WHERE id = $1`, [loan.id]);
  return { repaymentId, entryId: entry.id, allocation, closed };
}
