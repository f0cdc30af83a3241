import type { Principal } from '../../domain/auth/principal';
import type { Environment } from '../../domain/platform/environment';
import { principalOf } from '../types';

/** Who a domain operation acts for: the authenticated principal's user and environment. */
export function caller(request: { principal?: Principal }): { userId: string; environment: Environment } {
  const pr = principalOf(request);
  return { userId: pr.userId, environment: pr.environment };
}
