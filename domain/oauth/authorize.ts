/**
 * The authorization endpoint (RFC 6749 §4.1.1 with PKCE, RFC 7636): checks a request before the
 * consent page is shown, and turns the signed-in user's decision into a single-use code.
 * Errors about the client or its redirect URI are never redirected (§4.1.2.1): the page shows them.
 */
import { createHash } from 'node:crypto';
import { getPool } from '../db/pool';
import { PERMISSIONS, type Permission, type Principal } from '../auth/principal';
import { DomainError } from '../platform/errors';
import { randomToken } from '../platform/ids';
import { getClient, type OAuthClient } from './clients';
import { CODE_CHALLENGE } from './pkce';

export const CODE_TTL_SECONDS = 60;

export interface AuthorizationParams {
  response_type?: string;
  client_id?: string;
  redirect_uri?: string;
  scope?: string;
  state?: string;
  code_challenge?: string;
  code_challenge_method?: string;
}

export type AuthorizationCheck =
  | { kind: 'fatal'; message: string }
  | { kind: 'redirect'; redirectTo: string; error: string }
  | { kind: 'ok'; client: OAuthClient; redirectUri: string; scopes: Permission[]; state?: string; codeChallenge: string };

export function redirectWith(uri: string, params: Record<string, string | undefined>): string {
  const u = new URL(uri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) u.searchParams.set(k, v);
  return u.toString();
}

/** Parses a space-separated scope list against the allowed set; null when something is outside it. */
export function parseScopes(scope: string | undefined, allowed: readonly Permission[]): Permission[] | null {
  if (scope === undefined || scope.trim() === '') return [...allowed];
  const asked = [...new Set(scope.split(' ').filter(Boolean))];
  if (asked.some((s) => !(PERMISSIONS as readonly string[]).includes(s) || !allowed.includes(s as Permission))) return null;
  return asked as Permission[];
}

export async function checkAuthorizationRequest(q: AuthorizationParams): Promise<AuthorizationCheck> {
  const client = q.client_id ? await getClient(q.client_id) : null;
  if (!client) return { kind: 'fatal', message: 'Unknown client_id' };
  const redirectUri = q.redirect_uri ?? (client.redirectUris.length === 1 ? client.redirectUris[0] : undefined);
  if (!redirectUri || !client.redirectUris.includes(redirectUri)) return { kind: 'fatal', message: 'redirect_uri is missing or not registered for this client' };
  const fail = (error: string, description: string): AuthorizationCheck => ({
    kind: 'redirect',
    error,
    redirectTo: redirectWith(redirectUri, { error, error_description: description, state: q.state }),
  });
  if (q.response_type !== 'code') return fail('unsupported_response_type', 'Only response_type=code is supported');
  if (q.code_challenge_method !== 'S256') return fail('invalid_request', 'PKCE with code_challenge_method=S256 is required (plain is refused)');
  if (!q.code_challenge || !CODE_CHALLENGE.test(q.code_challenge)) return fail('invalid_request', 'code_challenge must be the 43-character base64url S256 challenge');
  const scopes = parseScopes(q.scope, client.scopes);
  if (!scopes) return fail('invalid_scope', `scope must be among the client's scopes: ${client.scopes.join(' ')}`);
  const { secretHash: _omit, ...c } = client;
  return { kind: 'ok', client: c, redirectUri, scopes, state: q.state, codeChallenge: q.code_challenge };
}

export const hashCode = (code: string) => createHash('sha256').update(code).digest('hex');

/**
 * The user's decision on the consent page. Needs a login session (password or passkey sign-in)
 * of the client's environment. Approval issues a code bound to client, redirect URI, challenge,
 * scopes and user; either way the answer is where to send the browser.
 */
export async function decideAuthorization(p: Principal, q: AuthorizationParams, decision: 'approve' | 'deny'): Promise<{ redirectTo: string }> {
  if (p.kind !== 'session') throw new DomainError('LOGIN_SESSION_REQUIRED', 'Approving an app needs you to sign in (password or passkey), not an API key or OAuth token');
  const check = await checkAuthorizationRequest(q);
  if (check.kind === 'fatal') throw new DomainError('OAUTH_REQUEST_INVALID', check.message);
  if (check.kind === 'redirect') return { redirectTo: check.redirectTo };
  if (check.client.environment !== p.environment) {
    throw new DomainError('OAUTH_ENVIRONMENT_MISMATCH', `This app works in ${check.client.environment}: sign in to that environment`);
  }
  if (decision === 'deny') return { redirectTo: redirectWith(check.redirectUri, { error: 'access_denied', error_description: 'The user denied the request', state: check.state }) };
  const code = `oac_${randomToken(32)}`;
  await getPool().query(
    `INSERT INTO oauth_authorization_codes (code_hash, client_id, user_id, environment, redirect_uri, code_challenge, scopes, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, now() + make_interval(secs => $8))`,
    [hashCode(code), check.client.id, p.userId, p.environment, check.redirectUri, check.codeChallenge, check.scopes, CODE_TTL_SECONDS],
  );
  return { redirectTo: redirectWith(check.redirectUri, { code, state: check.state }) };
}
