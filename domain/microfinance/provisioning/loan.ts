/**
 * One loan's provision computed now (GET /loans/{id}/provision): the borrower sees their own loan,
 * an operator any loan of their environment; anything else is MF_LOAN_NOT_FOUND (404).
 */
import type { Principal } from '../../auth/principal';
import { getPool, type Queryable } from '../../db/pool';
import { DomainError } from '../../platform/errors';
import { computeProvision, type Stage } from './ecl';
import { loanFacts } from './facts';
import { provisionPolicyOn } from './policies';
import { todayUtc } from './run';

export interface LoanProvision {
  loanId: string;
  currency: string;
  stage: Stage;
  daysPastDue: number;
  ead: string;
  pd: string;
  lgd: string;
  ecl: string;
  policyVersion: number;
  /** The date it was computed for (today, UTC). */
  asOf: string;
}

export async function getLoanProvision(principal: Principal, loanId: string, now = new Date(), client: Queryable = getPool()): Promise<LoanProvision> {
  const asOf = todayUtc(now);
  const facts = await loanFacts(loanId, asOf, client);
  if (!facts || facts.environment !== principal.environment || (facts.userId !== principal.userId && !principal.isAdmin)) {
    throw new DomainError('MF_LOAN_NOT_FOUND', `loan ${loanId} not found`);
  }
  if (facts.status !== 'active') throw new DomainError('MF_LOAN_NOT_ACTIVE', `loan ${loanId} is ${facts.status}: only active loans are provisioned`);
  const { rows } = await client.query<{ precision: number }>('SELECT precision FROM assets WHERE code = $1', [facts.currency]);
  const policy = await provisionPolicyOn(asOf, client);
  const p = computeProvision(facts, asOf, policy, rows[0].precision);
  return { loanId, currency: facts.currency, ...p, policyVersion: policy.version, asOf };
}
