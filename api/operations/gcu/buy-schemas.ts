/** Wire schemas of buying basket units (POST /gcu/buy, GET /gcu/buy/{id}). */
import { decimalString, envelope, errorResponses, timestamp } from '../../schemas';

const TAG = 'GCU';
const nullableString = { type: ['string', 'null'] };

export const buySchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    status: { type: 'string', enum: ['pending', 'reserved', 'completed', 'failed'] },
    account_uuid: { type: 'string' },
    basket_code: { type: 'string' },
    spend_asset: { type: 'string' },
    amount: { type: 'string', description: 'Basket units bought' },
    quoted_price: { type: 'string', description: 'Spend asset per basket unit at the quote' },
    max_price: { type: 'string', description: 'quoted_price × (1 + slippage_bps / 10,000): the most the buy executes at' },
    slippage_bps: { type: 'integer' },
    fee_bps: { type: 'integer' },
    quoted_cost: { type: 'string' },
    quoted_fee: { type: 'string' },
    reserved_amount: { type: 'string', description: 'Held on the account while the buy runs: cost and fee at max_price' },
    execution_price: nullableString,
    cost: nullableString,
    fee: nullableString,
    total: nullableString,
    value_usd: { type: 'string', description: 'USD value of one basket unit at the quote' },
    quote_expires_at: timestamp,
    workflow_id: { type: 'string' },
    reservation_entry_id: nullableString,
    settlement_entry_id: nullableString,
    failure: { type: ['object', 'null'], properties: { code: { type: 'string' }, reason: { type: 'string' }, compensation: { type: 'string' } } },
    created_at: timestamp,
    completed_at: nullableString,
    failed_at: nullableString,
  },
};

export const buyBody = {
  type: 'object',
  required: ['account_uuid', 'spend_asset'],
  additionalProperties: false,
  properties: {
    account_uuid: { type: 'string', minLength: 1, maxLength: 100 },
    spend_asset: { type: 'string', minLength: 1, maxLength: 12 },
    amount: { ...decimalString, description: 'Basket units to buy (at most the basket precision); or give spend_amount' },
    spend_amount: { ...decimalString, description: 'Most to spend, fee included; buys the most whole basket minor units it pays for at max_price' },
    basket_code: { type: 'string', minLength: 1, maxLength: 32, default: 'GCU' },
    slippage_bps: { type: 'integer', minimum: 0, maximum: 1000, default: 50 },
  },
};

export const buyPostSchema = {
  tags: [TAG],
  summary: 'Buy GCU (or another basket) with one asset',
  description:
    'Body: account_uuid, spend_asset, exactly one of amount (basket units) and spend_amount (most to spend, fee included), basket_code ' +
    '(default GCU), slippage_bps (0–1000, default 50). Price = basket value in USD (IMF method) ÷ the spend asset’s USD rate. ' +
    'The quote fixes the units, the price and max_price = price × (1 + slippage); the fee is GCU_BUY_FEE_BPS (default 25 bps) of the cost. ' +
    'Costs and fees round up to the spend asset’s precision; units bought for a spend_amount round down. A workflow reserves cost and ' +
    'fee at max_price, prices the basket again (above max_price: failed SLIPPAGE_EXCEEDED; later than quote_expires_at, 60 s: ' +
    'QUOTE_EXPIRED), then in one ledger entry takes cost + fee at the execution price, has the platform desk sell the components into ' +
    'the basket reserve and credits the units; any failure voids the reservation. 202 with the buy; poll GET /gcu/buy/{id}. ' +
    'Idempotency-Key returns the same buy.',
  body: buyBody,
  response: { 202: envelope(buySchema), ...errorResponses },
};

export const buyGetSchema = {
  tags: [TAG],
  summary: 'A buy of basket units: quote, status, execution and settlement',
  params: { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1, maxLength: 100 } } },
  response: { 200: envelope(buySchema), ...errorResponses },
};
