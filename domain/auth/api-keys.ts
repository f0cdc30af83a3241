import { createHash } from 'node:crypto';
import { BlockList, isIP } from 'node:net';
import { getPrisma } from '../db/prisma';
import { newId, randomToken } from '../platform/ids';
import type { Environment } from '../platform/environment';
import type { Permission, Principal } from './principal';

export type KeyFormat = 'fak' | 'sk';

export function hashApiKey(value: string): string {
  // API keys carry 256 bits of entropy, so a fast hash is enough and allows an indexed lookup.
  return createHash('sha256').update(value).digest('hex');
}

export function isApiKeyValue(value: string): boolean {
  return /^(fak_|sk_sandbox_|sk_live_)[A-Za-z0-9_-]{20,}$/.test(value);
}

function keyPrefixFor(format: KeyFormat, environment: Environment): string {
  if (format === 'fak') return 'fak_';
  return environment === 'production' ? 'sk_live_' : 'sk_sandbox_';
}

/** Validates CIDR entries ("10.0.0.0/8", "2001:db8::/32", or a bare address). */
export function parseCidr(entry: string): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } | null {
  const [address, bits] = entry.trim().split('/');
  const fam = isIP(address);
  if (fam === 0) return null;
  const max = fam === 4 ? 32 : 128;
  const prefix = bits === undefined ? max : Number(bits);
  if (!/^\d+$/.test(bits ?? String(max)) || prefix < 0 || prefix > max) return null;
  return { address, prefix, family: fam === 4 ? 'ipv4' : 'ipv6' };
}

export function ipAllowed(ip: string, allowlist: string[]): boolean {
  if (allowlist.length === 0) return true;
  const list = new BlockList();
  for (const entry of allowlist) {
    const c = parseCidr(entry);
    if (c) list.addSubnet(c.address, c.prefix, c.family);
  }
  const normalized = ip.startsWith('::ffff:') && isIP(ip.slice(7)) === 4 ? ip.slice(7) : ip;
  const fam = isIP(normalized);
  if (fam === 0) return false;
  return list.check(normalized, fam === 4 ? 'ipv4' : 'ipv6');
}

export interface CreateKeyInput {
  userId: string;
  name: string;
  environment: Environment;
  permissions: Permission[];
  ipAllowlist?: string[];
  expiresAt?: Date | null;
  format?: KeyFormat;
  rateLimitPerMinute?: number | null;
  rotatedFromId?: string | null;
}

export interface ApiKeyRecord {
  id: string;
  name: string;
  keyPrefix: string;
  environment: string;
  permissions: string[];
  ipAllowlist: string[];
  expiresAt: Date | null;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
  rotatedFromId: string | null;
  createdAt: Date;
}

export async function createApiKey(input: CreateKeyInput): Promise<{ record: ApiKeyRecord; value: string }> {
  const value = keyPrefixFor(input.format ?? 'sk', input.environment) + randomToken(32);
  const record = await getPrisma().apiKey.create({
    data: {
      id: newId('key'),
      userId: input.userId,
      name: input.name,
      keyPrefix: value.slice(0, value.indexOf('_', 3) + 5),
      keyHash: hashApiKey(value),
      environment: input.environment,
      permissions: input.permissions,
      ipAllowlist: input.ipAllowlist ?? [],
      expiresAt: input.expiresAt ?? null,
      rateLimitPerMinute: input.rateLimitPerMinute ?? null,
      rotatedFromId: input.rotatedFromId ?? null,
    },
  });
  return { record, value };
}

// Short-lived cache of key lookups: the hot path (every API call) should not cost a query each.
// Revocation on this instance clears it at once; other instances see it within CACHE_MS.
const CACHE_MS = 5_000;
type Cached = { at: number; principal: Principal | null; allowlist: string[]; expiresAt: Date | null; id: string };
const cache = new Map<string, Cached>();
const lastUsedWritten = new Map<string, number>();

export function forgetCachedKeys(): void {
  cache.clear();
}

export type KeyCheck =
  | { ok: true; principal: Principal }
  | { ok: false; reason: 'invalid' | 'expired' | 'revoked' | 'ip_not_allowed' };

export async function authenticateApiKey(value: string, ip: string): Promise<KeyCheck> {
  const hash = hashApiKey(value);
  const now = Date.now();
  let entry = cache.get(hash);
  if (!entry || now - entry.at > CACHE_MS) {
    const row = await getPrisma().apiKey.findUnique({ where: { keyHash: hash }, include: { user: true } });
    if (!row) return { ok: false, reason: 'invalid' };
    if (row.revokedAt) {
      cache.delete(hash);
      return { ok: false, reason: 'revoked' };
    }
    entry = {
      at: now,
      id: row.id,
      allowlist: row.ipAllowlist,
      expiresAt: row.expiresAt,
      principal: {
        userId: row.userId,
        email: row.user.email,
        isAdmin: row.user.isAdmin,
        environment: row.environment as Environment,
        permissions: row.permissions as Permission[],
        credentialId: row.id,
        kind: 'api_key',
        rateLimitPerMinute: row.rateLimitPerMinute,
      },
    };
    cache.set(hash, entry);
  }
  if (entry.expiresAt && entry.expiresAt.getTime() <= now) return { ok: false, reason: 'expired' };
  if (!ipAllowed(ip, entry.allowlist)) return { ok: false, reason: 'ip_not_allowed' };
  // last_used_at is informational: write it at most once a minute per key.
  if ((lastUsedWritten.get(entry.id) ?? 0) < now - 60_000) {
    lastUsedWritten.set(entry.id, now);
    getPrisma()
      .apiKey.update({ where: { id: entry.id }, data: { lastUsedAt: new Date(now) } })
      .catch(() => undefined);
  }
  return { ok: true, principal: entry.principal! };
}

export async function listApiKeys(userId: string): Promise<ApiKeyRecord[]> {
  return getPrisma().apiKey.findMany({ where: { userId }, orderBy: { createdAt: 'desc' } });
}

export async function findApiKey(userId: string, id: string): Promise<ApiKeyRecord | null> {
  return getPrisma().apiKey.findFirst({ where: { id, userId } });
}

export async function revokeApiKey(userId: string, id: string): Promise<ApiKeyRecord | null> {
  const key = await getPrisma().apiKey.findFirst({ where: { id, userId } });
  if (!key) return null;
  const updated = key.revokedAt
    ? key
    : await getPrisma().apiKey.update({ where: { id }, data: { revokedAt: new Date() } });
  cache.clear();
  return updated;
}

/** Rotation issues a new key with the same settings; the old one keeps working for `graceSeconds`. */
export async function rotateApiKey(
  userId: string,
  id: string,
  graceSeconds: number,
): Promise<{ record: ApiKeyRecord; value: string; previous: ApiKeyRecord } | null> {
  const old = await getPrisma().apiKey.findFirst({ where: { id, userId, revokedAt: null } });
  if (!old) return null;
  const created = await createApiKey({
    userId,
    name: old.name,
    environment: old.environment as Environment,
    permissions: old.permissions as Permission[],
    ipAllowlist: old.ipAllowlist,
    expiresAt: old.expiresAt,
    format: old.keyPrefix.startsWith('fak_') ? 'fak' : 'sk',
    rateLimitPerMinute: old.rateLimitPerMinute,
    rotatedFromId: old.id,
  });
  const graceEnd = new Date(Date.now() + graceSeconds * 1000);
  const previous = await getPrisma().apiKey.update({
    where: { id },
    data:
      graceSeconds > 0
        ? { expiresAt: old.expiresAt && old.expiresAt < graceEnd ? old.expiresAt : graceEnd }
        : { revokedAt: new Date() },
  });
  cache.clear();
  return { ...created, previous };
}
