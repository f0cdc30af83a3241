/**
 * Data schemas of the staking events (producers ./index.ts, ./harvest.ts,
 * ./unbond.ts). position.opened and position.closed of a staking position carry the
 * fields below: ./events.ts takes them as one variant of those events' schemas.
 */
type Schema = Record<string, unknown>;

/** position_type of every staking position event. */
export const POSITION_TYPE_STAKING = 'staking';

const str: Schema = { type: 'string' };
const decimal: Schema = { type: 'string', pattern: '^[0-9]+(\\.[0-9]+)?$' };
const ts: Schema = { type: 'string', format: 'date-time' };
const epoch: Schema = { type: 'integer', minimum: 0 };
const obj = (properties: Record<string, Schema>): Schema => ({ type: 'object', required: Object.keys(properties), additionalProperties: false, properties });

const common: Record<string, Schema> = {
  position_id: { type: 'string', pattern: '^st_' },
  position_type: { type: 'string', enum: [POSITION_TYPE_STAKING] },
  account_id: str,
  chain: str,
  protocol: str,
  product_id: str,
  // The staked ledger asset; every amount below is in it, at its ledger precision.
  asset: str,
};

/**
 * yield.harvested: the completed unpaid epochs [from_epoch, to_epoch) of a staking position were
 * paid in entry_id: to the chain book (`paid_out`) or into the stake (`compounded`, the principal
 * grew by `amount`). `principal` is the principal after the harvest.
 */
export const YIELD_HARVESTED: Schema = obj({
  ...common,
  amount: decimal,
  mode: { type: 'string', enum: ['compounded', 'paid_out'] },
  epochs: { type: 'integer', minimum: 1 },
  from_epoch: epoch,
  to_epoch: { type: 'integer', minimum: 1 },
  principal: decimal,
  entry_id: str,
  harvested_at: ts,
});

/** position.opened of a staking position: `amount` left the chain book into the staking pool (entry_id). */
export const STAKING_POSITION_OPENED: Schema = obj({
  ...common,
  amount: decimal,
  auto_compound: { type: 'boolean' },
  annual_rate: decimal,
  epoch_seconds: { type: 'integer', minimum: 1 },
  unbonding_seconds: { type: 'integer', minimum: 1 },
  entry_id: str,
  opened_at: ts,
});

/**
 * position.closed of a staking position: after the unbonding period `amount` = principal +
 * rewards (the unpaid ones) came back to the chain book in entry_id; `total_rewards` is every
 * reward of the position's life (harvested + these).
 */
export const STAKING_POSITION_CLOSED: Schema = obj({
  ...common,
  amount: decimal,
  principal: decimal,
  rewards: decimal,
  staked_amount: decimal,
  total_rewards: decimal,
  reward_epochs: epoch,
  entry_id: str,
  unbond_requested_at: ts,
  closed_at: ts,
});
