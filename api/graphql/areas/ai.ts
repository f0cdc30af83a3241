/**
 * Natural-language transaction queries over GraphQL: the transaction query, the broader question
 * and the caller's history. Each resolver is one call of the domain function its REST route calls
 * (api/routes/ai). As on REST, asking needs only the read permission (config.permission 'read':
 * the history it leaves is the caller's own record); they are mutations because they record it.
 */
import { askQuestion, listQueries, queryTransactions, type QuestionInput, type TransactionQueryInput } from '../../../domain/ai/queries';
import { questionBody, TAGS, transactionQueryBody } from '../../operations/ai/schemas';
import { as, type GqlContext } from '../context';
import { PAGE_ARGS, pageOf, paginated, paginatorOf, type PageArgs } from '../pagination';
import type { GraphQLArea } from './types';
import { camelize, restBody } from '../rest';

const dropNulls = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v != null));

const typeDefs = /* GraphQL */ `
  "A transaction as the AI queries see it (postings, bridge transfers …) with its risk score."
  type AiTransaction {
    uuid: ID!
    accountId: String!
    type: String!
    "in or out."
    direction: String!
    amount: Decimal!
    currency: String!
    usdValue: Decimal
    status: String!
    sourceChain: String
    destinationChain: String
    bridgeProtocol: String
    "Null when options.includeRiskScores is false."
    riskScore: Float
    complianceFlags: [String!]!
    description: String
    createdAt: DateTime!
  }

  "Exact analytics over every match (not only the returned ones)."
  type AiAnalytics {
    "The unit of the sums: the filter's currency, else USD."
    currency: String!
    totalVolume: Decimal!
    avgAmount: Decimal!
    medianAmount: Decimal!
    minAmount: Decimal!
    maxAmount: Decimal!
    flaggedCount: Int!
    avgRiskScore: Float!
    chainsInvolved: [String!]!
    bridgesUsed: [String!]!
  }

  type AiTransactionQueryResult {
    queryId: ID!
    originalQuery: String!
    "The filter understood (type, direction, amounts, currency, statuses, chains, sort, limit, intent), as REST shows it."
    interpretedQuery: JSON!
    interpretationConfidence: Float!
    "parser or model."
    interpreter: String!
    interpreterFallbackReason: String
    totalResults: Int!
    transactions: [AiTransaction!]!
    "Absent when options.includeAnalytics is false."
    analytics: AiAnalytics
    "With options.format summary."
    summary: String
    referenceTime: DateTime!
    timeZone: String!
  }

  type AiQuestionResult {
    queryId: ID!
    originalQuery: String!
    interpretedQuery: JSON!
    interpretationConfidence: Float!
    interpreter: String!
    interpreterFallbackReason: String
    totalResults: Int!
    "The structured answer (intent, value, currency, count, text …), as REST shows it."
    answer: JSON!
    "The matching records (transactions, or holdings for a balance question), as REST shows them."
    records: JSON!
    referenceTime: DateTime!
    timeZone: String!
  }

  "A past query with its cached answer."
  type AiQuery {
    queryId: ID!
    "transactions or question."
    kind: String!
    originalQuery: String!
    accountId: String
    interpreter: String!
    interpretationConfidence: Float!
    totalResults: Int!
    "The answer as it was given (the REST record)."
    result: JSON!
    createdAt: DateTime!
  }

  ${paginatorOf('AiQuery')}

  enum AiResultFormat {
    json
    summary
  }

  input AiTransactionQueryInput {
    query: String!
    "One of the caller's accounts (default all)."
    accountId: ID
    "IANA time zone for relative dates (default UTC)."
    timeZone: String
    includeAnalytics: Boolean = true
    includeRiskScores: Boolean = true
    "1 to 1000."
    maxResults: Int = 50
    format: AiResultFormat = json
  }

  extend type Query {
    "The caller's past queries with their cached answers, newest first."
    aiQueries(${PAGE_ARGS}): AiQueryPaginator!
  }

  extend type Mutation {
    "Ask for transactions in plain language: the interpreted filter, the matches and analytics (read permission, as REST)."
    aiTransactionQuery(input: AiTransactionQueryInput!): AiTransactionQueryResult!
    "A broader question about the caller's money, answered with a structured answer (read permission, as REST)."
    aiQuestion(query: String!, accountId: ID, timeZone: String): AiQuestionResult!
  }
`;

const TAG = TAGS[0];
/** Free-form parts of the answers stay as REST shows them. */
const KEEP = new Set(['interpreted_query', 'answer', 'records', 'result']);

type TxInput = { query: string; accountId?: string | null; timeZone?: string | null; includeAnalytics?: boolean | null; includeRiskScores?: boolean | null; maxResults?: number | null; format?: string | null };

export function aiArea(): GraphQLArea {
  return {
    typeDefs,
    resolvers: {
      Query: {
        aiQueries: async (_: unknown, args: PageArgs, ctx: GqlContext) => {
          const c = await as(ctx, { tag: TAG });
          const p = pageOf(args);
          const { items, total } = await listQueries(c, { limit: p.perPage, offset: p.offset });
          return paginated(camelize<unknown[]>(items, KEEP), total, p);
        },
      },
      Mutation: {
        aiTransactionQuery: async (_: unknown, { input }: { input: TxInput }, ctx: GqlContext) => {
          const c = await as(ctx, { permission: 'read', tag: TAG });
          // REST's body schema (bounds, enums, lengths, defaults) before the domain sees it.
          const body = restBody<TransactionQueryInput>(transactionQueryBody, {
            ...dropNulls({ query: input.query, account_id: input.accountId, time_zone: input.timeZone }),
            options: dropNulls({ include_analytics: input.includeAnalytics, include_risk_scores: input.includeRiskScores, max_results: input.maxResults, format: input.format }),
          });
          return camelize(await queryTransactions(c, body), KEEP);
        },
        aiQuestion: async (_: unknown, args: { query: string; accountId?: string | null; timeZone?: string | null }, ctx: GqlContext) => {
          const c = await as(ctx, { permission: 'read', tag: TAG });
          const body = restBody<QuestionInput>(questionBody, { query: args.query, context: dropNulls({ account_id: args.accountId, time_zone: args.timeZone }) });
          return camelize(await askQuestion(c, body), KEEP);
        },
      },
    },
  };
}
