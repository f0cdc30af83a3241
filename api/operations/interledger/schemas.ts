/** Wire schemas of the Interledger area. */
import { decimalString, timestamp } from '../../schemas';

export const TAG = 'Interledger';

const opAmount = { type: 'object', properties: { value: { type: 'string' }, assetCode: { type: 'string' }, assetScale: { type: 'integer' } } };

export const quoteSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    receiver: { type: 'string' },
    wallet_address: { type: 'string' },
    send_amount: { type: 'string' },
    send_currency: { type: 'string' },
    fee: { type: 'string' },
    receive_amount: { type: 'string' },
    receive_currency: { type: 'string' },
    fx_rate: { type: 'string' },
    expires_at: timestamp,
    expired: { type: 'boolean' },
    used: { type: 'boolean' },
    open_payments: { type: 'object', properties: { debitAmount: opAmount, receiveAmount: opAmount, fee: opAmount } },
    created_at: timestamp,
  },
};

export const paymentSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    quote_id: { type: 'string' },
    account_id: { type: 'string' },
    status: { type: 'string' },
    workflow_id: { type: 'string' },
    destination: { type: ['string', 'null'] },
    execution_condition: { type: ['string', 'null'] },
    fulfillment: { type: ['string', 'null'] },
    ilp_reject_code: { type: ['string', 'null'] },
    packets: { type: 'array', items: { type: 'object', properties: { type: { type: 'string' }, base64: { type: 'string' } } } },
    failure: { type: ['object', 'null'], properties: { code: { type: 'string' }, reason: { type: 'string' } } },
    compensation_executed: { type: 'boolean' },
    quote: quoteSchema,
    created_at: timestamp,
    completed_at: { type: ['string', 'null'] },
    failed_at: { type: ['string', 'null'] },
  },
};

export const quoteBody = {
  type: 'object',
  required: ['send_amount', 'send_currency', 'receive_currency', 'receiver'],
  additionalProperties: false,
  properties: {
    send_amount: decimalString,
    send_currency: { type: 'string', minLength: 1, maxLength: 12 },
    receive_currency: { type: 'string', minLength: 1, maxLength: 12 },
    receiver: { type: 'string', minLength: 3, maxLength: 500 },
  },
};

export const paymentBody = {
  type: 'object',
  required: ['quote_id', 'account_id'],
  additionalProperties: false,
  properties: { quote_id: { type: 'string', minLength: 1, maxLength: 64 }, account_id: { type: 'string', minLength: 1, maxLength: 64 } },
};

export const idParams = { type: 'object', required: ['id'], properties: { id: { type: 'string', maxLength: 64 } } };
