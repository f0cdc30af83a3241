/**
 * The AI query operations' input and output schemas, shared by REST (api/routes/ai) and GraphQL
 * (api/graphql/areas/ai.ts validates its input against the same bodies).
 */
import { MAX_QUERY_CHARS } from '../../../domain/ai/queries';
import { timestamp } from '../../schemas';

export const TAGS = ['AI queries'];
export const open = { type: 'object', additionalProperties: true };
export const nstr = { type: ['string', 'null'] };

export const transactionSchema = {
  type: 'object',
  properties: {
    uuid: { type: 'string' },
    account_id: { type: 'string' },
    type: { type: 'string' },
    direction: { type: 'string', enum: ['in', 'out'] },
    amount: { type: 'string' },
    currency: { type: 'string' },
    usd_value: nstr,
    status: { type: 'string', enum: ['pending', 'completed', 'failed', 'pending_review'] },
    source_chain: nstr,
    destination_chain: nstr,
    bridge_protocol: nstr,
    risk_score: { type: ['number', 'null'] },
    compliance_flags: { type: 'array', items: { type: 'string' } },
    description: nstr,
    created_at: timestamp,
  },
};

export const interpretedSchema = {
  type: 'object',
  properties: {
    type: { type: 'array', items: { type: 'string' } },
    direction: nstr,
    amount_min: { type: ['number', 'null'], description: 'The lower bound as a number (the spec\'s type): at most 15 significant digits, so exact' },
    amount_min_exclusive: { type: 'boolean' },
    amount_max: { type: ['number', 'null'], description: 'The upper bound, as amount_min' },
    amount_max_exclusive: { type: 'boolean' },
    currency: nstr,
    currency_is_asset: { type: 'boolean', description: 'true: only transactions in that asset ("USD deposits"); false: the currency is only the amounts\' unit ("over $100": the USD value of any asset)' },
    date_range: { type: 'object', properties: { from: nstr, to: { ...nstr, description: 'Exclusive' } } },
    has_compliance_flags: { type: 'boolean', description: 'true when only flagged transactions are asked for (compliance_flags_filter has the three states)' },
    compliance_flags_filter: { type: 'string', enum: ['any', 'flagged', 'unflagged'] },
    statuses: { type: 'array', items: { type: 'string' } },
    chains: { type: 'array', items: { type: 'string' } },
    bridges: { type: 'array', items: { type: 'string' } },
    counterparties: { type: 'array', items: { type: 'string' } },
    sort: { type: ['object', 'null'], additionalProperties: true },
    limit: { type: ['integer', 'null'] },
    intent: { type: 'string' },
  },
};

export const analyticsSchema = {
  type: 'object',
  properties: {
    currency: { type: 'string' },
    total_volume: { type: 'string' },
    avg_amount: { type: 'string' },
    median_amount: { type: 'string' },
    min_amount: { type: 'string' },
    max_amount: { type: 'string' },
    flagged_count: { type: 'integer' },
    avg_risk_score: { type: 'number' },
    chains_involved: { type: 'array', items: { type: 'string' } },
    bridges_used: { type: 'array', items: { type: 'string' } },
  },
};

export const common = {
  query_id: { type: 'string' },
  original_query: { type: 'string' },
  interpreted_query: interpretedSchema,
  interpretation_confidence: { type: 'number' },
  interpreter: { type: 'string', enum: ['parser', 'model'] },
  interpreter_fallback_reason: { type: 'string' },
  total_results: { type: 'integer' },
  reference_time: timestamp,
  time_zone: { type: 'string' },
};

const query = { type: 'string', minLength: 1, maxLength: MAX_QUERY_CHARS };
const accountId = { type: 'string', minLength: 1, maxLength: 100 };
const timeZone = { type: 'string', minLength: 1, maxLength: 64, description: 'IANA time zone relative dates are read in (default AI_DEFAULT_TIME_ZONE)' };

/** POST /api/v1/ai/transactions (GraphQL aiTransactionQuery). */
export const transactionQueryBody = {
  type: 'object',
  additionalProperties: false,
  required: ['query'],
  properties: {
    query,
    account_id: accountId,
    time_zone: timeZone,
    options: {
      type: 'object',
      additionalProperties: false,
      properties: {
        include_analytics: { type: 'boolean', default: true },
        include_risk_scores: { type: 'boolean', default: true },
        max_results: { type: 'integer', minimum: 1, maximum: 1000, default: 50 },
        format: { type: 'string', enum: ['json', 'summary'], default: 'json' },
      },
    },
  },
};

/** POST /api/v2/ai/query (GraphQL aiQuestion). */
export const questionBody = {
  type: 'object',
  additionalProperties: false,
  required: ['query'],
  properties: { query, context: { type: 'object', additionalProperties: false, properties: { account_id: accountId, time_zone: timeZone } } },
};
