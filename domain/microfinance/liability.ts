/**
 * The loan's review on the workflow's clock (workflows/microfinance-loan.ts calls it on each wake-up), and
 * joint liability.
 *
 * An instalment is in arrears from the day after its due date; once it is more than the loan's
 * arrears_tolerance_days overdue (days past due > tolerance), the group covers what is owed on it
 * (and on any older unpaid instalment): first the group's guarantee fund (frozen for life, it pays
 * only here and at the group's closure: fund.ts), then the other members in
 * order (the leader first, then by joining date; accepted members only), each paying what it can up to what remains, from
 * the available balance of its account in the loan's currency. Each payer's cover is one
 * repayment (source guarantee_fund or group_member) with its ledger entry, allocated like any
 * repayment but never beyond the overdue instalment. Members are notified (notifications feed).
 * A shortfall stays in arrears and is tried again the next day.
 */
import Decimal from 'decimal.js';
import type pg from 'pg';
import { withTransaction } from '../db/pool';
import { listLedgerAccounts, workflowIdempotencyKey } from '../ledger';
import { DecimalMoney as D } from '../money/amount';
import { applyPayment, owedInstalments, totalOwed, type RepaymentSource } from './accounting';
import { lockedFundAvailable } from './fund';
import { loadLoan, type Loan, type LoanStatus } from './loans';
import { daysBetween, isoDate } from './schedule';

const DAY = 86_400_000;
const midnight = (date: string) => Date.parse(`${date}T00:00:00Z`);

export interface LoanReview {
  status: LoanStatus | 'missing';
  /** When the workflow should look again (ms since epoch); null when the loan is over. */
  nextWakeMs: number | null;
  covered: Array<{ source: RepaymentSource; accountId: string; amount: string }>;
}

async function available(loan: Loan, accountId: string, c: pg.PoolClient): Promise<string> {
  const [la] = await listLedgerAccounts({ environment: loan.environment, kind: 'customer', assetCode: loan.currency, accountId }, c);
  if (!la || la.status !== 'active') return '0';
  const { rows } = await c.query<{ status: string }>('SELECT status FROM accounts WHERE id = $1', [accountId]);
  return rows[0]?.status === 'active' ? la.availableBalance : '0';
}

/** Reviews a loan as of `nowMs` (the workflow's clock): joint liability for instalments past tolerance, and the next wake-up. */
export async function reviewLoan(loanId: string, nowMs: number, workflowId: string): Promise<LoanReview> {
  return withTransaction(async (c) => {
    const loan = await loadLoan(loanId, c, true);
    if (!loan) return { status: 'missing', nextWakeMs: null, covered: [] };
    if (loan.status === 'applied' || loan.status === 'approved') return { status: loan.status, nextWakeMs: nowMs + DAY, covered: [] };
    if (loan.status !== 'active') return { status: loan.status, nextWakeMs: null, covered: [] };
    const today = isoDate(nowMs);
    const covered: LoanReview['covered'] = [];
    const { rows: unpaid } = await c.query<{ number: number; due: string }>(
      `SELECT number, to_char(due_date, 'YYYY-MM-DD') AS due FROM mf_loan_instalments WHERE loan_id = $1 AND paid_on IS NULL ORDER BY number`,
      [loan.id],
    );
    const overdue = unpaid.filter((u) => daysBetween(u.due, today) > loan.arrearsToleranceDays);
    let shortfall = false;
    if (overdue.length > 0) {
      const upTo = overdue[overdue.length - 1].number;
      let need = new D(totalOwed(await owedInstalments(loan.id, loan.precision, c, upTo)));
      const { rows: payers } = await c.query<{ source: RepaymentSource; account_id: string; user_id: string }>(
        `SELECT source, account_id, user_id FROM (
           SELECT 'guarantee_fund' AS source, g.guarantee_account_id AS account_id, a.user_id, 0 AS rank, NULL::timestamptz AS joined_at
             FROM mf_groups g JOIN accounts a ON a.id = g.guarantee_account_id WHERE g.id = $1
           UNION ALL
           SELECT 'group_member', m.account_id, m.user_id, CASE WHEN m.role = 'leader' THEN 1 ELSE 2 END, m.joined_at
             FROM mf_group_members m WHERE m.group_id = $1 AND m.user_id <> $2 AND m.status = 'accepted') p
         ORDER BY rank, joined_at, user_id`,
        [loan.groupId, loan.userId],
      );
      for (const payer of payers) {
        if (need.lte(0)) break;
        // The fund is frozen for life and pays only here: what it holds is read under its row lock, held until the draw posts.
        const has = payer.source === 'guarantee_fund' ? await lockedFundAvailable(payer.account_id, loan.currency, c) : await available(loan, payer.account_id, c);
        const amount = Decimal.min(need, new D(has)).toDecimalPlaces(loan.precision, D.ROUND_DOWN);
        if (amount.lte(0)) continue;
        const { rows: n } = await c.query<{ n: number }>('SELECT count(*)::int AS n FROM mf_loan_repayments WHERE loan_id = $1', [loan.id]);
        const key = workflowIdempotencyKey(workflowId, `cover:${upTo}:${payer.account_id}:${n[0].n}`);
        const r = await applyPayment(loan, { amount: amount.toFixed(loan.precision), source: payer.source, payerAccountId: payer.account_id, idempotencyKey: key, paidOn: today, userId: loan.userId, upToNumber: upTo }, c);
        covered.push({ source: payer.source, accountId: payer.account_id, amount: amount.toFixed(loan.precision) });
        need = need.minus(amount);
        await notifyMembers(loan, r.repaymentId, payer.source, amount.toFixed(loan.precision), upTo, c);
      }
      shortfall = need.gt(0);
    }
    const after = await loadLoan(loan.id, c);
    if (after!.status !== 'active') return { status: after!.status, nextWakeMs: null, covered };
    const { rows: still } = await c.query<{ due: string }>(
      `SELECT to_char(due_date, 'YYYY-MM-DD') AS due FROM mf_loan_instalments WHERE loan_id = $1 AND paid_on IS NULL ORDER BY number`,
      [loan.id],
    );
    const candidates = still.flatMap((u) => [midnight(u.due), midnight(u.due) + (loan.arrearsToleranceDays + 1) * DAY]).filter((t) => t > nowMs);
    if (shortfall || candidates.length === 0) candidates.push(nowMs + DAY);
    return { status: 'active', nextWakeMs: Math.min(...candidates), covered };
  });
}

async function notifyMembers(loan: Loan, repaymentId: string, source: RepaymentSource, amount: string, instalment: number, c: pg.PoolClient): Promise<void> {
  const from = source === 'guarantee_fund' ? "the group's guarantee fund" : 'a fellow member';
  await c.query(
    `INSERT INTO notifications (id, user_id, environment, event_id, event_type, title, body, data)
     SELECT 'ntf_' || replace(gen_random_uuid()::text, '-', ''), m.user_id, $2, $3, 'microfinance.joint_liability', 'Group loan instalment covered', $4, $5
       FROM mf_group_members m WHERE m.group_id = $1 AND m.status = 'accepted'
     ON CONFLICT (event_id, user_id) DO NOTHING`,
    [loan.groupId, loan.environment, repaymentId, `Instalment ${instalment} of a group loan was overdue; ${amount} ${loan.currency} was covered by ${from}.`,
      JSON.stringify({ loan_id: loan.id, repayment_id: repaymentId, source, amount, currency: loan.currency, instalment })],
  );
}
