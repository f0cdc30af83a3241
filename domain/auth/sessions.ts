import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import { getPool, withTransaction, type Queryable } from '../db/pool';
import { getPrisma } from '../db/prisma';
import { loadConfig } from '../platform/config';
import { newId, randomToken } from '../platform/ids';
import type { Environment } from '../platform/environment';
import type { Principal } from './principal';
import { revokeSessionOnReuse } from './security-alerts';

const ISSUER = 'multi-asset-banking-platform';

let secretKey: Uint8Array | undefined;

/**
 * JWT_SECRET when set; otherwise a random secret kept under the data folder, so tokens survive
 * a restart of `npm start` without anyone having to configure one.
 */
export function jwtKey(): Uint8Array {
  if (secretKey) return secretKey;
  const cfg = loadConfig();
  let secret = cfg.jwtSecret;
  if (!secret) {
    const file = path.join(cfg.dataDir, 'jwt-secret');
    if (existsSync(file)) secret = readFileSync(file, 'utf8').trim();
    else {
      secret = randomBytes(48).toString('base64url');
      mkdirSync(cfg.dataDir, { recursive: true });
      writeFileSync(file, secret, { mode: 0o600 });
    }
  }
  secretKey = new TextEncoder().encode(secret);
  return secretKey;
}

const hashToken = (t: string) => createHash('sha256').update(t).digest('hex');

export interface IssuedTokens {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  refresh_expires_in: number;
  environment: Environment;
}

async function signAccess(userId: string, sessionId: string, environment: Environment): Promise<string> {
  const cfg = loadConfig();
  return new SignJWT({ sid: sessionId, env: environment, typ: 'access' })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(userId)
    .setIssuer(ISSUER)
    .setIssuedAt()
    .setJti(randomToken(12))
    .setExpirationTime(Math.floor(Date.now() / 1000) + cfg.accessTokenTtlSeconds)
    .sign(jwtKey());
}

/** A password login session (user_sessions.auth_method 'password'; 'passkey' sessions are biometric). */
export async function startSession(userId: string, environment: Environment): Promise<IssuedTokens> {
  const cfg = loadConfig();
  const refresh = `rt_${randomToken(32)}`;
  const session = await getPrisma().userSession.create({
    data: { id: newId('sess'), userId, environment, authMethod: 'password', refreshTokenHash: hashToken(refresh), expiresAt: new Date(Date.now() + cfg.refreshTokenTtlSeconds * 1000) },
  });
  return issued(userId, session.id, environment, refresh);
}

/**
 * A passkey session (biometric), bound to its passkey, whose deletion revokes it
 * (revokePasskeySessions); null when the passkey is gone. One statement that holds the passkey's
 * row (FOR KEY SHARE) while it inserts: a deletion racing the sign-in either comes first (no
 * session) or waits for this insert and then revokes the session with the others.
 */
export async function startPasskeySession(userId: string, environment: Environment, passkeyId: string): Promise<IssuedTokens | null> {
  const cfg = loadConfig();
  const refresh = `rt_${randomToken(32)}`;
  const id = newId('sess');
  const { rowCount } = await getPool().query(
    `INSERT INTO user_sessions (id, user_id, environment, auth_method, passkey_id, refresh_token_hash, expires_at)
     SELECT $1, $2, $3, 'passkey', c.id, $5, $6 FROM passkey_credentials c WHERE c.id = $4 AND c.user_id = $2 FOR KEY SHARE`,
    [id, userId, environment, passkeyId, hashToken(refresh), new Date(Date.now() + cfg.refreshTokenTtlSeconds * 1000)],
  );
  return rowCount === 1 ? issued(userId, id, environment, refresh) : null;
}

async function issued(userId: string, sessionId: string, environment: Environment, refresh: string): Promise<IssuedTokens> {
  const cfg = loadConfig();
  return {
    access_token: await signAccess(userId, sessionId, environment),
    token_type: 'Bearer',
    expires_in: cfg.accessTokenTtlSeconds,
    refresh_token: refresh,
    refresh_expires_in: cfg.refreshTokenTtlSeconds,
    environment,
  };
}

/**
 * Exchanges a refresh token for new tokens and rotates it. The session is the token family: every
 * refresh token it rotated away is remembered (user_session_rotated_tokens), and presenting one
 * again (a replay, or the loser of two concurrent refreshes) means it leaked: the whole session
 * is revoked, so its access tokens and its current refresh token stop at once.
 */
export async function refreshSession(refreshToken: string): Promise<IssuedTokens | null> {
  const cfg = loadConfig();
  const prisma = getPrisma();
  const hash = hashToken(refreshToken);
  const session = await prisma.userSession.findUnique({ where: { refreshTokenHash: hash } });
  if (!session) {
    const reused = await prisma.userSessionRotatedToken.findUnique({ where: { tokenHash: hash } });
    if (reused) await revokeReused(reused.sessionId);
    return null;
  }
  if (session.revokedAt || session.expiresAt.getTime() <= Date.now()) return null;
  const next = `rt_${randomToken(32)}`;
  // Compare-and-swap on the old hash: two concurrent refreshes cannot both succeed, and the
  // loser presented a token that is now rotated away, which is reuse.
  const swapped = await withTransaction(async (tx) => {
    const r = await tx.query(
      `UPDATE user_sessions SET refresh_token_hash = $3, refreshed_at = now()
        WHERE id = $1 AND refresh_token_hash = $2 AND revoked_at IS NULL`,
      [session.id, hash, hashToken(next)],
    );
    if (r.rowCount !== 1) return false;
    await tx.query('INSERT INTO user_session_rotated_tokens (token_hash, session_id) VALUES ($1, $2)', [hash, session.id]);
    return true;
  });
  if (!swapped) {
    await revokeReused(session.id);
    return null;
  }
  return {
    access_token: await signAccess(session.userId, session.id, session.environment as Environment),
    token_type: 'Bearer',
    expires_in: cfg.accessTokenTtlSeconds,
    refresh_token: next,
    refresh_expires_in: Math.floor((session.expiresAt.getTime() - Date.now()) / 1000),
    environment: session.environment as Environment,
  };
}

/** Reuse of a rotated refresh token: revoke the session and raise a security alert (once). */
async function revokeReused(sessionId: string): Promise<void> {
  await revokeSessionOnReuse(sessionId);
  revoked.add(sessionId);
}

export async function revokeSession(sessionId: string): Promise<void> {
  await getPrisma().userSession.updateMany({ where: { id: sessionId, revokedAt: null }, data: { revokedAt: new Date() } });
  revoked.add(sessionId);
}

/**
 * Revokes every open session a passkey started (in the caller's transaction, which deletes the
 * passkey): their access tokens stop at the next request and their refresh tokens are refused, on
 * every instance (each request reads its session row).
 */
export async function revokePasskeySessions(c: Queryable, passkeyId: string): Promise<string[]> {
  const { rows } = await c.query<{ id: string }>('UPDATE user_sessions SET revoked_at = now() WHERE passkey_id = $1 AND revoked_at IS NULL RETURNING id', [passkeyId]);
  for (const r of rows) revoked.add(r.id);
  return rows.map((r) => r.id);
}

// Sessions revoked by this process; others notice through the per-request lookup below.
const revoked = new Set<string>();

export type TokenCheck = { ok: true; principal: Principal } | { ok: false; reason: 'invalid' | 'expired' | 'revoked' };

export async function authenticateAccessToken(token: string): Promise<TokenCheck> {
  let payload;
  try {
    ({ payload } = await jwtVerify(token, jwtKey(), { issuer: ISSUER, algorithms: ['HS256'] }));
  } catch (err) {
    if (err instanceof joseErrors.JWTExpired) return { ok: false, reason: 'expired' };
    return { ok: false, reason: 'invalid' };
  }
  if (payload.typ !== 'access' || typeof payload.sid !== 'string' || typeof payload.sub !== 'string') {
    return { ok: false, reason: 'invalid' };
  }
  if (revoked.has(payload.sid)) return { ok: false, reason: 'revoked' };
  const session = await getPrisma().userSession.findUnique({ where: { id: payload.sid }, include: { user: true } });
  if (!session || session.userId !== payload.sub) return { ok: false, reason: 'invalid' };
  if (session.revokedAt) return { ok: false, reason: 'revoked' };
  return {
    ok: true,
    principal: {
      userId: session.userId,
      email: session.user.email,
      isAdmin: session.user.isAdmin,
      environment: session.environment as Environment,
      permissions: ['read', 'write', 'delete'],
      credentialId: session.id,
      kind: 'session',
      rateLimitPerMinute: null,
      biometric: session.authMethod === 'passkey',
      tenantId: session.user.tenantId,
    },
  };
}
