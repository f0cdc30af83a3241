/**
 * IFRS 9 provisioning of microfinance loans (docs/microfinance-provisioning.md): the ECL rules
 * (ecl.ts, pure), the loan facts read set-wise (facts.ts), policies (policies.ts), the daily run and
 * its ledger posting (run.ts, accounts.ts), one loan's provision (loan.ts), the portfolio report
 * (report.ts) and the daily schedule (schedule.ts).
 */
export * from './ecl';
export { activeLoanFacts, loanFacts, type LoanFactsRow } from './facts';
export { listProvisionPolicies, provisionPolicyOn, createProvisionPolicy, validatePolicyInput, type StoredPolicy, type NewPolicyInput } from './policies';
export { allowanceAccountId, provisionExpenseAccountId, allowanceBalance, provisioningCurrencies, ALLOWANCE_ACCOUNT_CODE, PROVISION_EXPENSE_ACCOUNT_CODE } from './accounts';
export { runProvisioning, runProvisioningForEnvironment, listProvisionRuns, todayUtc, assertRunDate, runDateOrToday, type ProvisionRun } from './run';
export { getLoanProvision, type LoanProvision } from './loan';
export { portfolioReport, type CurrencyPortfolio } from './report';
