/**
 * Natural-language transaction queries (docs/ai-queries.md): POST /api/v1/ai/transactions (the
 * spec's result record), POST /api/v2/ai/query (a broader question answered with a structured answer) and
 * GET /api/v2/ai/queries (the caller's own history, with cached answers).
 */
import type { FastifyInstance } from 'fastify';
import { askQuestion, listQueries, MAX_QUERY_CHARS, queryTransactions, type QuestionInput, type TransactionQueryInput } from '../../../domain/ai/queries';
import { paginate, pageParams } from '../../pagination';
import { envelope, errorResponses, paginatedEnvelope, paginationQuery, timestamp } from '../../schemas';
import { caller } from '../../operations/caller';

const TAGS = ['AI queries'];
const open = { type: 'object', additionalProperties: true };
const nstr = { type: ['string', 'null'] };

const transactionSchema = {
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

const interpretedSchema = {
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

const analyticsSchema = {
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

const common = {
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

export default async function aiRoutes(app: FastifyInstance) {
  app.post<{ Body: TransactionQueryInput }>(
    '/api/v1/ai/transactions',
    {
      // A question reads; the history it leaves is the caller's own record of it: a read-only key may ask.
      config: { permission: 'read' },
      schema: {
        tags: TAGS,
        summary: 'Ask for your transactions in plain language: the interpreted filter, the matches and exact analytics',
        description:
          'Understood by a deterministic parser (or, when configured, a model whose proposal is validated against the same filter schema). A question that is not understood is answered with an empty filter and a low confidence. Analytics cover every match, not only the returned ones; amounts in dollars compare USD values of any asset, other currencies that asset.',
        body: {
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
        },
        response: {
          200: envelope({ type: 'object', properties: { ...common, transactions: { type: 'array', items: transactionSchema }, analytics: analyticsSchema, summary: { type: 'string' } } }),
          ...errorResponses,
        },
      },
    },
    async (request) => ({ data: await queryTransactions(caller(request), request.body) }),
  );

  app.post<{ Body: QuestionInput }>(
    '/api/v2/ai/query',
    {
      config: { permission: 'read' },
      schema: {
        tags: TAGS,
        summary: 'Ask a question about your money ("what did I spend on bridges last month", "largest deposit this year", "how much USDC do I hold across chains")',
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['query'],
          properties: { query, context: { type: 'object', additionalProperties: false, properties: { account_id: accountId, time_zone: timeZone } } },
        },
        response: {
          200: envelope({ type: 'object', properties: { ...common, answer: open, records: { type: 'array', items: open } } }),
          ...errorResponses,
        },
      },
    },
    async (request) => ({ data: await askQuestion(caller(request), request.body) }),
  );

  app.get<{ Querystring: { page?: number; per_page?: number } }>(
    '/api/v2/ai/queries',
    {
      schema: {
        tags: TAGS,
        summary: 'Your past queries with their cached answers, newest first',
        querystring: { type: 'object', additionalProperties: false, properties: paginationQuery },
        response: {
          200: paginatedEnvelope({
            type: 'object',
            properties: {
              query_id: { type: 'string' },
              kind: { type: 'string', enum: ['transactions', 'question'] },
              original_query: { type: 'string' },
              account_id: nstr,
              interpreter: { type: 'string' },
              interpretation_confidence: { type: 'number' },
              total_results: { type: 'integer' },
              result: open,
              created_at: timestamp,
            },
          }),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const pp = pageParams(request.query);
      const { items, total } = await listQueries(caller(request), { limit: pp.perPage, offset: pp.offset });
      return paginate(request, items, total, pp);
    },
  );
}
