/** Wire schemas of the accounts area. Transactions and transfers of an account use those areas' schemas. */
import { decimalString, metadataSchema, paginationQuery } from '../../schemas';
import { transactionSchema, transactionStatusFilter, transactionTypeFilter } from '../transactions/schemas';

export const accountSchema = {
  type: 'object',
  properties: {
    uuid: { type: 'string', example: 'acct_1c2d…' },
    name: { type: 'string' },
    type: { type: 'string', enum: ['personal', 'business', 'savings'] },
    status: { type: 'string', enum: ['active', 'frozen', 'closed'] },
    metadata: { type: 'object', additionalProperties: true },
    created_at: { type: 'string' },
    updated_at: { type: 'string' },
    identifiers: {
      type: 'object',
      description:
        "The account's identifiers, shown to its owner only (the operator routes omit them): the IBAN to receive a SEPA transfer and to name in an open-banking consent. The platform issues no US routing/account numbers.",
      properties: { iban: { type: 'string', example: 'DE66000000000000000042' } },
    },
  },
};

export const balancesSchema = {
  type: 'object',
  properties: {
    account_uuid: { type: 'string' },
    balances: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          asset_code: { type: 'string' },
          available_balance: { type: 'string' },
          reserved_balance: { type: 'string' },
          total_balance: { type: 'string' },
        },
      },
    },
    summary: { type: 'object', properties: { total_assets: { type: 'integer' }, total_usd_equivalent: { type: 'string' } } },
  },
};

export const uuidParams = { type: 'object', required: ['uuid'], properties: { uuid: { type: 'string', maxLength: 64 } } };

export const pageQuery = { type: 'object', properties: paginationQuery, additionalProperties: false };

export const createBody = {
  type: 'object',
  required: ['name'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 255 },
    type: { type: 'string', enum: ['personal', 'business', 'savings'], default: 'personal' },
    metadata: metadataSchema,
  },
};

export const updateBody = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 255 },
    metadata: { ...metadataSchema, description: 'Replaces the whole metadata object. ' + String(metadataSchema.description ?? '') },
  },
};

export const transactionsQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ...paginationQuery,
    limit: { type: 'integer', minimum: 1, maximum: 100 },
    type: transactionTypeFilter,
    status: transactionStatusFilter,
    asset_code: { type: 'string', maxLength: 12 },
    start_date: { type: 'string', format: 'date-time' },
    end_date: { type: 'string', format: 'date-time' },
    sort: { type: 'string', enum: ['created_at', '-created_at', 'amount', '-amount'] },
  },
};

export const cashBody = {
  type: 'object',
  required: ['amount', 'asset_code'],
  additionalProperties: false,
  properties: {
    amount: decimalString,
    asset_code: { type: 'string', minLength: 1, maxLength: 12 },
    reference: { type: 'string', maxLength: 140 },
    chain: {
      type: 'string',
      minLength: 1,
      maxLength: 40,
      description:
        'Crypto assets: the chain the deposit arrives on or the withdrawal leaves from (e.g. base for USDC on Base); default the asset\'s home chain. ' +
        'Each chain is a book of its own (GET /api/v2/crosschain/portfolio); an asset the chain does not carry is 422 UNKNOWN_TOKEN.',
    },
  },
};

export const cashResult = {
  type: 'object',
  properties: {
    transaction: transactionSchema,
    entry_id: { type: 'string' },
    settlement: { type: 'string', enum: ['settled', 'awaiting_confirmation'] },
  },
};

export const reasonBody = { type: ['object', 'null'], additionalProperties: false, properties: { reason: { type: 'string', maxLength: 500 } } };
