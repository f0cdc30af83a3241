/**
 * The facts the ECL rules (ecl.ts) need, read set-wise from mf_loans / mf_loan_instalments: one
 * statement for every active loan of an environment and currency (the daily run), or for one loan
 * (the provision route). No query per loan: 10,000 loans are one scan of their schedules.
 */
import type { Queryable } from '../../db/pool';
import type { Environment } from '../../platform/environment';
import type { LoanFacts } from './ecl';

export interface LoanFactsRow extends LoanFacts {
  userId: string;
  environment: Environment;
  currency: string;
  status: string;
}

interface Row {
  loan_id: string;
  user_id: string;
  environment: Environment;
  currency: string;
  status: string;
  principal_outstanding: string;
  oldest_unpaid_due: string | null;
  overdue_interest: string;
  cur_start: string | null;
  cur_due: string | null;
  cur_interest_due: string | null;
  cur_interest_paid: string | null;
}

// The current period starts at the previous instalment's due date, else the disbursement date,
// else one repayment period before the first due date (a loan row without disbursed_on).
const FACTS_SQL = `
WITH l AS (
  SELECT id, user_id, environment, currency, status, disbursed_on, repayment_frequency
  FROM mf_loans
  WHERE ($1::text IS NULL OR (environment = $1 AND currency = $2 AND status = 'active'))
    AND ($4::text IS NULL OR id = $4)
), i AS (
  SELECT i.loan_id, i.number, i.due_date,
         i.principal_due - i.principal_paid AS principal_left,
         i.interest_due, i.interest_paid,
         (i.principal_paid < i.principal_due OR i.interest_paid < i.interest_due OR i.fee_paid < i.fee_due) AS unpaid,
         COALESCE(lag(i.due_date) OVER (PARTITION BY i.loan_id ORDER BY i.number), l.disbursed_on,
                  (i.due_date - CASE l.repayment_frequency WHEN 'weekly' THEN interval '7 days'
                                                           WHEN 'biweekly' THEN interval '14 days'
                                                           ELSE interval '1 month' END)::date) AS period_start
  FROM l JOIN mf_loan_instalments i ON i.loan_id = l.id
), agg AS (
  SELECT loan_id,
         sum(principal_left) AS principal_outstanding,
         min(due_date) FILTER (WHERE unpaid AND due_date <= $3::date) AS oldest_unpaid_due,
         COALESCE(sum(interest_due - interest_paid) FILTER (WHERE due_date <= $3::date), 0) AS overdue_interest,
         (array_agg(ARRAY[period_start::text, due_date::text, interest_due::text, interest_paid::text] ORDER BY number)
            FILTER (WHERE due_date > $3::date))[1:1] AS cur
  FROM i GROUP BY loan_id
)
SELECT l.id AS loan_id, l.user_id, l.environment, l.currency, l.status,
       COALESCE(agg.principal_outstanding, 0)::text AS principal_outstanding,
       agg.oldest_unpaid_due::text AS oldest_unpaid_due,
       COALESCE(agg.overdue_interest, 0)::text AS overdue_interest,
       agg.cur[1][1] AS cur_start, agg.cur[1][2] AS cur_due, agg.cur[1][3] AS cur_interest_due, agg.cur[1][4] AS cur_interest_paid
FROM l LEFT JOIN agg ON agg.loan_id = l.id
ORDER BY l.id`;

function toFacts(r: Row): LoanFactsRow {
  return {
    loanId: r.loan_id,
    userId: r.user_id,
    environment: r.environment,
    currency: r.currency,
    status: r.status,
    principalOutstanding: r.principal_outstanding,
    oldestUnpaidDueDate: r.oldest_unpaid_due,
    overdueInterest: r.overdue_interest,
    currentPeriod:
      r.cur_due === null || r.cur_start === null
        ? null
        : { start: r.cur_start, due: r.cur_due, interestDue: r.cur_interest_due ?? '0', interestPaid: r.cur_interest_paid ?? '0' },
  };
}

/** Facts of every active loan of an environment and currency on the run date (YYYY-MM-DD). */
export async function activeLoanFacts(environment: Environment, currency: string, runDate: string, client: Queryable): Promise<LoanFactsRow[]> {
  const { rows } = await client.query<Row>(FACTS_SQL, [environment, currency, runDate, null]);
  return rows.map(toFacts);
}

/** Facts of one loan (any status) on a date; null when there is no such loan. */
export async function loanFacts(loanId: string, runDate: string, client: Queryable): Promise<LoanFactsRow | null> {
  const { rows } = await client.query<Row>(FACTS_SQL, [null, null, runDate, loanId]);
  return rows[0] ? toFacts(rows[0]) : null;
}
