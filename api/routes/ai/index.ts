/**
 * Natural-language transaction queries (docs/ai.md): POST /api/v1/ai/transactions (the
 * spec's result record), POST /api/v2/ai/query (a broader question answered with a structured answer) and
 * GET /api/v2/ai/queries (the caller's own history, with cached answers).
 */
import type { FastifyInstance } from 'fastify';
import { askQuestion, listQueries, queryTransactions, type QuestionInput, type TransactionQueryInput } from '../../../domain/ai/queries';
import { paginate, pageParams } from '../../pagination';
import { envelope, errorResponses, paginatedEnvelope, paginationQuery, timestamp } from '../../schemas';
import { analyticsSchema, common, nstr, open, questionBody, TAGS, transactionQueryBody, transactionSchema } from '../../operations/ai/schemas';
import { caller } from '../../operations/caller';

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
        body: transactionQueryBody,
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
        body: questionBody,
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
