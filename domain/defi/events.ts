/** Data schemas of the DeFi position events (domain/events/catalog.ts uses them; producer ./liquidity.ts). */
type Schema = Record<string, unknown>;

const str: Schema = { type: 'string' };
const decimal: Schema = { type: 'string', pattern: '^[0-9]+(\\.[0-9]+)?$' };
const decimals: Schema = { type: 'array', items: decimal };
const common: Record<string, Schema> = {
  position_id: { type: 'string', pattern: '^lp_' },
  // Liquidity today; lending and staking positions would use the same events.
  position_type: { type: 'string', enum: ['liquidity'] },
  account_id: str,
  chain: str,
  dex: str,
  pool_id: str,
  // Ledger asset codes in the pool's coin order; the amounts below follow it.
  tokens: { type: 'array', items: str, minItems: 2 },
  entry_id: str,
};
const obj = (properties: Record<string, Schema>): Schema => ({ type: 'object', required: Object.keys(properties), additionalProperties: false, properties });

/** position.opened: tokens left the chain book into the pool; `shares` LP tokens (18 decimals) minted. */
export const POSITION_OPENED: Schema = obj({ ...common, amounts: decimals, shares: decimal, opened_at: { type: 'string', format: 'date-time' } });

/** position.closed: the last shares were burnt; `amounts` that last withdrawal, the totals over the position's life. */
export const POSITION_CLOSED: Schema = obj({
  ...common,
  amounts: decimals,
  total_deposited: decimals,
  total_withdrawn: decimals,
  shares_burnt: decimal,
  closed_at: { type: 'string', format: 'date-time' },
});
