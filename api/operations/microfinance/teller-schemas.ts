/** Wire shapes of the teller cash routes (teller.ts): JSON schemas and presenters. */
import type { Office, StaffMember, TellerSession, TellerTransaction } from '../../../domain/microfinance/teller';
import { decimalString, timestamp } from '../../schemas';

export const TAG = 'Microfinance';

const currency = { type: 'string', minLength: 1, maxLength: 20 };
const id = { type: 'string', minLength: 1, maxLength: 100 };
const nullableString = { type: ['string', 'null'] };
const nullableTimestamp = { anyOf: [timestamp, { type: 'null' }] };
const countString = { type: 'string', pattern: '^[0-9]+(\\.[0-9]+)?$', maxLength: 40, description: 'Decimal string; "0" when the drawer is empty' };

export const idParams = { type: 'object', required: ['id'], properties: { id } };

export const officeBody = {
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 200 },
    external_id: { type: 'string', minLength: 1, maxLength: 100 },
    parent_id: id,
    fx_spread: { type: 'string', pattern: '^0(\\.[0-9]{1,6})?$', description: 'Margin off the mid rate on currency exchanges (default "0.01" = 1 %)' },
  },
};

export const staffBody = {
  type: 'object',
  additionalProperties: false,
  required: ['user_id'],
  properties: { user_id: id, role: { type: 'string', enum: ['teller', 'supervisor'], default: 'teller' } },
};

export const fundingBody = { type: 'object', additionalProperties: false, required: ['currency', 'amount'], properties: { currency, amount: decimalString } };

const moneyItem = { type: 'object', additionalProperties: false, required: ['currency', 'amount'], properties: { currency, amount: decimalString } };
const countItem = { type: 'object', additionalProperties: false, required: ['currency', 'amount'], properties: { currency, amount: countString } };

export const openBody = {
  type: 'object',
  additionalProperties: false,
  required: ['office_id', 'allocations'],
  properties: { office_id: id, allocations: { type: 'array', minItems: 1, maxItems: 20, items: moneyItem } },
};

export const closeBody = {
  type: 'object',
  additionalProperties: false,
  required: ['counted'],
  properties: { counted: { type: 'array', maxItems: 20, items: countItem } },
};

export const transactionBody = {
  type: 'object',
  additionalProperties: false,
  required: ['session_id', 'type', 'amount', 'currency'],
  properties: {
    session_id: id,
    type: { type: 'string', enum: ['cash_deposit', 'cash_withdrawal', 'currency_exchange'] },
    account_id: id,
    amount: decimalString,
    currency,
    to_currency: currency,
  },
};

export const sessionsQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    office_id: id,
    status: { type: 'string', enum: ['open', 'variance_pending', 'closed'] },
    page: { type: 'integer', minimum: 1, maximum: 1_000_000, default: 1 },
    per_page: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
  },
};

export const transactionsQuery = {
  type: 'object',
  additionalProperties: false,
  required: ['session_id'],
  properties: {
    session_id: id,
    page: { type: 'integer', minimum: 1, maximum: 1_000_000, default: 1 },
    per_page: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
  },
};

export const officeSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    external_id: nullableString,
    parent_id: nullableString,
    fx_spread: { type: 'string' },
    vaults: {
      type: 'array',
      items: { type: 'object', properties: { currency: { type: 'string' }, ledger_account_id: { type: 'string' }, balance: { type: 'string' } } },
    },
    created_at: timestamp,
  },
};

export const staffSchema = {
  type: 'object',
  properties: { id: { type: 'string' }, office_id: { type: 'string' }, user_id: { type: 'string' }, role: { type: 'string', enum: ['teller', 'supervisor'] }, created_at: timestamp },
};

export const fundingSchema = { type: 'object', properties: { office: officeSchema, entry_id: { type: 'string' } } };

export const sessionSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    office_id: { type: 'string' },
    teller_user_id: { type: 'string' },
    status: { type: 'string', enum: ['open', 'variance_pending', 'closed'] },
    tills: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          currency: { type: 'string' },
          ledger_account_id: { type: 'string' },
          allocated: { type: 'string' },
          balance: { type: 'string' },
          expected: nullableString,
          counted: nullableString,
          variance: nullableString,
        },
      },
    },
    open_entry_id: nullableString,
    close_entry_id: nullableString,
    variance_entry_id: nullableString,
    variance_approved_by: nullableString,
    opened_at: timestamp,
    counted_at: nullableTimestamp,
    closed_at: nullableTimestamp,
  },
};

export const transactionSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    session_id: { type: 'string' },
    office_id: { type: 'string' },
    teller_user_id: { type: 'string' },
    type: { type: 'string', enum: ['cash_deposit', 'cash_withdrawal', 'currency_exchange'] },
    account_id: nullableString,
    currency: { type: 'string' },
    amount: { type: 'string' },
    to_currency: nullableString,
    to_amount: nullableString,
    mid_rate: nullableString,
    spread: nullableString,
    applied_rate: nullableString,
    rate_as_of: nullableTimestamp,
    entry_id: { type: 'string' },
    created_at: timestamp,
  },
};

export function presentOffice(o: Office) {
  return {
    id: o.id,
    name: o.name,
    external_id: o.externalId,
    parent_id: o.parentId,
    fx_spread: o.fxSpread,
    vaults: o.vaults.map((v) => ({ currency: v.currency, ledger_account_id: v.ledgerAccountId, balance: v.balance })),
    created_at: o.createdAt.toISOString(),
  };
}

export function presentStaff(s: StaffMember) {
  return { id: s.id, office_id: s.officeId, user_id: s.userId, role: s.role, created_at: s.createdAt.toISOString() };
}

export function presentSession(s: TellerSession) {
  return {
    id: s.id,
    office_id: s.officeId,
    teller_user_id: s.tellerUserId,
    status: s.status,
    tills: s.tills.map((t) => ({
      currency: t.currency,
      ledger_account_id: t.ledgerAccountId,
      allocated: t.allocated,
      balance: t.balance,
      expected: t.expected,
      counted: t.counted,
      variance: t.variance,
    })),
    open_entry_id: s.openEntryId,
    close_entry_id: s.closeEntryId,
    variance_entry_id: s.varianceEntryId,
    variance_approved_by: s.varianceApprovedBy,
    opened_at: s.openedAt.toISOString(),
    counted_at: s.countedAt?.toISOString() ?? null,
    closed_at: s.closedAt?.toISOString() ?? null,
  };
}

export function presentTransaction(t: TellerTransaction) {
  return {
    id: t.id,
    session_id: t.sessionId,
    office_id: t.officeId,
    teller_user_id: t.tellerUserId,
    type: t.type,
    account_id: t.accountId,
    currency: t.currency,
    amount: t.amount,
    to_currency: t.toCurrency,
    to_amount: t.toAmount,
    mid_rate: t.midRate,
    spread: t.spread,
    applied_rate: t.appliedRate,
    rate_as_of: t.rateAsOf?.toISOString() ?? null,
    entry_id: t.entryId,
    created_at: t.createdAt.toISOString(),
  };
}
