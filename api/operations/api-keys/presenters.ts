/** Wire shapes of the API keys area. */
import { apiKeyStatus, type ApiKeyRecord } from '../../../domain/auth/api-keys';

/** An API key as shown: never its value, except `key` once at creation or rotation. */
export function presentApiKey(k: ApiKeyRecord, value?: string) {
  const status = apiKeyStatus(k);
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
    agent: k.agent,
    status,
    created_at: k.createdAt.toISOString(),
    ...(value ? { key: value } : {}),
  };
}
