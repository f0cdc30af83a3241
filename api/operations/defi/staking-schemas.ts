/** JSON schemas of the staking routes (request validation and the OpenAPI document). */
import { decimalString, envelope, errorResponses, timestamp } from '../../schemas';
import { TAG } from './schemas';

const nullableString = { type: ['string', 'null'] };
const nullableInteger = { type: ['integer', 'null'] };
const idParam = { type: 'string', minLength: 1, maxLength: 64 };

export const productSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    chain: { type: 'string' },
    protocol: { type: 'string' },
    asset: { type: 'string', description: 'Ledger asset code staked; every amount of a position is in it' },
    name: { type: 'string' },
    annual_rate: { type: 'string', description: 'Reward rate a year as a fraction ("0.031" = 3.1 %)' },
    epoch_seconds: { type: 'integer', description: 'Rewards accrue per completed epoch of this length, counted from the stake' },
    unbonding_seconds: { type: 'integer', description: 'How long unstaked tokens take to come back' },
    minimum_stake: { type: 'string' },
    active: { type: 'boolean' },
  },
};

export const stakingPositionSchema = {
  type: 'object',
  properties: {
    position_id: { type: 'string' },
    position_type: { type: 'string', enum: ['staking'] },
    status: { type: 'string', enum: ['staked', 'unbonding', 'withdrawn'] },
    account_id: { type: 'string' },
    product_id: { type: 'string' },
    chain: { type: 'string' },
    protocol: { type: 'string' },
    asset: { type: 'string' },
    staked_amount: { type: 'string' },
    principal: { type: 'string', description: 'What earns now: the stake plus compounded rewards' },
    auto_compound: { type: 'boolean' },
    annual_rate: nullableString,
    rewards_harvested: { type: 'string', description: 'Rewards paid by harvests so far (compounded or paid out)' },
    harvested_epochs: { type: 'integer', description: 'Epochs paid so far (the next unpaid epoch\'s index)' },
    last_harvested_at: nullableString,
    reward_epochs: { ...nullableInteger, description: 'Once unstaking: the epochs that earn at all (those completed at the request and the one in progress)' },
    pending_epochs: nullableInteger,
    pending_rewards: { ...nullableString, description: 'Reward of the completed unpaid epochs now, each epoch rounded down to the asset\'s precision' },
    usd_value: { ...nullableString, description: '(principal + pending rewards) at the latest USD rate; null without a rate or once withdrawn' },
    next_epoch_ends_at: nullableString,
    staked_at: timestamp,
    unbond_requested_at: nullableString,
    unbonding_ends_at: nullableString,
    withdrawn_at: nullableString,
    final_rewards: { ...nullableString, description: 'Unpaid rewards paid with the principal at withdrawal' },
    stake_entry_id: { type: 'string' },
    withdraw_entry_id: nullableString,
    workflow_id: nullableString,
    created_at: timestamp,
  },
};

const harvestResultSchema = {
  type: 'object',
  properties: {
    amount: { type: 'string' },
    mode: { type: 'string', enum: ['compounded', 'paid_out'] },
    epochs: { type: 'integer' },
    from_epoch: { type: 'integer' },
    to_epoch: { type: 'integer' },
    principal: { type: 'string' },
    entry_id: { type: 'string' },
    harvested_at: timestamp,
  },
};

export const productsSchema = {
  tags: [TAG],
  summary: 'Staking products: chain, protocol, asset, reward rate, epoch, unbonding period, minimum',
  response: { 200: envelope({ type: 'array', items: productSchema }), ...errorResponses },
};

export const stakeSchema = {
  tags: [TAG],
  summary: 'Stake tokens from a chain book into a staking product',
  description:
    'The amount moves from the account\'s chain book of the product\'s asset into the staking pool in one ledger entry; the position is ' +
    'opened (event position.opened). Rewards accrue per completed epoch from now: principal × annual_rate × epoch_seconds / 31,536,000, ' +
    'each epoch rounded down to the asset\'s precision. With auto_compound the daily harvest adds them to the principal, otherwise it pays ' +
    'them to the chain book (yield.harvested). Without account_id: the caller\'s oldest active account holding the amount on the chain.',
  body: {
    type: 'object',
    required: ['product_id', 'amount'],
    additionalProperties: false,
    properties: {
      product_id: { type: 'string', minLength: 1, maxLength: 100 },
      amount: decimalString,
      account_id: { type: 'string', minLength: 1, maxLength: 64 },
      auto_compound: { type: 'boolean', default: false },
    },
  },
  response: { 201: envelope(stakingPositionSchema), ...errorResponses },
};

export const unstakeSchema = {
  tags: [TAG],
  summary: 'Unstake: the position unbonds, then principal and unpaid rewards come back',
  description:
    'Starts the unbonding (a Temporal workflow): the position is `unbonding` at once and earns no more after the epoch in progress. After ' +
    'the product\'s unbonding period (unbonding_ends_at) the principal and every unpaid reward come back to the chain book in one entry, ' +
    'the position is `withdrawn` (event position.closed). 202 with the position.',
  body: { type: 'object', required: ['position_id'], additionalProperties: false, properties: { position_id: idParam } },
  response: { 202: envelope(stakingPositionSchema), ...errorResponses },
};

export const harvestSchema = {
  tags: [TAG],
  summary: 'Harvest a staking position now: every completed unpaid epoch\'s reward',
  description:
    'Pays the rewards of the completed unpaid epochs in one entry (event yield.harvested): to the chain book (`mode` "paid_out", the ' +
    'default) or into the stake ("compounded"). 422 NOTHING_TO_HARVEST when no unpaid epoch has completed. The same Idempotency-Key ' +
    'answers the first harvest again; each epoch is paid once however often it is asked.',
  body: {
    type: 'object',
    required: ['position_id'],
    additionalProperties: false,
    properties: { position_id: idParam, mode: { type: 'string', enum: ['paid_out', 'compounded'], default: 'paid_out' } },
  },
  response: { 200: envelope({ type: 'object', properties: { position: stakingPositionSchema, harvest: harvestResultSchema } }), ...errorResponses },
};

export const listStakingPositionsSchema = {
  tags: [TAG],
  summary: 'The caller\'s staking positions with pending rewards and USD value',
  querystring: { type: 'object', additionalProperties: false, properties: { status: { type: 'string', enum: ['active', 'all'], default: 'active' } } },
  response: { 200: envelope({ type: 'array', items: stakingPositionSchema }), ...errorResponses },
};

export const getStakingPositionSchema = {
  tags: [TAG],
  summary: 'A staking position with its pending rewards and USD value',
  params: { type: 'object', required: ['id'], properties: { id: { type: 'string', maxLength: 64 } } },
  response: { 200: envelope(stakingPositionSchema), ...errorResponses },
};
