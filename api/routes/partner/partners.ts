/**
 * Partner onboarding (operators) and the partner rows (bearer key + X-Partner-Key): the partner's
 * own view, tenants and their customers, white-label configuration. docs/partner.md.
 */
import type { FastifyInstance } from 'fastify';
import { getPartner, onboardingChecklist, onboardPartner, partnerUrls, TIERS, type OnboardRequest, type Partner } from '../../../domain/partner/partners';
import { MODULES } from '../../../domain/partner/modules';
import { requestSdkGeneration } from '../../../domain/partner/sdk';
import { baseUrlOf } from '../../operations/caller';
import { createTenant, createTenantUser, listTenants, listTenantUsers, PLANS, type Tenant } from '../../../domain/partner/tenants';
import { getWhitelabel, publishWhitelabel, type WhitelabelConfig } from '../../../domain/partner/whitelabel';
import { paginate, pageParams } from '../../pagination';
import { envelope, errorResponses, paginatedEnvelope, paginationQuery, timestamp } from '../../schemas';
import { partnerOf, principalOf } from '../../types';
import { partnerKeyHeader } from '../../operations/partner/schemas';

const TAGS = ['Partner'];
const obj = { type: 'object', additionalProperties: true };

async function presentPartner(p: Partner) {
  const c = await onboardingChecklist(p);
  return {
    partner_id: p.id,
    organization_name: p.organizationName,
    status: p.status,
    tier: p.tier,
    modules_enabled: p.modules,
    rate_limits: { requests_per_minute: p.requestsPerMinute, burst_limit: p.burstLimit },
    ip_whitelist: p.ipWhitelist,
    ...partnerUrls(),
    created_at: p.createdAt.toISOString(),
    onboarding_checklist: { api_key_generated: c.apiKeyGenerated, webhook_configured: c.webhookConfigured, sdk_generated: c.sdkGenerated, sandbox_tested: c.sandboxTested, compliance_review: c.complianceReview },
  };
}

const presentTenant = (t: Tenant) => ({ tenant_id: t.id, name: t.name, plan: t.plan, limits: { max_users: PLANS[t.plan].maxUsers, max_accounts: PLANS[t.plan].maxAccounts }, domain: t.domain, status: t.status, created_at: t.createdAt.toISOString() });
const presentWhitelabel = (c: WhitelabelConfig, versions?: number[]) => ({
  version: c.version,
  logo_url: c.logoUrl,
  primary_color: c.primaryColor,
  features: c.features,
  published_at: c.publishedAt.toISOString(),
  ...(versions ? { versions } : {}),
});

export default async function partnerAccountRoutes(app: FastifyInstance) {
  app.post<{ Body: OnboardRequest }>(
    '/api/v1/partner/onboard',
    {
      config: { admin: true },
      schema: {
        tags: ['Operations'],
        operationId: 'onboardPartner',
        summary: 'Onboard a partner (platform operators only): keys, partner key and webhook, shown once',
        description:
          'api_key (production), sandbox_key, the partner key (fpk_…) and webhook_secret are in this answer only; the platform keeps hashes (the webhook ' +
          "secret as the webhook area keeps it). ip_whitelist (CIDR blocks) and rate_limit_override (requests per minute; burst_limit is a third of it " +
          "per 10 seconds) bind every request made with the partner's keys; modules restrict the API areas they reach (403 MODULE_NOT_ENABLED). " +
          'sdk_languages start SDK generation; webhook_url registers a sandbox webhook for every event.',
        body: {
          type: 'object',
          required: ['organization_name', 'contact_email', 'tier', 'modules'],
          additionalProperties: false,
          properties: {
            organization_name: { type: 'string', minLength: 1, maxLength: 200 },
            contact_email: { type: 'string', format: 'email', maxLength: 320 },
            tier: { type: 'string', enum: [...TIERS] },
            modules: { type: 'array', minItems: 1, maxItems: MODULES.length, items: { type: 'string', maxLength: 40 } },
            sdk_languages: { type: 'array', maxItems: 5, items: { type: 'string', maxLength: 20 } },
            webhook_url: { type: 'string', minLength: 1, maxLength: 2048 },
            ip_whitelist: { type: 'array', maxItems: 50, items: { type: 'string', maxLength: 64 } },
            rate_limit_override: { type: 'integer', minimum: 1, maximum: 100000 },
            metadata: { type: 'object' },
          },
        },
        response: { 201: envelope(obj), ...errorResponses },
      },
    },
    async (request, reply) => {
      const r = await onboardPartner(principalOf(request), request.body);
      // sdk_languages start a generation for the partner's modules; packages cached before are listed at once.
      const sdk = r.partner.sdkLanguages.length
        ? await requestSdkGeneration({
            userId: r.partner.userId,
            environment: 'sandbox',
            partnerId: r.partner.id,
            // Branded with the organisation's name (and the platform's colour until a white-label is published).
            body: { languages: r.partner.sdkLanguages, api_version: 'v2', include_modules: r.partner.modules, branding: { name: r.partner.organizationName, color: '#1f6feb' } },
            baseUrl: baseUrlOf(request),
          })
        : null;
      return reply.code(201).send({
        data: {
          ...(await presentPartner(r.partner)),
          api_credentials: { api_key: r.credentials.apiKey, sandbox_key: r.credentials.sandboxKey, webhook_secret: r.credentials.webhookSecret },
          partner_key: r.credentials.partnerKey,
          sdk_packages: (sdk?.packages ?? []).map((x) => ({ language: x.language, version: x.version, package_name: x.package_name, download_url: x.download_url, docs_url: `${baseUrlOf(request)}/api/documentation`, install_command: x.install_command, sha256: x.sha256 })),
          sdk_generation: sdk ? { generation_id: sdk.generation_id, status: sdk.status } : null,
        },
      });
    },
  );

  app.get(
    '/api/v2/partner',
    { config: { partnerKey: true }, schema: { tags: TAGS, operationId: 'getPartner', summary: "The partner's profile, limits and onboarding checklist", headers: partnerKeyHeader, response: { 200: envelope(obj), ...errorResponses } } },
    async (request) => ({ data: await presentPartner((await getPartner(partnerOf(request).id))!) }),
  );

  app.post<{ Body: { name: string; plan: string; domain: string } }>(
    '/api/v2/partner/tenants',
    {
      config: { partnerKey: true },
      schema: {
        tags: TAGS,
        operationId: 'createTenant',
        summary: 'Create a tenant: an isolated customer space of the partner',
        description: `plan: ${Object.entries(PLANS).map(([k, v]) => `${k} (${v.maxUsers} customers, ${v.maxAccounts} accounts)`).join(', ')}. domain: a host name, unique on the platform.`,
        headers: partnerKeyHeader,
        body: {
          type: 'object',
          required: ['name', 'plan', 'domain'],
          additionalProperties: false,
          properties: { name: { type: 'string', minLength: 1, maxLength: 200 }, plan: { type: 'string', maxLength: 20 }, domain: { type: 'string', minLength: 1, maxLength: 253 } },
        },
        response: { 201: envelope(obj), ...errorResponses },
      },
    },
    async (request, reply) => reply.code(201).send({ data: presentTenant(await createTenant(partnerOf(request), request.body)) }),
  );

  app.get<{ Querystring: { page?: number; per_page?: number } }>(
    '/api/v2/partner/tenants',
    {
      config: { partnerKey: true },
      schema: { tags: TAGS, operationId: 'listTenants', summary: "The partner's tenants, newest first", headers: partnerKeyHeader, querystring: { type: 'object', additionalProperties: false, properties: { ...paginationQuery } }, response: { 200: paginatedEnvelope(obj), ...errorResponses } },
    },
    async (request) => {
      const pp = pageParams(request.query);
      const { items, total } = await listTenants(partnerOf(request), { limit: pp.perPage, offset: pp.offset });
      return paginate(request, items.map(presentTenant), total, pp);
    },
  );

  app.post<{ Params: { id: string }; Body: { name: string; email: string } }>(
    '/api/v2/partner/tenants/:id/users',
    {
      config: { partnerKey: true },
      schema: {
        tags: TAGS,
        operationId: 'createTenantUser',
        summary: 'Create a customer in one of the tenants, with an API key (shown once) of the calling key\'s environment',
        description: "The customer's accounts and money stay inside the tenant: transfers and P2P reach only the tenant's accounts and customers.",
        headers: partnerKeyHeader,
        params: { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1, maxLength: 100 } } },
        body: { type: 'object', required: ['name', 'email'], additionalProperties: false, properties: { name: { type: 'string', minLength: 1, maxLength: 200 }, email: { type: 'string', format: 'email', maxLength: 320 } } },
        response: { 201: envelope({ type: 'object', properties: { user_id: { type: 'string' }, tenant_id: { type: 'string' }, email: { type: 'string' }, api_key: { type: 'string' } } }), ...errorResponses },
      },
    },
    async (request, reply) => {
      const u = await createTenantUser(partnerOf(request), request.params.id, principalOf(request).environment, request.body);
      return reply.code(201).send({ data: { user_id: u.userId, tenant_id: u.tenantId, email: u.email, api_key: u.apiKey } });
    },
  );

  app.get<{ Params: { id: string }; Querystring: { page?: number; per_page?: number } }>(
    '/api/v2/partner/tenants/:id/users',
    {
      config: { partnerKey: true },
      schema: {
        tags: TAGS,
        operationId: 'listTenantUsers',
        summary: "A tenant's customers, newest first, with their number of accounts",
        headers: partnerKeyHeader,
        params: { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1, maxLength: 100 } } },
        querystring: { type: 'object', additionalProperties: false, properties: { ...paginationQuery } },
        response: { 200: paginatedEnvelope(obj), ...errorResponses },
      },
    },
    async (request) => {
      const pp = pageParams(request.query);
      const { items, total } = await listTenantUsers(partnerOf(request), request.params.id, { limit: pp.perPage, offset: pp.offset });
      return paginate(request, items.map((u) => ({ user_id: u.userId, name: u.name, email: u.email, accounts: u.accounts, created_at: u.createdAt.toISOString() })), total, pp);
    },
  );

  app.put<{ Body: { logo_url: string; primary_color: string; features?: Record<string, boolean> } }>(
    '/api/v2/partner/config/whitelabel',
    {
      config: { partnerKey: true },
      schema: {
        tags: TAGS,
        operationId: 'publishWhitelabel',
        summary: 'Publish a white-label configuration (a new version; widget.deployed)',
        description: "logo_url: https. primary_color: #RRGGBB. features: booleans; false switches the area off for the partner's tenants (403 FEATURE_DISABLED).",
        headers: partnerKeyHeader,
        body: {
          type: 'object',
          required: ['logo_url', 'primary_color'],
          additionalProperties: false,
          properties: { logo_url: { type: 'string', minLength: 1, maxLength: 2048 }, primary_color: { type: 'string', maxLength: 7 }, features: { type: 'object', additionalProperties: { type: 'boolean' } } },
        },
        response: { 200: envelope({ type: 'object', properties: { version: { type: 'integer' }, primary_color: { type: 'string' }, published_at: timestamp }, additionalProperties: true }), ...errorResponses },
      },
    },
    async (request) => ({ data: presentWhitelabel(await publishWhitelabel(partnerOf(request), principalOf(request).userId, request.body)) }),
  );

  app.get(
    '/api/v2/partner/config/whitelabel',
    { config: { partnerKey: true }, schema: { tags: TAGS, operationId: 'getWhitelabel', summary: 'The published white-label configuration and its versions', headers: partnerKeyHeader, response: { 200: envelope(obj), ...errorResponses } } },
    async (request) => {
      const w = await getWhitelabel(partnerOf(request));
      return { data: presentWhitelabel(w.current, w.versions) };
    },
  );
}
