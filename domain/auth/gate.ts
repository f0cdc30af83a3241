/**
 * The one authorization gate (issue 43): whether an authenticated principal may make a call, for
 * every transport (REST's auth plugin, GraphQL's `as`, the MCP tools). Each transport says what the
 * call needs; the gate refuses with coded DomainErrors (domain/platform/refusal.ts), which each
 * transport renders its own way. In order:
 *
 * 1. the permission (403 INSUFFICIENT_PERMISSIONS; an OAuth token's permissions are its scopes);
 * 2. operator-only calls (403 ADMIN_REQUIRED);
 * 3. a partner key's modules and a tenant's switched-off features, by the area's tags
 *    (domain/partner/context.ts: MODULE_NOT_ENABLED, FEATURE_DISABLED, PARTNER_SUSPENDED);
 * 4. a write during a maintenance window of the caller's environment (503 MAINTENANCE, with the
 *    seconds until its end); operators' own calls are not held.
 *
 * Authentication (which principal, from which credential) stays with the transports.
 */
import { checkAreaAccess } from '../partner/context';
import { DomainError } from '../platform/errors';
import { activeMaintenance } from '../platform/maintenance-windows';
import type { Permission, Principal } from './principal';

export interface Need {
  permission: Permission;
  /** Operator-only (REST's config.admin). */
  admin?: boolean;
  /** The area's OpenAPI tags (REST's route tags): a partner's modules and a tenant's features. */
  tags?: readonly string[];
  /**
   * The call changes state, so a maintenance window holds it. Default: the permission is not read.
   * REST says it by method (a POST that only reads, like a question to the AI routes, is held too).
   */
  write?: boolean;
}

export async function authorize(p: Principal, need: Need): Promise<void> {
  if (!p.permissions.includes(need.permission)) {
    throw new DomainError(
      'INSUFFICIENT_PERMISSIONS',
      p.kind === 'oauth' ? `This OAuth token lacks the '${need.permission}' scope` : `This API key lacks the '${need.permission}' permission`,
    );
  }
  if (need.admin && !p.isAdmin) throw new DomainError('ADMIN_REQUIRED', 'This operation is reserved for platform operators');
  if (p.partnerId || p.tenantId) await checkAreaAccess(p, need.tags);
  if ((need.write ?? need.permission !== 'read') && !need.admin) await refuseDuringMaintenance(p);
}

async function refuseDuringMaintenance(p: Principal): Promise<void> {
  const w = await activeMaintenance(p.environment);
  if (!w) return;
  const retryAfterSeconds = Math.max(1, Math.ceil((w.endsAt.getTime() - Date.now()) / 1000));
  throw new DomainError('MAINTENANCE', `Planned maintenance until ${w.endsAt.toISOString()}: ${w.message}`, undefined, { retryAfterSeconds });
}
