import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { s256 } from '../../domain/oauth';
import type { TestApp, TestUser } from '../helpers/app';

export const REDIRECT = 'https://app.example.test/callback';

export function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: s256(verifier) };
}

export const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

export const form = (t: TestApp, url: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, payload: new URLSearchParams(fields).toString() });

export async function registerClient(t: TestApp, user: TestUser, body: Record<string, unknown>) {
  const r = await t.app.inject({ method: 'POST', url: '/api/v2/oauth/clients', headers: user.headers, payload: body });
  if (r.statusCode !== 201) throw new Error(`register: ${r.statusCode} ${r.body}`);
  return r.json().data as { client_id: string; client_secret: string | null };
}

export async function login(t: TestApp, user: TestUser): Promise<string> {
  const r = await t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: user.email, password: user.password, environment: 'sandbox' } });
  return r.json().data.access_token as string;
}

/** The consent page's request, approved (or denied) over HTTP as the page's script does; returns the redirect. */
export async function authorize(t: TestApp, session: string, q: Record<string, string>, decision: 'approve' | 'deny' = 'approve'): Promise<URL> {
  const r = await t.app.inject({ method: 'POST', url: '/oauth/authorize/decision', headers: { authorization: `Bearer ${session}` }, payload: { ...q, decision } });
  if (r.statusCode !== 200) throw new Error(`decision: ${r.statusCode} ${r.body}`);
  return new URL(r.json().data.redirect_to);
}

export function authRequest(clientId: string, challenge: string, extra: Record<string, string> = {}) {
  return { response_type: 'code', client_id: clientId, redirect_uri: REDIRECT, scope: 'read', state: 'st-123', code_challenge: challenge, code_challenge_method: 'S256', ...extra };
}

/**
 * The system Chromium the browser tests drive (playwright-core downloads none): CHROMIUM_PATH,
 * /usr/bin/chromium, or `chromium` on PATH. `npm ci` installs Debian's package when it can
 * (scripts/postinstall.mjs); without one the test fails saying so, never skips.
 */
export function chromiumExecutable(): string {
  const env = process.env.CHROMIUM_PATH;
  if (env) {
    if (!existsSync(env)) throw new Error(`CHROMIUM_PATH is ${env}, which does not exist: point it at a Chromium, or unset it and install the Debian package \`chromium\``);
    return env;
  }
  if (existsSync('/usr/bin/chromium')) return '/usr/bin/chromium';
  try {
    const found = execFileSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' }).trim();
    if (found) return found;
  } catch {
    // not on PATH
  }
  throw new Error(
    'No Chromium found (CHROMIUM_PATH, /usr/bin/chromium, chromium on PATH): install the Debian package `chromium` ' +
      '(apt-get install -y --no-install-recommends chromium; `npm ci` does this when run as root) or set CHROMIUM_PATH',
  );
}
