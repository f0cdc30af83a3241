import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, createTestUser, type TestApp, type TestUser } from '../helpers/app';
import { openFundedAccount } from '../transfers/helpers';
import { gqlOk, gqlRefused } from './helpers';

let t: TestApp;
let other: TestUser;
let readOnly: TestUser;
let acct: string;

beforeAll(async () => {
  t = await createTestApp();
  other = await createTestUser();
  readOnly = await createTestUser({ permissions: ['read'] });
  acct = await openFundedAccount(t, t.headers, '250.00');
  const d = await t.app.inject({ method: 'POST', url: `/api/v2/accounts/${acct}/deposit`, headers: t.headers, payload: { amount: '40.00', asset_code: 'USD' } });
  expect(d.statusCode).toBe(201);
}, 120_000);
afterAll(async () => t?.close());

const ask = (url: string, payload: object, headers = t.headers) => t.app.inject({ method: 'POST', url, headers, payload });
const TX = `mutation ($i: AiTransactionQueryInput!) { aiTransactionQuery(input: $i) {
  queryId originalQuery interpretedQuery interpretationConfidence interpreter totalResults summary timeZone
  transactions { uuid accountId type direction amount currency usdValue status riskScore complianceFlags createdAt }
  analytics { currency totalVolume avgAmount medianAmount minAmount maxAmount flaggedCount avgRiskScore chainsInvolved bridgesUsed } } }`;

describe('AI transaction queries over GraphQL', () => {
  it('answers as REST answers the same question (filter, matches, analytics), and records it in the history both show', async () => {
    const rest = (await ask('/api/v1/ai/transactions', { query: 'deposits over 20 dollars', time_zone: 'UTC', options: { format: 'summary' } })).json().data;
    const q = (await gqlOk(t, TX, { i: { query: 'deposits over 20 dollars', timeZone: 'UTC', format: 'summary' } })).aiTransactionQuery;
    expect(q.totalResults).toBe(2);
    expect(q).toEqual({
      queryId: q.queryId,
      originalQuery: rest.original_query,
      interpretedQuery: rest.interpreted_query,
      interpretationConfidence: rest.interpretation_confidence,
      interpreter: rest.interpreter,
      totalResults: rest.total_results,
      summary: rest.summary,
      timeZone: rest.time_zone,
      transactions: rest.transactions.map((x: any) => ({
        uuid: x.uuid,
        accountId: x.account_id,
        type: x.type,
        direction: x.direction,
        amount: x.amount,
        currency: x.currency,
        usdValue: x.usd_value,
        status: x.status,
        riskScore: x.risk_score,
        complianceFlags: x.compliance_flags,
        createdAt: x.created_at,
      })),
      analytics: {
        currency: rest.analytics.currency,
        totalVolume: rest.analytics.total_volume,
        avgAmount: rest.analytics.avg_amount,
        medianAmount: rest.analytics.median_amount,
        minAmount: rest.analytics.min_amount,
        maxAmount: rest.analytics.max_amount,
        flaggedCount: rest.analytics.flagged_count,
        avgRiskScore: rest.analytics.avg_risk_score,
        chainsInvolved: rest.analytics.chains_involved,
        bridgesUsed: rest.analytics.bridges_used,
      },
    });
    expect(q.queryId).not.toBe(rest.query_id);

    const history = (await t.app.inject({ method: 'GET', url: '/api/v2/ai/queries', headers: t.headers })).json();
    const h = (await gqlOk(t, '{ aiQueries { data { queryId kind originalQuery accountId interpreter interpretationConfidence totalResults result createdAt } paginatorInfo { total } } }')).aiQueries;
    expect(h.paginatorInfo.total).toBe(history.meta.total);
    expect(h.data[0].queryId).toBe(q.queryId);
    expect(h.data).toEqual(
      history.data.map((x: any) => ({
        queryId: x.query_id,
        kind: x.kind,
        originalQuery: x.original_query,
        accountId: x.account_id,
        interpreter: x.interpreter,
        interpretationConfidence: x.interpretation_confidence,
        totalResults: x.total_results,
        result: x.result,
        createdAt: x.created_at,
      })),
    );
  });

  it('the broader question answers as REST does', async () => {
    const rest = (await ask('/api/v2/ai/query', { query: 'largest deposit this year', context: { time_zone: 'UTC', account_id: acct } })).json().data;
    const q = (await gqlOk(t, `mutation { aiQuestion(query: "largest deposit this year", accountId: "${acct}", timeZone: "UTC") { originalQuery interpretedQuery totalResults answer records } }`)).aiQuestion;
    expect(q).toEqual({ originalQuery: rest.original_query, interpretedQuery: rest.interpreted_query, totalResults: rest.total_results, answer: rest.answer, records: rest.records });
  });

  it('refusals carry the REST codes: a bad time zone, an out-of-range maxResults, another user\'s account', async () => {
    const tz = await ask('/api/v1/ai/transactions', { query: 'deposits', time_zone: 'Mars/Olympus' });
    expect(tz.statusCode).toBe(422);
    const r = await gqlRefused(t, TX, tz.json().errors[0].code, 422, { i: { query: 'deposits', timeZone: 'Mars/Olympus' } });
    expect(r.errors![0].extensions.pointer).toBe(tz.json().errors[0].source?.pointer);
    const big = await ask('/api/v1/ai/transactions', { query: 'deposits', options: { max_results: 1001 } });
    expect(big.statusCode).toBe(422);
    await gqlRefused(t, TX, big.json().errors[0].code, 422, { i: { query: 'deposits', maxResults: 1001 } });
    const foreign = await ask('/api/v1/ai/transactions', { query: 'deposits', account_id: acct }, other.headers);
    expect(foreign.statusCode).toBe(404);
    await gqlRefused(t, TX, foreign.json().errors[0].code, 404, { i: { query: 'deposits', accountId: acct } }, other.headers);
  });

  it('one set of input rules with REST: the query and time zone lengths (api/operations/ai/schemas.ts; GraphQL types the format enum itself)', async () => {
    const long = 'x'.repeat(5000);
    for (const [body, input] of [
      [{ query: long }, { query: long }],
      [{ query: 'deposits', time_zone: 'Z'.repeat(65) }, { query: 'deposits', timeZone: 'Z'.repeat(65) }],
    ] as const) {
      const rest = await ask('/api/v1/ai/transactions', body);
      expect(rest.statusCode).toBe(422);
      await gqlRefused(t, TX, rest.json().errors[0].code, 422, { i: input });
    }
    const rest = await ask('/api/v2/ai/query', { query: long });
    expect(rest.statusCode).toBe(422);
    await gqlRefused(t, `mutation ($q: String!) { aiQuestion(query: $q) { originalQuery } }`, rest.json().errors[0].code, 422, { q: long });
  });

  it('a read-only key may ask, as on REST (config.permission read); a guest may not', async () => {
    const rest = await ask('/api/v1/ai/transactions', { query: 'deposits' }, readOnly.headers);
    expect(rest.statusCode).toBe(200);
    expect((await gqlOk(t, TX, { i: { query: 'deposits' } }, readOnly.headers)).aiTransactionQuery.totalResults).toBe(0);
    await gqlRefused(t, TX, 'UNAUTHENTICATED', 401, { i: { query: 'deposits' } }, {});
  });
});
