import { issueApiKey, keyScopeOf } from '../../../domain/auth/api-keys';
import type { Principal } from '../../../domain/auth/principal';
import { type CreateBody } from './schemas';

/** A key request as its REST body reaches the domain (also GraphQL's createApiKey). */
export const issueApiKeyFromBody = (p: Principal, b: CreateBody) =>
  issueApiKey(keyScopeOf(p), p.environment, {
    name: b.name,
    environment: b.environment,
    permissions: b.permissions,
    ipAllowlist: b.ip_allowlist,
    expiresAt: b.expires_at ? new Date(b.expires_at) : null,
    format: b.format,
    agent: b.agent,
  });
