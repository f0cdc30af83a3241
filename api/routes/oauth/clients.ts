/**
 * OAuth client registration (platform envelope): POST/GET /api/v2/oauth/clients, GET/DELETE
 * /api/v2/oauth/clients/{id}. The client secret is shown once.
 */
import type { FastifyInstance } from 'fastify';
import { deleteClient, findOwnClient, listClients, registerClient, type ClientType, type OAuthClient } from '../../../domain/oauth';
import type { Permission } from '../../../domain/auth/principal';
import { envelope, errorResponses } from '../../schemas';
import { principalOf } from '../../types';

const TAGS = ['OAuth'];
const clientSchema = {
  type: 'object',
  properties: {
    client_id: { type: 'string' },
    client_secret: { type: ['string', 'null'], description: 'Shown only in the response to the registration' },
    name: { type: 'string' },
    client_type: { type: 'string', enum: ['confidential', 'public'] },
    token_endpoint_auth_method: { type: 'string', enum: ['client_secret_basic', 'none'] },
    redirect_uris: { type: 'array', items: { type: 'string' } },
    scopes: { type: 'array', items: { type: 'string', enum: ['read', 'write', 'delete'] } },
    environment: { type: 'string', enum: ['sandbox', 'production'] },
    created_at: { type: 'string', format: 'date-time' },
  },
};
const createBody = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'client_type', 'redirect_uris', 'scopes'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 100 },
    client_type: { type: 'string', enum: ['confidential', 'public'] },
    redirect_uris: { type: 'array', minItems: 1, maxItems: 10, items: { type: 'string', minLength: 1, maxLength: 2000 } },
    scopes: { type: 'array', minItems: 1, maxItems: 3, items: { type: 'string', enum: ['read', 'write', 'delete'] } },
  },
};
const idParams = { type: 'object', required: ['id'], properties: { id: { type: 'string', maxLength: 64 } } };

function present(c: OAuthClient, secret?: string | null) {
  return {
    client_id: c.id,
    ...(secret !== undefined ? { client_secret: secret } : {}),
    name: c.name,
    client_type: c.clientType,
    token_endpoint_auth_method: c.clientType === 'confidential' ? 'client_secret_basic' : 'none',
    redirect_uris: c.redirectUris,
    scopes: c.scopes,
    environment: c.environment,
    created_at: c.createdAt.toISOString(),
  };
}

export default async function oauthClientRoutes(app: FastifyInstance) {
  app.post<{ Body: { name: string; client_type: ClientType; redirect_uris: string[]; scopes: Permission[] } }>(
    '/api/v2/oauth/clients',
    {
      schema: {
        tags: TAGS,
        summary: 'Register an OAuth client (a third-party app); a confidential client\'s secret is shown once',
        description:
          'The client works in the caller\'s environment and may be granted at most the scopes given here (each among the caller\'s permissions). ' +
          'Redirect URIs match exactly: https, or http only to a loopback address (422 INVALID_REDIRECT_URI). Public clients have no secret. ' +
          'Every client must use PKCE (S256). An OAuth token cannot manage clients (403 OAUTH_TOKEN_NOT_ALLOWED). See docs/oauth.md.',
        body: createBody,
        response: { 201: envelope(clientSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const { client, secret } = await registerClient(principalOf(request), { name: b.name, clientType: b.client_type, redirectUris: b.redirect_uris, scopes: b.scopes });
      return reply.code(201).send({ data: present(client, secret) });
    },
  );

  app.get(
    '/api/v2/oauth/clients',
    { schema: { tags: TAGS, summary: "The caller's OAuth clients (of the caller's environment)", response: { 200: envelope({ type: 'array', items: clientSchema }), ...errorResponses } } },
    async (request) => ({ data: (await listClients(principalOf(request))).map((c) => present(c)) }),
  );

  app.get<{ Params: { id: string } }>(
    '/api/v2/oauth/clients/:id',
    { schema: { tags: TAGS, summary: 'One OAuth client of the caller', params: idParams, response: { 200: envelope(clientSchema), ...errorResponses } } },
    async (request) => {
      const c = await findOwnClient(principalOf(request), request.params.id);
      return { data: present(c) };
    },
  );

  app.delete<{ Params: { id: string } }>(
    '/api/v2/oauth/clients/:id',
    { schema: { tags: TAGS, summary: 'Delete an OAuth client and revoke every token it holds', params: idParams, response: { 200: envelope(clientSchema), ...errorResponses } } },
    async (request) => {
      const c = await deleteClient(principalOf(request), request.params.id);
      return { data: present(c) };
    },
  );
}
