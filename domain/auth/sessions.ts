import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import { getPrisma } from '../db/prisma';
import { loadConfig } from '../platform/config';
import { newId, randomToken } from '../platform/ids';
import type { Environment } from '../platform/environment';
import type { Principal } from './principal';

const ISSUER = 'multi-asset-banking-platform';

let secretKey: Uint8Array | undefined;

/**
 * JWT_SECRET when set; otherwise a random secret kept under the data folder, so tokens survive
 * a restart of `npm start` without anyone having to configure one.
 */
function jwtKey(): Uint8Array {
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

export async function startSession(userId: string, environment: Environment): Promise<IssuedTokens> {
  const cfg = loadConfig();
  const refresh = `rt_${randomToken(32)}`;
  const session = await getPrisma().userSession.create({
    data: {
      id: newId('sess'),
      userId,
      environment,
      refreshTokenHash: hashToken(refresh),
      expiresAt: new Date(Date.now() + cfg.refreshTokenTtlSeconds * 1000),
    },
  });
  return {
    access_token: await signAccess(userId, session.id, environment),
    token_type: 'Bearer',
    expires_in: cfg.accessTokenTtlSeconds,
    refresh_token: refresh,
    refresh_expires_in: cfg.refreshTokenTtlSeconds,
    environment,
  };
}

/**
 * Exchanges a refresh token for new tokens and rotates it. Presenting an already-rotated
 * refresh token means it leaked: the whole session is revoked.
 */
export async function refreshSession(refreshToken: string): Promise<IssuedTokens | null> {
  const cfg = loadConfig();
  const prisma = getPrisma();
  const session = await prisma.userSession.findUnique({ where: { refreshTokenHash: hashToken(refreshToken) } });
  if (!session || session.revokedAt || session.expiresAt.getTime() <= Date.now()) return null;
  const next = `rt_${randomToken(32)}`;
  // Compare-and-swap on the old hash: two concurrent refreshes cannot both succeed.
  const swapped = await prisma.userSession.updateMany({
    where: { id: session.id, refreshTokenHash: session.refreshTokenHash, revokedAt: null },
    data: { refreshTokenHash: hashToken(next), refreshedAt: new Date() },
  });
  if (swapped.count !== 1) return null;
  return {
    access_token: await signAccess(session.userId, session.id, session.environment as Environment),
    token_type: 'Bearer',
    expires_in: cfg.accessTokenTtlSeconds,
    refresh_token: next,
    refresh_expires_in: Math.floor((session.expiresAt.getTime() - Date.now()) / 1000),
    environment: session.environment as Environment,
  };
}

export async function revokeSession(sessionId: string): Promise<void> {
  await getPrisma().userSession.updateMany({ where: { id: sessionId, revokedAt: null }, data: { revokedAt: new Date() } });
  revoked.add(sessionId);
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
    },
  };
}
