import type { Principal } from '../../domain/auth/principal';
import type { Environment } from '../../domain/platform/environment';
import { principalOf } from '../types';

/** Who a domain operation acts for: the authenticated principal's user and environment. */
export function caller(request: { principal?: Principal }): { userId: string; environment: Environment } {
  const pr = principalOf(request);
  return { userId: pr.userId, environment: pr.environment };
}

/**
 * The environment a public read is for (routes with config { public: true, optionalAuth: true }):
 * the credential's when one was sent, production otherwise.
 */
export function readerEnvironment(request: { principal?: Principal }): Environment {
  return request.principal?.environment ?? 'production';
}

/** This server's address as the caller reached it (links and facilitator URLs in responses). */
export const baseUrlOf = (request: { protocol: string; host: string }) => `${request.protocol}://${request.host}`;
