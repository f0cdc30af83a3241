import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app';
import { authorize, authRequest, basic, form, login, pkce, REDIRECT, registerClient } from './helpers';

/** client_credentials, revocation (RFC 7009), introspection (RFC 7662), metadata (RFC 8414), client deletion. */
let t: TestApp;
let client: { client_id: string; client_secret: string | null };
let other: { client_id: string; client_secret: string | null };
let auth: Record<string, string>;

beforeAll(async () => {
  t = await createTestApp();
  client = await registerClient(t, t.user, { name: 'Reports', client_type: 'confidential', redirect_uris: [REDIRECT], scopes: ['read', 'write'] });
  other = await registerClient(t, t.user, { name: 'Other', client_type: 'confidential', redirect_uris: [REDIRECT], scopes: ['read'] });
  auth = { authorization: basic(client.client_id, client.client_secret!) };
}, 60_000);
afterAll(async () => t?.close());

const api = (token: string) => t.app.inject({ method: 'GET', url: '/api/v2/accounts', headers: { authorization: `Bearer ${token}` } });

async function userTokens() {
  const p = pkce();
  const back = await authorize(t, await login(t, t.user), authRequest(client.client_id, p.challenge));
  return (await form(t, '/oauth/token', { grant_type: 'authorization_code', code: back.searchParams.get('code')!, redirect_uri: REDIRECT, code_verifier: p.verifier }, auth)).json();
}

describe('client_credentials', () => {
  it('issues a token acting for the owner with the asked scopes, no refresh token', async () => {
    const r = await form(t, '/oauth/token', { grant_type: 'client_credentials', scope: 'read', client_id: client.client_id, client_secret: client.client_secret! });
    expect(r.statusCode).toBe(200);
    const tok = r.json();
    expect(tok).toMatchObject({ token_type: 'Bearer', scope: 'read' });
    expect(tok.refresh_token).toBeUndefined();
    expect((await api(tok.access_token)).statusCode).toBe(200);
    const bad = await form(t, '/oauth/token', { grant_type: 'client_credentials', scope: 'delete' }, auth);
    expect([bad.statusCode, bad.json().error]).toEqual([400, 'invalid_scope']);
  });
});

describe('introspection and revocation', () => {
  it('introspects own tokens; another client sees them inactive; a public caller is refused', async () => {
    const tok = await userTokens();
    const r = await form(t, '/oauth/introspect', { token: tok.access_token }, auth);
    expect(r.json()).toMatchObject({ active: true, scope: 'read', client_id: client.client_id, sub: t.user.userId, token_type: 'Bearer' });
    expect((await form(t, '/oauth/introspect', { token: tok.refresh_token }, auth)).json()).toMatchObject({ active: true, token_type: 'refresh_token' });
    expect((await form(t, '/oauth/introspect', { token: tok.access_token }, { authorization: basic(other.client_id, other.client_secret!) })).json()).toEqual({ active: false });
    expect((await form(t, '/oauth/introspect', { token: 'garbage' }, auth)).json()).toEqual({ active: false });
    const anon = await form(t, '/oauth/introspect', { token: tok.access_token });
    expect([anon.statusCode, anon.json().error]).toEqual([401, 'invalid_client']);
  });

  it('revoking an access token stops it at once; revoking a refresh token ends the grant', async () => {
    const tok = await userTokens();
    expect((await form(t, '/oauth/revoke', { token: tok.access_token, token_type_hint: 'access_token' }, auth)).statusCode).toBe(200);
    expect((await api(tok.access_token)).statusCode).toBe(401);
    expect((await form(t, '/oauth/introspect', { token: tok.access_token }, auth)).json()).toEqual({ active: false });
    // The refresh token still works (only that access token was revoked)...
    const next = (await form(t, '/oauth/token', { grant_type: 'refresh_token', refresh_token: tok.refresh_token }, auth)).json();
    expect((await api(next.access_token)).statusCode).toBe(200);
    // ...until it is revoked: then the grant and its access tokens end.
    expect((await form(t, '/oauth/revoke', { token: next.refresh_token }, auth)).statusCode).toBe(200);
    expect((await api(next.access_token)).statusCode).toBe(401);
    expect((await form(t, '/oauth/token', { grant_type: 'refresh_token', refresh_token: next.refresh_token }, auth)).json().error).toBe('invalid_grant');
    // Unknown tokens are not an error (RFC 7009 §2.2); another client cannot revoke this one's tokens.
    expect((await form(t, '/oauth/revoke', { token: 'unknown' }, auth)).statusCode).toBe(200);
    const live = await userTokens();
    await form(t, '/oauth/revoke', { token: live.access_token }, { authorization: basic(other.client_id, other.client_secret!) });
    expect((await api(live.access_token)).statusCode).toBe(200);
  });

  it('deleting the client revokes its tokens', async () => {
    const c = await registerClient(t, t.user, { name: 'Short-lived', client_type: 'confidential', redirect_uris: [REDIRECT], scopes: ['read'] });
    const tok = (await form(t, '/oauth/token', { grant_type: 'client_credentials' }, { authorization: basic(c.client_id, c.client_secret!) })).json();
    expect((await api(tok.access_token)).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'DELETE', url: `/api/v2/oauth/clients/${c.client_id}`, headers: t.headers })).statusCode).toBe(200);
    expect((await api(tok.access_token)).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'GET', url: `/api/v2/oauth/clients/${c.client_id}`, headers: t.headers })).statusCode).toBe(404);
  });
});

describe('metadata', () => {
  it('describes the endpoints and what they support', async () => {
    const r = await t.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server', headers: { host: 'bank.example.test' } });
    expect(r.statusCode).toBe(200);
    const m = r.json();
    expect(m.issuer).toMatch(/^https?:\/\//);
    for (const [k, path] of [['authorization_endpoint', 'authorize'], ['token_endpoint', 'token'], ['revocation_endpoint', 'revoke'], ['introspection_endpoint', 'introspect']]) {
      expect(m[k]).toBe(`${m.issuer}/oauth/${path}`);
    }
    expect(m).toMatchObject({
      response_types_supported: ['code'],
      code_challenge_methods_supported: ['S256'],
      scopes_supported: ['read', 'write', 'delete'],
      grant_types_supported: expect.arrayContaining(['authorization_code', 'refresh_token', 'client_credentials']),
      token_endpoint_auth_methods_supported: expect.arrayContaining(['client_secret_basic', 'client_secret_post', 'none']),
    });
  });
});

describe('malformed requests', () => {
  it('never answer 5xx', async () => {
    const cases = [
      t.app.inject({ method: 'POST', url: '/oauth/token' }),
      t.app.inject({ method: 'POST', url: '/oauth/token', headers: { 'content-type': 'text/plain' }, payload: 'x' }),
      form(t, '/oauth/token', { grant_type: 'authorization_code' }, { authorization: 'Basic !!!' }),
      form(t, '/oauth/token', { grant_type: 'authorization_code' }, { authorization: `Basic ${Buffer.from('%E0%A4%A:x').toString('base64')}` }),
      form(t, '/oauth/token', { grant_type: 'authorization_code', code: 'x', code_verifier: 'y' }, auth),
      form(t, '/oauth/token', { grant_type: 'refresh_token', refresh_token: 'x'.repeat(5000) }, auth),
      t.app.inject({ method: 'POST', url: '/oauth/token', headers: { 'content-type': 'application/x-www-form-urlencoded', ...auth }, payload: 'grant_type=a&grant_type=b' }),
      form(t, '/oauth/introspect', { token: 'a.b.c' }, auth),
      form(t, '/oauth/revoke', {}, auth),
      t.app.inject({ method: 'GET', url: `/oauth/authorize?client_id=${'x'.repeat(500)}` }),
      t.app.inject({ method: 'GET', url: '/oauth/authorize?client_id=a&client_id=b' }),
      t.app.inject({ method: 'GET', url: '/api/v2/accounts', headers: { authorization: 'Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6ImF0K2p3dCJ9.e30.x' } }),
    ];
    for (const r of await Promise.all(cases)) expect(r.statusCode, r.body).toBeLessThan(500);
  });
});
