import { getPool } from '../db/pool';
import { getPrisma } from '../db/prisma';
import { loadConfig } from '../platform/config';
import { newId } from '../platform/ids';
import { alertLoginLockout } from './security-alerts';
import { dummyPasswordHash, hashPassword, verifyPassword } from './passwords';

export interface PublicUser {
  id: string;
  name: string;
  email: string;
  is_admin: boolean;
  created_at: string;
}

export function toPublicUser(u: { id: string; name: string; email: string; isAdmin: boolean; createdAt: Date }): PublicUser {
  return { id: u.id, name: u.name, email: u.email, is_admin: u.isAdmin, created_at: u.createdAt.toISOString() };
}

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

export async function findUserByEmail(email: string) {
  return getPrisma().user.findUnique({ where: { email: normalizeEmail(email) } });
}

export async function getUser(id: string) {
  return getPrisma().user.findUnique({ where: { id } });
}

/**
 * Returns null when the email is taken. Registering never makes an operator: operators are made
 * by `npm run operator -- grant <email>` or the one-time bootstrap token (domain/auth/operators.ts).
 */
export async function registerUser(name: string, email: string, password: string) {
  const normalized = normalizeEmail(email);
  const passwordHash = await hashPassword(password);
  const created = await getPrisma().user.createManyAndReturn({
    data: [{ id: newId('usr'), name: name.trim(), email: normalized, passwordHash, isAdmin: false }],
    skipDuplicates: true,
  });
  return created[0] ?? null;
}

export type LoginResult = { ok: true; userId: string } | { ok: false; reason: 'invalid' | 'locked'; retryAfter?: number };

/**
 * Seconds the caller must wait before its next login attempt for this email from this address,
 * or 0. Two rules (docs/security.md), both judged on the database clock:
 *  - per (email, address): after LOGIN_MAX_FAILURES failures since that pair's last success
 *    (within LOGIN_FAILURE_WINDOW_SECONDS), wait 2^(n - max) × LOGIN_BACKOFF_BASE_SECONDS after
 *    the latest failure, capped at LOGIN_LOCK_SECONDS;
 *  - per address: LOGIN_MAX_FAILURES_PER_ADDRESS failures across all emails within
 *    LOGIN_LOCK_SECONDS refuse every login from it until the oldest of them leaves the window.
 * Failures at other addresses never count, so nobody elsewhere can lock a user out.
 */
export async function loginWaitSeconds(email: string, ip: string): Promise<number> {
  const cfg = loadConfig();
  const pool = getPool();
  const pair = await pool.query<{ n: number; last_age: number | null }>(
    `WITH last_ok AS (
       SELECT coalesce(max(attempted_at), '-infinity'::timestamptz) AS t
         FROM login_attempts WHERE email = $1 AND ip = $2 AND succeeded)
     SELECT count(*)::int AS n, EXTRACT(EPOCH FROM now() - max(attempted_at))::float8 AS last_age
       FROM login_attempts, last_ok
      WHERE email = $1 AND ip = $2 AND NOT succeeded
        AND attempted_at > last_ok.t AND attempted_at > now() - make_interval(secs => $3)`,
    [email, ip, cfg.loginFailureWindowSeconds],
  );
  let wait = 0;
  const { n, last_age } = pair.rows[0];
  if (n >= cfg.loginMaxFailures && last_age !== null) {
    const backoff = Math.min(2 ** (n - cfg.loginMaxFailures) * cfg.loginBackoffBaseSeconds, cfg.loginLockSeconds);
    wait = Math.max(wait, backoff - last_age);
  }
  const perAddress = await pool.query<{ age: number }>(
    `SELECT EXTRACT(EPOCH FROM now() - attempted_at)::float8 AS age
       FROM login_attempts
      WHERE ip = $1 AND NOT succeeded AND attempted_at > now() - make_interval(secs => $2)
      ORDER BY attempted_at DESC OFFSET $3 LIMIT 1`,
    [ip, cfg.loginLockSeconds, Math.max(cfg.loginMaxFailuresPerAddress - 1, 0)],
  );
  if (perAddress.rows.length) wait = Math.max(wait, cfg.loginLockSeconds - perAddress.rows[0].age);
  return wait > 0 ? Math.ceil(wait) : 0;
}

/**
 * Checks a password with throttling (loginWaitSeconds). While throttled, even a correct password
 * is refused. The attempt is recorded as a failure before the slow password check, so concurrent
 * guesses count against each other; a success is marked afterwards.
 */
export async function checkLogin(email: string, password: string, ip: string): Promise<LoginResult> {
  const prisma = getPrisma();
  const normalized = normalizeEmail(email);
  const retryAfter = await loginWaitSeconds(normalized, ip);
  if (retryAfter > 0) return { ok: false, reason: 'locked', retryAfter };
  const attempt = await prisma.loginAttempt.create({ data: { email: normalized, ip, succeeded: false } });
  const user = await prisma.user.findUnique({ where: { email: normalized } });
  // Unknown emails are checked against a dummy hash, so timing does not reveal which exist.
  const ok = await verifyPassword(password, user?.passwordHash ?? (await dummyPasswordHash()));
  if (!ok || !user) {
    // This failure may start a lockout: alert the user once, when the wait begins.
    if (user) {
      const wait = await loginWaitSeconds(normalized, ip);
      if (wait > 0) await alertLoginLockout(user.id, ip, wait);
    }
    return { ok: false, reason: 'invalid' };
  }
  await prisma.loginAttempt.update({ where: { id: attempt.id }, data: { succeeded: true } });
  return { ok: true, userId: user.id };
}
