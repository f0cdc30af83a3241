/** Wire shapes of groups, loan products and group loans (snake_case), and their presenters. */
import type { Group } from '../../../domain/microfinance/groups';
import type { VisibleLoan } from '../../../domain/microfinance/loans';
import type { LoanProduct } from '../../../domain/microfinance/products';
import type { InstalmentView, LoanView } from '../../../domain/microfinance/view';
import { decimalString, timestamp } from '../../schemas';

export const TAG = 'Microfinance';
const id = { type: 'string', minLength: 1, maxLength: 100 };
export const idParams = { type: 'object', required: ['id'], properties: { id } };
export const emptyBody = { type: 'object', additionalProperties: false, properties: {} };
/** POST /groups/{id}/accept (and GraphQL's acceptMicrofinanceGroupInvitation). */
export const acceptBody = { type: 'object', additionalProperties: false, properties: { account_id: { type: 'string', minLength: 1, maxLength: 64 } } };
const nullableTime = { anyOf: [timestamp, { type: 'null' }] };
const date = { type: 'string', format: 'date' };

export const groupBody = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'members'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 200 },
    liability_type: { type: 'string', enum: ['joint'] },
    members: {
      type: 'array',
      maxItems: 100,
      items: {
        anyOf: [
          id,
          {
            type: 'object',
            additionalProperties: false,
            required: ['user_id'],
            properties: { user_id: id, account_id: id, role: { type: 'string', enum: ['leader', 'member'] } },
          },
        ],
      },
    },
  },
};

export const groupSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    liability_type: { type: 'string', enum: ['joint'] },
    status: { type: 'string', enum: ['pending', 'active', 'closed'] },
    guarantee_account_id: { type: ['string', 'null'] },
    created_by: { type: 'string' },
    members: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          user_id: { type: 'string' },
          account_id: { type: ['string', 'null'], description: "The member's account: null while invited, and shown to operators and to that member only" },
          role: { type: 'string', enum: ['leader', 'member'] },
          status: { type: 'string', enum: ['invited', 'accepted', 'declined'], description: 'A member is liable for the others only once accepted' },
          joined_at: timestamp,
          responded_at: nullableTime,
        },
      },
    },
    created_at: timestamp,
    activated_at: nullableTime,
    closed_at: nullableTime,
  },
};

export function presentGroup(g: Group) {
  return {
    id: g.id, name: g.name, liability_type: g.liabilityType, status: g.status, guarantee_account_id: g.guaranteeAccountId, created_by: g.createdBy,
    members: g.members.map((m) => ({
      user_id: m.userId,
      account_id: m.accountId,
      role: m.role,
      status: m.status,
      joined_at: m.joinedAt.toISOString(),
      responded_at: m.respondedAt?.toISOString() ?? null,
    })),
    created_at: g.createdAt.toISOString(), activated_at: g.activatedAt?.toISOString() ?? null, closed_at: g.closedAt?.toISOString() ?? null,
  };
}

const frequencies = ['weekly', 'biweekly', 'monthly'];
const methods = ['flat', 'declining_balance'];

export const productBody = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'currency', 'principal_min', 'principal_max', 'annual_interest_rate', 'interest_method', 'term_instalments', 'repayment_frequency'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 200 },
    currency: { type: 'string', minLength: 1, maxLength: 20 },
    principal_min: decimalString,
    principal_max: decimalString,
    annual_interest_rate: { ...decimalString, description: 'Nominal annual rate as a decimal string: "0.12" is 12 %' },
    interest_method: { type: 'string', enum: methods },
    term_instalments: { type: 'integer', minimum: 1, maximum: 520 },
    repayment_frequency: { type: 'string', enum: frequencies },
    grace_instalments: { type: 'integer', minimum: 0, maximum: 519 },
    arrears_tolerance_days: { type: 'integer', minimum: 0, maximum: 3650 },
    disbursement_fee: { type: 'string', pattern: '^[0-9]+(\\.[0-9]+)?$', maxLength: 40 },
  },
};

export const productSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' }, name: { type: 'string' }, currency: { type: 'string' }, principal_min: { type: 'string' }, principal_max: { type: 'string' },
    annual_interest_rate: { type: 'string' }, interest_method: { type: 'string', enum: methods }, term_instalments: { type: 'integer' },
    repayment_frequency: { type: 'string', enum: frequencies }, grace_instalments: { type: 'integer' }, arrears_tolerance_days: { type: 'integer' },
    disbursement_fee: { type: 'string' }, status: { type: 'string', enum: ['active', 'retired'] }, created_at: timestamp,
  },
};

export function presentProduct(p: LoanProduct) {
  return {
    id: p.id, name: p.name, currency: p.currency, principal_min: p.principalMin, principal_max: p.principalMax, annual_interest_rate: p.annualInterestRate,
    interest_method: p.interestMethod, term_instalments: p.termInstalments, repayment_frequency: p.repaymentFrequency, grace_instalments: p.graceInstalments,
    arrears_tolerance_days: p.arrearsToleranceDays, disbursement_fee: p.disbursementFee, status: p.status, created_at: p.createdAt.toISOString(),
  };
}

export const applyBody = {
  type: 'object',
  additionalProperties: false,
  required: ['product_id', 'principal'],
  properties: { product_id: id, principal: decimalString, user_id: { ...id, description: 'The borrowing member (default: the caller); the group leader applies for others' } },
};
export const repaymentBody = { type: 'object', additionalProperties: false, required: ['amount'], properties: { amount: decimalString } };

const statuses = ['applied', 'approved', 'active', 'closed', 'written_off', 'rejected'];
export const loanSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' }, group_id: { type: 'string' }, user_id: { type: 'string' },
    account_id: { type: ['string', 'null'], description: "The borrower's account: shown to the borrower and operators only (null for other members)" }, product_id: { type: 'string' },
    currency: { type: 'string' }, principal: { type: 'string' }, annual_interest_rate: { type: 'string' }, interest_method: { type: 'string', enum: methods },
    term_instalments: { type: 'integer' }, repayment_frequency: { type: 'string', enum: frequencies }, grace_instalments: { type: 'integer' },
    arrears_tolerance_days: { type: 'integer' }, status: { type: 'string', enum: statuses }, disbursement_entry_id: { type: ['string', 'null'] },
    write_off_entry_id: { type: ['string', 'null'] }, disbursed_on: { anyOf: [date, { type: 'null' }] }, approved_by: { type: ['string', 'null'] },
    created_at: timestamp, approved_at: nullableTime, disbursed_at: nullableTime, closed_at: nullableTime, written_off_at: nullableTime,
  },
};

export function presentLoan(l: VisibleLoan) {
  return {
    id: l.id, group_id: l.groupId, user_id: l.userId, account_id: l.accountId, product_id: l.productId, currency: l.currency, principal: l.principal,
    annual_interest_rate: l.annualInterestRate, interest_method: l.interestMethod, term_instalments: l.termInstalments, repayment_frequency: l.repaymentFrequency,
    grace_instalments: l.graceInstalments, arrears_tolerance_days: l.arrearsToleranceDays, status: l.status, disbursement_entry_id: l.disbursementEntryId,
    write_off_entry_id: l.writeOffEntryId, disbursed_on: l.disbursedOn, approved_by: l.approvedBy, created_at: l.createdAt.toISOString(),
    approved_at: l.approvedAt?.toISOString() ?? null, disbursed_at: l.disbursedAt?.toISOString() ?? null, closed_at: l.closedAt?.toISOString() ?? null,
    written_off_at: l.writtenOffAt?.toISOString() ?? null,
  };
}

const money = { type: 'string' };
export const instalmentSchema = {
  type: 'object',
  properties: {
    number: { type: 'integer' }, due_date: date, principal_due: money, interest_due: money, fee_due: money, total_due: money,
    principal_paid: money, interest_paid: money, fee_paid: money, total_paid: money, paid_on: { anyOf: [date, { type: 'null' }] },
  },
};

export function presentInstalment(i: InstalmentView) {
  return {
    number: i.number, due_date: i.dueDate, principal_due: i.principalDue, interest_due: i.interestDue, fee_due: i.feeDue, total_due: i.totalDue,
    principal_paid: i.principalPaid, interest_paid: i.interestPaid, fee_paid: i.feePaid, total_paid: i.totalPaid, paid_on: i.paidOn,
  };
}

export const loanDetailSchema = {
  type: 'object',
  properties: {
    ...loanSchema.properties,
    schedule: { type: 'array', items: instalmentSchema },
    repayments: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          id: { type: 'string' }, amount: money, source: { type: 'string', enum: ['borrower', 'group_member', 'guarantee_fund'] },
          payer_account_id: { type: ['string', 'null'], description: 'Shown to operators and to the owner of the paying account (null otherwise)' },
          entry_id: { type: 'string' }, allocation: { type: 'object', additionalProperties: true }, paid_on: date, created_at: timestamp,
        },
      },
    },
    totals: {
      type: 'object',
      properties: {
        paid: money, principal_paid: money, interest_paid: money, fees_paid: money, outstanding_principal: money, outstanding_interest: money,
        outstanding_fees: money, arrears: money,
      },
    },
    days_past_due: { type: 'integer' },
  },
};

export function presentLoanView(v: LoanView) {
  const t = v.totals;
  return {
    ...presentLoan(v.loan),
    schedule: v.schedule.map(presentInstalment),
    repayments: v.repayments.map((r) => ({
      id: r.id, amount: r.amount, source: r.source, payer_account_id: r.payerAccountId, entry_id: r.entryId, allocation: r.allocation, paid_on: r.paidOn, created_at: r.createdAt.toISOString(),
    })),
    totals: {
      paid: t.paid, principal_paid: t.principalPaid, interest_paid: t.interestPaid, fees_paid: t.feesPaid, outstanding_principal: t.outstandingPrincipal,
      outstanding_interest: t.outstandingInterest, outstanding_fees: t.outstandingFees, arrears: t.arrears,
    },
    days_past_due: v.daysPastDue,
  };
}
