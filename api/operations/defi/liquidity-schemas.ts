/** JSON schemas of the liquidity routes (request validation and the OpenAPI document). */
import { decimalString, envelope, errorResponses, timestamp } from '../../schemas';
import { TAG } from './schemas';

const nullableString = { type: ['string', 'null'] };
const idParam = { type: 'string', minLength: 1, maxLength: 64 };

const valuationSchema = {
  type: 'object',
  description: 'Value now: the position\'s share of the pool\'s current reserves (swap fees included) at the latest USD rates, against holding the deposited tokens.',
  properties: {
    amounts: { type: 'array', items: { type: 'string' } },
    hold_amounts: { type: 'array', items: { type: 'string' } },
    pool_share_percent: { type: 'string' },
    usd_value: nullableString,
    hold_usd_value: nullableString,
    impermanent_loss_usd: nullableString,
    impermanent_loss_percent: nullableString,
  },
};

export const positionSchema = {
  type: 'object',
  properties: {
    position_id: { type: 'string' },
    position_type: { type: 'string', enum: ['liquidity'] },
    status: { type: 'string', enum: ['open', 'closed'] },
    account_id: { type: 'string' },
    chain: { type: 'string' },
    dex: { type: 'string' },
    pool_id: { type: 'string' },
    tokens: { type: 'array', items: { type: 'string' } },
    deposited: { type: 'array', items: { type: 'string' } },
    withdrawn: { type: 'array', items: { type: 'string' } },
    shares: { type: 'string' },
    shares_minted: { type: 'string' },
    open_entry_id: { type: 'string' },
    close_entry_id: nullableString,
    valuation: { ...valuationSchema, nullable: true },
    created_at: timestamp,
    closed_at: nullableString,
  },
};

export const addLiquiditySchema = {
  tags: [TAG],
  summary: 'Add liquidity to a DEX pool: LP shares minted by the pool\'s own math',
  description:
    '`amounts` maps the pool\'s tokens (ledger asset codes, GET /api/v2/defi/pools) to decimal strings. A constant-product pool takes both ' +
    'tokens and trims one to the pool\'s ratio (Uniswap V2 router); StableSwap and weighted pools take any non-empty subset (an imbalanced ' +
    'deposit pays the pool\'s fee on the imbalance). The tokens move from the account\'s chain book into the pool in one ledger entry; the ' +
    'position is opened (event position.opened). Without account_id: the caller\'s oldest active account holding the first amount.',
  body: {
    type: 'object',
    required: ['pool_id', 'amounts'],
    additionalProperties: false,
    properties: {
      pool_id: { type: 'string', minLength: 1, maxLength: 100 },
      account_id: { type: 'string', minLength: 1, maxLength: 64 },
      amounts: { type: 'object', minProperties: 1, maxProperties: 8, additionalProperties: decimalString },
    },
  },
  response: { 201: envelope(positionSchema), ...errorResponses },
};

export const removeLiquiditySchema = {
  tags: [TAG],
  summary: 'Remove liquidity: burn a fraction of a position\'s LP shares for its part of the reserves',
  description:
    '`share` is the fraction of the position\'s shares to burn (decimal string in (0, 1], default "1": everything, closing the position with ' +
    'position.closed). The position receives shares / supply of every reserve of the pool now (swap fees included), floored to the ledger ' +
    'precision, in one ledger entry back onto the chain book.',
  body: {
    type: 'object',
    required: ['position_id'],
    additionalProperties: false,
    properties: { position_id: idParam, share: { type: 'string', minLength: 1, maxLength: 21 } },
  },
  response: {
    200: envelope({
      type: 'object',
      properties: { position: positionSchema, amounts: { type: 'array', items: { type: 'string' } }, shares_burnt: { type: 'string' }, entry_id: { type: 'string' } },
    }),
    ...errorResponses,
  },
};

export const listPositionsSchema = {
  tags: [TAG],
  summary: 'The caller\'s liquidity positions with their value now',
  querystring: { type: 'object', additionalProperties: false, properties: { status: { type: 'string', enum: ['open', 'all'], default: 'open' } } },
  response: { 200: envelope({ type: 'array', items: positionSchema }), ...errorResponses },
};

export const getPositionSchema = {
  tags: [TAG],
  summary: 'A liquidity position with its value now and impermanent loss',
  params: { type: 'object', required: ['id'], properties: { id: { type: 'string', maxLength: 64 } } },
  response: { 200: envelope(positionSchema), ...errorResponses },
};
