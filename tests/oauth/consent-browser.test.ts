/**
 * The authorization-code + PKCE flow with the consent page run in a real headless Chromium (the
 * system's, driven by playwright-core): the page's own HTML and script sign the user in and post
 * the decision. The API listens on 127.0.0.1; the client is a public one whose loopback redirect URI
 * is served by a small HTTP server in this file. The code is exchanged at the token endpoint and the
 * token used on API routes with plain fetch. Passkey sign-in uses Chromium's virtual authenticator
 * (CDP WebAuthn): the passkey is registered through the platform's passkey routes, then used on the
 * consent page. WebAuthn refuses IP-address origins, so that case loads the page as
 * http://localhost:<port> (Chromium resolves localhost to loopback itself; every other host name is
 * unresolvable in this browser).
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app';
import { chromiumExecutable, pkce, registerClient } from './helpers';

const APP_NAME = 'Budget Browser App';
type Json = Record<string, any>;

let t: TestApp;
let browser: Browser;
let base: string; // http://127.0.0.1:<api port>
let apiPort: number;
let callbackServer: Server;
let redirectUri: string;
let clientId: string;
const callbacks: URL[] = [];

beforeAll(async () => {
  const executablePath = chromiumExecutable(); // before anything else: the clear failure when there is none
  t = await createTestApp();
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  apiPort = (t.app.server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${apiPort}`;

  // The app's loopback redirect URI (RFC 8252 §7.3): records what the browser brings back.
  callbackServer = createServer((req, res) => {
    const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
    if (url.pathname !== '/callback') return void res.writeHead(404).end();
    callbacks.push(url);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>Callback</title><p id="done">Back in the app</p>');
  });
  await new Promise<void>((ok) => callbackServer.listen(0, '127.0.0.1', ok));
  redirectUri = `http://127.0.0.1:${(callbackServer.address() as AddressInfo).port}/callback`;

  const client = await registerClient(t, t.user, { name: APP_NAME, client_type: 'public', redirect_uris: [redirectUri], scopes: ['read', 'write'] });
  expect(client.client_secret).toBeNull();
  clientId = client.client_id;

  browser = await chromium.launch({
    executablePath,
    headless: true,
    // No network beyond loopback: every host but localhost and 127.0.0.1 fails to resolve.
    args: ['--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1'],
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((ok) => (callbackServer ? callbackServer.close(() => ok()) : ok()));
  await t?.close();
});

function authorizationRequest(scope = 'read') {
  const p = pkce();
  const state = `st-${randomBytes(8).toString('hex')}`;
  const query = { response_type: 'code', client_id: clientId, redirect_uri: redirectUri, scope, state, code_challenge: p.challenge, code_challenge_method: 'S256' };
  return { verifier: p.verifier, state, query: new URLSearchParams(query).toString() };
}

/** A page whose script errors and console errors (a CSP violation included) are kept for the test to check. */
async function openPage(context: BrowserContext): Promise<{ page: Page; problems: string[] }> {
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    // The browser's own favicon request is not the page's doing.
    if (m.type() === 'error' && !m.location().url.endsWith('/favicon.ico')) problems.push(`console: ${m.text()} (${m.location().url})`);
  });
  return { page, problems };
}

/** After a sign-in click: the decision buttons show, or the page's message says why not. */
async function expectSignedIn(page: Page) {
  await Promise.race([page.locator('#decide').waitFor({ state: 'visible' }), page.locator('#msg:not(:empty)').waitFor({ state: 'visible' })]);
  expect(await page.locator('#msg').textContent(), 'the consent page reported a sign-in error').toBe('');
  expect(await page.locator('#decide').isVisible()).toBe(true);
  expect(await page.locator('#signin').isVisible()).toBe(false);
}

/** Clicks a decision button and waits for the browser to land on the redirect URI. */
async function decide(page: Page, button: 'Approve' | 'Deny'): Promise<URL> {
  const before = callbacks.length;
  await page.getByRole('button', { name: button, exact: true }).click();
  await page.waitForURL((u) => u.href.startsWith(`${redirectUri}?`));
  await page.locator('#done').waitFor();
  expect(callbacks.length).toBe(before + 1);
  const landed = new URL(page.url());
  expect(callbacks.at(-1)!.search).toBe(landed.search); // the app's server received what the browser shows
  return landed;
}

async function exchange(code: string, verifier: string) {
  const r = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', client_id: clientId, code, redirect_uri: redirectUri, code_verifier: verifier }),
  });
  const body = (await r.json()) as Json;
  expect(r.status, JSON.stringify(body)).toBe(200);
  return body as { access_token: string; refresh_token: string; scope: string; token_type: string };
}

/** The read-scoped token reads accounts and may not create one. */
async function expectReadOnly(accessToken: string) {
  const bearer = { authorization: `Bearer ${accessToken}` };
  const read = await fetch(`${base}/api/v2/accounts`, { headers: bearer });
  expect(read.status).toBe(200);
  expect(Array.isArray(((await read.json()) as Json).data)).toBe(true);
  const write = await fetch(`${base}/api/v2/accounts`, { method: 'POST', headers: { ...bearer, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'beyond the grant' }) });
  expect([write.status, ((await write.json()) as Json).errors[0].code]).toEqual([403, 'INSUFFICIENT_PERMISSIONS']);
}

describe('the consent page in a headless browser', () => {
  it('shows the app and its scopes; the user signs in with email and password, approves, and the app gets a working read-only token', async () => {
    const context = await browser.newContext();
    try {
      const { page, problems } = await openPage(context);
      const req = authorizationRequest('read');
      const shown = await page.goto(`${base}/oauth/authorize?${req.query}`);
      expect(shown?.status()).toBe(200);
      expect(await page.title()).toBe(`Authorize ${APP_NAME}`);
      expect(await page.locator('h1').textContent()).toBe(`Authorize ${APP_NAME}`);
      expect(await page.locator('.box').first().textContent()).toContain(`${APP_NAME} asks to act for you in sandbox`);
      expect(await page.locator('.box li').allTextContents()).toEqual(['read: see your accounts, balances and transactions']);
      expect(await page.locator('#decide').isVisible()).toBe(false);

      await page.getByLabel('Email').fill(t.user.email);
      await page.getByLabel('Password').fill(t.user.password);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await expectSignedIn(page);
      const back = await decide(page, 'Approve');

      expect(back.searchParams.get('state')).toBe(req.state);
      expect(back.searchParams.get('error')).toBeNull();
      const code = back.searchParams.get('code');
      expect(code).toMatch(/^oac_/);
      const tok = await exchange(code!, req.verifier);
      expect(tok).toMatchObject({ token_type: 'Bearer', scope: 'read' });
      await expectReadOnly(tok.access_token);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('a wrong password is shown on the page and nothing is decided', async () => {
    const context = await browser.newContext();
    try {
      const { page } = await openPage(context);
      await page.goto(`${base}/oauth/authorize?${authorizationRequest().query}`);
      await page.getByLabel('Email').fill(t.user.email);
      await page.getByLabel('Password').fill('not the password at all');
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await page.locator('#msg:not(:empty)').waitFor();
      expect(await page.locator('#decide').isVisible()).toBe(false);
      expect(page.url()).toContain(`${base}/oauth/authorize?`);
    } finally {
      await context.close();
    }
  });

  it('Deny sends the browser back with error=access_denied and the state', async () => {
    const context = await browser.newContext();
    try {
      const { page, problems } = await openPage(context);
      const req = authorizationRequest('read write');
      await page.goto(`${base}/oauth/authorize?${req.query}`);
      expect(await page.locator('.box li').allTextContents()).toEqual(['read: see your accounts, balances and transactions', 'write: create transfers and other changes']);
      await page.getByLabel('Email').fill(t.user.email);
      await page.getByLabel('Password').fill(t.user.password);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await expectSignedIn(page);
      const back = await decide(page, 'Deny');
      expect(back.searchParams.get('error')).toBe('access_denied');
      expect(back.searchParams.get('state')).toBe(req.state);
      expect(back.searchParams.get('code')).toBeNull();
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('signs in with a passkey (virtual authenticator) registered through the platform passkey routes', async () => {
    const origin = `http://localhost:${apiPort}`;
    process.env.WEBAUTHN_RP_ID = 'localhost';
    process.env.WEBAUTHN_ORIGINS = origin;
    const context = await browser.newContext();
    try {
      const { page, problems } = await openPage(context);
      const cdp = await context.newCDPSession(page);
      await cdp.send('WebAuthn.enable');
      const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
        options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
      });

      // Earlier, in a login session, the user registered this device's passkey on the platform.
      const login = await fetch(`${base}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: t.user.email, password: t.user.password }),
      });
      expect(login.status).toBe(200);
      const session: string = ((await login.json()) as Json).data.access_token;
      await page.goto(`${origin}/api/health`);
      const registered = (await page.evaluate(`(async (token) => {
        const call = async (url, body) => {
          const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer ' + token }, body: JSON.stringify(body) });
          const j = await r.json();
          if (!r.ok) throw new Error(url + ': ' + r.status + ' ' + JSON.stringify(j.errors));
          return j.data;
        };
        const options = await call('/api/v2/mobile/auth/passkeys/registration/options', {});
        const cred = await navigator.credentials.create({ publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(options) });
        return call('/api/v2/mobile/auth/passkeys/registration/verify', { response: cred.toJSON(), name: 'Chromium virtual authenticator' });
      })(${JSON.stringify(session)})`)) as { credential_id: string };
      const stored = (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials;
      expect(stored).toHaveLength(1);
      expect(registered.credential_id).toBe(stored[0].credentialId.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''));
      const signCountAfterRegistration = stored[0].signCount;

      const req = authorizationRequest('read');
      await page.goto(`${origin}/oauth/authorize?${req.query}`);
      expect(await page.locator('h1').textContent()).toBe(`Authorize ${APP_NAME}`);
      await page.getByLabel('Email').fill(t.user.email);
      await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
      await expectSignedIn(page);
      // The authenticator signed an assertion: this sign-in was the passkey's, not a password's.
      const [used] = (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials;
      expect(used.signCount).toBeGreaterThan(signCountAfterRegistration);
      const back = await decide(page, 'Approve');

      expect(back.searchParams.get('state')).toBe(req.state);
      const tok = await exchange(back.searchParams.get('code')!, req.verifier);
      expect(tok.scope).toBe('read');
      await expectReadOnly(tok.access_token);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
      delete process.env.WEBAUTHN_RP_ID;
      delete process.env.WEBAUTHN_ORIGINS;
    }
  });
});
