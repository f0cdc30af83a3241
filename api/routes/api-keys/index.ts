import type { FastifyInstance } from 'fastify';
import {
  findApiKey,
  issueApiKey,
  keyScopeOf,
  listApiKeys,
  revokeApiKey,
  rotateApiKey,
  type ApiKeyRecord,
  type KeyFormat,
} from '../../../domain/auth/api-keys';
import { PERMISSIONS, type Permission } from '../../../domain/auth/principal';
import { ENVIRONMENTS, type Environment } from '../../../domain/platform/environment';
import { notFound } from '../../errors';
import { pageParams, paginate } from '../../pagination';
import { envelope, errorResponses, paginatedEnvelope, paginationQuery } from '../../schemas';
import { principalOf } from '../../types';

const keySchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    prefix: { type: 'string' },
    environment: { type: 'string' },
    permissions: { type: 'array', items: { type: 'string' } },
    ip_allowlist: { type: 'array', items: { type: 'string' } },
    expires_at: { type: ['string', 'null'] },
    revoked_at: { type: ['string', 'null'] },
    last_used_at: { type: ['string', 'null'] },
    rotated_from: { type: ['string', 'null'] },
    status: { type: 'string', enum: ['active', 'expired', 'revoked'] },
    created_at: { type: 'string' },
    key: { type: 'string', description: 'The key value; returned once, at creation or rotation' },
  },
};

function present(k: ApiKeyRecord, value?: string) {
  const now = Date.now();
  const status = k.revokedAt ? 'revoked' : k.expiresAt && k.expiresAt.getTime() <= now ? 'expired' : 'active';
  return {
    id: k.id,
    name: k.name,
    prefix: k.keyPrefix,
    environment: k.environment,
    permissions: k.permissions,
    ip_allowlist: k.ipAllowlist,
    expires_at: k.expiresAt?.toISOString() ?? null,
    revoked_at: k.revokedAt?.toISOString() ?? null,
    last_used_at: k.lastUsedAt?.toISOString() ?? null,
    rotated_from: k.rotatedFromId,
    status,
    created_at: k.createdAt.toISOString(),
    ...(value ? { key: value } : {}),
  };
}

interface CreateBody {
  name: string;
  environment?: Environment;
  permissions?: Permission[];
  ip_allowlist?: string[];
  expires_at?: string;
  format?: KeyFormat;
}

export default async function apiKeyRoutes(app: FastifyInstance) {
  app.post<{ Body: CreateBody }>(
    '/api/v2/api-keys',
    {
      schema: {
        tags: ['API keys'],
        summary: 'Create an API key (the value is shown once)',
        description:
          'format "sk" (default) gives sk_sandbox_ or sk_live_ by environment; "fak" gives a generic fak_ key bound to the chosen environment. ' +
          'An API key manages (lists, reads, creates, rotates, revokes) only keys of its own environment and grants at most its own permissions; ' +
          'a login session (the account owner) manages the keys of both environments. Active keys per user are capped (API_KEYS_MAX_PER_USER): 422 API_KEY_LIMIT_REACHED.',
        body: {
          type: 'object',
          required: ['name'],
          additionalProperties: false,
          properties: {
            name: { type: 'string', minLength: 1, maxLength: 100 },
            environment: { type: 'string', enum: [...ENVIRONMENTS] },
            permissions: { type: 'array', items: { type: 'string', enum: [...PERMISSIONS] }, minItems: 1, uniqueItems: true },
            ip_allowlist: { type: 'array', items: { type: 'string', maxLength: 64 }, maxItems: 50 },
            expires_at: { type: 'string', format: 'date-time' },
            format: { type: 'string', enum: ['sk', 'fak'], default: 'sk' },
          },
        },
        response: { 201: envelope(keySchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const p = principalOf(request);
      const b = request.body;
      const { record, value } = await issueApiKey(keyScopeOf(p), p.environment, {
        name: b.name,
        environment: b.environment,
        permissions: b.permissions,
        ipAllowlist: b.ip_allowlist,
        expiresAt: b.expires_at ? new Date(b.expires_at) : null,
        format: b.format,
      });
      return reply.code(201).send({ data: present(record, value) });
    },
  );

  app.get<{ Querystring: { page?: number; per_page?: number } }>(
    '/api/v2/api-keys',
    {
      schema: {
        tags: ['API keys'],
        summary: "List the caller's API keys (values are never shown again)",
        querystring: { type: 'object', properties: paginationQuery, additionalProperties: false },
        response: { 200: paginatedEnvelope(keySchema), ...errorResponses },
      },
    },
    async (request) => {
      const keys = await listApiKeys(keyScopeOf(principalOf(request)));
      const pp = pageParams(request.query);
      return paginate(request, keys.slice(pp.offset, pp.offset + pp.perPage).map((k) => present(k)), keys.length, pp);
    },
  );

  const idParams = { type: 'object', required: ['id'], properties: { id: { type: 'string', maxLength: 64 } } };

  app.get<{ Params: { id: string } }>(
    '/api/v2/api-keys/:id',
    { schema: { tags: ['API keys'], summary: 'One API key', params: idParams, response: { 200: envelope(keySchema), ...errorResponses } } },
    async (request) => {
      const key = await findApiKey(keyScopeOf(principalOf(request)), request.params.id);
      if (!key) throw notFound('API key');
      return { data: present(key) };
    },
  );

  app.delete<{ Params: { id: string } }>(
    '/api/v2/api-keys/:id',
    { schema: { tags: ['API keys'], summary: 'Revoke an API key (takes effect at once)', params: idParams, response: { 200: envelope(keySchema), ...errorResponses } } },
    async (request) => {
      const key = await revokeApiKey(keyScopeOf(principalOf(request)), request.params.id);
      if (!key) throw notFound('API key');
      return { data: present(key) };
    },
  );

  app.post<{ Params: { id: string }; Body: { grace_period_seconds?: number } }>(
    '/api/v2/api-keys/:id/rotate',
    {
      schema: {
        tags: ['API keys'],
        summary: 'Rotate an API key: a new value with the same settings; the old one expires after the grace period',
        params: idParams,
        body: {
          type: ['object', 'null'],
          additionalProperties: false,
          properties: { grace_period_seconds: { type: 'integer', minimum: 0, maximum: 7 * 24 * 3600, default: 0 } },
        },
        response: { 201: envelope({ type: 'object', properties: { key: keySchema, previous: keySchema } }), ...errorResponses },
      },
    },
    async (request, reply) => {
      const rotated = await rotateApiKey(keyScopeOf(principalOf(request)), request.params.id, request.body?.grace_period_seconds ?? 0);
      if (!rotated) throw notFound('API key');
      return reply.code(201).send({ data: { key: present(rotated.record, rotated.value), previous: present(rotated.previous) } });
    },
  );
}
