import type { FastifyInstance, FastifyRequest } from 'fastify';
import { authenticateApiKey, isApiKeyValue } from '../../domain/auth/api-keys';
import { authorize, type Need } from '../../domain/auth/gate';
import type { Permission, Principal } from '../../domain/auth/principal';
import { authenticateAccessToken } from '../../domain/auth/sessions';
import { authenticateOAuthAccessToken, isOAuthAccessToken } from '../../domain/oauth/access-tokens';
import { checkPartnerKey } from '../../domain/partner/context';
import { DomainError } from '../../domain/platform/errors';
import { ApiError } from '../errors';
import type { Partner } from '../../domain/partner/partners';

const MESSAGES = {
  missing: 'Authorization header with a Bearer API key or access token is required',
  invalid: 'The credentials are not valid',
  expired: 'The credentials have expired',
  revoked: 'The credentials have been revoked',
} as const;

function unauthorized(reason: keyof typeof MESSAGES): ApiError {
  const code = { missing: 'UNAUTHENTICATED', invalid: 'INVALID_CREDENTIALS', expired: 'CREDENTIALS_EXPIRED', revoked: 'CREDENTIALS_REVOKED' }[reason];
  return new ApiError(401, code, MESSAGES[reason], {
    source: { header: 'authorization' },
    headers: { 'www-authenticate': 'Bearer realm="api"' },
  });
}

export function requiredPermission(request: FastifyRequest): Permission {
  const explicit = request.routeOptions.config?.permission;
  if (explicit) return explicit;
  switch (request.method) {
    case 'GET':
    case 'HEAD':
    case 'OPTIONS':
      return 'read';
    case 'DELETE':
      return 'delete';
    default:
      return 'write';
  }
}

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);
// Logging in and operators' own routes (ending or extending a maintenance window, the bootstrap) are never held by one.
const OPEN_DURING_MAINTENANCE = [/^\/api(\/v\d+)?\/auth\//, /^\/api\/v\d+\/operators\//];

/**
 * What a route needs of its caller, as the one gate asks it (domain/auth/gate.ts): the permission
 * (config.permission, else by method), operator-only (config.admin), the route's tags (a partner's
 * modules, a tenant's features), and whether a maintenance window holds it: every method but the
 * reads, except the open paths and endpoints whose operations ask the gate one by one (GraphQL, MCP).
 */
export function routeNeed(request: FastifyRequest): Need {
  const config = request.routeOptions.config;
  const path = request.url.split('?', 1)[0];
  return {
    permission: requiredPermission(request),
    admin: config?.admin,
    tags: (request.routeOptions.schema as { tags?: string[] } | undefined)?.tags,
    write: !READS.has(request.method) && !config?.gatedPerOperation && !OPEN_DURING_MAINTENANCE.some((r) => r.test(path)),
  };
}

/**
 * Resolves the bearer value (API key or login access token) into request.principal and
 * enforces the key's IP allow-list, then the one gate (permissions, operator-only routes, a
 * partner's or tenant's modules, maintenance windows) and a partner row's X-Partner-Key.
 */
export function registerAuth(app: FastifyInstance): void {
  app.decorateRequest('principal', undefined);
  app.decorateRequest('authFailure', undefined);
  app.addHook('onRequest', async (request) => {
    // The interactive docs (swagger-ui's own routes) are public like the OpenAPI document.
    const config = request.routeOptions.config;
    const sent = request.headers.authorization;
    const credential = sent !== undefined && (!config?.otherAuthSchemes || /^Bearer\s/i.test(sent));
    if (config?.public && config.optionalAuth && credential) {
      // fall through: an optional credential, once sent, must be valid
    } else if (request.is404 || config?.public || request.url.startsWith('/api/documentation')) return;
    try {
      await resolvePrincipal(request);
    } catch (err) {
      // Raised after the rate limiter has run, so refused calls are counted and carry its headers.
      request.authFailure = err as ApiError;
    }
  });
}

export function registerAuthEnforcement(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    if (request.authFailure) throw request.authFailure;
  });
}

/**
 * The principal of an Authorization header value (`Bearer <API key | OAuth token | access token>`)
 * from `ip`, or the 401/403 ApiError REST answers; also the GraphQL WebSocket's connection_init.
 */
export async function principalFromBearer(header: string | undefined, ip: string): Promise<Principal> {
  if (!header) throw unauthorized('missing');
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw unauthorized('invalid');
  const value = match[1];
  if (isApiKeyValue(value)) {
    const result = await authenticateApiKey(value, ip);
    if (!result.ok) {
      if (result.reason === 'ip_not_allowed') throw new ApiError(403, 'IP_NOT_ALLOWED', `Requests from ${ip} are not allowed for this API key`);
      throw unauthorized(result.reason);
    }
    // An API key is never a biometric session (only a passkey login is: domain/mobile/passkey-sign-in.ts).
    // Object.assign, not a spread with a property added (docs/operations.md, "Object spread on hot paths").
    return Object.assign({}, result.principal, { biometric: false });
  }
  if (isOAuthAccessToken(value)) {
    // A third-party app's OAuth token (domain/oauth): permissions are its scopes; kind 'oauth', never a login session.
    const result = await authenticateOAuthAccessToken(value);
    if (!result.ok) throw unauthorized(result.reason);
    return result.principal;
  }
  const result = await authenticateAccessToken(value);
  if (!result.ok) throw unauthorized(result.reason);
  return result.principal;
}

/**
 * The bearer key's partner, proved by its X-Partner-Key header (config.partnerKey rows, and GraphQL's
 * partner fields). A missing or unknown partner key is a credential failure (401), like a bad bearer key.
 */
export function partnerOfKey(principal: Principal, header: string | string[] | undefined): Promise<Partner> {
  return checkPartnerKey(principal, Array.isArray(header) ? header[0] : header).catch((err) => {
    if (err instanceof DomainError && err.code === 'PARTNER_KEY_INVALID') throw new ApiError(401, err.code, err.message, { source: { header: 'x-partner-key' } });
    throw err;
  });
}

async function resolvePrincipal(request: FastifyRequest): Promise<void> {
  request.principal = await principalFromBearer(request.headers.authorization, request.ip);
  await authorize(request.principal, routeNeed(request));
  if (request.routeOptions.config?.partnerKey) request.partner = await partnerOfKey(request.principal, request.headers['x-partner-key']);
}
