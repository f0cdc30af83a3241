/**
 * OAuth access tokens: JWTs (RFC 9068 `at+jwt`, HS256 with a key derived from the platform's JWT
 * secret for this use only) carrying the grant id (sid), scopes and a jti. The signature and expiry
 * are checked without I/O; then one indexed query reads the grant (revoked? client deleted?),
 * the user, and whether this jti was revoked on its own (RFC 7009). So revocation takes effect
 * at once, at the cost of one primary-key lookup per request, as for login sessions.
 */
import { hkdfSync } from 'node:crypto';
import { SignJWT, decodeProtectedHeader, errors as joseErrors, jwtVerify } from 'jose';
import { getPool } from '../db/pool';
import { jwtKey } from '../auth/sessions';
import type { Permission, Principal } from '../auth/principal';
import { randomToken } from '../platform/ids';
import type { Environment } from '../platform/environment';

export const ACCESS_TOKEN_TTL_SECONDS = 600;
export const OAUTH_TOKEN_ISSUER = 'multi-asset-banking-platform/oauth';
const TYP = 'at+jwt';

let key: Uint8Array | undefined;
function oauthKey(): Uint8Array {
  key ??= new Uint8Array(hkdfSync('sha256', jwtKey(), new Uint8Array(0), 'oauth2 access token v1', 32));
  return key;
}

export interface AccessTokenClaims {
  grantId: string;
  clientId: string;
  userId: string;
  environment: Environment;
  scopes: Permission[];
}

export async function signAccessToken(c: AccessTokenClaims): Promise<{ token: string; jti: string; expiresAt: number }> {
  const jti = randomToken(16);
  const expiresAt = Math.floor(Date.now() / 1000) + ACCESS_TOKEN_TTL_SECONDS;
  const token = await new SignJWT({ sid: c.grantId, client_id: c.clientId, scope: c.scopes.join(' '), env: c.environment })
    .setProtectedHeader({ alg: 'HS256', typ: TYP })
    .setIssuer(OAUTH_TOKEN_ISSUER)
    .setAudience(OAUTH_TOKEN_ISSUER)
    .setSubject(c.userId)
    .setIssuedAt()
    .setJti(jti)
    .setExpirationTime(expiresAt)
    .sign(oauthKey());
  return { token, jti, expiresAt };
}

/** Cheap pre-check (no signature check): whether a bearer value is shaped as an OAuth access token. */
export function isOAuthAccessToken(value: string): boolean {
  if (value.split('.').length !== 3) return false;
  try {
    return decodeProtectedHeader(value).typ === TYP;
  } catch {
    return false;
  }
}

export interface VerifiedAccessToken {
  grantId: string;
  clientId: string;
  userId: string;
  jti: string;
  scopes: Permission[];
  environment: Environment;
  exp: number;
  iat: number;
}

/** Signature, expiry and shape only (no revocation check). */
export async function verifyAccessTokenJwt(token: string): Promise<{ ok: true; claims: VerifiedAccessToken } | { ok: false; reason: 'invalid' | 'expired' }> {
  try {
    const { payload: p } = await jwtVerify(token, oauthKey(), { issuer: OAUTH_TOKEN_ISSUER, audience: OAUTH_TOKEN_ISSUER, algorithms: ['HS256'], typ: TYP });
    if (typeof p.sid !== 'string' || typeof p.sub !== 'string' || typeof p.jti !== 'string' || typeof p.scope !== 'string' || typeof p.client_id !== 'string') {
      return { ok: false, reason: 'invalid' };
    }
    return {
      ok: true,
      claims: {
        grantId: p.sid, clientId: p.client_id, userId: p.sub, jti: p.jti, scopes: p.scope.split(' ').filter(Boolean) as Permission[],
        environment: p.env as Environment, exp: p.exp as number, iat: p.iat as number,
      },
    };
  } catch (err) {
    if (err instanceof joseErrors.JWTExpired) return { ok: false, reason: 'expired' };
    return { ok: false, reason: 'invalid' };
  }
}

interface GrantState {
  revoked: boolean;
  jtiRevoked: boolean;
  clientDeleted: boolean;
  email: string;
  tenantId: string | null;
}

async function grantState(grantId: string, jti: string, userId: string): Promise<GrantState | null> {
  const { rows } = await getPool().query<GrantState>(
    `SELECT g.revoked_at IS NOT NULL AS revoked, c.deleted_at IS NOT NULL AS "clientDeleted",
            EXISTS (SELECT 1 FROM oauth_revoked_tokens r WHERE r.jti = $2) AS "jtiRevoked",
            u.email, u.tenant_id AS "tenantId"
       FROM oauth_grants g JOIN oauth_clients c ON c.id = g.client_id JOIN users u ON u.id = g.user_id
      WHERE g.id = $1 AND g.user_id = $3`,
    [grantId, jti, userId],
  );
  return rows[0] ?? null;
}

/** Whether a verified token is still live (its grant and client stand, its jti not revoked). */
export async function accessTokenActive(c: VerifiedAccessToken): Promise<boolean> {
  const s = await grantState(c.grantId, c.jti, c.userId);
  return !!s && !s.revoked && !s.jtiRevoked && !s.clientDeleted;
}

export type OAuthTokenCheck = { ok: true; principal: Principal } | { ok: false; reason: 'invalid' | 'expired' | 'revoked' };

/** The principal of an OAuth bearer token: permissions are its scopes, environment the client's. */
export async function authenticateOAuthAccessToken(token: string): Promise<OAuthTokenCheck> {
  const v = await verifyAccessTokenJwt(token);
  if (!v.ok) return v;
  const c = v.claims;
  const s = await grantState(c.grantId, c.jti, c.userId);
  if (!s) return { ok: false, reason: 'invalid' };
  if (s.revoked || s.jtiRevoked || s.clientDeleted) return { ok: false, reason: 'revoked' };
  return {
    ok: true,
    principal: {
      userId: c.userId,
      email: s.email,
      // A third-party app never acts as a platform operator, whoever approved it.
      isAdmin: false,
      environment: c.environment,
      permissions: c.scopes,
      credentialId: c.grantId,
      kind: 'oauth',
      rateLimitPerMinute: null,
      biometric: false,
      tenantId: s.tenantId,
    },
  };
}
