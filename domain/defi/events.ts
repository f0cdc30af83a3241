/**
 * Data schemas of the DeFi position events (domain/events/catalog.ts uses them). position.opened
 * and position.closed carry one shape per position type, told apart by `position_type`: liquidity
 * (./liquidity/index.ts), lending (./lending/index.ts, ./lending/liquidation.ts) and staking (./staking/index.ts).
 */
type Schema = Record<string, unknown>;

import { STAKING_POSITION_CLOSED, STAKING_POSITION_OPENED } from './staking/events';

export { YIELD_HARVESTED } from './staking/events';

const str: Schema = { type: 'string' };
const ts: Schema = { type: 'string', format: 'date-time' };
const decimal: Schema = { type: 'string', pattern: '^[0-9]+(\\.[0-9]+)?$' };
const decimals: Schema = { type: 'array', items: decimal };
const obj = (properties: Record<string, Schema>): Schema => ({ type: 'object', required: Object.keys(properties), additionalProperties: false, properties });
const oneOf = (...variants: Schema[]): Schema => ({ type: 'object', oneOf: variants });

const liquidity: Record<string, Schema> = {
  position_id: { type: 'string', pattern: '^lp_' },
  position_type: { type: 'string', enum: ['liquidity'] },
  account_id: str,
  chain: str,
  dex: str,
  pool_id: str,
  // Ledger asset codes in the pool's coin order; the amounts below follow it.
  tokens: { type: 'array', items: str, minItems: 2 },
  entry_id: str,
};

const lending: Record<string, Schema> = {
  position_id: { type: 'string', pattern: '^ln_' },
  position_type: { type: 'string', enum: ['lending'] },
  account_id: str,
  chain: str,
  protocol: str,
};
// The operation the event came from: market, asset, amount and its ledger entry.
const lendingOperation: Record<string, Schema> = {
  market_id: str,
  asset: str,
  amount: decimal,
  operation: { type: 'string', enum: ['supply', 'withdraw', 'borrow', 'repay', 'liquidation'] },
  operation_id: { type: 'string', pattern: '^lop_' },
  entry_id: str,
};

/**
 * position.opened. Liquidity: tokens left the chain book into the pool; `shares` LP tokens (18
 * decimals) minted. Lending: the first supply to a money market opened the account's position.
 * Staking: the stake left the chain book into the staking pool.
 */
export const POSITION_OPENED: Schema = oneOf(
  obj({ ...liquidity, amounts: decimals, shares: decimal, opened_at: ts }),
  obj({ ...lending, ...lendingOperation, opened_at: ts }),
  STAKING_POSITION_OPENED,
);

/**
 * position.closed. Liquidity: the last shares were burnt; `amounts` that last withdrawal, the
 * totals over the position's life. Lending: the operation (withdrawal, repayment or liquidation)
 * that brought every balance to zero. Staking: after unbonding, principal and unpaid rewards came
 * back to the chain book.
 */
export const POSITION_CLOSED: Schema = oneOf(
  obj({ ...liquidity, amounts: decimals, total_deposited: decimals, total_withdrawn: decimals, shares_burnt: decimal, closed_at: ts }),
  obj({ ...lending, ...lendingOperation, liquidations: { type: 'integer', minimum: 0 }, closed_at: ts }),
  STAKING_POSITION_CLOSED,
);

const valuedBalance: Schema = obj({ market_id: str, asset: str, amount: decimal, usd_value: decimal });

/**
 * position.liquidation_warning: a lending position's health factor fell below the warning
 * threshold (once per descent); below `liquidation_at` the watch liquidates it.
 */
export const POSITION_LIQUIDATION_WARNING: Schema = obj({
  ...lending,
  health_factor: decimal,
  warning_threshold: decimal,
  liquidation_at: decimal,
  collateral_usd: decimal,
  liquidation_threshold_usd: decimal,
  debt_usd: decimal,
  supplied: { type: 'array', items: valuedBalance },
  borrowed: { type: 'array', items: valuedBalance, minItems: 1 },
  checked_at: ts,
});
