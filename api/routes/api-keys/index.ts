import type { FastifyInstance } from 'fastify';
import {
  createApiKey,
  findApiKey,
  listApiKeys,
  parseCidr,
  revokeApiKey,
  rotateApiKey,
  type ApiKeyRecord,
  type KeyFormat,
} from '../../../domain/auth/api-keys';
import { PERMISSIONS, type Permission } from '../../../domain/auth/principal';
import { ENVIRONMENTS, type Environment } from '../../../domain/platform/environment';
import { ApiError, notFound } from '../../errors';
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
          'An API key can only create keys with a subset of its own permissions in its own environment.',
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
      const environment = b.environment ?? p.environment;
      const permissions = b.permissions ?? ['read', 'write'];
      if (p.kind === 'api_key') {
        if (environment !== p.environment) {
          throw new ApiError(403, 'ENVIRONMENT_MISMATCH', `A ${p.environment} key cannot create ${environment} keys`, {
            source: { pointer: '/environment' },
          });
        }
        const extra = permissions.filter((x) => !p.permissions.includes(x));
        if (extra.length) {
          throw new ApiError(403, 'INSUFFICIENT_PERMISSIONS', `Cannot grant permissions this key lacks: ${extra.join(', ')}`, {
            source: { pointer: '/permissions' },
          });
        }
      }
      (b.ip_allowlist ?? []).forEach((entry, i) => {
        if (!parseCidr(entry)) {
          throw new ApiError(422, 'VALIDATION_ERROR', `"${entry}" is not an IP address or CIDR range`, {
            source: { pointer: `/ip_allowlist/${i}` },
          });
        }
      });
      const expiresAt = b.expires_at ? new Date(b.expires_at) : null;
      if (expiresAt && expiresAt.getTime() <= Date.now()) {
        throw new ApiError(422, 'VALIDATION_ERROR', 'expires_at must be in the future', { source: { pointer: '/expires_at' } });
      }
      const { record, value } = await createApiKey({
        userId: p.userId,
        name: b.name,
        environment,
        permissions,
        ipAllowlist: b.ip_allowlist,
        expiresAt,
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
      const keys = await listApiKeys(principalOf(request).userId);
      const pp = pageParams(request.query);
      return paginate(request, keys.slice(pp.offset, pp.offset + pp.perPage).map((k) => present(k)), keys.length, pp);
    },
  );

  const idParams = { type: 'object', required: ['id'], properties: { id: { type: 'string', maxLength: 64 } } };

  app.get<{ Params: { id: string } }>(
    '/api/v2/api-keys/:id',
    { schema: { tags: ['API keys'], summary: 'One API key', params: idParams, response: { 200: envelope(keySchema), ...errorResponses } } },
    async (request) => {
      const key = await findApiKey(principalOf(request).userId, request.params.id);
      if (!key) throw notFound('API key');
      return { data: present(key) };
    },
  );

  app.delete<{ Params: { id: string } }>(
    '/api/v2/api-keys/:id',
    { schema: { tags: ['API keys'], summary: 'Revoke an API key (takes effect at once)', params: idParams, response: { 200: envelope(keySchema), ...errorResponses } } },
    async (request) => {
      const key = await revokeApiKey(principalOf(request).userId, request.params.id);
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
      const p = principalOf(request);
      const rotated = await rotateApiKey(p.userId, request.params.id, request.body?.grace_period_seconds ?? 0);
      if (!rotated) throw notFound('API key');
      return reply.code(201).send({ data: { key: present(rotated.record, rotated.value), previous: present(rotated.previous) } });
    },
  );
}
