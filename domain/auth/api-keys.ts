import { createHash } from 'node:crypto';
import { BlockList, isIP } from 'node:net';
import { withTransaction, type Queryable } from '../db/pool';
import { getPrisma } from '../db/prisma';
import { loadConfig } from '../platform/config';
import { DomainError } from '../platform/errors';
import { newId, randomToken } from '../platform/ids';
import type { Environment } from '../platform/environment';
import type { Permission, Principal } from './principal';
import { noteApiKeyAddress } from './security-alerts';
import { assertNotAgent } from './agents';
import { cacheEpoch, cachesTrusted, canStore, credentialsChanged, registerCache } from '../events/cache-notices';

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
  agent?: boolean;
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
  agent: boolean;
  createdAt: Date;
}

/** How a key stands at `now`: revoked, expired (past expires_at) or active. */
export function apiKeyStatus(k: Pick<ApiKeyRecord, 'revokedAt' | 'expiresAt'>, now = Date.now()): 'active' | 'expired' | 'revoked' {
  return k.revokedAt ? 'revoked' : k.expiresAt && k.expiresAt.getTime() <= now ? 'expired' : 'active';
}

export async function createApiKey(input: CreateKeyInput, tx?: Queryable): Promise<{ record: ApiKeyRecord; value: string }> {
  const value = keyPrefixFor(input.format ?? 'sk', input.environment) + randomToken(32);
  const data = {
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
    agent: input.agent ?? false,
  };
  if (!tx) return { record: await getPrisma().apiKey.create({ data }), value };
  await tx.query(
    `INSERT INTO api_keys (id, user_id, name, key_prefix, key_hash, environment, permissions, ip_allowlist, expires_at, rate_limit_per_minute, rotated_from_id, agent)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
    [data.id, data.userId, data.name, data.keyPrefix, data.keyHash, data.environment, data.permissions, data.ipAllowlist, data.expiresAt, data.rateLimitPerMinute, data.rotatedFromId, data.agent],
  );
  return { record: (await getKeyRow(tx, data.id))!, value };
}

interface KeyRow extends ApiKeyRecord {
  ipAllowlist: string[];
  rateLimitPerMinute: number | null;
}

async function getKeyRow(tx: Queryable, id: string): Promise<KeyRow | null> {
  const { rows } = await tx.query(
    `SELECT id, name, key_prefix AS "keyPrefix", environment, permissions, ip_allowlist AS "ipAllowlist",
            expires_at AS "expiresAt", revoked_at AS "revokedAt", last_used_at AS "lastUsedAt",
            rotated_from_id AS "rotatedFromId", rate_limit_per_minute AS "rateLimitPerMinute", agent, created_at AS "createdAt"
       FROM api_keys WHERE id = $1`,
    [id],
  );
  return (rows[0] as KeyRow | undefined) ?? null;
}

// Short-lived cache of key lookups: the hot path (every API call) should not cost a query each.
// A revocation, rotation or change of the key's user reaches every process's cache through a notice
// (domain/events/cache-notices.ts); entries are used only while those are heard, and for CACHE_MS at most.
const CACHE_MS = 5_000;
type Cached = { at: number; principal: Principal | null; allowlist: string[]; expiresAt: Date | null; id: string };
const cache = new Map<string, Cached>();
const lastUsedWritten = new Map<string, number>();
registerCache('api_keys', (n) => {
  if (!n || n.cache !== 'api_keys' || (!n.keyId && !n.userId)) return cache.clear();
  for (const [hash, e] of cache) if (e.id === n.keyId || e.principal?.userId === n.userId) cache.delete(hash);
});

export type KeyCheck =
  | { ok: true; principal: Principal }
  | { ok: false; reason: 'invalid' | 'expired' | 'revoked' | 'ip_not_allowed' };

export async function authenticateApiKey(value: string, ip: string): Promise<KeyCheck> {
  const hash = hashApiKey(value);
  const now = Date.now();
  let entry = cachesTrusted() ? cache.get(hash) : undefined;
  if (!entry || now - entry.at > CACHE_MS) {
    const taken = cacheEpoch();
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
        partnerId: row.partnerId,
        burstLimit: row.burstLimit,
        tenantId: row.user.tenantId,
        agent: row.agent,
      },
    };
    // Not stored if a notice came in while the row was read: the row may predate its change.
    if (canStore(taken)) cache.set(hash, entry);
  }
  if (entry.expiresAt && entry.expiresAt.getTime() <= now) return { ok: false, reason: 'expired' };
  if (!ipAllowed(ip, entry.allowlist)) return { ok: false, reason: 'ip_not_allowed' };
  // A range not seen before for the key is recorded (and alerted after the first): one query per new range and process.
  await noteApiKeyAddress({ id: entry.id, userId: entry.principal!.userId, environment: entry.principal!.environment }, ip);
  // last_used_at: written at most once a minute per key, and awaited, so the request it stamps
  // already reads it (a partner's first sandbox call ticks `sandbox_tested` in its own answer).
  if ((lastUsedWritten.get(entry.id) ?? 0) < now - 60_000) {
    lastUsedWritten.set(entry.id, now);
    await getPrisma()
      .apiKey.update({ where: { id: entry.id }, data: { lastUsedAt: new Date(now) } })
      .catch(() => undefined);
  }
  return { ok: true, principal: entry.principal! };
}

// ---- Key management: which keys a caller may see and manage, and what it may grant.

/**
 * What a caller may do with API keys. An API key manages only keys of its own environment and
 * never grants more than it holds; a login session (password) is the account owner and manages
 * the keys of both environments with every permission.
 */
export interface KeyScope {
  userId: string;
  environments: Environment[];
  permissions: Permission[];
  kind: Principal['kind'];
  /** The calling key's id (null for a login session): its IP allow-list and expiry bound what it grants. */
  keyId: string | null;
  /** The calling key is an agent's: it creates and rotates no keys (domain/auth/agents.ts). */
  agent: boolean;
}

export function keyScopeOf(p: Principal): KeyScope {
  // A third-party app's OAuth token must not mint API keys that outlive its grant (docs/oauth.md).
  if (p.kind === 'oauth') throw new DomainError('OAUTH_TOKEN_NOT_ALLOWED', 'Manage API keys with an API key or a login session, not an OAuth token');
  if (p.kind === 'session') {
    return { userId: p.userId, environments: ['sandbox', 'production'], permissions: ['read', 'write', 'delete'], kind: p.kind, keyId: null, agent: false };
  }
  return { userId: p.userId, environments: [p.environment], permissions: p.permissions, kind: p.kind, keyId: p.credentialId, agent: p.agent === true };
}

/** Whether CIDR `inner` lies wholly inside CIDR `outer` (same family, longer or equal prefix, network inside). */
function cidrWithin(inner: string, outer: string): boolean {
  const i = parseCidr(inner);
  const o = parseCidr(outer);
  if (!i || !o || i.family !== o.family || i.prefix < o.prefix) return false;
  const list = new BlockList();
  list.addSubnet(o.address, o.prefix, o.family);
  return list.check(i.address, i.family);
}

/**
 * A key never hands out more reach than it has: a key with an IP allow-list can only create or
 * rotate keys whose allow-list lies inside its own (its own list when none is given), and a key
 * that expires can only grant keys that expire no later (its own expiry when none is given).
 * Returns the allow-list and expiry the new key gets.
 */
async function boundByCallerKey(
  scope: KeyScope,
  wanted: { ipAllowlist?: string[]; expiresAt?: Date | null },
  explicit: boolean,
  tx?: Queryable,
): Promise<{ ipAllowlist: string[]; expiresAt: Date | null }> {
  let ipAllowlist = wanted.ipAllowlist ?? [];
  let expiresAt = wanted.expiresAt ?? null;
  if (!scope.keyId) return { ipAllowlist, expiresAt };
  const caller = tx ? await getKeyRow(tx, scope.keyId) : await getPrisma().apiKey.findUnique({ where: { id: scope.keyId } });
  if (!caller) return { ipAllowlist, expiresAt };
  const verb = explicit ? 'grant' : 'rotate a key with';
  if (caller.ipAllowlist.length > 0) {
    if (explicit && wanted.ipAllowlist === undefined) ipAllowlist = caller.ipAllowlist;
    if (ipAllowlist.length === 0) {
      throw new DomainError('INSUFFICIENT_PERMISSIONS', `This key is limited to an IP allow-list; it cannot ${verb} no allow-list`, '/ip_allowlist');
    }
    ipAllowlist.forEach((entry, i) => {
      if (!caller.ipAllowlist.some((own) => cidrWithin(entry, own))) {
        throw new DomainError('INSUFFICIENT_PERMISSIONS', `"${entry}" is outside this key's IP allow-list`, `/ip_allowlist/${i}`);
      }
    });
  }
  if (caller.expiresAt) {
    if (explicit && wanted.expiresAt == null) expiresAt = caller.expiresAt;
    if (!expiresAt || expiresAt > caller.expiresAt) {
      throw new DomainError('INSUFFICIENT_PERMISSIONS', `This key expires at ${caller.expiresAt.toISOString()}; it cannot ${verb} a later expiry`, '/expires_at');
    }
  }
  return { ipAllowlist, expiresAt };
}

const inScope = (scope: KeyScope) => ({ userId: scope.userId, environment: { in: scope.environments } });

function assertGrantable(scope: KeyScope, environment: Environment, permissions: string[]): void {
  if (!scope.environments.includes(environment)) {
    throw new DomainError('ENVIRONMENT_NOT_PERMITTED', `A ${scope.environments.join('/')} key cannot manage ${environment} keys`, '/environment');
  }
  const extra = permissions.filter((x) => !scope.permissions.includes(x as Permission));
  if (extra.length) {
    throw new DomainError('INSUFFICIENT_PERMISSIONS', `Cannot grant permissions this key lacks: ${extra.join(', ')}`, '/permissions');
  }
}

/**
 * Active keys (neither revoked nor expired) count against API_KEYS_MAX_PER_USER, keys in a
 * rotation grace period included: each is a live credential with its own rate allowance.
 * Runs under a lock on the user row, so concurrent creations cannot overshoot the cap.
 */
async function assertRoomForKey(tx: Queryable, userId: string): Promise<void> {
  const max = loadConfig().apiKeysMaxPerUser;
  await tx.query('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [userId]);
  const { rows } = await tx.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM api_keys
      WHERE user_id = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())`,
    [userId],
  );
  if (rows[0].n >= max) {
    throw new DomainError('API_KEY_LIMIT_REACHED',
      `A user may hold at most ${max} active API keys; revoke one first (rotation without a grace period is always possible)`,
    );
  }
}

export interface IssueKeyInput {
  name: string;
  environment?: Environment;
  permissions?: Permission[];
  ipAllowlist?: string[];
  expiresAt?: Date | null;
  format?: KeyFormat;
  agent?: boolean;
}

/** Creates a key for the caller: within its scope, with valid settings, under the per-user cap. */
export async function issueApiKey(scope: KeyScope, defaultEnvironment: Environment, input: IssueKeyInput) {
  assertNotAgent(scope, 'create API keys');
  const environment = input.environment ?? defaultEnvironment;
  const permissions = input.permissions ?? ['read', 'write'];
  assertGrantable(scope, environment, permissions);
  (input.ipAllowlist ?? []).forEach((entry, i) => {
    if (!parseCidr(entry)) throw new DomainError('VALIDATION_ERROR', `"${entry}" is not an IP address or CIDR range`, `/ip_allowlist/${i}`);
  });
  if (input.expiresAt && input.expiresAt.getTime() <= Date.now()) {
    throw new DomainError('VALIDATION_ERROR', 'expires_at must be in the future', '/expires_at');
  }
  const bounded = await boundByCallerKey(scope, input, true);
  return withTransaction(async (tx) => {
    await assertRoomForKey(tx, scope.userId);
    return createApiKey(
      { userId: scope.userId, name: input.name, environment, permissions, ipAllowlist: bounded.ipAllowlist, expiresAt: bounded.expiresAt, format: input.format, agent: input.agent },
      tx,
    );
  });
}

export async function listApiKeys(scope: KeyScope): Promise<ApiKeyRecord[]> {
  return getPrisma().apiKey.findMany({ where: inScope(scope), orderBy: { createdAt: 'desc' } });
}

const apiKeyNotFound = () => new DomainError('NOT_FOUND', 'API key not found');

/** A key of another user or of an environment outside the caller's scope is NOT_FOUND. */
export async function findApiKey(scope: KeyScope, id: string): Promise<ApiKeyRecord> {
  const key = await getPrisma().apiKey.findFirst({ where: { id, ...inScope(scope) } });
  if (!key) throw apiKeyNotFound();
  return key;
}

export async function revokeApiKey(scope: KeyScope, id: string): Promise<ApiKeyRecord> {
  const key = await findApiKey(scope, id);
  const updated = key.revokedAt
    ? key
    : await getPrisma().apiKey.update({ where: { id }, data: { revokedAt: new Date() } });
  await credentialsChanged({ cache: 'api_keys', keyId: id });
  return updated;
}

/**
 * Rotation issues a new key with the same settings; the old one keeps working for `graceSeconds`
 * (then it counts against the cap until it expires) or is revoked at once (grace 0, always allowed).
 * A key outside the caller's scope, or revoked, is NOT_FOUND.
 */
export async function rotateApiKey(
  scope: KeyScope,
  id: string,
  graceSeconds: number,
): Promise<{ record: ApiKeyRecord; value: string; previous: ApiKeyRecord }> {
  assertNotAgent(scope, 'rotate API keys');
  const result = await withTransaction(async (tx) => {
    const { rows } = await tx.query<{ id: string }>(
      `SELECT id FROM api_keys WHERE id = $1 AND user_id = $2 AND environment = ANY($3) AND revoked_at IS NULL FOR UPDATE`,
      [id, scope.userId, scope.environments],
    );
    if (!rows.length) throw apiKeyNotFound();
    const old = (await getKeyRow(tx, id))!;
    assertGrantable(scope, old.environment as Environment, old.permissions);
    await boundByCallerKey(scope, { ipAllowlist: old.ipAllowlist, expiresAt: old.expiresAt }, false, tx);
    if (graceSeconds > 0) await assertRoomForKey(tx, scope.userId);
    const created = await createApiKey(
      {
        userId: scope.userId,
        name: old.name,
        environment: old.environment as Environment,
        permissions: old.permissions as Permission[],
        ipAllowlist: old.ipAllowlist,
        expiresAt: old.expiresAt,
        format: old.keyPrefix.startsWith('fak_') ? 'fak' : 'sk',
        rateLimitPerMinute: old.rateLimitPerMinute,
        rotatedFromId: old.id,
        agent: old.agent,
      },
      tx,
    );
    const graceEnd = new Date(Date.now() + graceSeconds * 1000);
    if (graceSeconds > 0) {
      const end = old.expiresAt && old.expiresAt < graceEnd ? old.expiresAt : graceEnd;
      await tx.query('UPDATE api_keys SET expires_at = $2 WHERE id = $1', [id, end]);
    } else {
      await tx.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [id]);
    }
    return Object.assign({}, created, { previous: (await getKeyRow(tx, id))! });
  });
  // After the commit: the old key is revoked or now expires sooner, on every process.
  await credentialsChanged({ cache: 'api_keys', keyId: id });
  return result;
}
