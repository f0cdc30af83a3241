/**
 * What every resolver gets (docs/graphql.md): the caller's principal (null for a guest), its IP,
 * and per-operation loaders. Resolvers reach the domain through `as(ctx, …)`, which applies the
 * same rules as the REST routes: a credential, the permission the operation needs (read for
 * queries and subscriptions, write or delete for mutations, as the HTTP method implies on REST),
 * operator-only fields, and a partner's or tenant's modules (the REST route's tag).
 */
import { responsePathAsArray, type GraphQLResolveInfo } from 'graphql';
import type { Permission, Principal } from '../../domain/auth/principal';
import { checkAreaAccess } from '../../domain/partner/context';
import { activeMaintenance } from '../../domain/platform/maintenance-windows';
import type { Environment } from '../../domain/platform/environment';
import { ApiError } from '../errors';
import { operationRequestKey } from '../plugins/idempotency';
import { createLoaders, type Loaders } from './loaders';

export interface GqlContext {
  principal: Principal | null;
  ip: string;
  loaders: Loaders;
  /** The request's Idempotency-Key (HTTP): mutations hand it to the domain as REST routes do. */
  idempotencyKey?: string;
  /** The credential scope the Idempotency-Key was claimed in (api/plugins/idempotency.ts). */
  idempotencyScope?: string;
  /** The request's X-Partner-Key (partner fields prove the partner with it, as config.partnerKey rows do). */
  partnerKey?: string;
  /** This server as the caller reached it (links in answers). */
  baseUrl?: string;
}

export function newContext(
  principal: Principal | null,
  ip: string,
  extra: Pick<GqlContext, 'idempotencyKey' | 'idempotencyScope' | 'partnerKey' | 'baseUrl'> = {},
): GqlContext {
  return { principal, ip, loaders: createLoaders(principal), ...extra };
}

/**
 * The request key a money mutation records with what it makes (transfers.request_key, as REST's
 * requestKeyOf): the request's Idempotency-Key plus the field's place in the answer (its alias or
 * name, and list indexes), so that each mutation of a document has a key of its own and the same
 * document run again after a takeover finds what each made. Undefined without a claimed key.
 */
export function mutationRequestKey(ctx: GqlContext, info: Pick<GraphQLResolveInfo, 'path'>): string | undefined {
  if (!ctx.idempotencyKey || !ctx.idempotencyScope) return undefined;
  return operationRequestKey(ctx.idempotencyScope, `${ctx.idempotencyKey}\u0000${responsePathAsArray(info.path).join('.')}`);
}

export interface Need {
  /** Default read. */
  permission?: Permission;
  /** The REST route's first tag (its module, for partner and tenant module checks). */
  tag?: string;
  /** Operator-only, as config.admin on REST. */
  admin?: boolean;
}

export interface Caller {
  principal: Principal;
  userId: string;
  environment: Environment;
}

/** The authenticated caller with the rights `need` names; the same refusals (codes) as REST. */
export async function as(ctx: GqlContext, need: Need = {}): Promise<Caller> {
  const p = ctx.principal;
  if (!p) throw new ApiError(401, 'UNAUTHENTICATED', 'Authorization header with a Bearer API key or access token is required');
  const permission = need.permission ?? 'read';
  if (!p.permissions.includes(permission)) {
    throw new ApiError(403, 'INSUFFICIENT_PERMISSIONS', p.kind === 'oauth' ? `This OAuth token lacks the '${permission}' scope` : `This API key lacks the '${permission}' permission`);
  }
  if (need.admin && !p.isAdmin) throw new ApiError(403, 'ADMIN_REQUIRED', 'This operation is reserved for platform operators');
  // Writes wait out a maintenance window as on REST (api/plugins/maintenance.ts); operators' own do not.
  if (permission !== 'read' && !need.admin) {
    const w = await activeMaintenance(p.environment);
    if (w) throw new ApiError(503, 'MAINTENANCE', `Planned maintenance until ${w.endsAt.toISOString()}: ${w.message}`);
  }
  if ((p.partnerId || p.tenantId) && need.tag) await checkAreaAccess(p, [need.tag]);
  return { principal: p, userId: p.userId, environment: p.environment };
}
