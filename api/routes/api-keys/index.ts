import type { FastifyInstance } from 'fastify';
import { findApiKey, keyScopeOf, listApiKeys, revokeApiKey, rotateApiKey } from '../../../domain/auth/api-keys';
import { pageParams, paginate } from '../../pagination';
import { envelope, errorResponses, paginatedEnvelope } from '../../schemas';
import { principalOf } from '../../types';
import { presentApiKey } from '../../operations/api-keys/presenters';
import { createBody, idParams, keySchema, pageQuery, rotateBody, TAGS, type CreateBody } from '../../operations/api-keys/schemas';
import { issueApiKeyFromBody } from '../../operations/api-keys/operations';

export default async function apiKeyRoutes(app: FastifyInstance) {
  app.post<{ Body: CreateBody }>(
    '/api/v2/api-keys',
    {
      schema: {
        tags: TAGS,
        summary: 'Create an API key (the value is shown once)',
        description:
          'format "sk" (default) gives sk_sandbox_ or sk_live_ by environment; "fak" gives a generic fak_ key bound to the chosen environment. ' +
          'An API key manages (lists, reads, creates, rotates, revokes) only keys of its own environment and grants at most its own permissions; ' +
          'a login session (the account owner) manages the keys of both environments. Active keys per user are capped (API_KEYS_MAX_PER_USER): 422 API_KEY_LIMIT_REACHED.',
        body: createBody,
        response: { 201: envelope(keySchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const { record, value } = await issueApiKeyFromBody(principalOf(request), request.body);
      return reply.code(201).send({ data: presentApiKey(record, value) });
    },
  );

  app.get<{ Querystring: { page?: number; per_page?: number } }>(
    '/api/v2/api-keys',
    {
      schema: {
        tags: TAGS,
        summary: "List the caller's API keys (values are never shown again)",
        querystring: pageQuery,
        response: { 200: paginatedEnvelope(keySchema), ...errorResponses },
      },
    },
    async (request) => {
      const keys = await listApiKeys(keyScopeOf(principalOf(request)));
      const pp = pageParams(request.query);
      return paginate(request, keys.slice(pp.offset, pp.offset + pp.perPage).map((k) => presentApiKey(k)), keys.length, pp);
    },
  );

  app.get<{ Params: { id: string } }>(
    '/api/v2/api-keys/:id',
    { schema: { tags: TAGS, summary: 'One API key', params: idParams, response: { 200: envelope(keySchema), ...errorResponses } } },
    async (request) => {
      const key = await findApiKey(keyScopeOf(principalOf(request)), request.params.id);
      return { data: presentApiKey(key) };
    },
  );

  app.delete<{ Params: { id: string } }>(
    '/api/v2/api-keys/:id',
    { schema: { tags: TAGS, summary: 'Revoke an API key (takes effect at once)', params: idParams, response: { 200: envelope(keySchema), ...errorResponses } } },
    async (request) => {
      const key = await revokeApiKey(keyScopeOf(principalOf(request)), request.params.id);
      return { data: presentApiKey(key) };
    },
  );

  app.post<{ Params: { id: string }; Body: { grace_period_seconds?: number } }>(
    '/api/v2/api-keys/:id/rotate',
    {
      schema: {
        tags: TAGS,
        summary: 'Rotate an API key: a new value with the same settings; the old one expires after the grace period',
        params: idParams,
        body: rotateBody,
        response: { 201: envelope({ type: 'object', properties: { key: keySchema, previous: keySchema } }), ...errorResponses },
      },
    },
    async (request, reply) => {
      const rotated = await rotateApiKey(keyScopeOf(principalOf(request)), request.params.id, request.body?.grace_period_seconds ?? 0);
      return reply.code(201).send({ data: { key: presentApiKey(rotated.record, rotated.value), previous: presentApiKey(rotated.previous) } });
    },
  );
}
