/**
 * OAuth clients (third-party apps) a user registers: confidential (a secret, shown once and stored
 * hashed like API keys) or public (no secret, PKCE only). Redirect URIs match exactly; https, or
 * http only to a loopback address (RFC 8252 §7.3).
 */
import { timingSafeEqual } from 'node:crypto';
import { getPool, type Queryable } from '../db/pool';
import { hashApiKey } from '../auth/api-keys';
import type { Permission, Principal } from '../auth/principal';
import { DomainError } from '../platform/errors';
import { newId, randomToken } from '../platform/ids';
import type { Environment } from '../platform/environment';
import { OAuthError } from './errors';

export type ClientType = 'confidential' | 'public';

export interface OAuthClient {
  id: string;
  userId: string;
  environment: Environment;
  name: string;
  clientType: ClientType;
  redirectUris: string[];
  scopes: Permission[];
  createdAt: Date;
}

const COLUMNS = `id, user_id AS "userId", environment, name, client_type AS "clientType", redirect_uris AS "redirectUris", scopes, created_at AS "createdAt"`;
const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** Why a redirect URI is refused, or null when it is acceptable. */
export function redirectUriProblem(uri: string): string | null {
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    return 'is not an absolute URL';
  }
  if (u.hash || uri.includes('#')) return 'must not contain a fragment';
  if (u.username || u.password) return 'must not contain credentials';
  if (u.protocol === 'https:') return null;
  if (u.protocol === 'http:' && LOOPBACK.has(u.hostname)) return null;
  return 'must use https (http only for a loopback address)';
}

/** OAuth tokens may not manage OAuth clients: an app must not mint other apps' credentials. */
function requireOwner(p: Principal): void {
  if (p.kind === 'oauth') throw new DomainError('OAUTH_TOKEN_NOT_ALLOWED', 'Manage OAuth clients with an API key or a login session, not an OAuth token');
}

export interface RegisterInput {
  name: string;
  clientType: ClientType;
  redirectUris: string[];
  scopes: Permission[];
}

export async function registerClient(p: Principal, input: RegisterInput): Promise<{ client: OAuthClient; secret: string | null }> {
  requireOwner(p);
  input.redirectUris.forEach((uri, i) => {
    const problem = redirectUriProblem(uri);
    if (problem) throw new DomainError('INVALID_REDIRECT_URI', `redirect_uris[${i}] ${problem}`, `/redirect_uris/${i}`);
  });
  const outside = input.scopes.filter((s) => !p.permissions.includes(s));
  if (outside.length > 0) throw new DomainError('INSUFFICIENT_PERMISSIONS', `The credential lacks the scopes it would grant: ${outside.join(', ')}`, '/scopes');
  const id = newId('oc');
  const secret = input.clientType === 'confidential' ? `ocs_${randomToken(32)}` : null;
  const { rows } = await getPool().query<OAuthClient>(
    `INSERT INTO oauth_clients (id, user_id, environment, name, client_type, secret_hash, redirect_uris, scopes)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${COLUMNS}`,
    [id, p.userId, p.environment, input.name, input.clientType, secret ? hashApiKey(secret) : null, [...new Set(input.redirectUris)], [...new Set(input.scopes)]],
  );
  return { client: rows[0], secret };
}

/** The caller's clients in the caller's environment. */
export async function listClients(p: Principal): Promise<OAuthClient[]> {
  requireOwner(p);
  const { rows } = await getPool().query<OAuthClient>(
    `SELECT ${COLUMNS} FROM oauth_clients WHERE user_id = $1 AND environment = $2 AND deleted_at IS NULL ORDER BY created_at, id`,
    [p.userId, p.environment],
  );
  return rows;
}

const clientNotFound = () => new DomainError('NOT_FOUND', 'OAuth client not found');

/** The caller's client (in the caller's environment); another's, a deleted one or none is NOT_FOUND. */
export async function findOwnClient(p: Principal, id: string): Promise<OAuthClient> {
  requireOwner(p);
  const { rows } = await getPool().query<OAuthClient>(
    `SELECT ${COLUMNS} FROM oauth_clients WHERE id = $1 AND user_id = $2 AND environment = $3 AND deleted_at IS NULL`,
    [id, p.userId, p.environment],
  );
  if (!rows[0]) throw clientNotFound();
  return rows[0];
}

/** Deletes the client and revokes every grant (so every token) it holds; another's, or none, is NOT_FOUND. */
export async function deleteClient(p: Principal, id: string): Promise<OAuthClient> {
  requireOwner(p);
  const { rows } = await getPool().query<OAuthClient>(
    `WITH c AS (
       UPDATE oauth_clients SET deleted_at = now() WHERE id = $1 AND user_id = $2 AND environment = $3 AND deleted_at IS NULL RETURNING *
     ), g AS (
       UPDATE oauth_grants SET revoked_at = now(), revoked_reason = 'client_deleted' WHERE client_id IN (SELECT id FROM c) AND revoked_at IS NULL
     )
     SELECT ${COLUMNS} FROM c`,
    [id, p.userId, p.environment],
  );
  if (!rows[0]) throw clientNotFound();
  return rows[0];
}

/** A live client by id (no ownership check: the authorization endpoint and token endpoint use it). */
export async function getClient(id: string, db: Queryable = getPool()): Promise<(OAuthClient & { secretHash: string | null }) | null> {
  if (typeof id !== 'string' || id.length > 100) return null;
  const { rows } = await db.query(`SELECT ${COLUMNS}, secret_hash AS "secretHash" FROM oauth_clients WHERE id = $1 AND deleted_at IS NULL`, [id]);
  return rows[0] ?? null;
}

export interface ClientCredentials {
  clientId?: string;
  clientSecret?: string;
  /** The client authenticated with HTTP Basic (client_secret_basic). */
  basic: boolean;
}

/**
 * Authenticates the client of a token, revocation or introspection request (RFC 6749 §2.3):
 * a confidential client by its secret (Basic or in the body), a public client by its id alone
 * (only when `allowPublic`). Any failure is invalid_client.
 */
export async function authenticateClient(c: ClientCredentials, allowPublic: boolean): Promise<OAuthClient> {
  if (!c.clientId) throw new OAuthError('invalid_client', 'Client authentication is required');
  const client = await getClient(c.clientId);
  if (!client) throw new OAuthError('invalid_client', 'Client authentication failed');
  if (client.clientType === 'public') {
    if (c.clientSecret !== undefined || !allowPublic) throw new OAuthError('invalid_client', 'Client authentication failed');
  } else {
    if (c.clientSecret === undefined || !client.secretHash) throw new OAuthError('invalid_client', 'Client authentication failed');
    const given = Buffer.from(hashApiKey(c.clientSecret));
    const stored = Buffer.from(client.secretHash);
    if (given.length !== stored.length || !timingSafeEqual(given, stored)) throw new OAuthError('invalid_client', 'Client authentication failed');
  }
  const { secretHash: _omit, ...rest } = client;
  return rest;
}
