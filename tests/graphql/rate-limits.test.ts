/**
 * GraphQL's own rate limits (spec "Limits": 120 a minute authenticated, 30 as guest), here set to
 * 5 and 3 to test them: per credential, per IP for guests, X-RateLimit headers as on REST, 429 with
 * Retry-After past the limit; a credential's GraphQL budget is not its REST budget; each mutation
 * of a document counts (aliases do not make sixty deposits one request).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, createTestUser, type TestApp } from '../helpers/app';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ graphqlRateLimitPerMinute: 5, graphqlGuestRateLimitPerMinute: 3 });
}, 60_000);

afterAll(async () => {
  await t?.close();
});

const post = (headers: Record<string, string>, ip = '127.0.0.1') =>
  t.app.inject({ method: 'POST', url: '/api/graphql', headers, payload: { query: '{ __typename }' }, remoteAddress: ip });

describe('GraphQL rate limits', () => {
  it('an authenticated credential: 5 operations a minute, then 429 with Retry-After; headers count down', async () => {
    const user = await createTestUser();
    const remaining: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await post(user.headers);
      expect(r.statusCode).toBe(200);
      expect(r.headers['x-ratelimit-limit']).toBe('5');
      remaining.push(String(r.headers['x-ratelimit-remaining']));
    }
    expect(remaining).toEqual(['4', '3', '2', '1', '0']);
    const refused = await post(user.headers);
    expect(refused.statusCode).toBe(429);
    // A GraphQL response, as GraphQL clients read it: message, extensions.code and status, no data.
    expect(refused.json()).toEqual({ errors: [{ message: expect.stringMatching(/retry after \d+ seconds/), extensions: expect.objectContaining({ code: 'RATE_LIMITED', status: 429 }) }] });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // Another credential has its own budget; REST is not GraphQL's budget.
    expect((await post((await createTestUser()).headers)).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/api/v2/accounts', headers: user.headers })).statusCode).toBe(200);
  });

  it('a guest: 3 a minute per IP', async () => {
    for (let i = 0; i < 3; i++) expect((await post({}, '10.9.9.9')).statusCode).toBe(200);
    const r = await post({}, '10.9.9.9');
    expect(r.statusCode).toBe(429);
    expect(r.headers['x-ratelimit-limit']).toBe('3');
    expect((await post({}, '10.9.9.8')).statusCode).toBe(200);
  });

  it('every mutation of a document counts: 6 aliased deposits against a limit of 5 are refused before any runs; 3 spend 3', async () => {
    const user = await createTestUser();
    const acct = (await t.app.inject({ method: 'POST', url: '/api/v2/accounts', headers: user.headers, payload: { name: 'Aliases' } })).json().data.uuid;
    const deposits = (n: number) =>
      `mutation($a: ID!) { ${Array.from({ length: n }, (_, i) => `d${i}: deposit(accountId: $a, amount: "1.00", assetCode: "USD") { entryId }`).join(' ')} }`;
    const send = (query: string) => t.app.inject({ method: 'POST', url: '/api/graphql', headers: user.headers, payload: { query, variables: { a: acct } } });
    const balance = async () => {
      const r = await t.app.inject({ method: 'GET', url: `/api/v2/accounts/${acct}/balances`, headers: user.headers });
      return r.json().data.balances.find((b: { asset_code: string }) => b.asset_code === 'USD')?.total_balance ?? '0';
    };

    const refused = await send(deposits(6));
    expect(refused.statusCode).toBe(429);
    expect(refused.json().errors[0]).toMatchObject({ extensions: { code: 'RATE_LIMITED' } });
    expect(await balance()).toMatch(/^0(\.0+)?$/);

    // A fresh credential: 3 mutations in one document take 3 of its 5, so two more requests fit, not three.
    const other = await createTestUser();
    const acct2 = (await t.app.inject({ method: 'POST', url: '/api/v2/accounts', headers: other.headers, payload: { name: 'Three' } })).json().data.uuid;
    const three = await t.app.inject({ method: 'POST', url: '/api/graphql', headers: other.headers, payload: { query: deposits(3), variables: { a: acct2 } } });
    expect(three.statusCode, three.body).toBe(200);
    expect(Object.keys(three.json().data)).toHaveLength(3);
    expect((await post(other.headers)).statusCode).toBe(200);
    expect((await post(other.headers)).statusCode).toBe(200);
    expect((await post(other.headers)).statusCode).toBe(429);
  });
});
