/**
 * The token endpoint's grants (RFC 6749 §4.1.3, §4.4, §6), revocation (RFC 7009) and
 * introspection (RFC 7662). A grant row is one token family: refresh tokens rotate on every use,
 * and a rotated one presented again (or a code redeemed twice) revokes the whole family.
 */
import { createHash } from 'node:crypto';
import { getPool, withTransaction } from '../db/pool';
import type { Permission } from '../auth/principal';
import { newId, randomToken } from '../platform/ids';
import type { Environment } from '../platform/environment';
import { ACCESS_TOKEN_TTL_SECONDS, OAUTH_TOKEN_ISSUER, accessTokenActive, signAccessToken, verifyAccessTokenJwt } from './access-tokens';
import { hashCode, parseScopes } from './authorize';
import type { OAuthClient } from './clients';
import { OAuthError } from './errors';
import { verifierMatches } from './pkce';

export const REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 3600;
const hashToken = (t: string) => createHash('sha256').update(t).digest('hex');

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
  refresh_token?: string;
}

interface Grant {
  id: string;
  clientId: string;
  userId: string;
  environment: Environment;
  scopes: Permission[];
}

async function respond(g: Grant, scopes: Permission[], refresh?: string): Promise<TokenResponse> {
  const { token } = await signAccessToken({ grantId: g.id, clientId: g.clientId, userId: g.userId, environment: g.environment, scopes });
  return { access_token: token, token_type: 'Bearer', expires_in: ACCESS_TOKEN_TTL_SECONDS, scope: scopes.join(' '), ...(refresh ? { refresh_token: refresh } : {}) };
}

export async function revokeGrant(grantId: string, reason: string): Promise<void> {
  await getPool().query(`UPDATE oauth_grants SET revoked_at = now(), revoked_reason = $2 WHERE id = $1 AND revoked_at IS NULL`, [grantId, reason]);
}

/** authorization_code: PKCE, exact redirect URI, single use (a second use revokes what the first issued). */
export async function exchangeCode(client: OAuthClient, code: string | undefined, redirectUri: string | undefined, verifier: string | undefined): Promise<TokenResponse> {
  if (!code || !verifier) throw new OAuthError('invalid_request', 'code and code_verifier are required');
  const refresh = `ort_${randomToken(32)}`;
  const outcome = await withTransaction(async (tx) => {
    const { rows } = await tx.query(
      `SELECT client_id AS "clientId", user_id AS "userId", environment, redirect_uri AS "redirectUri", code_challenge AS "challenge", scopes,
              expires_at < now() AS expired, used_at IS NOT NULL AS used, grant_id AS "grantId"
         FROM oauth_authorization_codes WHERE code_hash = $1 FOR UPDATE`,
      [hashCode(code)],
    );
    const c = rows[0];
    if (!c || c.clientId !== client.id) return { error: 'The authorization code is invalid' } as const;
    if (c.used) return { reused: c.grantId as string | null } as const;
    if (c.expired) return { error: 'The authorization code has expired' } as const;
    if (redirectUri !== c.redirectUri) return { error: 'redirect_uri does not match the authorization request' } as const;
    if (!verifierMatches(verifier, c.challenge)) return { error: 'code_verifier does not match the code_challenge' } as const;
    const grant: Grant = { id: newId('ogr'), clientId: client.id, userId: c.userId, environment: c.environment, scopes: c.scopes };
    await tx.query(
      `INSERT INTO oauth_grants (id, client_id, user_id, environment, scopes, grant_type, refresh_token_hash, refresh_expires_at)
       VALUES ($1, $2, $3, $4, $5, 'authorization_code', $6, now() + make_interval(secs => $7))`,
      [grant.id, grant.clientId, grant.userId, grant.environment, grant.scopes, hashToken(refresh), REFRESH_TOKEN_TTL_SECONDS],
    );
    await tx.query(`UPDATE oauth_authorization_codes SET used_at = now(), grant_id = $2 WHERE code_hash = $1`, [hashCode(code), grant.id]);
    return { grant } as const;
  });
  if ('reused' in outcome) {
    if (outcome.reused) await revokeGrant(outcome.reused, 'code_reuse');
    throw new OAuthError('invalid_grant', 'The authorization code was already used; the tokens issued for it are revoked');
  }
  if (!('grant' in outcome) || !outcome.grant) throw new OAuthError('invalid_grant', 'error' in outcome ? (outcome.error ?? '') : '');
  return respond(outcome.grant, outcome.grant.scopes, refresh);
}

/** client_credentials: confidential clients only; the tokens act for the client's owner. */
export async function clientCredentials(client: OAuthClient, scope: string | undefined): Promise<TokenResponse> {
  if (client.clientType !== 'confidential') throw new OAuthError('unauthorized_client', 'Public clients may not use client_credentials');
  const scopes = parseScopes(scope, client.scopes);
  if (!scopes) throw new OAuthError('invalid_scope', `scope must be among the client's scopes: ${client.scopes.join(' ')}`);
  const grant: Grant = { id: newId('ogr'), clientId: client.id, userId: client.userId, environment: client.environment, scopes };
  await getPool().query(
    `INSERT INTO oauth_grants (id, client_id, user_id, environment, scopes, grant_type) VALUES ($1, $2, $3, $4, $5, 'client_credentials')`,
    [grant.id, grant.clientId, grant.userId, grant.environment, grant.scopes],
  );
  return respond(grant, scopes);
}

/** refresh_token: rotation with reuse detection; the scope may be narrowed (§6), never widened. */
export async function refreshGrant(client: OAuthClient, refreshToken: string | undefined, scope: string | undefined): Promise<TokenResponse> {
  if (!refreshToken) throw new OAuthError('invalid_request', 'refresh_token is required');
  const hash = hashToken(refreshToken);
  const pool = getPool();
  const { rows } = await pool.query(
    `SELECT id, client_id AS "clientId", user_id AS "userId", environment, scopes, revoked_at IS NOT NULL AS revoked, refresh_expires_at < now() AS expired
       FROM oauth_grants WHERE refresh_token_hash = $1`,
    [hash],
  );
  const g = rows[0] as (Grant & { revoked: boolean; expired: boolean }) | undefined;
  if (!g) {
    const reused = await pool.query(
      `SELECT r.grant_id FROM oauth_rotated_refresh_tokens r JOIN oauth_grants g ON g.id = r.grant_id WHERE r.token_hash = $1 AND g.client_id = $2`,
      [hash, client.id],
    );
    if (reused.rows[0]) {
      await revokeGrant(reused.rows[0].grant_id, 'refresh_reuse');
      throw new OAuthError('invalid_grant', 'The refresh token was already used; every token of this authorization is revoked');
    }
    throw new OAuthError('invalid_grant', 'The refresh token is invalid');
  }
  if (g.clientId !== client.id) throw new OAuthError('invalid_grant', 'The refresh token is invalid');
  if (g.revoked || g.expired) throw new OAuthError('invalid_grant', 'The refresh token is revoked or expired');
  const scopes = parseScopes(scope, g.scopes);
  if (!scopes) throw new OAuthError('invalid_scope', `scope must be within the granted scopes: ${g.scopes.join(' ')}`);
  const next = `ort_${randomToken(32)}`;
  // Compare-and-swap on the old hash: of two concurrent refreshes one wins, the other is reuse.
  const swapped = await withTransaction(async (tx) => {
    const r = await tx.query(
      `UPDATE oauth_grants SET refresh_token_hash = $3, refreshed_at = now() WHERE id = $1 AND refresh_token_hash = $2 AND revoked_at IS NULL`,
      [g.id, hash, hashToken(next)],
    );
    if (r.rowCount !== 1) return false;
    await tx.query(`INSERT INTO oauth_rotated_refresh_tokens (token_hash, grant_id) VALUES ($1, $2)`, [hash, g.id]);
    return true;
  });
  if (!swapped) {
    await revokeGrant(g.id, 'refresh_reuse');
    throw new OAuthError('invalid_grant', 'The refresh token was already used; every token of this authorization is revoked');
  }
  return respond(g, scopes, next);
}

/** RFC 7009: revokes a refresh token (its whole grant) or one access token of this client; unknown tokens are not an error. */
export async function revokeToken(client: OAuthClient, token: string | undefined): Promise<void> {
  if (!token) throw new OAuthError('invalid_request', 'token is required');
  const v = await verifyAccessTokenJwt(token);
  if (v.ok) {
    if (v.claims.clientId !== client.id) return;
    await getPool().query(
      `INSERT INTO oauth_revoked_tokens (jti, grant_id, expires_at) VALUES ($1, $2, to_timestamp($3)) ON CONFLICT (jti) DO NOTHING`,
      [v.claims.jti, v.claims.grantId, v.claims.exp],
    );
    return;
  }
  const hash = hashToken(token);
  const { rows } = await getPool().query(
    `SELECT id FROM oauth_grants WHERE client_id = $2 AND (refresh_token_hash = $1 OR id IN (SELECT grant_id FROM oauth_rotated_refresh_tokens WHERE token_hash = $1))`,
    [hash, client.id],
  );
  for (const r of rows) await revokeGrant(r.id, 'revoked_by_client');
}

export type Introspection = { active: false } | ({ active: true } & Record<string, string | number | boolean>);

/** RFC 7662: what a token of this client is; another client's token is reported inactive. */
export async function introspectToken(client: OAuthClient, token: string | undefined): Promise<Introspection> {
  if (!token) throw new OAuthError('invalid_request', 'token is required');
  const v = await verifyAccessTokenJwt(token);
  if (v.ok) {
    const c = v.claims;
    if (c.clientId !== client.id || !(await accessTokenActive(c))) return { active: false };
    return {
      active: true, token_type: 'Bearer', scope: c.scopes.join(' '), client_id: c.clientId, sub: c.userId, exp: c.exp, iat: c.iat,
      jti: c.jti, iss: OAUTH_TOKEN_ISSUER, aud: OAUTH_TOKEN_ISSUER, environment: c.environment,
    };
  }
  const { rows } = await getPool().query(
    `SELECT client_id AS "clientId", user_id AS "userId", scopes, environment, extract(epoch FROM refresh_expires_at)::bigint AS exp
       FROM oauth_grants WHERE refresh_token_hash = $1 AND revoked_at IS NULL AND refresh_expires_at > now()`,
    [hashToken(token)],
  );
  const g = rows[0];
  if (!g || g.clientId !== client.id) return { active: false };
  return { active: true, token_type: 'refresh_token', scope: g.scopes.join(' '), client_id: g.clientId, sub: g.userId, exp: Number(g.exp), environment: g.environment };
}
