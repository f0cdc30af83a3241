// Platform operators (users.is_admin). Nobody becomes one by registering: an operator is made by
// whoever runs the platform, either with `npm run operator -- grant <email>` (shell and database
// access) or, for a fresh `npm start`, with the one-time bootstrap token printed at start while
// no operator exists, which a registered, logged-in user redeems to become the first operator.
import { createHash } from 'node:crypto';
import { withTransaction, type Queryable } from '../db/pool';
import { credentialsChanged } from '../events/cache-notices';
import { loadConfig } from '../platform/config';
import { DomainError } from '../platform/errors';
import { newId, randomToken } from '../platform/ids';
import type { Principal } from './principal';
import { normalizeEmail } from './users';

// Serialises everything that makes or unmakes operators, so "no operator exists yet" holds
// for the whole of a redemption.
const OPERATOR_LOCK_ID = 72707370;

const hashToken = (t: string) => createHash('sha256').update(t).digest('hex');

async function lockOperators(tx: Queryable): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock($1)', [OPERATOR_LOCK_ID]);
}

async function anyOperator(tx: Queryable): Promise<boolean> {
  const { rows } = await tx.query('SELECT 1 FROM users WHERE is_admin LIMIT 1');
  return rows.length > 0;
}

/** Unused bootstrap tokens die when an operator exists or a newer token is issued. */
async function discardUnusedTokens(tx: Queryable): Promise<void> {
  await tx.query('DELETE FROM operator_bootstrap_tokens WHERE used_at IS NULL');
}

/**
 * A fresh one-time bootstrap token when no operator exists (replacing any earlier unused one),
 * else null. Only its SHA-256 is stored; it expires after OPERATOR_BOOTSTRAP_TTL_SECONDS.
 */
export async function issueBootstrapToken(): Promise<string | null> {
  return withTransaction(async (tx) => {
    await lockOperators(tx);
    await discardUnusedTokens(tx);
    if (await anyOperator(tx)) return null;
    const token = `obt_${randomToken(32)}`;
    await tx.query(
      `INSERT INTO operator_bootstrap_tokens (id, token_hash, expires_at) VALUES ($1, $2, now() + make_interval(secs => $3))`,
      [newId('obt'), hashToken(token), loadConfig().operatorBootstrapTtlSeconds],
    );
    return token;
  });
}

/** The lines `npm start` prints: how to become the first operator, or nothing once one exists. */
export async function bootstrapNotice(baseUrl: string): Promise<string> {
  const token = await issueBootstrapToken();
  if (!token) return '';
  const hours = Math.round(loadConfig().operatorBootstrapTtlSeconds / 360) / 10;
  return `
No platform operator exists yet. To become the first one, register and log in, then within ${hours} h:
  curl -X POST ${baseUrl}/api/v2/operators/bootstrap -H "authorization: Bearer <access token>" \\
       -H 'content-type: application/json' -d '{"token":"${token}"}'
  (single use; a new token is printed at each start until an operator exists;
   or run: npm run operator -- grant <email>)`;
}

const invalidToken = () =>
  new DomainError('INVALID_BOOTSTRAP_TOKEN', 'The bootstrap token is not valid, already used or expired, or an operator already exists', '/token');

/** Makes the caller (a login session) the first operator if the token is valid and unused. */
export async function redeemBootstrapToken(p: Principal, token: string): Promise<{ userId: string }> {
  if (p.kind !== 'session') {
    throw new DomainError('LOGIN_SESSION_REQUIRED', 'Redeem the bootstrap token with a login access token, not an API key');
  }
  const made = await withTransaction(async (tx) => {
    await lockOperators(tx);
    if (await anyOperator(tx)) {
      await discardUnusedTokens(tx);
      throw invalidToken();
    }
    const used = await tx.query(
      `UPDATE operator_bootstrap_tokens SET used_at = now(), used_by = $2
        WHERE token_hash = $1 AND used_at IS NULL AND expires_at > now() RETURNING id`,
      [hashToken(token), p.userId],
    );
    if (used.rowCount !== 1) throw invalidToken();
    await tx.query('UPDATE users SET is_admin = true, updated_at = now() WHERE id = $1', [p.userId]);
    await discardUnusedTokens(tx);
    return { userId: p.userId };
  });
  // The user's API keys carry is_admin in every process's key cache.
  await credentialsChanged({ cache: 'api_keys', userId: made.userId });
  return made;
}

/**
 * `npm run operator -- grant|revoke <email>`: null when no user has that email. `notified`: whether
 * the running API processes were told (their cached API keys carry is_admin); if not, they see the
 * change within the key cache's 5 s.
 */
export async function setOperator(email: string, isOperator: boolean): Promise<{ id: string; email: string; notified: boolean } | null> {
  const user = await withTransaction(async (tx) => {
    await lockOperators(tx);
    const { rows } = await tx.query<{ id: string; email: string }>(
      'UPDATE users SET is_admin = $2, updated_at = now() WHERE email = $1 RETURNING id, email',
      [normalizeEmail(email), isOperator],
    );
    if (isOperator && rows.length) await discardUnusedTokens(tx);
    return rows[0] ?? null;
  });
  if (!user) return null;
  return { ...user, notified: await credentialsChanged({ cache: 'api_keys', userId: user.id }) };
}

export async function listOperators(tx?: Queryable): Promise<Array<{ id: string; email: string }>> {
  const run = async (q: Queryable) =>
    (await q.query<{ id: string; email: string }>('SELECT id, email FROM users WHERE is_admin ORDER BY email')).rows;
  return tx ? run(tx) : withTransaction(run);
}
