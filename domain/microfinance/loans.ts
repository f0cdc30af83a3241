/**
 * Group loans: apply → approve (operator; starts the loan's workflow, workflows/microfinance-loan.ts) →
 * disburse (operator; ledger entry + schedule) → repayments → closed, or written_off (operator).
 * Each state change is one transaction with its ledger entry. The database holds the truth; the
 * workflow is signalled to wake and re-read it.
 */
import type pg from 'pg';
import type { Principal } from '../auth/principal';
import { ensureCustomerLedgerAccount } from '../accounts';
import { getAsset } from '../assets';
import { getPool, withTransaction, type Queryable } from '../db/pool';
import { clientIdempotencyKey, postEntry, systemAccount, workflowIdempotencyKey, type LineInput } from '../ledger';
import { compareAmounts, DecimalMoney as D, parseRequestAmount } from '../money/amount';
import type { Environment } from '../platform/environment';
import { DomainError } from '../platform/errors';
import { newId } from '../platform/ids';
import { signalWorkflow } from '../temporal/signals';
import { startMoneyWorkflow } from '../temporal/start';
import { SA } from '../temporal/search-attributes';
import { applyPayment, mfAccount, type LoanForPosting } from './accounting';
import { getGroup } from './groups';
import { getLoanProduct } from './products';
import { buildSchedule, isoDate, type InterestMethod, type RepaymentFrequency } from './schedule';

export type LoanStatus = 'applied' | 'approved' | 'active' | 'closed' | 'written_off' | 'rejected';
export const MF_LOAN_WORKFLOW = 'mfLoanWorkflow';
/** Signal that wakes a loan's workflow to re-read the loan (repayment, disbursement, write-off). */
export const MF_LOAN_WAKE_SIGNAL = 'wake';

export interface Loan extends LoanForPosting {
  groupId: string;
  accountId: string;
  productId: string;
  principal: string;
  annualInterestRate: string;
  interestMethod: InterestMethod;
  termInstalments: number;
  repaymentFrequency: RepaymentFrequency;
  graceInstalments: number;
  arrearsToleranceDays: number;
  disbursementFee: string;
  status: LoanStatus;
  workflowId: string;
  disbursementEntryId: string | null;
  writeOffEntryId: string | null;
  disbursedOn: string | null;
  approvedBy: string | null;
  createdAt: Date;
  approvedAt: Date | null;
  disbursedAt: Date | null;
  closedAt: Date | null;
  writtenOffAt: Date | null;
}

const COLUMNS = `l.*, a.precision, round(l.principal, a.precision)::text AS principal_text, trim_scale(l.annual_interest_rate)::text AS rate_text,
  to_char(l.disbursed_on, 'YYYY-MM-DD') AS disbursed_on_text, round(p.disbursement_fee, a.precision)::text AS fee_text`;
const FROM = 'mf_loans l JOIN assets a ON a.code = l.currency JOIN mf_loan_products p ON p.id = l.product_id';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function toLoan(r: any): Loan {
  return {
    id: r.id, environment: r.environment, groupId: r.group_id, userId: r.user_id, accountId: r.account_id, productId: r.product_id,
    currency: r.currency, precision: r.precision, principal: r.principal_text, annualInterestRate: r.rate_text, interestMethod: r.interest_method,
    termInstalments: r.term_instalments, repaymentFrequency: r.repayment_frequency, graceInstalments: r.grace_instalments,
    arrearsToleranceDays: r.arrears_tolerance_days, disbursementFee: r.fee_text, status: r.status, workflowId: r.workflow_id,
    disbursementEntryId: r.disbursement_entry_id, writeOffEntryId: r.write_off_entry_id, disbursedOn: r.disbursed_on_text,
    approvedBy: r.approved_by, createdAt: r.created_at, approvedAt: r.approved_at, disbursedAt: r.disbursed_at, closedAt: r.closed_at,
    writtenOffAt: r.written_off_at,
  };
}

/** A loan by id for internal callers (workflow steps), optionally locked. */
export async function loadLoan(id: string, c: Queryable = getPool(), lock = false): Promise<Loan | null> {
  const { rows } = await c.query(`SELECT ${COLUMNS} FROM ${FROM} WHERE l.id = $1${lock ? ' FOR UPDATE OF l' : ''}`, [id]);
  return rows[0] ? toLoan(rows[0]) : null;
}

/**
 * The loan if the caller may see it: operators any of the environment, members who accepted their
 * group's loans (an invitee who declined is no member). Internal callers get every field; what a
 * customer is shown goes through visibleLoan.
 */
export async function getLoan(p: Principal, id: string, c: Queryable = getPool(), lock = false): Promise<Loan> {
  const { rows } = await c.query(
    `SELECT ${COLUMNS} FROM ${FROM} WHERE l.id = $1 AND l.environment = $2
       AND ($3 OR EXISTS (SELECT 1 FROM mf_group_members m WHERE m.group_id = l.group_id AND m.user_id = $4 AND m.status = 'accepted'))${lock ? ' FOR UPDATE OF l' : ''}`,
    [id, p.environment, p.isAdmin, p.userId],
  );
  if (!rows[0]) throw new DomainError('MF_LOAN_NOT_FOUND', `Loan ${id} not found`);
  return toLoan(rows[0]);
}

/** A loan as a reader sees it: the borrower's account only for the borrower and operators (as in the group's view). */
export type VisibleLoan = Omit<Loan, 'accountId'> & { accountId: string | null };
export function visibleLoan(p: Principal, loan: Loan): VisibleLoan {
  return p.isAdmin || loan.userId === p.userId ? loan : { ...loan, accountId: null };
}

/** The group's loans for operators and its accepted members (others: MF_GROUP_NOT_FOUND, as for the group). */
export async function listGroupLoans(p: Principal, groupId: string): Promise<VisibleLoan[]> {
  const group = await getGroup(p, groupId);
  if (!p.isAdmin && group.members.find((m) => m.userId === p.userId)?.status !== 'accepted') {
    throw new DomainError('MF_GROUP_NOT_FOUND', `Group ${groupId} not found`);
  }
  const { rows } = await getPool().query(`SELECT ${COLUMNS} FROM ${FROM} WHERE l.group_id = $1 ORDER BY l.created_at, l.id`, [groupId]);
  return rows.map((r) => visibleLoan(p, toLoan(r)));
}

/**
 * A member applies for a loan for themself, or the group's leader (or an operator) for a member.
 * The group must be active, the product active and of the environment, the principal within its range.
 * The product's terms are copied onto the loan.
 */
export async function applyForLoan(p: Principal, groupId: string, input: { productId: string; principal: string; userId?: string }): Promise<VisibleLoan> {
  return withTransaction(async (c) => {
    const group = await getGroup(p, groupId, c, true);
    if (group.status !== 'active') throw new DomainError('MF_INVALID_STATE', `group is ${group.status}`);
    const borrowerId = input.userId ?? p.userId;
    const member = group.members.find((m) => m.userId === borrowerId && m.status === 'accepted');
    if (!member) throw new DomainError('MF_MEMBER_NOT_FOUND', `user ${borrowerId} is not a member of the group`, '/user_id');
    // The borrower's own account (the group view hides other members' accounts from customers).
    const { rows: acct } = await c.query<{ account_id: string }>('SELECT account_id FROM mf_group_members WHERE group_id = $1 AND user_id = $2', [groupId, borrowerId]);
    const caller = group.members.find((m) => m.userId === p.userId);
    if (borrowerId !== p.userId && !p.isAdmin && caller?.role !== 'leader') {
      throw new DomainError('MF_LEADER_REQUIRED', 'only the group leader applies on behalf of another member', '/user_id');
    }
    const product = await getLoanProduct(p, input.productId, c);
    if (product.status !== 'active') throw new DomainError('MF_LOAN_PRODUCT_NOT_FOUND', `Loan product ${input.productId} not found`, '/product_id');
    const asset = (await getAsset(product.currency, c))!;
    const principal = parseRequestAmount(input.principal, asset, '/principal');
    if (compareAmounts(principal, product.principalMin) < 0 || compareAmounts(principal, product.principalMax) > 0) {
      throw new DomainError('MF_PRINCIPAL_OUT_OF_RANGE', `principal must be between ${product.principalMin} and ${product.principalMax} ${product.currency}`, '/principal');
    }
    const id = newId('mfl');
    await c.query(
      `INSERT INTO mf_loans (id, environment, group_id, user_id, account_id, product_id, currency, principal, annual_interest_rate, interest_method,
         term_instalments, repayment_frequency, grace_instalments, arrears_tolerance_days, workflow_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
      [id, p.environment, groupId, borrowerId, acct[0].account_id, product.id, product.currency, principal, product.annualInterestRate, product.interestMethod,
        product.termInstalments, product.repaymentFrequency, product.graceInstalments, product.arrearsToleranceDays, `mf-loan-${id}`],
    );
    // A leader applying for a member is shown the loan without the member's account.
    return visibleLoan(p, (await loadLoan(id, c))!);
  });
}

async function change(p: Principal, id: string, fn: (loan: Loan, c: pg.PoolClient) => Promise<void>): Promise<Loan> {
  return withTransaction(async (c) => {
    const loan = await getLoan(p, id, c, true);
    await fn(loan, c);
    return (await loadLoan(id, c))!;
  });
}

const wrongState = (loan: Loan, doing: string) => new DomainError('MF_INVALID_STATE', `cannot ${doing} a loan that is ${loan.status}`, undefined, { status: loan.status });

/** Operator: applied → approved, and the loan's workflow starts (it lives for the loan's life). */
export async function approveLoan(p: Principal, id: string): Promise<Loan> {
  const loan = await change(p, id, async (l, c) => {
    if (l.status === 'approved') return;
    if (l.status !== 'applied') throw wrongState(l, 'approve');
    await c.query(`UPDATE mf_loans SET status = 'approved', approved_by = $2, approved_at = now() WHERE id = $1`, [id, p.userId]);
  });
  await startMoneyWorkflow({
    workflowType: MF_LOAN_WORKFLOW,
    workflowId: loan.workflowId,
    args: [{ loanId: loan.id }],
    subject: { id: loan.id, accountIds: [loan.accountId], assetCode: loan.currency, amount: loan.principal, environment: loan.environment, userId: loan.userId },
    idKey: SA.operationId,
    // Temporal refused: back to applied (nothing moved yet), and the caller gets 503.
    onStartFailed: async () => {
      await getPool().query(`UPDATE mf_loans SET status = 'applied', approved_by = NULL, approved_at = NULL WHERE id = $1 AND status = 'approved'`, [id]);
    },
  }).catch((err: unknown) => {
    throw new DomainError('WORKFLOW_UNAVAILABLE', `The loan's workflow could not be started; the loan is still applied: ${(err as Error).message}`);
  });
  return loan;
}

/** Operator: applied/approved → rejected. */
export async function rejectLoan(p: Principal, id: string): Promise<Loan> {
  const loan = await change(p, id, async (l, c) => {
    if (l.status === 'rejected') return;
    if (l.status !== 'applied' && l.status !== 'approved') throw wrongState(l, 'reject');
    await c.query(`UPDATE mf_loans SET status = 'rejected' WHERE id = $1`, [id]);
  });
  await signalWorkflow(loan.workflowId, MF_LOAN_WAKE_SIGNAL).catch(() => false);
  return loan;
}

/**
 * Operator: approved → active. One transaction: the schedule from today (UTC), and the entry
 * Dr loan portfolio (principal) / Cr borrower's account (principal − disbursement fee) / Cr fee
 * revenue (the fee), keyed by the workflow id and step. Then the workflow is woken.
 */
export async function disburseLoan(p: Principal, id: string, nowMs = Date.now()): Promise<Loan> {
  const loan = await change(p, id, async (l, c) => {
    if (l.status === 'active') return;
    if (l.status !== 'approved') throw wrongState(l, 'disburse');
    const today = isoDate(nowMs);
    const schedule = buildSchedule({
      principal: l.principal, annualInterestRate: l.annualInterestRate, interestMethod: l.interestMethod, termInstalments: l.termInstalments,
      repaymentFrequency: l.repaymentFrequency, graceInstalments: l.graceInstalments, disbursementDate: today, precision: l.precision,
    });
    const key = workflowIdempotencyKey(l.workflowId, 'disburse');
    const net = new D(l.principal).minus(l.disbursementFee).toFixed(l.precision);
    if (new D(net).lte(0)) throw new DomainError('MF_PRINCIPAL_OUT_OF_RANGE', 'the principal does not cover the disbursement fee');
    const lines: LineInput[] = [
      { accountId: await mfAccount(l.environment, l.currency, 'portfolio', c), direction: 'debit', amount: l.principal },
      { accountId: await ensureCustomerLedgerAccount(l.accountId, l.currency, c), direction: 'credit', amount: net },
    ];
    if (new D(l.disbursementFee).gt(0)) {
      lines.push({ accountId: await systemAccount(l.environment, l.currency, 'fee_revenue', key, c), direction: 'credit', amount: l.disbursementFee });
    }
    const entry = await postEntry(
      { environment: l.environment, idempotencyKey: key, type: 'mf_disbursement', description: `Loan ${l.id} disbursement`, reference: l.id, lines, userId: l.userId, metadata: { mf_loan_id: l.id } },
      c,
    );
    for (const r of schedule) {
      await c.query(
        'INSERT INTO mf_loan_instalments (loan_id, number, due_date, principal_due, interest_due) VALUES ($1, $2, $3, $4, $5)',
        [l.id, r.number, r.dueDate, r.principal, r.interest],
      );
    }
    await c.query(`UPDATE mf_loans SET status = 'active', disbursement_entry_id = $2, disbursed_on = $3, disbursed_at = now() WHERE id = $1`, [l.id, entry.id, today]);
  });
  await signalWorkflow(loan.workflowId, MF_LOAN_WAKE_SIGNAL).catch(() => false);
  return loan;
}

/**
 * The borrower repays from their loan account. Keyed by the client's Idempotency-Key (a retry
 * returns the first repayment, one ledger entry). More than is outstanding is refused (422).
 */
export async function repayLoan(p: Principal, id: string, input: { amount: string; idempotencyKey?: string }, nowMs = Date.now()): Promise<{ loan: Loan; repaymentId: string }> {
  const idempotencyKey = input.idempotencyKey ? clientIdempotencyKey(p.userId, `mf-repay:${id}`, input.idempotencyKey) : `mf-repay:${newId('op')}`;
  let repaymentId = '';
  const loan = await change(p, id, async (l, c) => {
    const done = await c.query<{ id: string }>('SELECT id FROM mf_loan_repayments WHERE idempotency_key = $1 AND loan_id = $2', [idempotencyKey, id]);
    if (done.rows[0]) {
      repaymentId = done.rows[0].id;
      return;
    }
    if (l.userId !== p.userId) throw new DomainError('MF_BORROWER_REQUIRED', 'only the borrower repays through this call');
    if (l.status !== 'active') throw wrongState(l, 'repay');
    const amount = parseRequestAmount(input.amount, (await getAsset(l.currency, c))!);
    const r = await applyPayment(l, { amount, source: 'borrower', payerAccountId: l.accountId, idempotencyKey, paidOn: isoDate(nowMs), userId: p.userId }, c);
    repaymentId = r.repaymentId;
  });
  await signalWorkflow(loan.workflowId, MF_LOAN_WAKE_SIGNAL).catch(() => false);
  return { loan, repaymentId };
}

/** Operator: active → written_off; Dr write-off expense / Cr loan portfolio of the outstanding principal. */
export async function writeOffLoan(p: Principal, id: string): Promise<Loan> {
  const loan = await change(p, id, async (l, c) => {
    if (l.status === 'written_off') return;
    if (l.status !== 'active') throw wrongState(l, 'write off');
    const { rows } = await c.query<{ outstanding: string }>(
      'SELECT round(coalesce(sum(principal_due - principal_paid), 0), $2)::text AS outstanding FROM mf_loan_instalments WHERE loan_id = $1',
      [l.id, l.precision],
    );
    const outstanding = rows[0].outstanding;
    let entryId: string | null = null;
    if (new D(outstanding).gt(0)) {
      const entry = await postEntry(
        {
          environment: l.environment, idempotencyKey: workflowIdempotencyKey(l.workflowId, 'write-off'), type: 'mf_write_off', description: `Loan ${l.id} write-off`,
          reference: l.id, metadata: { mf_loan_id: l.id, written_off_by: p.userId },
          lines: [
            { accountId: await mfAccount(l.environment, l.currency, 'write_off_expense', c), direction: 'debit', amount: outstanding },
            { accountId: await mfAccount(l.environment, l.currency, 'portfolio', c), direction: 'credit', amount: outstanding },
          ],
        },
        c,
      );
      entryId = entry.id;
    }
    await c.query(`UPDATE mf_loans SET status = 'written_off', write_off_entry_id = $2, written_off_at = now() WHERE id = $1`, [l.id, entryId]);
  });
  await signalWorkflow(loan.workflowId, MF_LOAN_WAKE_SIGNAL).catch(() => false);
  return loan;
}

export type { Environment };
