import type { Principal, Permission } from '../domain/auth/principal';
import type { TransferService } from '../domain/transfers';
import type { RateLimiter } from '../domain/platform/rate-limiter';
import type { Partner } from '../domain/partner/partners';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** No credentials needed (health, docs, register, login). */
    public?: boolean;
    /**
     * With public: credentials are not needed, but when an Authorization header is sent it is
     * checked as usual and request.principal set (e.g. GET /gcu/composition reads the key's
     * environment; without credentials, production).
     */
    optionalAuth?: boolean;
    /**
     * With optionalAuth: the route also takes another Authorization scheme (POST /api/v1/sms/send
     * takes `Payment`), so only a `Bearer` credential is checked; when one is sent, the caller's
     * permissions and area rules (partner modules, tenant features) apply as on any other route.
     */
    otherAuthSchemes?: boolean;
    /** Operator-only route: the caller's user must be a platform admin. */
    admin?: boolean;
    /** Overrides the permission implied by the HTTP method. */
    permission?: Permission;
    /** Skips the Idempotency-Key handling (e.g. login, where replays make no sense). */
    idempotency?: false;
    /** A partner row: besides the bearer key, X-Partner-Key of the same partner (domain/partner/context.ts). */
    partnerKey?: boolean;
    /** The GraphQL endpoint: its own rate limits (api/plugins/rate-limit.ts graphqlRateLimit). */
    graphql?: boolean;
    /**
     * The endpoint carries operations that each ask the gate (domain/auth/gate.ts) for what they
     * need (GraphQL fields, MCP tools): a maintenance window does not hold the request as a whole,
     * only the operations that write.
     */
    gatedPerOperation?: boolean;
  }
  interface FastifyInstance {
    /** The process's transfer service (built once in buildApp). */
    transfers: TransferService;
    /** The process's rate limiter (GraphQL subscriptions count against it too). */
    rateLimiter: RateLimiter;
  }
  interface FastifyRequest {
    principal?: Principal;
    idempotencyKey?: string;
    authFailure?: Error;
    /** The partner of a partner row (config.partnerKey), checked with its X-Partner-Key. */
    partner?: Partner;
  }
}

/** The authenticated caller; routes that are not public can rely on it. */
export function principalOf(request: { principal?: Principal }): Principal {
  if (!request.principal) throw new Error('route reached without authentication');
  return request.principal;
}

/** The partner of a partner row; routes with config.partnerKey can rely on it. */
export function partnerOf(request: { partner?: Partner }): Partner {
  if (!request.partner) throw new Error('partner row reached without a partner key');
  return request.partner;
}
