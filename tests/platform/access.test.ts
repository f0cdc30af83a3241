// Issue 13 items 4–8: API key environment scoping, refresh-token family revocation, operator
// bootstrap, login throttling per (email, source address) with back-off, and the key cap per user.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../domain/auth/api-keys';
import { issueBootstrapToken } from '../../domain/auth/operators';
import { getPrisma } from '../../domain/db/prisma';
import { REPO_ROOT } from '../../domain/platform/config';
import { createTestApp, createTestUser, type TestApp } from '../helpers/app';

const run = promisify(execFile);

let t: TestApp;
beforeAll(async () => {
  process.env.LOGIN_MAX_FAILURES = '3';
  process.env.LOGIN_BACKOFF_BASE_SECONDS = '10';
  process.env.LOGIN_LOCK_SECONDS = '900';
  process.env.LOGIN_MAX_FAILURES_PER_ADDRESS = '8';
  process.env.API_KEYS_MAX_PER_USER = '5';
  process.env.PLATFORM_ADMIN_EMAILS = 'boss@example.com';
  t = await createTestApp();
});
afterAll(async () => t.close());

const bearer = (v: string) => ({ authorization: `Bearer ${v}` });

async function register(email: string, password = 'a-very-long-password') {
  const r = await t.app.inject({
    method: 'POST',
    url: '/api/auth/register',
    payload: { name: 'Someone', email, password, password_confirmation: password },
  });
  expect(r.statusCode).toBe(201);
  return r.json().data;
}

function login(email: string, password: string, remoteAddress = '127.0.0.1', environment?: string) {
  return t.app.inject({
    method: 'POST',
    url: '/api/auth/login',
    remoteAddress,
    payload: { email, password, ...(environment ? { environment } : {}) },
  });
}

async function loginToken(email: string, password: string, environment?: string): Promise<string> {
  const r = await login(email, password, '127.0.0.1', environment);
  expect(r.statusCode).toBe(200);
  return r.json().access_token;
}

describe('item 4: an API key manages only keys of its own environment, within its own permissions', () => {
  it("a sandbox key cannot list, read, rotate or revoke the same user's production keys", async () => {
    const u = await createTestUser({ permissions: ['read', 'write'] });
    const sandboxAll = await createApiKey({ userId: u.userId, name: 'sandbox rwd', environment: 'sandbox', permissions: ['read', 'write', 'delete'] });
    const prod = await createApiKey({ userId: u.userId, name: 'prod', environment: 'production', permissions: ['read', 'write', 'delete'] });

    const list = await t.app.inject({ method: 'GET', url: '/api/v2/api-keys', headers: u.headers });
    expect(list.statusCode).toBe(200);
    const listed = list.json().data.map((k: { id: string; environment: string }) => k.environment);
    expect(listed.length).toBe(2);
    expect(new Set(listed)).toEqual(new Set(['sandbox']));
    expect(list.json().meta.total).toBe(2);

    const read = await t.app.inject({ method: 'GET', url: `/api/v2/api-keys/${prod.record.id}`, headers: u.headers });
    expect(read.statusCode).toBe(404);

    const rotate = await t.app.inject({ method: 'POST', url: `/api/v2/api-keys/${prod.record.id}/rotate`, headers: u.headers, payload: {} });
    expect(rotate.statusCode).toBe(404);
    expect(JSON.stringify(rotate.json())).not.toContain('sk_live_');

    const revoke = await t.app.inject({ method: 'DELETE', url: `/api/v2/api-keys/${prod.record.id}`, headers: bearer(sandboxAll.value) });
    expect(revoke.statusCode).toBe(404);
    const row = await getPrisma().apiKey.findUnique({ where: { id: prod.record.id } });
    expect(row?.revokedAt).toBeNull();
    expect(row?.expiresAt).toBeNull();
    // The production key still works.
    expect((await t.app.inject({ method: 'GET', url: '/api/auth/user', headers: bearer(prod.value) })).statusCode).toBe(200);
  });

  it('rotating a key with more permissions than the caller key holds is 403 INSUFFICIENT_PERMISSIONS', async () => {
    const u = await createTestUser({ permissions: ['read', 'write'] });
    const stronger = await createApiKey({ userId: u.userId, name: 'rwd', environment: 'sandbox', permissions: ['read', 'write', 'delete'] });
    const r = await t.app.inject({ method: 'POST', url: `/api/v2/api-keys/${stronger.record.id}/rotate`, headers: u.headers, payload: {} });
    expect(r.statusCode).toBe(403);
    expect(r.json().errors[0].code).toBe('INSUFFICIENT_PERMISSIONS');
    const weaker = await createApiKey({ userId: u.userId, name: 'r', environment: 'sandbox', permissions: ['read'] });
    const ok = await t.app.inject({ method: 'POST', url: `/api/v2/api-keys/${weaker.record.id}/rotate`, headers: u.headers, payload: {} });
    expect(ok.statusCode).toBe(201);
    expect(ok.json().data.key.permissions).toEqual(['read']);
  });

  it("a key with an IP allow-list or an expiry cannot create or rotate a key that reaches further", async () => {
    const u = await createTestUser({ ipAllowlist: ['127.0.0.0/8'] });
    const create = (payload: Record<string, unknown>) =>
      t.app.inject({ method: 'POST', url: '/api/v2/api-keys', headers: u.headers, payload: { name: 'child', ...payload } });
    // Omitted: the child inherits the caller's allow-list; wider or empty is refused.
    const inherited = await create({});
    expect(inherited.statusCode).toBe(201);
    expect(inherited.json().data.ip_allowlist).toEqual(['127.0.0.0/8']);
    const wider = await create({ ip_allowlist: ['0.0.0.0/0'] });
    expect(wider.statusCode).toBe(403);
    expect(wider.json().errors[0]).toMatchObject({ code: 'INSUFFICIENT_PERMISSIONS', source: { pointer: '/ip_allowlist/0' } });
    expect((await create({ ip_allowlist: [] })).statusCode).toBe(403);
    expect((await create({ ip_allowlist: ['127.0.0.1/32'] })).statusCode).toBe(201);
    // Rotating an unrestricted key would hand the caller an unrestricted value.
    const open = await createApiKey({ userId: u.userId, name: 'open', environment: 'sandbox', permissions: ['read'] });
    const rot = await t.app.inject({ method: 'POST', url: `/api/v2/api-keys/${open.record.id}/rotate`, headers: u.headers, payload: {} });
    expect(rot.statusCode).toBe(403);

    const v = await createTestUser(); // a fresh user: the cap in this file is 5 keys
    const soon = new Date(Date.now() + 3600_000);
    const expiring = await createApiKey({ userId: v.userId, name: 'expiring', environment: 'sandbox', permissions: ['read', 'write'], expiresAt: soon });
    const asExpiring = (payload: Record<string, unknown>) =>
      t.app.inject({ method: 'POST', url: '/api/v2/api-keys', headers: bearer(expiring.value), payload: { name: 'child', ...payload } });
    const child = await asExpiring({});
    expect(child.statusCode).toBe(201);
    expect(new Date(child.json().data.expires_at).getTime()).toBe(soon.getTime());
    const later = await asExpiring({ expires_at: new Date(Date.now() + 7200_000).toISOString() });
    expect(later.statusCode).toBe(403);
    expect(later.json().errors[0].source.pointer).toBe('/expires_at');
  });

  it('a login session is the account owner and manages keys of both environments', async () => {
    const u = await createTestUser();
    const prod = await createApiKey({ userId: u.userId, name: 'prod', environment: 'production', permissions: ['read'] });
    const token = await loginToken(u.email, u.password); // a sandbox login
    const list = await t.app.inject({ method: 'GET', url: '/api/v2/api-keys', headers: bearer(token) });
    expect(new Set(list.json().data.map((k: { environment: string }) => k.environment))).toEqual(new Set(['sandbox', 'production']));
    const read = await t.app.inject({ method: 'GET', url: `/api/v2/api-keys/${prod.record.id}`, headers: bearer(token) });
    expect(read.statusCode).toBe(200);
    const rotated = await t.app.inject({ method: 'POST', url: `/api/v2/api-keys/${prod.record.id}/rotate`, headers: bearer(token), payload: {} });
    expect(rotated.statusCode).toBe(201);
    expect(rotated.json().data.key.key).toMatch(/^sk_live_/);
    const created = await t.app.inject({ method: 'POST', url: '/api/v2/api-keys', headers: bearer(token), payload: { name: 'p', environment: 'production' } });
    expect(created.statusCode).toBe(201);
  });
});

describe('item 5: reusing a rotated refresh token revokes the whole session', () => {
  it('after reuse, the newer access and refresh tokens stop at once', async () => {
    const u = await createTestUser();
    const first = await login(u.email, u.password);
    expect(first.statusCode).toBe(200);
    const t1 = first.json();
    const second = await t.app.inject({ method: 'POST', url: '/api/auth/refresh', payload: { refresh_token: t1.refresh_token } });
    expect(second.statusCode).toBe(200);
    const t2 = second.json();
    expect((await t.app.inject({ method: 'GET', url: '/api/auth/user', headers: bearer(t2.access_token) })).statusCode).toBe(200);

    const reuse = await t.app.inject({ method: 'POST', url: '/api/auth/refresh', payload: { refresh_token: t1.refresh_token } });
    expect(reuse.statusCode).toBe(401);

    for (const access of [t2.access_token, t1.access_token]) {
      const me = await t.app.inject({ method: 'GET', url: '/api/auth/user', headers: bearer(access) });
      expect(me.statusCode).toBe(401);
      expect(me.json().errors[0].code).toBe('CREDENTIALS_REVOKED');
    }
    const newer = await t.app.inject({ method: 'POST', url: '/api/auth/refresh', payload: { refresh_token: t2.refresh_token } });
    expect(newer.statusCode).toBe(401);
    // Other sessions of the same user are not affected.
    const other = await login(u.email, u.password);
    expect((await t.app.inject({ method: 'GET', url: '/api/auth/user', headers: bearer(other.json().access_token) })).statusCode).toBe(200);
  });
});

describe('item 6: operators are made by an explicit bootstrap, not by registering', () => {
  const isOperator = async (token: string) => {
    const me = await t.app.inject({ method: 'GET', url: '/api/auth/user', headers: bearer(token) });
    return me.json().data.is_admin as boolean;
  };
  const metrics = (token: string) => t.app.inject({ method: 'GET', url: '/api/metrics', headers: bearer(token) });
  const redeem = (token: string, bootstrap: unknown) =>
    t.app.inject({ method: 'POST', url: '/api/v2/operators/bootstrap', headers: bearer(token), payload: { token: bootstrap } });

  it('registering with an email listed in PLATFORM_ADMIN_EMAILS gives no operator status', async () => {
    const user = await register('boss@example.com');
    expect(user.is_admin).toBe(false);
    const token = await loginToken('boss@example.com', 'a-very-long-password');
    expect(await isOperator(token)).toBe(false);
    expect((await metrics(token)).statusCode).toBe(403);
  });

  it('the bootstrap token makes the first operator once; wrong, reused or API-key redemptions are refused', async () => {
    const bootstrap = await issueBootstrapToken();
    expect(bootstrap).toMatch(/^obt_/);
    const first = await createTestUser();
    const firstToken = await loginToken(first.email, first.password);

    const wrong = await redeem(firstToken, 'obt_' + 'x'.repeat(43));
    expect(wrong.statusCode).toBe(403);
    expect(wrong.json().errors[0].code).toBe('INVALID_BOOTSTRAP_TOKEN');
    const viaKey = await redeem(first.key, bootstrap);
    expect(viaKey.statusCode).toBe(403);
    expect(viaKey.json().errors[0].code).toBe('LOGIN_SESSION_REQUIRED');
    expect(await isOperator(firstToken)).toBe(false);

    const ok = await redeem(firstToken, bootstrap);
    expect(ok.statusCode).toBe(200);
    expect(ok.json().data.is_admin).toBe(true);
    expect(await isOperator(firstToken)).toBe(true);
    expect((await metrics(firstToken)).statusCode).toBe(200);
    const stored = await getPrisma().operatorBootstrapToken.findMany();
    expect(JSON.stringify(stored)).not.toContain(bootstrap!.slice(4));

    const second = await createTestUser();
    const secondToken = await loginToken(second.email, second.password);
    const again = await redeem(secondToken, bootstrap);
    expect(again.statusCode).toBe(403);
    expect(again.json().errors[0].code).toBe('INVALID_BOOTSTRAP_TOKEN');
    expect(await isOperator(secondToken)).toBe(false);
    // Once an operator exists no new token is issued.
    expect(await issueBootstrapToken()).toBeNull();
  });

  it('`npm run operator -- grant|revoke <email>` grants and revokes; an outstanding token dies when an operator exists', async () => {
    const cli = (...args: string[]) =>
      run(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'scripts/operator.ts'), ...args], {
        cwd: REPO_ROOT,
        env: { ...process.env },
      });
    // Revoke every operator so that a token can be issued again.
    for (const op of await getPrisma().user.findMany({ where: { isAdmin: true } })) await cli('revoke', op.email);
    expect(await getPrisma().user.count({ where: { isAdmin: true } })).toBe(0);
    const bootstrap = await issueBootstrapToken();
    expect(bootstrap).not.toBeNull();

    const u = await createTestUser();
    const out = await cli('grant', u.email.toUpperCase());
    expect(out.stdout).toContain(u.email);
    const token = await loginToken(u.email, u.password);
    expect(await isOperator(token)).toBe(true);
    expect((await metrics(token)).statusCode).toBe(200);

    const other = await createTestUser();
    const otherToken = await loginToken(other.email, other.password);
    const late = await redeem(otherToken, bootstrap);
    expect(late.statusCode).toBe(403);
    expect(await isOperator(otherToken)).toBe(false);

    await cli('revoke', u.email);
    expect(await isOperator(token)).toBe(false);
    await expect(cli('grant', 'nobody@example.com')).rejects.toMatchObject({ code: 1 });
  });
});

describe('item 7: login throttling per (email, source address) with back-off and a per-address ceiling', () => {
  it('failures from an attacker address do not lock the real user out elsewhere', async () => {
    await register('victim7@example.com');
    for (let i = 0; i < 3; i++) expect((await login('victim7@example.com', 'wrong-password-123', '127.0.0.2')).statusCode).toBe(401);
    for (let i = 0; i < 3; i++) expect((await login('victim7@example.com', 'wrong-password-123', '127.0.0.2')).statusCode).toBe(429);
    const real = await login('victim7@example.com', 'a-very-long-password', '127.0.0.3');
    expect(real.statusCode).toBe(200);
    // The attacker address stays throttled even with the right password.
    expect((await login('victim7@example.com', 'a-very-long-password', '127.0.0.2')).statusCode).toBe(429);
  });

  it('the attacker address gets 429 with a Retry-After that doubles with each further failure', async () => {
    await register('victim7b@example.com');
    const ip = '127.0.0.5';
    for (let i = 0; i < 3; i++) expect((await login('victim7b@example.com', 'wrong-password-123', ip)).statusCode).toBe(401);
    const waits: number[] = [];
    for (let round = 0; round < 3; round++) {
      const locked = await login('victim7b@example.com', 'wrong-password-123', ip);
      expect(locked.statusCode).toBe(429);
      expect(locked.json().errors[0].code).toBe('TOO_MANY_LOGIN_ATTEMPTS');
      const wait = Number(locked.headers['retry-after']);
      waits.push(wait);
      // Let the wait pass (move this address's attempts back in time), then fail once more.
      await getPrisma().$executeRaw`UPDATE login_attempts SET attempted_at = attempted_at - make_interval(secs => ${wait + 1}) WHERE ip = ${ip}`;
      expect((await login('victim7b@example.com', 'wrong-password-123', ip)).statusCode).toBe(401);
    }
    expect(waits[0]).toBeGreaterThan(0);
    expect(waits[0]).toBeLessThanOrEqual(10);
    expect(waits[1]).toBeGreaterThan(10);
    expect(waits[1]).toBeLessThanOrEqual(20);
    expect(waits[2]).toBeGreaterThan(20);
    expect(waits[2]).toBeLessThanOrEqual(40);
  });

  it('one address failing across many emails hits a ceiling for every email; other addresses are unaffected', async () => {
    await register('stuffed@example.com');
    const ip = '127.0.0.4';
    for (let i = 0; i < 8; i++) {
      expect((await login(`nobody${i}@example.com`, 'wrong-password-123', ip)).statusCode).toBe(401);
    }
    const blocked = await login('stuffed@example.com', 'a-very-long-password', ip);
    expect(blocked.statusCode).toBe(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    expect((await login('stuffed@example.com', 'a-very-long-password', '127.0.0.6')).statusCode).toBe(200);
  });
});

describe('item 8: active API keys per user are capped (API_KEYS_MAX_PER_USER)', () => {
  it('creating past the cap is 422 API_KEY_LIMIT_REACHED; revoked and expired keys do not count', async () => {
    const u = await createTestUser(); // one key
    const create = () => t.app.inject({ method: 'POST', url: '/api/v2/api-keys', headers: u.headers, payload: { name: 'k' } });
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const r = await create();
      expect(r.statusCode).toBe(201);
      ids.push(r.json().data.id);
    }
    const over = await create();
    expect(over.statusCode).toBe(422);
    expect(over.json().errors[0].code).toBe('API_KEY_LIMIT_REACHED');

    expect((await t.app.inject({ method: 'DELETE', url: `/api/v2/api-keys/${ids[0]}`, headers: u.headers })).statusCode).toBe(200);
    expect((await create()).statusCode).toBe(201);
    expect((await create()).statusCode).toBe(422);

    await getPrisma().apiKey.update({ where: { id: ids[1] }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await create()).statusCode).toBe(201);
    expect((await create()).statusCode).toBe(422);
  });

  it('at the cap, rotation without grace is allowed; with a grace period the old key still counts', async () => {
    const u = await createTestUser();
    for (let i = 0; i < 4; i++) {
      expect((await t.app.inject({ method: 'POST', url: '/api/v2/api-keys', headers: u.headers, payload: { name: 'k' } })).statusCode).toBe(201);
    }
    const keys = await getPrisma().apiKey.findMany({ where: { userId: u.userId, revokedAt: null }, orderBy: { createdAt: 'asc' } });
    const target = keys[keys.length - 1].id;
    const graced = await t.app.inject({
      method: 'POST',
      url: `/api/v2/api-keys/${target}/rotate`,
      headers: u.headers,
      payload: { grace_period_seconds: 3600 },
    });
    expect(graced.statusCode).toBe(422);
    expect(graced.json().errors[0].code).toBe('API_KEY_LIMIT_REACHED');
    const plain = await t.app.inject({ method: 'POST', url: `/api/v2/api-keys/${target}/rotate`, headers: u.headers, payload: {} });
    expect(plain.statusCode).toBe(201);
    expect(await getPrisma().apiKey.count({ where: { userId: u.userId, revokedAt: null } })).toBe(5);
  });
});
