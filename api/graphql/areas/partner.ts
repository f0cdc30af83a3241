/**
 * The partner rows over GraphQL: tenants and their customers, SDK generations (start and status,
 * with the signed download links) and the white-label configuration. As on REST these need the
 * partner's bearer key and its X-Partner-Key header on the same request (api/plugins/auth.ts);
 * each resolver is one call of the domain function its REST route calls (api/routes/partner).
 */
import type { Partner } from '../../../domain/partner/partners';
import { getSdkGeneration, requestSdkGeneration } from '../../../domain/partner/sdk';
import { createTenant, createTenantUser, listTenants, listTenantUsers, PLANS, type Tenant } from '../../../domain/partner/tenants';
import { getWhitelabel, publishWhitelabel, type WhitelabelConfig } from '../../../domain/partner/whitelabel';
import { partnerOfKey } from '../../plugins/auth';
import { as, type Caller, type GqlContext, type Need } from '../context';
import { PAGE_ARGS, pageOf, paginated, paginatorOf, type PageArgs } from '../pagination';
import type { GraphQLArea } from './types';
import { camelize } from '../rest';

const typeDefs = /* GraphQL */ `
  type TenantLimits {
    maxUsers: Int!
    maxAccounts: Int!
  }

  "An isolated customer space of the partner."
  type Tenant {
    id: ID!
    name: String!
    "basic, standard or premium."
    plan: String!
    limits: TenantLimits!
    domain: String!
    status: String!
    createdAt: DateTime!
  }

  type TenantCustomer {
    userId: ID!
    name: String!
    email: String!
    "Number of accounts."
    accounts: Int!
    createdAt: DateTime!
  }

  "A customer created in a tenant, with its API key (shown once)."
  type TenantUserCreated {
    userId: ID!
    tenantId: ID!
    email: String!
    apiKey: String!
  }

  type SdkBranding {
    name: String!
    color: String!
  }

  type SdkPackage {
    packageId: ID!
    "typescript or python."
    language: String!
    version: String!
    packageName: String!
    filename: String!
    "A signed, expiring link to the package file (GET, no credentials); a fresh one on every read."
    downloadUrl: String!
    expiresAt: DateTime!
    installCommand: String!
    sha256: String!
    size: Int!
    cached: Boolean!
  }

  type SdkOptions {
    includeTypes: Boolean!
    includeExamples: Boolean!
    includeTests: Boolean!
  }

  type SdkError {
    code: String!
    message: String!
  }

  "A generation of client SDKs from the platform's OpenAPI document (a workflow; cached by content)."
  type SdkGeneration {
    generationId: ID!
    "pending, completed or failed."
    status: String!
    apiVersion: String!
    languages: [String!]!
    modules: [String!]!
    packageName: String!
    branding: SdkBranding
    options: SdkOptions!
    packages: [SdkPackage!]!
    error: SdkError
    createdAt: DateTime!
    completedAt: DateTime
  }

  type WhitelabelConfig {
    version: Int!
    logoUrl: String!
    primaryColor: String!
    "Per area: false switches it off for the partner's tenants."
    features: JSON!
    publishedAt: DateTime!
    "Every published version, newest first (whitelabelConfig only)."
    versions: [Int!]
  }

  ${paginatorOf('Tenant')}
  ${paginatorOf('TenantCustomer')}

  input SdkBrandingInput {
    name: String!
    "Hex colour, e.g. #0a84ff."
    color: String!
  }

  input SdkOptionsInput {
    includeTypes: Boolean
    includeExamples: Boolean
    includeTests: Boolean
  }

  input SdkGenerationInput {
    "typescript, python."
    languages: [String!]!
    apiVersion: String = "v2"
    "Default all modules."
    includeModules: [String!]
    branding: SdkBrandingInput
    "npm and PyPI name (lower-case letters, digits, hyphens)."
    packageName: String
    options: SdkOptionsInput
  }

  extend type Query {
    "The partner's tenants, newest first (bearer key and X-Partner-Key)."
    tenants(${PAGE_ARGS}): TenantPaginator!
    "A tenant's customers, newest first."
    tenantUsers(tenantId: ID!, ${PAGE_ARGS}): TenantCustomerPaginator!
    "An SDK generation of the partner, with fresh download links once completed."
    sdkGeneration(id: ID!): SdkGeneration!
    "The published white-label configuration and its versions."
    whitelabelConfig: WhitelabelConfig!
  }

  extend type Mutation {
    createTenant(name: String!, plan: String!, domain: String!): Tenant!
    "A customer in one of the partner's tenants, with an API key of the calling key's environment."
    createTenantUser(tenantId: ID!, name: String!, email: String!): TenantUserCreated!
    "Starts a generation and answers at once (status pending, or completed from cache); poll sdkGeneration."
    generateSdk(input: SdkGenerationInput!): SdkGeneration!
    "Publish a new white-label version (widget.deployed)."
    publishWhitelabel(logoUrl: String!, primaryColor: String!, features: JSON): WhitelabelConfig!
  }
`;

const TAG = 'Partner';

/**
 * The caller and its partner, as REST's config.partnerKey: the X-Partner-Key header of this HTTP
 * request must be the bearer key's partner's (a missing or unknown key is 401 PARTNER_KEY_INVALID).
 */
async function asPartner(ctx: GqlContext, need: Need = {}): Promise<{ c: Caller; partner: Partner; baseUrl?: string }> {
  const c = await as(ctx, { ...need, tag: TAG });
  return { c, partner: await partnerOfKey(c.principal, ctx.partnerKey), baseUrl: ctx.baseUrl };
}

type SdkInput = {
  languages: string[];
  apiVersion?: string | null;
  includeModules?: string[] | null;
  branding?: { name: string; color: string } | null;
  packageName?: string | null;
  options?: { includeTypes?: boolean | null; includeExamples?: boolean | null; includeTests?: boolean | null } | null;
};

/** The REST body (its second form) of an SDK generation input; absent fields stay absent. */
function sdkBody(i: SdkInput): Record<string, unknown> {
  const o = i.options;
  const options = o ? Object.fromEntries(Object.entries({ include_types: o.includeTypes, include_examples: o.includeExamples, include_tests: o.includeTests }).filter(([, v]) => v != null)) : undefined;
  return Object.fromEntries(
    Object.entries({ languages: i.languages, api_version: i.apiVersion ?? 'v2', include_modules: i.includeModules, branding: i.branding, package_name: i.packageName, options }).filter(([, v]) => v != null),
  );
}

export function partnerArea(): GraphQLArea {
  return {
    typeDefs,
    resolvers: {
      Query: {
        tenants: async (_: unknown, args: PageArgs, ctx: GqlContext) => {
          const { partner } = await asPartner(ctx);
          const p = pageOf(args);
          const { items, total } = await listTenants(partner, { limit: p.perPage, offset: p.offset });
          return paginated(items, total, p);
        },
        tenantUsers: async (_: unknown, args: PageArgs & { tenantId: string }, ctx: GqlContext) => {
          const { partner } = await asPartner(ctx);
          const p = pageOf(args);
          const { items, total } = await listTenantUsers(partner, args.tenantId, { limit: p.perPage, offset: p.offset });
          return paginated(items, total, p);
        },
        sdkGeneration: async (_: unknown, args: { id: string }, ctx: GqlContext) => {
          const { c, partner, baseUrl } = await asPartner(ctx);
          return camelize(await getSdkGeneration({ id: args.id, userId: c.userId, environment: c.environment, partnerId: partner.id, baseUrl }));
        },
        whitelabelConfig: async (_: unknown, __: unknown, ctx: GqlContext) => {
          const w = await getWhitelabel((await asPartner(ctx)).partner);
          return { ...w.current, versions: w.versions };
        },
      },
      Mutation: {
        createTenant: async (_: unknown, args: { name: string; plan: string; domain: string }, ctx: GqlContext) =>
          createTenant((await asPartner(ctx, { permission: 'write' })).partner, args),
        createTenantUser: async (_: unknown, args: { tenantId: string; name: string; email: string }, ctx: GqlContext) => {
          const { c, partner } = await asPartner(ctx, { permission: 'write' });
          return createTenantUser(partner, args.tenantId, c.environment, { name: args.name, email: args.email });
        },
        generateSdk: async (_: unknown, { input }: { input: SdkInput }, ctx: GqlContext) => {
          const { c, partner, baseUrl } = await asPartner(ctx, { permission: 'write' });
          return camelize(await requestSdkGeneration({ userId: c.userId, environment: c.environment, partnerId: partner.id, body: sdkBody(input), baseUrl }));
        },
        publishWhitelabel: async (_: unknown, args: { logoUrl: string; primaryColor: string; features?: Record<string, unknown> | null }, ctx: GqlContext) => {
          const { c, partner } = await asPartner(ctx, { permission: 'write' });
          return publishWhitelabel(partner, c.userId, { logo_url: args.logoUrl, primary_color: args.primaryColor, ...(args.features != null ? { features: args.features } : {}) });
        },
      },
      Tenant: {
        limits: (t: Tenant) => PLANS[t.plan],
      },
      WhitelabelConfig: {
        versions: (w: WhitelabelConfig & { versions?: number[] }) => w.versions ?? null,
      },
    },
  };
}
