/** JSON schemas of the lending routes (request validation and the OpenAPI document). */
import { decimalString, envelope, errorResponses, timestamp } from '../../schemas';
import { TAG } from './schemas';

const nullableString = { type: ['string', 'null'] };
const rate = { type: 'string', description: 'Annual rate as a fraction (0.05 = 5 %).' };

export const marketSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    chain: { type: 'string' },
    protocol: { type: 'string' },
    asset_code: { type: 'string' },
    total_supplied: { type: 'string' },
    total_borrowed: { type: 'string' },
    available_liquidity: { type: 'string' },
    utilization: { type: 'string' },
    supply_rate: rate,
    borrow_rate: rate,
    rate_model: {
      type: 'object',
      description: "The kinked model: base + slope1 x U / U* up to the optimal utilization U*, base + slope1 + slope2 x (U - U*) / (1 - U*) above; supply rate = borrow rate x U x (1 - reserve factor).",
      properties: { base_rate: rate, slope1: rate, slope2: rate, optimal_utilization: { type: 'string' }, reserve_factor: { type: 'string' } },
    },
    ltv: { type: 'string', description: 'Borrowing power per unit of collateral value.' },
    liquidation_threshold: { type: 'string', description: 'Share of the collateral value counted in the health factor.' },
    liquidation_bonus: { type: 'string', description: "The liquidator's bonus on seized collateral: the borrower's penalty." },
    usd_price: nullableString,
    supply_index: { type: 'string' },
    borrow_index: { type: 'string' },
    accrued_at: timestamp,
  },
};

const balanceSchema = {
  type: 'object',
  properties: { market_id: { type: 'string' }, asset_code: { type: 'string' }, amount: { type: 'string' }, usd_value: { type: 'string' }, rate },
};

export const lendingPositionSchema = {
  type: 'object',
  properties: {
    position_id: { type: 'string' },
    position_type: { type: 'string', enum: ['lending'] },
    status: { type: 'string', enum: ['open', 'closed'] },
    account_id: { type: 'string' },
    chain: { type: 'string' },
    protocol: { type: 'string' },
    supplied: { type: 'array', items: balanceSchema },
    borrowed: { type: 'array', items: balanceSchema },
    collateral_usd: { type: 'string' },
    debt_usd: { type: 'string' },
    borrowing_power_usd: { type: 'string' },
    liquidation_threshold_usd: { type: 'string' },
    health_factor: { ...nullableString, description: 'Σ collateral x liquidation threshold / debt, rounded down to 6 places; null without debt. Below 1 the position is liquidated.' },
    warning_threshold: { type: 'string' },
    liquidation_warning: { type: 'boolean', description: 'position.liquidation_warning was sent and the factor has not recovered since.' },
    liquidations: { type: 'integer' },
    created_at: timestamp,
    closed_at: nullableString,
  },
};

export const operationSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    position_id: { type: 'string' },
    kind: { type: 'string', enum: ['supply', 'withdraw', 'borrow', 'repay', 'liquidation'] },
    market_id: { type: 'string' },
    asset_code: { type: 'string' },
    amount: { type: 'string' },
    seized: {
      type: ['object', 'null'],
      description: 'Liquidations: the collateral taken for `amount` of debt repaid, of which `penalty` is the liquidation bonus.',
      properties: { market_id: { type: 'string' }, asset_code: { type: 'string' }, amount: { type: 'string' }, penalty: { type: 'string' } },
    },
    health_factor: { ...nullableString, description: 'After the operation (before it, for a liquidation).' },
    entry_id: { type: 'string' },
    created_at: timestamp,
  },
};

const DESCRIPTIONS = {
  supply:
    'Supplies tokens of the account\'s chain book to the market: they earn the supply rate (the balance grows with the market\'s supply index) and are collateral for ' +
    'borrowing on the same chain and protocol. The first supply opens the account\'s lending position there (event position.opened). Without account_id: the ' +
    "caller's oldest active account holding the amount.",
  withdraw:
    'Withdraws supplied tokens (interest included) back to the chain book. `amount` "max" withdraws everything. Refused when the market lacks the cash ' +
    '(INSUFFICIENT_LIQUIDITY) or when the health factor would fall below 1 (HEALTH_FACTOR_TOO_LOW). Emptying the position closes it (position.closed).',
  borrow:
    'Borrows tokens onto the chain book against the position\'s collateral, at the market\'s variable borrow rate (the debt grows with the borrow index, ' +
    'compounding per second of block time). Refused when the debt would exceed the borrowing power Σ collateral x LTV (INSUFFICIENT_COLLATERAL).',
  repay:
    'Repays debt from the chain book. `amount` "max" (or any amount above the debt) repays the whole debt with its interest. Emptying the position closes it.',
} as const;

function operationRoute(kind: keyof typeof DESCRIPTIONS, summary: string, amount: Record<string, unknown>) {
  return {
    tags: [TAG],
    summary,
    description: DESCRIPTIONS[kind],
    body: {
      type: 'object',
      required: ['market_id', 'amount'],
      additionalProperties: false,
      properties: { market_id: { type: 'string', minLength: 1, maxLength: 100 }, amount, account_id: { type: 'string', minLength: 1, maxLength: 64 } },
    },
    response: { 200: envelope({ type: 'object', properties: { operation: operationSchema, position: lendingPositionSchema } }), ...errorResponses },
  };
}

const maxOrDecimal = { type: 'string', minLength: 1, maxLength: 40, description: 'Decimal string, e.g. "100.50", or "max" for the whole balance' };

export const supplySchema = operationRoute('supply', 'Supply tokens to a money market (collateral that earns interest)', decimalString);
export const withdrawSchema = operationRoute('withdraw', 'Withdraw supplied tokens with their interest', maxOrDecimal);
export const borrowSchema = operationRoute('borrow', 'Borrow from a money market against the position\'s collateral', decimalString);
export const repaySchema = operationRoute('repay', 'Repay borrowed tokens with their interest', maxOrDecimal);

export const marketsSchema = {
  tags: [TAG],
  summary: 'The money markets with their rates now',
  querystring: { type: 'object', additionalProperties: false, properties: { chain: { type: 'string', maxLength: 40 } } },
  response: { 200: envelope({ type: 'array', items: marketSchema }), ...errorResponses },
};

export const listLendingPositionsSchema = {
  tags: [TAG],
  summary: "The caller's lending positions, valued now",
  querystring: { type: 'object', additionalProperties: false, properties: { status: { type: 'string', enum: ['open', 'all'], default: 'open' } } },
  response: { 200: envelope({ type: 'array', items: lendingPositionSchema }), ...errorResponses },
};

export const getLendingPositionSchema = {
  tags: [TAG],
  summary: 'A lending position, valued now, with its operations (newest first)',
  params: { type: 'object', required: ['id'], properties: { id: { type: 'string', maxLength: 64 } } },
  response: {
    200: envelope({ type: 'object', properties: { ...lendingPositionSchema.properties, operations: { type: 'array', items: operationSchema } } }),
    ...errorResponses,
  },
};
