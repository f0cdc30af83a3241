import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, createTestUser, type TestApp } from '../helpers/app';
import { outbox } from './helpers';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ rateLimitPerMinute: 10 });
});
afterAll(async () => t.close());

describe('system.rate_limit_warning', () => {
  it('is written once per window when a credential crosses 80 % of it', async () => {
    // Start well inside a minute, so the test's requests share one window.
    const s = new Date().getSeconds();
    if (s > 45) await new Promise((r) => setTimeout(r, (61 - s) * 1000));
    const u = await createTestUser();
    const codes: number[] = [];
    for (let i = 0; i < 12; i++) codes.push((await t.app.inject({ method: 'GET', url: '/api/v2/accounts', headers: u.headers })).statusCode);
    expect(codes.filter((c) => c === 429).length).toBeGreaterThan(0);
    const found = await outbox('system.rate_limit_warning', { userId: u.userId });
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ environment: 'sandbox', data: { credential_type: 'api_key', window_seconds: 60, limit: 10, threshold_percent: 80 } });
    expect(found[0].data.used).toBeGreaterThanOrEqual(8);
  });
});
