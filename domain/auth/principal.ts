import type { Environment } from '../platform/environment';

export const PERMISSIONS = ['read', 'write', 'delete'] as const;
export type Permission = (typeof PERMISSIONS)[number];

/** Who is calling: resolved once per request from an API key or a login access token. */
export interface Principal {
  userId: string;
  email: string;
  isAdmin: boolean;
  environment: Environment;
  permissions: Permission[];
  /** api key id or session id: the scope of rate limits and idempotency keys */
  credentialId: string;
  kind: 'api_key' | 'session';
  rateLimitPerMinute: number | null;
}
