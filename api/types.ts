import type { Principal, Permission } from '../domain/auth/principal';
import type { TransferService } from '../domain/transfers';

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
    /** Operator-only route: the caller's user must be a platform admin. */
    admin?: boolean;
    /** Overrides the permission implied by the HTTP method. */
    permission?: Permission;
    /** Skips the Idempotency-Key handling (e.g. login, where replays make no sense). */
    idempotency?: false;
  }
  interface FastifyInstance {
    /** The process's transfer service (built once in buildApp). */
    transfers: TransferService;
  }
  interface FastifyRequest {
    principal?: Principal;
    idempotencyKey?: string;
    authFailure?: Error;
  }
}

/** The authenticated caller; routes that are not public can rely on it. */
export function principalOf(request: { principal?: Principal }): Principal {
  if (!request.principal) throw new Error('route reached without authentication');
  return request.principal;
}
