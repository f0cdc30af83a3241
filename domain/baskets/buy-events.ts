/**
 * The basket.buy.* events (outbox, webhooks) of POST /gcu/buy, written in the same transaction as
 * the buy's completion or failure. Included in domain/events/catalog.ts.
 */
import type { EventTypeInfo } from '../events/types';

type Schema = Record<string, unknown>;
const str: Schema = { type: 'string' };
const decimal: Schema = { type: 'string', pattern: '^[0-9]+(\\.[0-9]+)?$' };
const ts: Schema = { type: 'string', format: 'date-time' };
const obj = (properties: Record<string, Schema>): Schema => ({ type: 'object', required: Object.keys(properties), properties, additionalProperties: false });

const common = {
  buy_id: { type: 'string', pattern: '^gbuy_' },
  account_id: str,
  basket_code: str,
  spend_asset: str,
  units: decimal,
  quoted_price: decimal,
  max_price: decimal,
};

const PRODUCER = 'domain/baskets (basket buy workflow)';
const ev = (type: string, description: string, data_schema: Schema): EventTypeInfo => ({ type, group: 'Basket', description, produced: true, producer: PRODUCER, data_schema });

export const BASKET_BUY_EVENT_CATALOG: readonly EventTypeInfo[] = [
  ev(
    'basket.buy.completed',
    'Basket units were bought with one asset: the components were acquired into the reserve and the units credited, in one ledger entry.',
    obj({ ...common, execution_price: decimal, cost: decimal, fee: decimal, total: decimal, entry_id: str, completed_at: ts }),
  ),
  ev(
    'basket.buy.failed',
    'A buy failed (e.g. INSUFFICIENT_FUNDS, SLIPPAGE_EXCEEDED, QUOTE_EXPIRED); its reservation, if any, was voided.',
    obj({ ...common, failure_code: str, failure_reason: str, compensation: { type: 'string', enum: ['voided', 'none'] }, failed_at: ts }),
  ),
];
