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
  /** 'oauth': an OAuth access token (domain/oauth): permissions are its scopes; never a login session. */
  kind: 'api_key' | 'session' | 'oauth';
  rateLimitPerMinute: number | null;
  /**
   * True only for a login session started with a passkey (domain/mobile/passkeys.ts): the
   * authenticator verified its user (biometric or device PIN). False (or absent, for principals
   * built before passkeys existed) for API keys and password sessions.
   */
  biometric?: boolean;
  /** The partner whose API key this is (domain/partner): its modules bound what the key may call. */
  partnerId?: string | null;
  /** Requests allowed within 10 seconds on top of the per-minute rate (partner keys). */
  burstLimit?: number | null;
  /** An API key tagged as an agent: its HTTP-native payments are held to an agent budget (domain/x402/limits.ts). */
  agent?: boolean;
  /** The partner tenant the user belongs to (domain/partner/tenants): money stays inside it. */
  tenantId?: string | null;
}
