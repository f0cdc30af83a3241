/**
 * The caller's API keys (api/routes/api-keys) and operators' maintenance windows
 * (api/routes/operators/maintenance.ts) over GraphQL. Each resolver is one call of the domain
 * function its REST route calls; a key's value appears only in the result of createApiKey.
 */
import { apiKeyStatus, findApiKey, keyScopeOf, listApiKeys, revokeApiKey, type ApiKeyRecord } from '../../../domain/auth/api-keys';
import { issueApiKeyFromBody } from '../../operations/api-keys/operations';
import { cancelMaintenance, listMaintenance, maintenanceStatus, scheduleMaintenance, type MaintenanceWindow } from '../../../domain/platform/maintenance-windows';
import { as, type GqlContext } from '../context';
import { PAGE_ARGS, paginateList, paginatorOf, type PageArgs } from '../pagination';
import { createBody, type CreateBody } from '../../operations/api-keys/schemas';
import { restBody } from '../rest';
import type { GraphQLArea } from './types';

const typeDefs = /* GraphQL */ `
  "An API key as shown: never its value, except key in the result of createApiKey."
  type ApiKey {
    id: ID!
    name: String!
    "The key's first characters (sk_sandbox_…), to recognise it."
    prefix: String!
    environment: String!
    "read, write, delete."
    permissions: [String!]!
    ipAllowlist: [String!]!
    expiresAt: DateTime
    revokedAt: DateTime
    lastUsedAt: DateTime
    rotatedFrom: ID
    "Tagged as an agent: its HTTP-native payments are held to an agent budget."
    agent: Boolean!
    "active, expired or revoked."
    status: String!
    createdAt: DateTime!
    "The key value: only in the result of createApiKey (shown once)."
    key: String
  }

  "A planned maintenance window of the caller's environment."
  type MaintenanceWindow {
    id: ID!
    environment: String!
    startsAt: DateTime!
    endsAt: DateTime!
    message: String!
    "scheduled, in_progress, ended or cancelled."
    status: String!
    createdAt: DateTime!
    cancelledAt: DateTime
  }

  ${paginatorOf('ApiKey')}
  ${paginatorOf('MaintenanceWindow')}

  enum ApiKeyEnvironment {
    sandbox
    production
  }

  enum ApiKeyPermission {
    read
    write
    delete
  }

  "sk: sk_sandbox_ / sk_live_ by environment; fak: a generic fak_ key."
  enum ApiKeyFormat {
    sk
    fak
  }

  input CreateApiKeyInput {
    name: String!
    "Default: the caller's environment."
    environment: ApiKeyEnvironment
    "Default read and write; at most the caller's own."
    permissions: [ApiKeyPermission!]
    "IP addresses or CIDR ranges."
    ipAllowlist: [String!]
    expiresAt: DateTime
    "Default sk."
    format: ApiKeyFormat
    agent: Boolean
  }

  input ScheduleMaintenanceInput {
    startsAt: DateTime!
    endsAt: DateTime!
    message: String!
  }

  extend type Query {
    "The caller's API keys, newest first (values are never shown again)."
    apiKeys(${PAGE_ARGS}): ApiKeyPaginator!
    apiKey(id: ID!): ApiKey!
    "Operators: maintenance windows not ended yet, soonest first."
    maintenanceWindows(${PAGE_ARGS}): MaintenanceWindowPaginator!
  }

  extend type Mutation {
    "Creates an API key; its value is in key, shown only here."
    createApiKey(input: CreateApiKeyInput!): ApiKey!
    "Revokes an API key (takes effect at once)."
    revokeApiKey(id: ID!): ApiKey!
    "Operators: schedule a maintenance window (writes are refused 503 MAINTENANCE while it is on)."
    scheduleMaintenance(input: ScheduleMaintenanceInput!): MaintenanceWindow!
    "Operators: cancel a maintenance window; one in progress ends now."
    cancelMaintenance(id: ID!): MaintenanceWindow!
  }
`;

const TAG = { keys: 'API keys', operations: 'Operations' };

type CreateKeyArgs = {
  name: string;
  environment?: string | null;
  permissions?: string[] | null;
  ipAllowlist?: string[] | null;
  expiresAt?: Date | null;
  format?: string | null;
  agent?: boolean | null;
};

/** A key with its value (create). */
const withValue = (record: ApiKeyRecord, value: string) => ({ ...record, key: value });

export const operationsArea = (): GraphQLArea => ({
  typeDefs,
  resolvers: {
    Query: {
      apiKeys: async (_: unknown, args: PageArgs, ctx: GqlContext) => paginateList(await listApiKeys(keyScopeOf((await as(ctx, { tag: TAG.keys })).principal)), args),
      apiKey: async (_: unknown, args: { id: string }, ctx: GqlContext) => findApiKey(keyScopeOf((await as(ctx, { tag: TAG.keys })).principal), args.id),
      maintenanceWindows: async (_: unknown, args: PageArgs, ctx: GqlContext) =>
        paginateList(await listMaintenance((await as(ctx, { tag: TAG.operations, admin: true })).environment), args),
    },
    Mutation: {
      createApiKey: async (_: unknown, { input }: { input: CreateKeyArgs }, ctx: GqlContext) => {
        const c = await as(ctx, { permission: 'write', tag: TAG.keys });
        const b = restBody<CreateBody>(createBody, {
          name: input.name,
          environment: input.environment ?? undefined,
          permissions: input.permissions ?? undefined,
          ip_allowlist: input.ipAllowlist ?? undefined,
          expires_at: input.expiresAt?.toISOString(),
          format: input.format ?? undefined,
          agent: input.agent ?? undefined,
        });
        const { record, value } = await issueApiKeyFromBody(c.principal, b);
        return withValue(record, value);
      },
      revokeApiKey: async (_: unknown, args: { id: string }, ctx: GqlContext) =>
        revokeApiKey(keyScopeOf((await as(ctx, { permission: 'delete', tag: TAG.keys })).principal), args.id),
      scheduleMaintenance: async (_: unknown, { input }: { input: { startsAt: Date; endsAt: Date; message: string } }, ctx: GqlContext) => {
        const c = await as(ctx, { permission: 'write', tag: TAG.operations, admin: true });
        return scheduleMaintenance({ environment: c.environment, startsAt: input.startsAt, endsAt: input.endsAt, message: input.message, createdBy: c.userId });
      },
      cancelMaintenance: async (_: unknown, args: { id: string }, ctx: GqlContext) =>
        cancelMaintenance((await as(ctx, { permission: 'delete', tag: TAG.operations, admin: true })).environment, args.id),
    },
    ApiKey: {
      prefix: (k: ApiKeyRecord) => k.keyPrefix,
      rotatedFrom: (k: ApiKeyRecord) => k.rotatedFromId,
      status: (k: ApiKeyRecord) => apiKeyStatus(k),
      key: (k: ApiKeyRecord & { key?: string }) => k.key ?? null,
    },
    MaintenanceWindow: {
      status: (w: MaintenanceWindow) => maintenanceStatus(w),
    },
  },
});
