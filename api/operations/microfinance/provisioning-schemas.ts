/** Wire shapes of the provisioning routes (provisioning.ts): JSON schemas and presenters. */
import type { CurrencyPortfolio, LoanProvision, ProvisionRun, StoredPolicy } from '../../../domain/microfinance/provisioning';
import { paginationQuery, timestamp } from '../../schemas';

export const TAG = 'Microfinance';

const date = { type: 'string', format: 'date' };
const rate = { type: 'string', pattern: '^(0(\\.[0-9]{1,8})?|1(\\.0{1,8})?)$', maxLength: 10, description: 'Decimal string in [0, 1], e.g. "0.25"' };
const amount = { type: 'string', description: 'Decimal string at the currency\'s minor unit' };
const signedAmount = { type: 'string', description: 'Decimal string at the currency\'s minor unit; negative for a release' };
const stage = { type: 'integer', enum: [1, 2, 3] };

export const loanProvisionSchema = {
  type: 'object',
  properties: {
    loan_id: { type: 'string' },
    currency: { type: 'string' },
    stage,
    days_past_due: { type: 'integer', minimum: 0 },
    ead: amount,
    pd: { type: 'string' },
    lgd: { type: 'string' },
    ecl: amount,
    policy_version: { type: 'integer' },
    as_of: date,
  },
};

export function presentLoanProvision(p: LoanProvision) {
  return {
    loan_id: p.loanId,
    currency: p.currency,
    stage: p.stage,
    days_past_due: p.daysPastDue,
    ead: p.ead,
    pd: p.pd,
    lgd: p.lgd,
    ecl: p.ecl,
    policy_version: p.policyVersion,
    as_of: p.asOf,
  };
}

const stageRates = {
  type: 'object',
  properties: { stage, pd: { type: 'string' }, lgd: { type: 'string' }, description: { type: ['string', 'null'] } },
};

export const policySchema = {
  type: 'object',
  properties: {
    version: { type: 'integer' },
    effective_from: date,
    stages: { type: 'array', items: stageRates },
    created_by: { type: ['string', 'null'] },
    created_at: timestamp,
  },
};

export function presentPolicy(p: StoredPolicy) {
  return {
    version: p.version,
    effective_from: p.effectiveFrom,
    stages: ([1, 2, 3] as const).map((s) => ({ stage: s, pd: p.stages[s].pd, lgd: p.stages[s].lgd, description: p.descriptions[s] })),
    created_by: p.createdBy,
    created_at: p.createdAt.toISOString(),
  };
}

export const policyBody = {
  type: 'object',
  additionalProperties: false,
  required: ['effective_from', 'stages'],
  properties: {
    effective_from: { ...date, description: 'First run date (UTC) the version applies to' },
    stages: {
      type: 'array',
      minItems: 3,
      maxItems: 3,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['stage', 'pd', 'lgd'],
        properties: { stage, pd: rate, lgd: rate, description: { type: 'string', maxLength: 500 } },
      },
    },
  },
};

export const runSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    currency: { type: 'string' },
    run_date: date,
    policy_version: { type: 'integer' },
    loans: { type: 'integer' },
    total_ecl: amount,
    allowance_before: amount,
    allowance_after: amount,
    change: signedAmount,
    entry_id: { type: ['string', 'null'] },
    created_at: timestamp,
  },
};

export function presentRun(r: ProvisionRun) {
  return {
    id: r.id,
    currency: r.currency,
    run_date: r.runDate,
    policy_version: r.policyVersion,
    loans: r.loans,
    total_ecl: r.totalEcl,
    allowance_before: r.allowanceBefore,
    allowance_after: r.allowanceAfter,
    change: r.change,
    entry_id: r.entryId,
    created_at: r.createdAt.toISOString(),
  };
}

export const runBody = {
  type: 'object',
  additionalProperties: false,
  properties: { run_date: { ...date, description: 'Run date (UTC); today when omitted. Not before the latest run of a currency.' } },
};

export const runsQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { currency: { type: 'string', minLength: 1, maxLength: 16 }, ...paginationQuery },
};

export const portfolioQuery = { type: 'object', additionalProperties: false, properties: { as_of: { type: 'string', format: 'date' } } };

const byStage = (item: object) => ({ type: 'object', properties: { '1': item, '2': item, '3': item } });

export const portfolioSchema = {
  type: 'object',
  properties: {
    currency: { type: 'string' },
    as_of: date,
    active_loans: { type: 'integer' },
    gross_portfolio: amount,
    par30: { type: 'string', description: 'Outstanding principal of loans > 30 days past due ÷ gross portfolio' },
    par90: { type: 'string', description: 'Outstanding principal of loans > 90 days past due ÷ gross portfolio' },
    par30_amount: amount,
    par90_amount: amount,
    provisioned_on: { anyOf: [date, { type: 'null' }] },
    allowance_balance: amount,
    allowance_by_stage: byStage(amount),
    loans_by_stage: byStage({ type: 'integer' }),
  },
};

export function presentPortfolio(p: CurrencyPortfolio, asOf: string) {
  return {
    currency: p.currency,
    as_of: asOf,
    active_loans: p.activeLoans,
    gross_portfolio: p.grossPortfolio,
    par30: p.par30,
    par90: p.par90,
    par30_amount: p.par30Amount,
    par90_amount: p.par90Amount,
    provisioned_on: p.provisionedOn,
    allowance_balance: p.allowanceBalance,
    allowance_by_stage: p.allowanceByStage,
    loans_by_stage: p.loansByStage,
  };
}


