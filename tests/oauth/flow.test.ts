import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app';
import { authorize, authRequest, basic, form, login, pkce, REDIRECT, registerClient } from './helpers';

/**
 * The authorization-code + PKCE flow over HTTP (app.inject): registration, the consent page, the
 * user's sign-in and approval (posted as the page's script posts it; consent-browser.test.ts runs the page itself in Chromium),
 * code for tokens, the token on API routes with its scopes, refresh with rotation, and refusals.
 */
let t: TestApp;
let session: string;
let client: { client_id: string; client_secret: string | null };

beforeAll(async () => {
  t = await createTestApp();
  client = await registerClient(t, t.user, { name: 'Budget <App>', client_type: 'confidential', redirect_uris: [REDIRECT, 'http://127.0.0.1:8765/cb'], scopes: ['read', 'write'] });
  session = await login(t, t.user);
}, 60_000);
afterAll(async () => t?.close());

const tokenCall = (fields: Record<string, string>, secret = client.client_secret!) => form(t, '/oauth/token', fields, { authorization: basic(client.client_id, secret) });

async function codeFor(extra: Record<string, string> = {}) {
  const p = pkce();
  const q = authRequest(client.client_id, p.challenge, extra);
  const back = await authorize(t, session, q);
  return { code: back.searchParams.get('code')!, state: back.searchParams.get('state'), verifier: p.verifier, back, q };
}

describe('client registration', () => {
  it('shows the secret once, lists and reads the client without it, refuses bad redirect URIs', async () => {
    expect(client.client_secret).toMatch(/^ocs_/);
    const list = await t.app.inject({ method: 'GET', url: '/api/v2/oauth/clients', headers: t.headers });
    expect(list.json().data.map((c: { client_id: string }) => c.client_id)).toContain(client.client_id);
    const one = await t.app.inject({ method: 'GET', url: `/api/v2/oauth/clients/${client.client_id}`, headers: t.headers });
    expect(one.json().data).not.toHaveProperty('client_secret');
    for (const uri of ['http://app.example.test/cb', 'https://app.example.test/cb#frag', 'not a url']) {
      const r = await t.app.inject({ method: 'POST', url: '/api/v2/oauth/clients', headers: t.headers, payload: { name: 'x', client_type: 'public', redirect_uris: [uri], scopes: ['read'] } });
      expect([r.statusCode, r.json().errors[0].code]).toEqual([422, 'INVALID_REDIRECT_URI']);
    }
  });
});

describe('authorization code + PKCE', () => {
  it('serves the consent page with a nonce CSP and the app named (escaped)', async () => {
    const r = await t.app.inject({ method: 'GET', url: `/oauth/authorize?${new URLSearchParams(authRequest(client.client_id, pkce().challenge))}` });
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toMatch(/text\/html/);
    expect(r.headers['content-security-policy']).toMatch(/script-src 'nonce-[A-Za-z0-9+/=]+'/);
    expect(r.body).toContain('Budget &lt;App&gt;');
    expect(r.body).not.toContain('Budget <App>');
    expect(r.body).toContain('/oauth/authorize/decision');
  });

  it('an unregistered redirect URI or unknown client is shown an error, not redirected; plain PKCE is redirected back refused', async () => {
    const bad = await t.app.inject({ method: 'GET', url: `/oauth/authorize?${new URLSearchParams(authRequest(client.client_id, pkce().challenge, { redirect_uri: 'https://evil.example/cb' }))}` });
    expect(bad.statusCode).toBe(400);
    expect(bad.headers.location).toBeUndefined();
    const unknown = await t.app.inject({ method: 'GET', url: `/oauth/authorize?${new URLSearchParams(authRequest('oc_nope', pkce().challenge))}` });
    expect(unknown.statusCode).toBe(400);
    const plain = await t.app.inject({ method: 'GET', url: `/oauth/authorize?${new URLSearchParams(authRequest(client.client_id, pkce().verifier, { code_challenge_method: 'plain' }))}` });
    expect(plain.statusCode).toBe(302);
    const loc = new URL(plain.headers.location as string);
    expect([loc.origin + loc.pathname, loc.searchParams.get('error'), loc.searchParams.get('state')]).toEqual([REDIRECT, 'invalid_request', 'st-123']);
  });

  it('the decision needs a login session: an API key gets 403 LOGIN_SESSION_REQUIRED', async () => {
    const r = await t.app.inject({ method: 'POST', url: '/oauth/authorize/decision', headers: t.headers, payload: { ...authRequest(client.client_id, pkce().challenge), decision: 'approve' } });
    expect([r.statusCode, r.json().errors[0].code]).toEqual([403, 'LOGIN_SESSION_REQUIRED']);
  });

  it('deny redirects with access_denied', async () => {
    const back = await authorize(t, session, authRequest(client.client_id, pkce().challenge), 'deny');
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('code')).toBeNull();
  });

  it('code -> tokens; the token reads but may not write (403); refresh rotates', async () => {
    const { code, state, verifier } = await codeFor();
    expect(state).toBe('st-123');
    const r = await tokenCall({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier });
    expect(r.statusCode).toBe(200);
    expect(r.headers['cache-control']).toBe('no-store');
    const tok = r.json();
    expect(tok).toMatchObject({ token_type: 'Bearer', scope: 'read', expires_in: 600 });
    expect(tok.refresh_token).toMatch(/^ort_/);
    const bearer = { authorization: `Bearer ${tok.access_token}` };

    const read = await t.app.inject({ method: 'GET', url: '/api/v2/accounts', headers: bearer });
    expect(read.statusCode).toBe(200);
    const me = await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: bearer });
    if (me.statusCode === 200) expect(me.json().meta.credential).toBe('oauth');
    const write = await t.app.inject({ method: 'POST', url: '/api/v2/accounts', headers: bearer, payload: { name: 'via oauth' } });
    expect([write.statusCode, write.json().errors[0].code]).toEqual([403, 'INSUFFICIENT_PERMISSIONS']);
    // An OAuth token is not a login session and cannot manage OAuth clients.
    const clients = await t.app.inject({ method: 'GET', url: '/api/v2/oauth/clients', headers: bearer });
    expect([clients.statusCode, clients.json().errors[0].code]).toEqual([403, 'OAUTH_TOKEN_NOT_ALLOWED']);
    const keys = await t.app.inject({ method: 'GET', url: '/api/v2/api-keys', headers: bearer });
    expect([keys.statusCode, keys.json().errors[0].code]).toEqual([403, 'OAUTH_TOKEN_NOT_ALLOWED']);
    // Nor does it act as a login session where one is required.
    const decision = await t.app.inject({ method: 'POST', url: '/oauth/authorize/decision', headers: bearer, payload: { ...authRequest(client.client_id, pkce().challenge), decision: 'approve' } });
    expect(decision.statusCode).toBe(403);

    const refreshed = await tokenCall({ grant_type: 'refresh_token', refresh_token: tok.refresh_token });
    expect(refreshed.statusCode).toBe(200);
    const next = refreshed.json();
    expect(next.refresh_token).not.toBe(tok.refresh_token);
    expect((await t.app.inject({ method: 'GET', url: '/api/v2/accounts', headers: { authorization: `Bearer ${next.access_token}` } })).statusCode).toBe(200);
  });

  it('a write-scoped token writes', async () => {
    const { code, verifier } = await codeFor({ scope: 'read write' });
    const tok = (await tokenCall({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier })).json();
    const write = await t.app.inject({ method: 'POST', url: '/api/v2/accounts', headers: { authorization: `Bearer ${tok.access_token}` }, payload: { name: 'via oauth' } });
    expect(write.statusCode).toBe(201);
  });

  it('a scope outside the client is refused at the authorization endpoint (invalid_scope)', async () => {
    const back = await authorize(t, session, authRequest(client.client_id, pkce().challenge, { scope: 'read delete' }));
    expect(back.searchParams.get('error')).toBe('invalid_scope');
  });
});

describe('refusals at the token endpoint', () => {
  it('PKCE mismatch: invalid_grant', async () => {
    const { code } = await codeFor();
    const r = await tokenCall({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: pkce().verifier });
    expect([r.statusCode, r.json().error]).toEqual([400, 'invalid_grant']);
  });

  it('redirect URI mismatch: invalid_grant', async () => {
    const { code, verifier } = await codeFor();
    const r = await tokenCall({ grant_type: 'authorization_code', code, redirect_uri: 'http://127.0.0.1:8765/cb', code_verifier: verifier });
    expect([r.statusCode, r.json().error]).toEqual([400, 'invalid_grant']);
  });

  it('code reuse: the second use is invalid_grant and revokes the tokens of the first', async () => {
    const { code, verifier } = await codeFor();
    const fields = { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier };
    const first = (await tokenCall(fields)).json();
    const bearer = { authorization: `Bearer ${first.access_token}` };
    expect((await t.app.inject({ method: 'GET', url: '/api/v2/accounts', headers: bearer })).statusCode).toBe(200);
    const second = await tokenCall(fields);
    expect([second.statusCode, second.json().error]).toEqual([400, 'invalid_grant']);
    const after = await t.app.inject({ method: 'GET', url: '/api/v2/accounts', headers: bearer });
    expect([after.statusCode, after.json().errors[0].code]).toEqual([401, 'CREDENTIALS_REVOKED']);
    const refresh = await tokenCall({ grant_type: 'refresh_token', refresh_token: first.refresh_token });
    expect(refresh.json().error).toBe('invalid_grant');
  });

  it('refresh-token reuse revokes the whole family', async () => {
    const { code, verifier } = await codeFor();
    const first = (await tokenCall({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier })).json();
    const second = (await tokenCall({ grant_type: 'refresh_token', refresh_token: first.refresh_token })).json();
    const replay = await tokenCall({ grant_type: 'refresh_token', refresh_token: first.refresh_token });
    expect([replay.statusCode, replay.json().error]).toEqual([400, 'invalid_grant']);
    // The current refresh token and every access token of the family are dead.
    expect((await tokenCall({ grant_type: 'refresh_token', refresh_token: second.refresh_token })).json().error).toBe('invalid_grant');
    for (const at of [first.access_token, second.access_token]) {
      expect((await t.app.inject({ method: 'GET', url: '/api/v2/accounts', headers: { authorization: `Bearer ${at}` } })).statusCode).toBe(401);
    }
  });

  it('wrong client secret (Basic or post): 401 invalid_client', async () => {
    const { code, verifier } = await codeFor();
    const r = await tokenCall({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier }, 'ocs_wrong');
    expect([r.statusCode, r.json().error]).toEqual([401, 'invalid_client']);
    expect(r.headers['www-authenticate']).toMatch(/^Basic/);
    const post = await form(t, '/oauth/token', { grant_type: 'client_credentials', client_id: client.client_id, client_secret: 'nope' });
    expect([post.statusCode, post.json().error]).toEqual([401, 'invalid_client']);
  });

  it('unsupported grant type and a JSON body are refused in the RFC format', async () => {
    const r = await tokenCall({ grant_type: 'password' });
    expect(r.json().error).toBe('unsupported_grant_type');
    const json = await t.app.inject({ method: 'POST', url: '/oauth/token', payload: { grant_type: 'client_credentials' } });
    expect([json.statusCode, json.json().error]).toEqual([400, 'invalid_request']);
  });
});

describe('public clients', () => {
  it('authenticate by client_id with PKCE; may not use client_credentials', async () => {
    const pub = await registerClient(t, t.user, { name: 'CLI', client_type: 'public', redirect_uris: ['http://127.0.0.1:9999/cb'], scopes: ['read'] });
    expect(pub.client_secret).toBeNull();
    const p = pkce();
    const back = await authorize(t, session, { ...authRequest(pub.client_id, p.challenge), redirect_uri: 'http://127.0.0.1:9999/cb' });
    const r = await form(t, '/oauth/token', { grant_type: 'authorization_code', client_id: pub.client_id, code: back.searchParams.get('code')!, redirect_uri: 'http://127.0.0.1:9999/cb', code_verifier: p.verifier });
    expect(r.statusCode).toBe(200);
    const cc = await form(t, '/oauth/token', { grant_type: 'client_credentials', client_id: pub.client_id });
    expect(cc.json().error).toBe('unauthorized_client');
  });
});
