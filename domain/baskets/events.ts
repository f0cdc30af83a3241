/**
 * The basket.* events (outbox, webhooks), written in the same transaction as the change they
 * report. Included in domain/events/catalog.ts; tests validate the real events against these schemas.
 */
import type { EventTypeInfo } from '../events/types';

type Schema = Record<string, unknown>;
const str: Schema = { type: 'string' };
const decimal: Schema = { type: 'string', pattern: '^[0-9]+(\\.[0-9]+)?$' };
const ts: Schema = { type: 'string', format: 'date-time' };
const obj = (properties: Record<string, Schema>, required = Object.keys(properties)): Schema => ({ type: 'object', required, properties, additionalProperties: false });

const operation = obj({
  operation_id: { type: 'string', pattern: '^bop_' },
  account_id: str,
  basket_code: str,
  amount: decimal,
  version: { type: 'integer' },
  components: { type: 'array', items: obj({ asset_code: str, amount: decimal }) },
  entry_id: str,
  created_at: ts,
});

const rebalanced = obj(
  {
    basket_code: str,
    version: { type: 'integer' },
    previous_version: { type: 'integer' },
    proposal_id: { type: ['string', 'null'] },
    value_usd: decimal,
    outstanding: decimal,
    components: { type: 'array', items: obj({ asset_code: str, previous_amount: decimal, amount: decimal, target_weight: decimal, rate_usd: decimal }) },
    entry_id: { type: ['string', 'null'] },
    rebalanced_at: ts,
  },
);

const PRODUCER = 'domain/baskets';
// A rebalance concerns every holder in the environment; compose/decompose are the account owner's.
const ev = (type: string, description: string, data_schema: Schema, producer = PRODUCER): EventTypeInfo => ({
  type, group: 'Basket', description, produced: true, producer, environmentWide: type === 'basket.rebalanced', data_schema,
});

export const BASKET_EVENT_CATALOG: readonly EventTypeInfo[] = [
  ev('basket.composed', 'Component assets were converted into basket units on an account (one ledger entry).', operation),
  ev('basket.decomposed', 'Basket units were converted back into their component assets on an account (one ledger entry).', operation),
  ev(
    'basket.rebalanced',
    "A basket's composition changed (an executed governance proposal): new amounts keep the value at the transition rates; the reserve was rebalanced through one ledger entry.",
    rebalanced,
    'domain/governance (proposal execution workflow)',
  ),
];
