import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ipRangeOf } from '../../domain/auth/security-alerts';
import { createTestApp, createTestUser, type TestApp } from '../helpers/app';
import { outbox } from './helpers';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

const alerts = async (userId: string, alert: string) => (await outbox('system.security_alert', { userId })).filter((r) => r.data.alert === alert);

describe('system.security_alert', () => {
  it('ranges: /24 for IPv4 (also v4-mapped), /48 for IPv6', () => {
    expect(ipRangeOf('203.0.113.77')).toBe('203.0.113.0/24');
    expect(ipRangeOf('::ffff:203.0.113.77')).toBe('203.0.113.0/24');
    expect(ipRangeOf('2001:db8:abcd:12::1')).toBe('2001:db8:abcd::/48');
    expect(ipRangeOf('2001:db8::1')).toBe('2001:db8:0::/48');
    expect(ipRangeOf('not an ip')).toBeNull();
  });

  it('login lockout: one alert when the wait begins (per environment), none for unknown emails', async () => {
    const u = await createTestUser();
    const ip = '198.51.100.9';
    const codes: number[] = [];
    for (let i = 0; i < 7; i++) {
      const r = await t.app.inject({ method: 'POST', url: '/api/auth/login', remoteAddress: ip, payload: { email: u.email, password: 'wrong password here' } });
      codes.push(r.statusCode);
    }
    expect(codes.at(-1)).toBe(429);
    const found = await alerts(u.userId, 'login_lockout');
    expect(found.map((r) => r.environment).sort()).toEqual(['production', 'sandbox']);
    expect(found[0].data).toMatchObject({ ip, retry_after_seconds: expect.any(Number), session_revoked: false });
  });

  it('an API key used from a new /24 after its first range alerts once; the first range and repeats do not', async () => {
    const u = await createTestUser();
    const get = (ip: string) => t.app.inject({ method: 'GET', url: '/api/v2/accounts', headers: u.headers, remoteAddress: ip });
    expect((await get('192.0.2.10')).statusCode).toBe(200);
    expect((await get('192.0.2.11')).statusCode).toBe(200);
    expect(await alerts(u.userId, 'api_key_new_ip_range')).toHaveLength(0);
    expect((await get('203.0.113.5')).statusCode).toBe(200);
    expect((await get('203.0.113.6')).statusCode).toBe(200);
    expect((await get('2001:db8:1:2::5')).statusCode).toBe(200);
    const found = await alerts(u.userId, 'api_key_new_ip_range');
    expect(found.map((r) => r.data.ip_range)).toEqual(['203.0.113.0/24', '2001:db8:1::/48']);
    expect(found[0]).toMatchObject({ environment: 'sandbox', data: { ip: '203.0.113.5', credential_id: expect.stringMatching(/.+/) } });
  });

  it('refresh token reuse revokes the session and alerts once', async () => {
    const u = await createTestUser();
    const login = await t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: u.email, password: u.password } });
    expect(login.statusCode).toBe(200);
    const first = login.json().refresh_token as string;
    const second = await t.app.inject({ method: 'POST', url: '/api/auth/refresh', payload: { refresh_token: first } });
    expect(second.statusCode).toBe(200);
    for (let i = 0; i < 2; i++) expect((await t.app.inject({ method: 'POST', url: '/api/auth/refresh', payload: { refresh_token: first } })).statusCode).toBe(401);
    // The session's current token is dead too.
    expect((await t.app.inject({ method: 'POST', url: '/api/auth/refresh', payload: { refresh_token: second.json().refresh_token } })).statusCode).toBe(401);
    const found = await alerts(u.userId, 'refresh_token_reuse');
    expect(found).toHaveLength(1);
    expect(found[0].data).toMatchObject({ session_revoked: true, credential_id: expect.stringMatching(/^sess_/) });
  });
});
