/**
 * The OAuth protocol endpoints: token (RFC 6749), revocation (RFC 7009), introspection (RFC 7662)
 * and server metadata (RFC 8414). They speak the RFCs' wire format, not the platform envelope:
 * form-encoded requests, `{error, error_description}` refusals (400; 401 invalid_client), and
 * Cache-Control: no-store. Conventions answered before a handler (429, 413, 415) keep the envelope.
 */
import { parse } from 'node:querystring';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  authenticateClient,
  clientCredentials,
  exchangeCode,
  introspectToken,
  OAuthError,
  refreshGrant,
  revokeToken,
  type ClientCredentials,
} from '../../../domain/oauth';
import { loadConfig } from '../../../domain/platform/config';

type Form = Record<string, string | string[] | undefined>;

/** One value of a form parameter; a repeated parameter is invalid_request (RFC 6749 §3.2). */
function param(form: Form, name: string): string | undefined {
  const v = form[name];
  if (Array.isArray(v)) throw new OAuthError('invalid_request', `${name} is repeated`);
  return v === undefined || v === '' ? undefined : v;
}

function formOf(request: FastifyRequest): Form {
  const type = String(request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') throw new OAuthError('invalid_request', 'The body must be application/x-www-form-urlencoded');
  return (request.body ?? {}) as Form;
}

const formDecode = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));

/** client_secret_basic or client_secret_post (never both), or a public client's bare client_id. */
function clientCredentialsOf(request: FastifyRequest, form: Form): ClientCredentials {
  const header = request.headers.authorization;
  const bodyId = param(form, 'client_id');
  const bodySecret = param(form, 'client_secret');
  if (header !== undefined) {
    const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
    if (!m) throw new OAuthError('invalid_client', 'Use HTTP Basic client authentication');
    const raw = Buffer.from(m[1], 'base64').toString('utf8');
    const i = raw.indexOf(':');
    if (i < 0) throw new OAuthError('invalid_client', 'Malformed Basic credentials');
    let id: string, secret: string;
    try {
      [id, secret] = [formDecode(raw.slice(0, i)), formDecode(raw.slice(i + 1))];
    } catch {
      throw new OAuthError('invalid_client', 'Malformed Basic credentials');
    }
    if (bodySecret !== undefined) throw new OAuthError('invalid_request', 'Use one client authentication method, not two');
    if (bodyId !== undefined && bodyId !== id) throw new OAuthError('invalid_client', 'client_id differs from the authenticated client');
    return { clientId: id, clientSecret: secret, basic: true };
  }
  return { clientId: bodyId, clientSecret: bodySecret, basic: false };
}

function noStore(reply: FastifyReply): FastifyReply {
  return reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
}

const HIDDEN = { hide: true } as const;
const PUBLIC = { public: true, idempotency: false } as const;

export default async function oauthProtocolRoutes(app: FastifyInstance) {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 16 * 1024 }, (_req, body, done) => {
    done(null, parse(body as string));
  });

  // RFC 6749 §5.2 refusals; anything else (rate limit, body too large) goes to the platform handler.
  app.setErrorHandler((err, request, reply) => {
    if (err instanceof OAuthError) {
      const status = err.error === 'invalid_client' ? 401 : 400;
      if (status === 401) reply.header('www-authenticate', 'Basic realm="oauth"');
      return noStore(reply).code(status).send({ error: err.error, error_description: err.description });
    }
    if ((err as { validation?: unknown }).validation) {
      return noStore(reply).code(400).send({ error: 'invalid_request', error_description: (err as Error).message });
    }
    throw err;
  });

  app.post('/oauth/token', { config: PUBLIC, schema: HIDDEN }, async (request, reply) => {
    const form = formOf(request);
    const client = await authenticateClient(clientCredentialsOf(request, form), true);
    const grantType = param(form, 'grant_type');
    let tokens;
    if (grantType === 'authorization_code') {
      tokens = await exchangeCode(client, param(form, 'code'), param(form, 'redirect_uri'), param(form, 'code_verifier'));
    } else if (grantType === 'refresh_token') {
      tokens = await refreshGrant(client, param(form, 'refresh_token'), param(form, 'scope'));
    } else if (grantType === 'client_credentials') {
      tokens = await clientCredentials(client, param(form, 'scope'));
    } else if (grantType === undefined) {
      throw new OAuthError('invalid_request', 'grant_type is required');
    } else {
      throw new OAuthError('unsupported_grant_type', `grant_type ${grantType} is not supported`);
    }
    return noStore(reply).send(tokens);
  });

  app.post('/oauth/revoke', { config: PUBLIC, schema: HIDDEN }, async (request, reply) => {
    const form = formOf(request);
    const client = await authenticateClient(clientCredentialsOf(request, form), true);
    await revokeToken(client, param(form, 'token'));
    return noStore(reply).code(200).send();
  });

  app.post('/oauth/introspect', { config: PUBLIC, schema: HIDDEN }, async (request, reply) => {
    const form = formOf(request);
    const client = await authenticateClient(clientCredentialsOf(request, form), false);
    return noStore(reply).send(await introspectToken(client, param(form, 'token')));
  });

  app.get('/.well-known/oauth-authorization-server', { config: { public: true }, schema: HIDDEN }, async (request) => {
    const issuer = loadConfig().publicUrl.replace(/\/+$/, '') || `${request.protocol}://${request.host}`;
    return {
      issuer,
      authorization_endpoint: `${issuer}/oauth/authorize`,
      token_endpoint: `${issuer}/oauth/token`,
      revocation_endpoint: `${issuer}/oauth/revoke`,
      introspection_endpoint: `${issuer}/oauth/introspect`,
      scopes_supported: ['read', 'write', 'delete'],
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      code_challenge_methods_supported: ['S256'],
      service_documentation: `${issuer}/api/documentation`,
    };
  });
}
