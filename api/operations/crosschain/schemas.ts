/** JSON schemas of the cross-chain routes (request validation and the OpenAPI document). */
import { BRIDGE_PROTOCOLS } from '../../../domain/crosschain';
import { decimalString, envelope, errorResponses, timestamp } from '../../schemas';

export const TAG = 'Cross-chain';
const free = { type: 'object', additionalProperties: true };
const nullableStr = { type: ['string', 'null'] };
const chainField = { type: 'string', minLength: 1, maxLength: 64 };
const tokenField = { type: 'string', minLength: 1, maxLength: 64 };
const protocolField = { type: 'string', enum: [...BRIDGE_PROTOCOLS] };
const addressField = { type: 'string', minLength: 1, maxLength: 128 };
export const idField = { type: 'string', minLength: 1, maxLength: 64 };

const alternativeSchema = {
  type: 'object',
  properties: {
    bridge_protocol: { type: 'string' },
    estimated_receive_amount: { type: 'string' },
    fee_amount: { type: 'string' },
    estimated_duration_seconds: { type: 'integer' },
  },
};

export const quoteSchema = {
  type: 'object',
  properties: {
    quote_id: { type: 'string' },
    bridge_protocol: { type: 'string' },
    source_chain: { type: 'string' },
    destination_chain: { type: 'string' },
    token: { type: 'string' },
    destination_token: { type: 'string' },
    asset_code: { type: 'string' },
    input_amount: { type: 'string' },
    estimated_receive_amount: { type: 'string' },
    fee_amount: { type: 'string' },
    fee_currency: { type: 'string' },
    fee_breakdown: free,
    exchange_rate: { type: 'string' },
    estimated_duration_seconds: { type: 'integer' },
    quote_expires_at: timestamp,
    alternative_quotes: { type: 'array', items: alternativeSchema },
    created_at: timestamp,
  },
};

export const transferSchema = {
  type: 'object',
  properties: {
    bridge_tx_id: { type: 'string' },
    quote_id: { type: 'string' },
    status: { type: 'string' },
    source_chain: { type: 'string' },
    destination_chain: { type: 'string' },
    token: { type: 'string' },
    bridge_protocol: { type: 'string' },
    source_tx_hash: nullableStr,
    destination_tx_hash: nullableStr,
    sender_address: { type: 'string' },
    recipient_address: { type: 'string' },
    amount: { type: 'string' },
    created_at: timestamp,
    estimated_completion_at: timestamp,
    account_id: { type: 'string' },
    asset_code: { type: 'string' },
    destination_token: { type: 'string' },
    fee_amount: { type: 'string' },
    fee_currency: { type: 'string' },
    estimated_receive_amount: { type: 'string' },
    min_receive_amount: { type: 'string' },
    slippage_tolerance: { type: 'string' },
    deadline_at: timestamp,
    workflow_id: { type: 'string' },
    source_tx_kind: nullableStr,
    destination_tx_kind: nullableStr,
    attestation: { type: ['object', 'null'], additionalProperties: true },
    failure: { type: ['object', 'null'], properties: { code: { type: 'string' }, reason: { type: 'string' } } },
    compensation: nullableStr,
    recovery_required: { type: 'boolean' },
    completed_at: nullableStr,
    failed_at: nullableStr,
    history: { type: 'array', items: { type: 'object', properties: { status: { type: 'string' }, detail: free, occurred_at: timestamp } } },
    quote: quoteSchema,
  },
};

const initiateDescription =
  'Spends the quote once and starts the bridge workflow; the answer is the transfer as pending with null hashes. account_id (optional, a platform ' +
  'extension) names the account whose source-chain book pays; without it the oldest of your accounts holding the amount there pays. ' +
  'sender_address must be valid on the source chain and recipient_address on the destination chain (EIP-55 checksummed EVM, base58 Solana).';

export const bridgeQuoteSchema = {
  tags: [TAG],
  summary: 'Quote a bridge transfer',
  description:
    'Prices the route with wormhole, layerzero and axelar. The quote is preferred_bridge when given (422 UNSUPPORTED_ROUTE when it does not serve ' +
    'the route), else the offer that delivers most (then the fastest); the others are alternative_quotes. Fees are in the token; the quote holds ' +
    'until quote_expires_at (BRIDGE_QUOTE_TTL_SECONDS, default 120 s).',
  body: {
    type: 'object',
    required: ['source_chain', 'destination_chain', 'token', 'amount'],
    additionalProperties: false,
    properties: { source_chain: chainField, destination_chain: chainField, token: tokenField, amount: decimalString, preferred_bridge: protocolField },
  },
  response: { 201: envelope(quoteSchema), ...errorResponses },
};

export const bridgeInitiateSchema = {
  tags: [TAG],
  summary: 'Initiate a quoted bridge transfer',
  description: initiateDescription + ' A used, expired or unknown (or another user\'s) quote is 422.',
  body: {
    type: 'object',
    required: ['quote_id', 'sender_address', 'recipient_address'],
    additionalProperties: false,
    properties: {
      quote_id: idField,
      sender_address: addressField,
      recipient_address: addressField,
      slippage_tolerance: { type: 'number', minimum: 0, maximum: 0.5, default: 0.005 },
      deadline_minutes: { type: 'integer', minimum: 1, maximum: 10080 },
      account_id: idField,
    },
  },
  response: { 201: envelope(transferSchema), ...errorResponses },
};

export const bridgeTransferGetSchema = {
  tags: [TAG],
  summary: 'A bridge transfer: status, hashes, attestation, failure and history',
  params: { type: 'object', required: ['id'], properties: { id: { type: 'string', maxLength: 64 } } },
  response: { 200: envelope(transferSchema), ...errorResponses },
};

export const bridgeNowSchema = {
  tags: [TAG],
  summary: 'Bridge a token (quote and initiate in one call)',
  description:
    'Quotes with the named protocol and initiates at once (same checks as the v1 quote and initiate). Addresses default to the paying account\'s ' +
    'custodial addresses on each chain. ' +
    initiateDescription,
  body: {
    type: 'object',
    required: ['source_chain', 'destination_chain', 'token', 'amount', 'protocol'],
    additionalProperties: false,
    properties: {
      source_chain: chainField,
      destination_chain: chainField,
      token: tokenField,
      amount: decimalString,
      protocol: protocolField,
      account_id: idField,
      sender_address: addressField,
      recipient_address: addressField,
      slippage_bps: { type: 'integer', minimum: 0, maximum: 5000, default: 50 },
      deadline_minutes: { type: 'integer', minimum: 1, maximum: 10080 },
    },
  },
  response: { 201: envelope(transferSchema), ...errorResponses },
};

export const bridgeFeesSchema = {
  tags: [TAG],
  summary: 'Fees and estimated times per protocol for a route and amount',
  querystring: {
    type: 'object',
    required: ['from', 'to', 'token', 'amount'],
    additionalProperties: false,
    properties: { from: chainField, to: chainField, token: tokenField, amount: decimalString },
  },
  response: {
    200: envelope({
      type: 'object',
      properties: {
        source_chain: { type: 'string' },
        destination_chain: { type: 'string' },
        token: { type: 'string' },
        asset_code: { type: 'string' },
        amount: { type: 'string' },
        recommended: nullableStr,
        protocols: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              protocol: { type: 'string' },
              supported: { type: 'boolean' },
              reason: nullableStr,
              fee_amount: nullableStr,
              fee_currency: { type: 'string' },
              fee_breakdown: { type: ['object', 'null'], additionalProperties: true },
              estimated_receive_amount: nullableStr,
              estimated_duration_seconds: { type: ['integer', 'null'] },
              min_amount: nullableStr,
              max_amount: nullableStr,
              source_mechanism: nullableStr,
              destination_mechanism: nullableStr,
              attestation: nullableStr,
            },
          },
        },
      },
    }),
    ...errorResponses,
  },
};

export const portfolioSchema = {
  tags: [TAG],
  summary: 'Holdings per chain from the ledger (every chain book of your accounts), with USD values and bridges in flight',
  querystring: { type: 'object', additionalProperties: false, properties: { account_id: idField } },
  response: {
    200: envelope({
      type: 'object',
      properties: {
        total_usd: { type: 'string' },
        chains: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              chain: { type: 'string' },
              name: { type: 'string' },
              caip2: { type: 'string' },
              total_usd: { type: 'string' },
              holdings: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: {
                    account_id: { type: 'string' },
                    asset_code: { type: 'string' },
                    token: { type: 'string' },
                    token_address: nullableStr,
                    address: { type: 'string' },
                    available_balance: { type: 'string' },
                    reserved_balance: { type: 'string' },
                    total_balance: { type: 'string' },
                    usd_value: { type: 'string' },
                  },
                },
              },
            },
          },
        },
        assets: {
          type: 'array',
          items: { type: 'object', properties: { asset_code: { type: 'string' }, total_balance: { type: 'string' }, usd_value: { type: 'string' }, chains: { type: 'array', items: { type: 'string' } } } },
        },
        in_flight: { type: 'array', items: transferSchema },
      },
    }),
    ...errorResponses,
  },
};
// POST /api/v2/crosschain/swap and its status (./swap.ts)

const crosschainSwapRecordSchema = { type: 'object', additionalProperties: true };
const str = (max: number) => ({ type: 'string', minLength: 1, maxLength: max });

export const crosschainSwapCreateSchema = {
  tags: [TAG],
  summary: 'Bridge and swap as one operation',
  description:
    'Bridges `amount` of `from_token` from `source_chain` to `destination_chain` (best protocol), then swaps what arrives for `to_token` there ' +
    '(best DEX route). Both legs run as child workflows of one workflow. If the swap fails after the bridge completed, the tokens are bridged ' +
    'back and both bridges\' fees refunded: the account ends with the original amount on the original chain. Route, amount, the swap leg and ' +
    'the funds are checked first (422 with a pointer). slippage_bps bounds the swap and the bridge. Sandbox keys may set sandbox_outcome ' +
    '(revert | drop) for the swap leg\'s transaction; bridge failures use the bridge magic amounts (docs/crosschain.md).',
  body: {
    type: 'object',
    required: ['source_chain', 'destination_chain', 'from_token', 'to_token', 'amount'],
    additionalProperties: false,
    properties: {
      source_chain: str(64),
      destination_chain: str(64),
      from_token: str(64),
      to_token: str(64),
      amount: decimalString,
      slippage_bps: { type: 'integer', minimum: 0, maximum: 5000, default: 50 },
      account_id: str(64),
      sandbox_outcome: { type: 'string', enum: ['revert', 'drop'] },
    },
  },
  response: { 201: envelope(crosschainSwapRecordSchema), ...errorResponses },
};

export const crosschainSwapGetSchema = {
  tags: [TAG],
  summary: 'A cross-chain swap with its bridge, swap and (when compensated) return bridge',
  params: { type: 'object', required: ['id'], properties: { id: { type: 'string', maxLength: 64 } } },
  response: { 200: envelope(crosschainSwapRecordSchema), ...errorResponses },
};
