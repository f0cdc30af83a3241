/**
 * system.security_alert producers (docs/webhooks.md):
 *  - login_lockout: a failed password login made the (email, address) pair or the address wait
 *    (domain/auth/users.ts checkLogin); written for both environments, as a login is not bound to one;
 *  - api_key_new_ip_range: an API key used from a /24 (IPv4) or /48 (IPv6) it was never used from
 *    (the key's first range is recorded silently); ranges are kept in api_key_ip_ranges;
 *  - refresh_token_reuse: a rotated refresh token presented again (domain/auth/sessions.ts): the
 *    session is revoked and the alert written in the same transaction, once.
 */
import { isIP } from 'node:net';
import { withTransaction, type Queryable } from '../db/pool';
import { writeOutboxEvent } from '../events/outbox';
import type { SecurityAlertKind } from '../events/system-events';
import { ENVIRONMENTS, type Environment } from '../platform/environment';

interface AlertInput {
  alert: SecurityAlertKind;
  description: string;
  credentialId?: string | null;
  ip?: string | null;
  ipRange?: string | null;
  retryAfterSeconds?: number | null;
  sessionRevoked?: boolean;
}

export async function writeSecurityAlert(c: Queryable, userId: string, environment: Environment, a: AlertInput): Promise<string> {
  return writeOutboxEvent(c, {
    type: 'system.security_alert',
    environment,
    userId,
    aggregateType: 'user',
    aggregateId: userId,
    data: {
      alert: a.alert,
      description: a.description,
      credential_id: a.credentialId ?? null,
      ip: a.ip ?? null,
      ip_range: a.ipRange ?? null,
      retry_after_seconds: a.retryAfterSeconds ?? null,
      session_revoked: a.sessionRevoked ?? false,
    },
  });
}

/** A login lockout began for the user (both environments' webhooks hear it). */
export async function alertLoginLockout(userId: string, ip: string, retryAfterSeconds: number): Promise<void> {
  await withTransaction(async (c) => {
    for (const env of ENVIRONMENTS) {
      await writeSecurityAlert(c, userId, env, {
        alert: 'login_lockout',
        description: `Too many failed login attempts; logins from ${ip} are refused for ${retryAfterSeconds} seconds`,
        ip,
        retryAfterSeconds,
      });
    }
  });
}

/** Revokes a session whose rotated refresh token was presented again and alerts, once. */
export async function revokeSessionOnReuse(sessionId: string): Promise<void> {
  await withTransaction(async (c) => {
    const { rows } = await c.query<{ user_id: string; environment: Environment }>(
      'UPDATE user_sessions SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL RETURNING user_id, environment',
      [sessionId],
    );
    if (!rows[0]) return;
    await writeSecurityAlert(c, rows[0].user_id, rows[0].environment, {
      alert: 'refresh_token_reuse',
      description: 'A refresh token that was already rotated was presented again; the session was revoked',
      credentialId: sessionId,
      sessionRevoked: true,
    });
  });
}

/** The /24 (IPv4) or /48 (IPv6) range of an address, in CIDR notation; null when not an address. */
export function ipRangeOf(ip: string): string | null {
  const v4 = ip.startsWith('::ffff:') && isIP(ip.slice(7)) === 4 ? ip.slice(7) : ip;
  if (isIP(v4) === 4) return `${v4.split('.').slice(0, 3).join('.')}.0/24`;
  if (isIP(ip) !== 6) return null;
  const [head, tail = ''] = ip.split('%')[0].split('::');
  const left = head ? head.split(':') : [];
  const right = ip.includes('::') && tail ? tail.split(':') : [];
  const groups = ip.includes('::') ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups.slice(0, 3).map((g) => parseInt(g, 16).toString(16)).join(':')}::/48`;
}

// Ranges this process already knows for a key: the hot path does no query for them.
const known = new Set<string>();

/**
 * Records the range of the address an API key is used from; the first sighting of a range after
 * the key's first one writes an api_key_new_ip_range alert in the same transaction. Never throws:
 * a failure here must not refuse the request (the range is retried on the next one).
 */
export async function noteApiKeyAddress(key: { id: string; userId: string; environment: Environment }, ip: string): Promise<void> {
  const range = ipRangeOf(ip);
  if (!range || known.has(`${key.id}|${range}`)) return;
  try {
    await withTransaction(async (c) => {
      const ins = await c.query(
        'INSERT INTO api_key_ip_ranges (api_key_id, ip_range) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING ip_range',
        [key.id, range],
      );
      if (ins.rowCount !== 1) return;
      const others = await c.query('SELECT 1 FROM api_key_ip_ranges WHERE api_key_id = $1 AND ip_range <> $2 LIMIT 1', [key.id, range]);
      if (others.rowCount === 0) return;
      await writeSecurityAlert(c, key.userId, key.environment, {
        alert: 'api_key_new_ip_range',
        description: `API key used from ${range}, a range it was not used from before`,
        credentialId: key.id,
        ip,
        ipRange: range,
      });
    });
    if (known.size >= 100_000) known.clear(); // bounded: forgetting only costs one indexed insert per range
    known.add(`${key.id}|${range}`);
  } catch {
    // retried on the key's next request
  }
}
