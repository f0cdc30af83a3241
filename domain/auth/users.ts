import { getPrisma } from '../db/prisma';
import { loadConfig } from '../platform/config';
import { newId } from '../platform/ids';
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

/** Returns null when the email is taken. Admins are the emails listed in PLATFORM_ADMIN_EMAILS. */
export async function registerUser(name: string, email: string, password: string) {
  const normalized = normalizeEmail(email);
  const passwordHash = await hashPassword(password);
  const isAdmin = loadConfig().adminEmails.includes(normalized);
  const created = await getPrisma().user.createManyAndReturn({
    data: [{ id: newId('usr'), name: name.trim(), email: normalized, passwordHash, isAdmin }],
    skipDuplicates: true,
  });
  return created[0] ?? null;
}

export type LoginResult = { ok: true; userId: string } | { ok: false; reason: 'invalid' | 'locked'; retryAfter?: number };

/**
 * Checks a password with throttling: after LOGIN_MAX_FAILURES failures for an email within
 * LOGIN_LOCK_SECONDS, further attempts are refused until the window passes (even correct ones).
 */
export async function checkLogin(email: string, password: string, ip: string): Promise<LoginResult> {
  const cfg = loadConfig();
  const prisma = getPrisma();
  const normalized = normalizeEmail(email);
  const since = new Date(Date.now() - cfg.loginLockSeconds * 1000);
  const recent = await prisma.loginAttempt.findMany({
    where: { email: normalized, attemptedAt: { gte: since } },
    orderBy: { attemptedAt: 'desc' },
    take: cfg.loginMaxFailures,
  });
  const failuresSinceSuccess: Date[] = [];
  for (const a of recent) {
    if (a.succeeded) break;
    failuresSinceSuccess.push(a.attemptedAt);
  }
  if (failuresSinceSuccess.length >= cfg.loginMaxFailures) {
    const oldest = failuresSinceSuccess[failuresSinceSuccess.length - 1];
    const retryAfter = Math.max(1, Math.ceil((oldest.getTime() + cfg.loginLockSeconds * 1000 - Date.now()) / 1000));
    return { ok: false, reason: 'locked', retryAfter };
  }
  const user = await prisma.user.findUnique({ where: { email: normalized } });
  const ok = await verifyPassword(password, user?.passwordHash ?? (await dummyPasswordHash()));
  await prisma.loginAttempt.create({ data: { email: normalized, ip, succeeded: ok && !!user } });
  if (!ok || !user) return { ok: false, reason: 'invalid' };
  return { ok: true, userId: user.id };
}
