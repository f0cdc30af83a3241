/** JSON schemas of the DeFi routes (request validation and the OpenAPI document). */
import { DEFAULT_SLIPPAGE_BPS } from '../../../domain/defi/swaps/quotes';
import { decimalString, envelope, errorResponses, timestamp } from '../../schemas';

export const TAG = 'Decentralized finance';

const routeSchema = {
  type: 'object',
  properties: { dex: { type: 'string' }, path: { type: 'array', items: { type: 'string' } }, pools: { type: 'array', items: { type: 'string' } }, fee_tier: { type: 'string' } },
};

const quoteSchema = {
  type: 'object',
  properties: {
    quote_id: { type: 'string' },
    chain: { type: 'string' },
    token_in: { type: 'string' },
    token_out: { type: 'string' },
    amount_in: { type: 'string' },
    estimated_output: { type: 'string' },
    price_impact_percent: { type: 'string' },
    estimated_gas_usd: { type: 'string' },
    best_route: routeSchema,
    alternative_routes: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          dex: { type: 'string' },
          estimated_output: { type: 'string' },
          price_impact_percent: { type: 'string' },
          path: { type: 'array', items: { type: 'string' } },
          pools: { type: 'array', items: { type: 'string' } },
          fee_tier: { type: 'string' },
          estimated_gas_usd: { type: 'string' },
        },
      },
    },
    minimum_output: { type: 'string' },
    slippage_bps: { type: 'integer' },
    network_fee: { type: 'string' },
    gas_price_gwei: { type: 'string' },
    dex_sources: { type: 'array', items: { type: 'string' } },
    quote_expires_at: timestamp,
    created_at: timestamp,
  },
};

const nullableString = { type: ['string', 'null'] };
const swapSchema = {
  type: 'object',
  properties: {
    swap_id: { type: 'string' },
    quote_id: { type: 'string' },
    status: { type: 'string', enum: ['pending', 'submitted', 'included', 'completed', 'failed'] },
    tx_hash: nullableString,
    chain: { type: 'string' },
    token_in: { type: 'string' },
    token_out: { type: 'string' },
    dex: { type: 'string' },
    amount_in: { type: 'string' },
    expected_output: { type: 'string' },
    minimum_output: { type: 'string' },
    actual_output: nullableString,
    network_fee: nullableString,
    amount_received: nullableString,
    gas_price_gwei: nullableString,
    gas_used: nullableString,
    block_number: { type: ['integer', 'null'] },
    route: routeSchema,
    account_id: { type: 'string' },
    wallet_address: { type: 'string' },
    max_gas_price_gwei: nullableString,
    deadline_at: timestamp,
    workflow_id: { type: 'string' },
    failure: { type: ['object', 'null'], properties: { code: { type: 'string' }, reason: { type: 'string' } } },
    compensation_executed: { type: 'boolean' },
    created_at: timestamp,
    completed_at: nullableString,
    failed_at: nullableString,
    quote: quoteSchema,
  },
};

const loanSchema = { type: 'object', additionalProperties: true };
const dexSourcesSchema = { type: 'array', maxItems: 10, items: { type: 'string', minLength: 1, maxLength: 32 } };
const sandboxOutcomeSchema = { type: 'string', enum: ['revert', 'drop'], description: 'Sandbox keys only: make the sandbox chain revert or drop the swap transaction' };
const tokenSchema = { type: 'string', minLength: 1, maxLength: 64 };
const chainSchema = { type: 'string', minLength: 1, maxLength: 64 };

export const swapQuoteSchema = {
  tags: [TAG],
  summary: 'Quote a swap: best route across DEX sources',
  description:
    'Prices every one- and two-hop route (A -> B, A -> X -> B) on each requested DEX (default: all on the chain) with the pools\' exact ' +
    'contract math at their current reserves, and picks the highest output net of gas. price_impact_percent excludes LP fees; ' +
    'estimated_gas_usd prices the route\'s gas at the chain\'s gas price and the native coin\'s USD rate; the network fee (that gas, in ' +
    'token_out) is deducted from the output at settlement. slippage_tolerance is a fraction (default 0.005): minimum_output = ' +
    'estimated_output x (1 - slippage). The quote expires after 30 seconds and can be executed once, by its owner.',
  body: {
    type: 'object',
    required: ['chain', 'token_in', 'token_out', 'amount_in'],
    additionalProperties: false,
    properties: {
      chain: chainSchema,
      token_in: tokenSchema,
      token_out: tokenSchema,
      amount_in: decimalString,
      slippage_tolerance: { type: 'number', minimum: 0, maximum: 0.5 },
      dex_sources: dexSourcesSchema,
    },
  },
  response: { 201: envelope(quoteSchema), ...errorResponses },
};

export const swapQuoteQuerySchema = {
  tags: [TAG],
  summary: 'Best quote across exchanges (query form)',
  description: 'Same pricing as POST /api/v1/defi/swap/quote; chain defaults to ethereum, slippage_bps to 50, dex_sources (comma-separated) to all. The quote is stored and can be executed.',
  querystring: {
    type: 'object',
    required: ['from', 'to', 'amount'],
    additionalProperties: false,
    properties: {
      from: tokenSchema,
      to: tokenSchema,
      amount: decimalString,
      chain: chainSchema,
      slippage_bps: { type: 'integer', minimum: 0, maximum: 5000 },
      dex_sources: { type: 'string', maxLength: 200 },
    },
  },
  response: { 200: envelope(quoteSchema), ...errorResponses },
};


/** How a swap executes (wallet, gas cap, deadline, paying account, sandbox outcome): shared by both execute routes. */
const executionProperties = {
      wallet_address: { type: 'string', minLength: 1, maxLength: 128 },
      max_gas_price_gwei: { type: 'number', minimum: 0.000000001, description: 'Gwei, at least 1 wei (0.000000001)' },
      deadline_minutes: { type: 'integer', minimum: 1, maximum: 1440, default: 20 },
      account_id: { type: 'string', minLength: 1, maxLength: 64 },
      sandbox_outcome: sandboxOutcomeSchema,
};

export const swapExecuteSchema = {
  tags: [TAG],
  summary: 'Execute a swap quote',
  description:
    'Spends the quote (once, by its owner, before it expires: else 422 QUOTE_NOT_FOUND / QUOTE_ALREADY_USED / QUOTE_EXPIRED) and runs the swap ' +
    'workflow: check quote and deadline, reserve token_in on the account\'s chain book, submit (refused when the chain\'s gas price is above ' +
    'max_gas_price_gwei), wait for inclusion until the deadline, execute against the pools at their current reserves (refused below the ' +
    'minimum output), settle in one ledger entry. The answer comes once the transaction is submitted: status submitted with tx_hash (or ' +
    'failed, with the reason, when it failed before). account_id defaults to the caller\'s first account holding enough token_in on the chain.',
  body: {
    type: 'object',
    required: ['quote_id', 'wallet_address'],
    additionalProperties: false,
    properties: {
      quote_id: { type: 'string', minLength: 1, maxLength: 64 },
      ...executionProperties,
    },
  },
  response: { 201: envelope(swapSchema), ...errorResponses },
};

export const quoteAndExecuteSchema = {
  tags: [TAG],
  summary: 'Quote and execute a swap in one call',
  description:
    'Quotes (chain defaults to ethereum) and executes at once with the same workflow as POST /api/v1/defi/swap/execute. The wallet defaults ' +
    'to the account\'s custodied address on the chain. The answer carries the swap and its quote.',
  body: {
    type: 'object',
    required: ['from_token', 'to_token', 'amount'],
    additionalProperties: false,
    properties: {
      from_token: tokenSchema,
      to_token: tokenSchema,
      amount: decimalString,
      slippage_bps: { type: 'integer', minimum: 0, maximum: 5000, default: DEFAULT_SLIPPAGE_BPS },
      chain: chainSchema,
      dex_sources: dexSourcesSchema,
      ...executionProperties,
    },
  },
  response: { 201: envelope(swapSchema), ...errorResponses },
};

export const flashLoanSchema = {
  tags: [TAG],
  summary: 'Flash loan: borrow, run operations, repay, keep the profit - atomically',
  description:
    'Borrows `amount` of `token` from the chain\'s lending pool (fee 0.09 %), runs the operations in order (type swap: everything held of ' +
    '`from` into `to` on the best direct pool of `dex`), repays amount + fee and books the profit minus the network fee on the account\'s ' +
    'chain book. All in one database transaction: if an operation fails or the end balance cannot repay, nothing happens (no ledger entry, ' +
    'pools unchanged) and the 422 names the failing step (source.pointer /operations/<index>, meta.operation_index). chain defaults to ethereum.',
  body: {
    type: 'object',
    required: ['token', 'amount', 'operations'],
    additionalProperties: false,
    properties: {
      token: tokenSchema,
      amount: decimalString,
      chain: chainSchema,
      account_id: { type: 'string', minLength: 1, maxLength: 64 },
      operations: {
        type: 'array',
        minItems: 1,
        maxItems: 10,
        items: {
          type: 'object',
          required: ['type', 'from', 'to', 'dex'],
          additionalProperties: false,
          properties: { type: { type: 'string', minLength: 1, maxLength: 32 }, from: tokenSchema, to: tokenSchema, dex: { type: 'string', minLength: 1, maxLength: 32 } },
        },
      },
    },
  },
  response: { 201: envelope(loanSchema), ...errorResponses },
};

export const flashLoanGetSchema = {
  tags: [TAG],
  summary: 'A completed flash loan',
  params: { type: 'object', required: ['id'], properties: { id: { type: 'string', maxLength: 64 } } },
  response: { 200: envelope(loanSchema), ...errorResponses },
};

export const portfolioSchema = {
  tags: [TAG],
  summary: 'DeFi portfolio: holdings per chain, swaps, flash loans, positions',
  description:
    'Token holdings per chain and asset from the ledger\'s chain books with USD values, the latest swaps and flash loans, and the open ' +
    'positions: liquidity (share of the pool reserves, impermanent loss against holding), lending (supplies, debts, health factor; counted ' +
    'as collateral less debt) and staking (principal and pending rewards). `yield_positions` lists what earns among those positions ' +
    '(each lending supply at its supply rate, each stake at its reward rate, each liquidity position on pool fees, rate null); it is a view ' +
    'of the same positions and is not added to the totals. USD at the platform\'s latest rates.',
  response: { 200: envelope({ type: 'object', additionalProperties: true }), ...errorResponses },
};

export const poolsSchema = {
  tags: [TAG],
  summary: 'DEX pools and flash-loan lenders with their current reserves',
  querystring: { type: 'object', additionalProperties: false, properties: { chain: chainSchema } },
  response: { 200: envelope({ type: 'object', additionalProperties: true }), ...errorResponses },
};

export const getSwapSchema = {
  tags: [TAG],
  summary: 'A swap with its status, transaction and outcome',
  params: { type: 'object', required: ['swap_id'], properties: { swap_id: { type: 'string', maxLength: 64 } } },
  response: { 200: envelope(swapSchema), ...errorResponses },
};
