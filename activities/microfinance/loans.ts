/**
 * The step of the loan workflow (workflows/microfinance-loan.ts): one review of the loan on the workflow's
 * clock (domain/microfinance/liability.ts reviewLoan). Idempotent: it locks the loan and acts on
 * what the database says; its ledger postings are keyed by the workflow id and step.
 */
import { reviewLoan, type LoanReview } from '../../domain/microfinance/liability';
import { businessFailure } from '../failures';

export function createMfLoanActivities() {
  return {
    async reviewMfLoan(input: { loanId: string; nowMs: number; workflowId: string }): Promise<LoanReview> {
      return reviewLoan(input.loanId, input.nowMs, input.workflowId).catch(businessFailure);
    },
  };
}

export type MfLoanActivities = ReturnType<typeof createMfLoanActivities>;
