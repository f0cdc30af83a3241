import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, createTestUser, type TestApp } from '../helpers/app';
import { getPrisma } from '../../domain/db/prisma';
import { hashApiKey } from '../../domain/auth/api-keys';
import { cacheNoticesListening, nextCacheNotice, publishCacheNotice, reconnectCacheNotices, type CacheNotice } from '../../domain/events/cache-notices';

let t: TestApp;
beforeAll(async () => {
  process.env.LOGIN_MAX_FAILURES = '3';
  t = await createTestApp();
});
afterAll(async () => t.close());

async function register(email: string, password = 'a-very-long-password') {
  return t.app.inject({
    method: 'POST',
    url: '/api/auth/register',
    payload: { name: 'Ada Lovelace', email, password, password_confirmation: password },
  });
}

describe('users and login', () => {
  it('registers, logs in, reads the user, refreshes and logs out', async () => {
    const reg = await register('Ada@Example.com');
    expect(reg.statusCode).toBe(201);
    expect(reg.json().data).toMatchObject({ email: 'ada@example.com', name: 'Ada Lovelace', is_admin: false });
    const stored = await getPrisma().user.findUnique({ where: { email: 'ada@example.com' } });
    expect(stored?.passwordHash).toMatch(/^scrypt\$/);
    expect(stored?.passwordHash).not.toContain('a-very-long-password');

    const login = await t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: 'ada@example.com', password: 'a-very-long-password' } });
    expect(login.statusCode).toBe(200);
    const tokens = login.json();
    expect(tokens.access_token).toEqual(tokens.data.access_token);
    expect(tokens.data.environment).toBe('sandbox');

    const me = await t.app.inject({ method: 'GET', url: '/api/auth/user', headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(me.statusCode).toBe(200);
    expect(me.json().data.email).toBe('ada@example.com');

    const refreshed = await t.app.inject({ method: 'POST', url: '/api/auth/refresh', payload: { refresh_token: tokens.refresh_token } });
    expect(refreshed.statusCode).toBe(200);
    expect(refreshed.json().refresh_token).not.toBe(tokens.refresh_token);
    const newAccess = refreshed.json().access_token;
    expect((await t.app.inject({ method: 'GET', url: '/api/auth/user', headers: { authorization: `Bearer ${newAccess}` } })).statusCode).toBe(200);
    const newRefresh = refreshed.json().refresh_token;
    const logout = await t.app.inject({ method: 'POST', url: '/api/auth/logout', headers: { authorization: `Bearer ${newAccess}` } });
    expect(logout.statusCode).toBe(204);
    const after = await t.app.inject({ method: 'GET', url: '/api/auth/user', headers: { authorization: `Bearer ${newAccess}` } });
    expect(after.statusCode).toBe(401);
    expect(after.json().errors[0].code).toBe('CREDENTIALS_REVOKED');
    // Logout ends the refresh token too, and the old one was rotated away.
    for (const refresh_token of [newRefresh, tokens.refresh_token]) {
      expect((await t.app.inject({ method: 'POST', url: '/api/auth/refresh', payload: { refresh_token } })).statusCode).toBe(401);
    }
    // Reusing a rotated refresh token ends the whole session: see tests/platform/access.test.ts.
  });

  it('refuses short passwords, mismatched confirmation and duplicate emails with 422', async () => {
    const short = await register('short@example.com', 'tooshort');
    expect(short.statusCode).toBe(422);
    expect(short.json().errors[0].source.pointer).toBe('/password');
    const mismatch = await t.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: { name: 'X', email: 'm@example.com', password: 'a-very-long-password', password_confirmation: 'another-long-password' },
    });
    expect(mismatch.statusCode).toBe(422);
    expect(mismatch.json().errors[0].source.pointer).toBe('/password_confirmation');
    expect((await register('dup@example.com')).statusCode).toBe(201);
    const dup = await register('DUP@example.com');
    expect(dup.statusCode).toBe(422);
    expect(dup.json().errors[0].code).toBe('EMAIL_TAKEN');
  });

  it('throttles repeated failed logins, even with the right password afterwards', async () => {
    await register('victim@example.com');
    for (let i = 0; i < 3; i++) {
      const bad = await t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: 'victim@example.com', password: 'wrong-password-123' } });
      expect(bad.statusCode).toBe(401);
    }
    const locked = await t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: 'victim@example.com', password: 'a-very-long-password' } });
    expect(locked.statusCode).toBe(429);
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('a production login sees production, a sandbox one sandbox', async () => {
    await register('prod@example.com');
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: 'prod@example.com', password: 'a-very-long-password', environment: 'production' },
    });
    const me = await t.app.inject({ method: 'GET', url: '/api/auth/user', headers: { authorization: `Bearer ${login.json().access_token}` } });
    expect(me.json().meta.environment).toBe('production');
  });
});

describe('API keys', () => {
  it('creates a key shown once, stores only its hash, lists, rotates and revokes', async () => {
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v2/api-keys',
      headers: t.headers,
      payload: { name: 'ci', permissions: ['read'] },
    });
    expect(created.statusCode).toBe(201);
    const key = created.json().data;
    expect(key.key).toMatch(/^sk_sandbox_/);
    const row = await getPrisma().apiKey.findUnique({ where: { id: key.id } });
    expect(row?.keyHash).toBe(hashApiKey(key.key));
    expect(JSON.stringify(row)).not.toContain(key.key);

    const list = await t.app.inject({ method: 'GET', url: '/api/v2/api-keys?per_page=1', headers: t.headers });
    expect(list.json().meta).toMatchObject({ current_page: 1, per_page: 1, total: 2, last_page: 2, from: 1, to: 1 });
    expect(list.json().links.next).toContain('page=2');
    expect(JSON.stringify(list.json())).not.toContain(key.key);

    const readOnly = { authorization: `Bearer ${key.key}` };
    expect((await t.app.inject({ method: 'GET', url: '/api/v2/api-keys', headers: readOnly })).statusCode).toBe(200);
    const denied = await t.app.inject({ method: 'POST', url: '/api/v2/api-keys', headers: readOnly, payload: { name: 'x' } });
    expect(denied.statusCode).toBe(403);
    expect(denied.json().errors[0].code).toBe('INSUFFICIENT_PERMISSIONS');

    const rotated = await t.app.inject({ method: 'POST', url: `/api/v2/api-keys/${key.id}/rotate`, headers: t.headers, payload: {} });
    expect(rotated.statusCode).toBe(201);
    const fresh = rotated.json().data.key.key;
    expect(fresh).not.toBe(key.key);
    expect((await t.app.inject({ method: 'GET', url: '/api/auth/user', headers: readOnly })).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'GET', url: '/api/auth/user', headers: { authorization: `Bearer ${fresh}` } })).statusCode).toBe(200);

    const id = rotated.json().data.key.id;
    const revoked = await t.app.inject({ method: 'DELETE', url: `/api/v2/api-keys/${id}`, headers: t.headers });
    expect(revoked.json().data.status).toBe('revoked');
    const after = await t.app.inject({ method: 'GET', url: '/api/auth/user', headers: { authorization: `Bearer ${fresh}` } });
    expect(after.statusCode).toBe(401);
    expect(after.json().errors[0].code).toBe('CREDENTIALS_REVOKED');
  });

  it('production keys are sk_live_, fak_ on request, and keys of other users are 404', async () => {
    const live = await t.app.inject({ method: 'POST', url: '/api/v2/api-keys', headers: t.headers, payload: { name: 'live', environment: 'production' } });
    expect(live.statusCode).toBe(403); // a sandbox key cannot mint production keys
    const other = await createTestUser();
    const fak = await t.app.inject({ method: 'POST', url: '/api/v2/api-keys', headers: other.headers, payload: { name: 'g', format: 'fak' } });
    expect(fak.json().data.key).toMatch(/^fak_/);
    const peek = await t.app.inject({ method: 'GET', url: `/api/v2/api-keys/${fak.json().data.id}`, headers: t.headers });
    expect(peek.statusCode).toBe(404);
    const login = await t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: other.email, password: other.password, environment: 'production' } });
    const prod = await t.app.inject({
      method: 'POST',
      url: '/api/v2/api-keys',
      headers: { authorization: `Bearer ${login.json().access_token}` },
      payload: { name: 'live', environment: 'production' },
    });
    expect(prod.json().data.key).toMatch(/^sk_live_/);
  });

  it('expired keys get 401 and keys used from outside their allow-list 403', async () => {
    const u = await createTestUser({ ipAllowlist: ['10.0.0.0/8'] });
    const blocked = await t.app.inject({ method: 'GET', url: '/api/auth/user', headers: u.headers, remoteAddress: '192.168.1.5' });
    expect(blocked.statusCode).toBe(403);
    expect(blocked.json().errors[0].code).toBe('IP_NOT_ALLOWED');
    const allowed = await t.app.inject({ method: 'GET', url: '/api/auth/user', headers: u.headers, remoteAddress: '10.1.2.3' });
    expect(allowed.statusCode).toBe(200);

    const e = await createTestUser();
    await getPrisma().apiKey.updateMany({ where: { userId: e.userId }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const expired = await t.app.inject({ method: 'GET', url: '/api/auth/user', headers: e.headers });
    expect(expired.statusCode).toBe(401);
    expect(expired.json().errors[0].code).toBe('CREDENTIALS_EXPIRED');

    const badCidr = await t.app.inject({ method: 'POST', url: '/api/v2/api-keys', headers: t.headers, payload: { name: 'x', ip_allowlist: ['10.0.0.0/99'] } });
    expect(badCidr.statusCode).toBe(422);
    expect(badCidr.json().errors[0].source.pointer).toBe('/ip_allowlist/0');
  });
});

// Another API process's change, as this one sees it: the database write, then that process's
// notice (its own sender id, so no local eviction of this process plays a part), and the wait for
// this process to have applied it. Keys are cached per process, so without the notice the next
// request would be served from the cache (each case failed so before the notices existed).
async function changedElsewhere(write: () => Promise<unknown>, notice: CacheNotice): Promise<void> {
  await write();
  const applied = nextCacheNotice();
  expect(await publishCacheNotice(notice, 'another-api-process')).toBe(true);
  await applied;
}

describe('a change made by another process applies on the next request here', () => {
  const user = (headers: Record<string, string>) => t.app.inject({ method: 'GET', url: '/api/auth/user', headers });

  it('a key revoked elsewhere is refused at once', async () => {
    await cacheNoticesListening();
    const u = await createTestUser();
    expect((await user(u.headers)).statusCode).toBe(200); // cached here
    const key = await getPrisma().apiKey.findFirstOrThrow({ where: { userId: u.userId } });
    await changedElsewhere(() => getPrisma().apiKey.update({ where: { id: key.id }, data: { revokedAt: new Date() } }), { cache: 'api_keys', keyId: key.id });
    const r = await user(u.headers);
    expect(r.statusCode).toBe(401);
    expect(r.json().errors[0].code).toBe('CREDENTIALS_REVOKED');
  });

  it("operator rights withdrawn elsewhere end at once (a key's cached principal carries them)", async () => {
    await cacheNoticesListening();
    const op = await createTestUser({ admin: true });
    const holds = () => t.app.inject({ method: 'GET', url: '/api/v2/regtech/holds', headers: op.headers });
    expect((await holds()).statusCode).toBe(200);
    await changedElsewhere(() => getPrisma().user.update({ where: { id: op.userId }, data: { isAdmin: false } }), { cache: 'api_keys', userId: op.userId });
    const r = await holds();
    expect(r.statusCode).toBe(403);
    expect(r.json().errors[0].code).toBe('ADMIN_REQUIRED');
  });

  it('a reconnect to NATS drops the cached keys: a notice may have been missed meanwhile', async () => {
    await cacheNoticesListening();
    const u = await createTestUser();
    expect((await user(u.headers)).statusCode).toBe(200);
    // Revoked while this process was not listening: no notice reaches it.
    await getPrisma().apiKey.updateMany({ where: { userId: u.userId }, data: { revokedAt: new Date() } });
    await reconnectCacheNotices();
    expect((await user(u.headers)).statusCode).toBe(401);
  });
});
