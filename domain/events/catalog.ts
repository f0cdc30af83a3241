/**
 * Every event type the spec names (Events → Event names), with its group, a description and the
 * JSON Schema of its `data` payload. For events the platform produces today the schema describes
 * exactly what the producing code writes to outbox_events (tests validate real events against it).
 * Every listed event is produced.
 */
import { BASKET_BUY_EVENT_CATALOG } from '../baskets/buy-events';
import { BASKET_EVENT_CATALOG } from '../baskets/events';
import { POSITION_CLOSED, POSITION_LIQUIDATION_WARNING, POSITION_OPENED, YIELD_HARVESTED } from '../defi/events';
import { GOVERNANCE_EVENT_CATALOG } from '../governance/events';
import { INTERLEDGER_EVENT_CATALOG } from '../interledger/events';
import { OPEN_BANKING_EVENT_CATALOG } from '../open-banking/events';
import { RAIL_EVENT_CATALOG } from '../rails/events';
import { COMPLIANCE_REPORT_GENERATED } from '../regtech/mifid/events';
import { COMPLIANCE_VIOLATION_DETECTED, TRAVEL_RULE_CHECK_COMPLETED } from '../regtech/travel-rule/events';
import { PAYMENT_INTENT_EVENT } from '../mobile/events';
import { PARTNER_ONBOARDED, WIDGET_DEPLOYED } from '../partner/events';
import { SDK_GENERATED } from '../partner/sdk/events';
import {
  API_KEY_EXPIRING_EVENT,
  MAINTENANCE_EVENT,
  RATE_LIMIT_WARNING_EVENT,
  READINESS_STATUS_CHANGE,
  SECURITY_ALERT_EVENT,
} from './system-events';
import type { EventTypeInfo } from './types';

export type { EventTypeInfo } from './types';

type Schema = Record<string, unknown>;

const str: Schema = { type: 'string' };
const strOrNull: Schema = { type: ['string', 'null'] };
const decimal: Schema = { type: 'string', pattern: '^-?[0-9]+(\\.[0-9]+)?$' };
const ts: Schema = { type: 'string', format: 'date-time' };
const obj = (properties: Record<string, Schema>, required = Object.keys(properties), extra: Schema = {}): Schema => ({
  type: 'object',
  required,
  properties,
  additionalProperties: false,
  ...extra,
});

const account = obj({
  uuid: str,
  name: str,
  type: { type: 'string', enum: ['personal', 'business', 'savings'] },
  status: { type: 'string', enum: ['active', 'frozen', 'closed'] },
  metadata: { type: 'object' },
  created_at: ts,
  updated_at: ts,
});

const accountStatusChange = obj({ account, reason: strOrNull });

const balance = obj({
  account_id: str,
  ledger_account_id: str,
  asset_code: str,
  // The chain book whose balance changed: '' is the asset's home book (all fiat, and e.g. ETH on
  // ethereum), otherwise a chain id of domain/chains/registry.ts. The balances are the book's.
  chain: str,
  available_balance: decimal,
  reserved_balance: decimal,
  total_balance: decimal,
  entry_id: str,
});

const transaction = obj({
  id: str,
  account_id: str,
  ledger_account_id: str,
  entry_id: str,
  type: str,
  amount: decimal,
  asset_code: str,
  status: { type: 'string', enum: ['pending', 'completed', 'failed'] },
  reference: strOrNull,
  created_at: str,
  completed_at: strOrNull,
  balance_after: { type: ['string', 'null'] },
});

const transferProps: Record<string, Schema> = {
  transfer_id: str,
  from_account: str,
  to_account: str,
  amount: decimal,
  asset_code: str,
  fee: decimal,
  status: { type: 'string', enum: ['pending', 'pending_review', 'completed', 'failed', 'reversed', 'expired'] },
  reference: strOrNull,
  workflow_id: strOrNull,
  failure_code: strOrNull,
  failure_reason: strOrNull,
};
const transferRequired = Object.keys(transferProps);
const transfer = (extra: Record<string, Schema> = {}, required: string[] = []) =>
  obj({ ...transferProps, ...extra }, [...transferRequired, ...required]);

const webhookStatusChange = obj(
  {
    resource: { type: 'string', enum: ['webhook'] },
    resource_id: str,
    url: str,
    previous_status: str,
    status: str,
    reason: str,
    consecutive_failures: { type: 'integer' },
  },
  undefined,
);

const bridgeProps: Record<string, Schema> = {
  bridge_tx_id: str,
  quote_id: str,
  account_id: str,
  status: { type: 'string', enum: ['pending', 'reserved', 'source_submitted', 'source_finalized', 'attested', 'destination_submitted', 'completed', 'failed'] },
  bridge_protocol: { type: 'string', enum: ['wormhole', 'layerzero', 'axelar'] },
  source_chain: str,
  destination_chain: str,
  token: str,
  asset_code: str,
  amount: decimal,
  fee_amount: decimal,
  estimated_receive_amount: decimal,
  sender_address: str,
  recipient_address: str,
  source_tx_hash: strOrNull,
  destination_tx_hash: strOrNull,
  workflow_id: str,
};
const bridge = (extra: Record<string, Schema>) => obj({ ...bridgeProps, ...extra });
const BRIDGE = 'domain/crosschain, activities/crosschain (bridge-transfer workflow)';

const e = (type: string, group: string, description: string, data_schema: Schema, producer?: string, environmentWide = false): EventTypeInfo => ({
  type,
  group,
  description,
  produced: producer !== undefined,
  ...(producer ? { producer } : {}),
  ...(environmentWide ? { environmentWide } : {}),
  data_schema,
});

const ACC = 'domain/accounts';
const LEDGER = 'domain/ledger (posting function)';
const TRF = 'domain/transfers, activities/transfers';
const WF = 'transfer workflow (activities/transfers)';
const MAINT = 'domain/platform/maintenance-windows (maintenance window workflow)';

export const EVENT_CATALOG: readonly EventTypeInfo[] = [
  e('account.created', 'Account', 'An account was opened.', obj({ account }), ACC),
  e(
    'account.updated',
    'Account',
    "An account's name or metadata changed (PATCH /api/v2/accounts/{uuid}); changes lists the fields that changed, previous their former values.",
    obj({
      account,
      changes: { type: 'array', items: { type: 'string', enum: ['name', 'metadata'] }, minItems: 1 },
      previous: obj({ name: str, metadata: { type: 'object' } }, []),
    }),
    'domain/accounts/update',
  ),
  e('account.balance_updated', 'Account', 'A posting changed a balance of the account (one event per asset and chain book touched).', balance, LEDGER),
  e('account.frozen', 'Account', 'The account was frozen: no new debits.', accountStatusChange, ACC),
  e('account.unfrozen', 'Account', 'The account was unfrozen.', accountStatusChange, ACC),
  e('account.closed', 'Account', 'The account was closed.', accountStatusChange, ACC),

  e('transfer.created', 'Transfer', 'A transfer was accepted.', transfer(), TRF),
  e('transfer.pending', 'Transfer', 'A workflow transfer is running (validation, reservation, risk).', transfer(), TRF),
  e('transfer.completed', 'Transfer', 'The transfer was posted to the ledger.', transfer(), TRF),
  e('transfer.failed', 'Transfer', 'The transfer failed; any reservation was released.', transfer({ entry_id: strOrNull }), TRF),
  e('transfer.reversed', 'Transfer', 'A completed transfer was reversed by a reversing ledger entry.', transfer({ reason: strOrNull, reversal_entry_id: str }, ['reversal_entry_id']), 'domain/reversals'),
  e(
    'transfer.expired',
    'Transfer',
    'A workflow transfer passed its deadline (held for review longer than its review timeout): status expired, failure_code REVIEW_TIMEOUT; its reservation was voided.',
    transfer({ entry_id: strOrNull }),
    WF,
  ),

  e('transaction.created', 'Transaction', 'A ledger line on a customer account was written (pending or posted).', transaction, LEDGER),
  e('transaction.completed', 'Transaction', 'A customer transaction was posted.', transaction, LEDGER),

  e('workflow.started', 'Workflow', 'A transfer workflow was started.', transfer(), TRF),
  e(
    'workflow.step_completed',
    'Workflow',
    'A step of the transfer workflow completed (validate, reserve, risk_check, post).',
    transfer({ step: { type: 'string', enum: ['validate', 'reserve', 'risk_check', 'review', 'post'] }, entry_id: str, decision: { type: 'object' } }, ['step']),
    WF,
  ),
  e('workflow.completed', 'Workflow', 'The transfer workflow completed.', transfer(), WF),
  e('workflow.failed', 'Workflow', 'The transfer workflow failed (or could not be started).', transfer({ entry_id: strOrNull }), WF),
  e('workflow.timeout', 'Workflow', 'The transfer workflow gave up waiting for a review decision.', transfer({ entry_id: strOrNull }), WF),
  e('workflow.compensation_executed', 'Workflow', 'Compensation completed: the reservation was voided.', transfer({ entry_id: strOrNull }), WF),

  e('system.maintenance_start', 'System', 'A maintenance window scheduled by operators began: until ends_at the API answers writes with 503 MAINTENANCE (environment-wide).', MAINTENANCE_EVENT, MAINT, true),
  e('system.maintenance_end', 'System', 'The maintenance window ended (or was cancelled while running); writes are accepted again (environment-wide).', MAINTENANCE_EVENT, MAINT, true),
  e('system.rate_limit_warning', 'System', 'A credential crossed 80 % of one of its rate-limit windows (once per credential and window).', RATE_LIMIT_WARNING_EVENT, 'domain/platform/rate-limit-warnings (api/plugins/rate-limit.ts)'),
  e('system.api_key_expiring', 'System', 'An API key expires within 7 days (once per key; daily schedule).', API_KEY_EXPIRING_EVENT, 'domain/auth/key-expiry (daily schedule)'),
  e('system.security_alert', 'System', 'A security-relevant event on the user: login lockout, an API key used from a new IP range (/24, /48), a rotated refresh token presented again (session revoked).', SECURITY_ALERT_EVENT, 'domain/auth/security-alerts'),
  e(
    'system.status_change',
    'System',
    'A status changed on its own: a webhook endpoint of the user disabled after consecutive failed deliveries (resource webhook), or the platform readiness of a component changed (resource readiness, environment-wide, once per change).',
    { oneOf: [webhookStatusChange, READINESS_STATUS_CHANGE] },
    'domain/webhooks (delivery activity), domain/platform/readiness-watch (worker readiness check)',
    true,
  ),

  e('bridge.initiated', 'Cross-chain', 'A bridge transfer was accepted (quote spent); its workflow reserves and sends it.', bridge({ deadline_at: ts, estimated_completion_at: ts }), BRIDGE),
  e(
    'bridge.completed',
    'Cross-chain',
    'The destination leg was included and the ledger posted: source book -> in transit -> destination book, fee to fee revenue.',
    bridge({ settlement_entry_id: str, received_amount: decimal, completed_at: strOrNull }),
    BRIDGE,
  ),
  e(
    'bridge.failed',
    'Cross-chain',
    'The bridge transfer failed (revert, drop, stuck relay past the deadline, expired quote ...); the reservation was voided. recovery_required: the source leg executed on chain and operations reclaim it.',
    bridge({ failure_code: str, failure_reason: strOrNull, compensation: { type: ['string', 'null'], enum: ['voided', 'reversed', null] }, recovery_required: { type: 'boolean' } }),
    BRIDGE,
  ),
  e(
    'swap.completed',
    'Cross-chain',
    'A DEX swap was executed and settled: token_in left the chain book, token_out (less the network fee) arrived on it.',
    obj({
      swap_id: str,
      quote_id: str,
      account_id: str,
      chain: str,
      dex: str,
      pools: { type: 'array', items: str },
      token_in: str,
      token_out: str,
      amount_in: decimal,
      amount_out: decimal,
      network_fee: decimal,
      amount_received: decimal,
      tx_hash: str,
      entry_id: str,
      completed_at: ts,
    }),
    'domain/defi/swaps (swap workflow settlement)',
  ),

  e('position.opened', 'Decentralized finance', 'A DeFi position was opened: a liquidity position (the deposit moved from the chain book into the pool), a lending position (the first supply to a money market) or a staking position; position_type tells which, entry_id is the ledger entry.', POSITION_OPENED, 'domain/defi/liquidity, domain/defi/lending, domain/defi/staking'),
  e('position.closed', 'Decentralized finance', 'A DeFi position was closed: every LP share burnt, every lending balance back to zero (by a withdrawal, repayment or liquidation), or a stake withdrawn after unbonding; entry_id is the last ledger entry.', POSITION_CLOSED, 'domain/defi/liquidity, domain/defi/lending, domain/defi/staking'),
  e('position.liquidation_warning', 'Decentralized finance', 'A lending position\'s health factor fell below the warning threshold (default 1.1; once per descent); below 1 the lending watch liquidates it with the market\'s liquidation bonus as penalty.', POSITION_LIQUIDATION_WARNING, 'domain/defi/lending-liquidation (lending watch schedule)'),
  e('yield.harvested', 'Decentralized finance', 'Staking rewards were harvested: the completed unpaid epochs of a staking position paid to the chain book (paid_out) or added to the stake (compounded), by the daily harvest schedule or the customer (POST /api/v2/defi/staking/harvest).', YIELD_HARVESTED, 'domain/defi/staking-harvest (daily harvest schedule)'),

  e('compliance.report.generated', 'Regulatory', 'A regulatory report was generated (today: a MiFID II transaction report, NEWT or CANC, built and schema-checked).', COMPLIANCE_REPORT_GENERATED, 'domain/regtech/mifid'),
  e('compliance.violation.detected', 'Regulatory', 'A compliance violation was detected (today: a Travel Rule party on the sanctions list; a payment or bridge held for sanctions review; a MiFID II report past its T+1 deadline).', COMPLIANCE_VIOLATION_DETECTED, 'domain/regtech/travel-rule, domain/regtech/holds, domain/regtech/mifid (deadline check)'),
  e('travel_rule.check.completed', 'Regulatory', 'A Travel Rule check completed (compliant or not).', TRAVEL_RULE_CHECK_COMPLETED, 'domain/regtech/travel-rule'),

  e('payment_intent.created', 'Mobile payment', 'A payment intent was created (status requires_confirmation).', PAYMENT_INTENT_EVENT, 'domain/mobile/intents'),
  e('payment_intent.completed', 'Mobile payment', 'A payment intent succeeded: the money moved in one ledger entry (entry_id).', PAYMENT_INTENT_EVENT, 'activities/mobile (payment intent workflow)'),
  e('payment_intent.expired', 'Mobile payment', 'A payment intent was not confirmed before expires_at.', PAYMENT_INTENT_EVENT, 'activities/mobile (payment intent workflow)'),

  e('partner.onboarded', 'Partner', 'A partner was onboarded (its keys, partner key and webhook issued).', PARTNER_ONBOARDED, 'domain/partner/partners'),
  e('sdk.generated', 'Partner', 'An SDK generation completed: its TypeScript and/or Python packages (each with sha256 and size; cached when built before) are ready for download.', SDK_GENERATED, 'domain/partner/sdk'),
  e('widget.deployed', 'Partner', 'A white-label configuration version was published.', WIDGET_DEPLOYED, 'domain/partner/whitelabel'),

  // Beyond the spec's list: the areas' own events (payment rails, Interledger, baskets, governance, open banking).
  ...RAIL_EVENT_CATALOG,
  ...INTERLEDGER_EVENT_CATALOG,
  ...BASKET_EVENT_CATALOG,
  ...BASKET_BUY_EVENT_CATALOG,
  ...GOVERNANCE_EVENT_CATALOG,
  ...OPEN_BANKING_EVENT_CATALOG,
];

export const EVENT_TYPES: ReadonlySet<string> = new Set(EVENT_CATALOG.map((x) => x.type));

export function eventTypeInfo(type: string): EventTypeInfo | undefined {
  return EVENT_CATALOG.find((x) => x.type === type);
}

/** The domain of an event type: its first dot-separated word (account, transfer, system ...). */
export function eventDomain(type: string): string {
  return type.split('.', 1)[0];
}

export const EVENT_DOMAINS: readonly string[] = [...new Set(EVENT_CATALOG.map((x) => eventDomain(x.type)))];
