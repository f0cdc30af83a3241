/**
 * GraphQL's own rate limits (spec "Limits": 120 a minute authenticated, 30 as guest), here set to
 * 5 and 3 to test them: per credential, per IP for guests, X-RateLimit headers as on REST, 429 with
 * Retry-After past the limit; a credential's GraphQL budget is not its REST budget.
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
    expect(refused.json().errors[0].code).toBe('RATE_LIMITED');
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
});
