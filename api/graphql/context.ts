/**
 * What every resolver gets (docs/graphql.md): the caller's principal (null for a guest), its IP,
 * and per-operation loaders. Resolvers reach the domain through `as(ctx, …)`, which asks the one
 * gate the REST routes ask (domain/auth/gate.ts): a credential, the permission the operation needs
 * (read for queries and subscriptions, write or delete for mutations, as the HTTP method implies on
 * REST), operator-only fields, a partner's or tenant's modules (the REST route's tag), and a
 * maintenance window for mutations.
 */
import { responsePathAsArray, type GraphQLResolveInfo } from 'graphql';
import { authorize } from '../../domain/auth/gate';
import type { Permission, Principal } from '../../domain/auth/principal';
import type { Environment } from '../../domain/platform/environment';
import { ApiError } from '../errors';
import { operationRequestKey } from '../plugins/idempotency';
import { createLoaders, type Loaders } from './loaders';

export interface GqlContext {
  principal: Principal | null;
  ip: string;
  loaders: Loaders;
  /**
   * The request's Idempotency-Key (HTTP); in a mutation field, that field's own key
   * (mutationFieldContext). Mutations hand it to the domain as REST routes do.
   */
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
 * The context a mutation field runs with: a document may hold several mutations under the request's
 * one Idempotency-Key, so each gets a key of its own, the request's key plus the field's place in the
 * answer (alias or name; a path never holds '/', so the last '/' splits the two). The same document
 * run again after a takeover gives each field its key again. Without a key, the context itself.
 */
export function mutationFieldContext(ctx: GqlContext, info: Pick<GraphQLResolveInfo, 'path'>): GqlContext {
  if (!ctx.idempotencyKey) return ctx;
  return { ...ctx, idempotencyKey: `${ctx.idempotencyKey}/${responsePathAsArray(info.path).join('.')}` };
}

/**
 * The request key a money mutation records with what it makes (transfers.request_key, as REST's
 * requestKeyOf), from its field's key (mutationFieldContext). Undefined without a claimed key.
 */
export function mutationRequestKey(ctx: GqlContext): string | undefined {
  return ctx.idempotencyKey && ctx.idempotencyScope ? operationRequestKey(ctx.idempotencyScope, ctx.idempotencyKey) : undefined;
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

/** The authenticated caller with the rights `need` names: the one gate (domain/auth/gate.ts), as REST's routes ask it. */
export async function as(ctx: GqlContext, need: Need = {}): Promise<Caller> {
  const p = ctx.principal;
  if (!p) throw new ApiError(401, 'UNAUTHENTICATED', 'Authorization header with a Bearer API key or access token is required');
  // Writes (mutations) wait out a maintenance window as on REST; operators' own do not.
  await authorize(p, { permission: need.permission ?? 'read', admin: need.admin, tags: need.tag ? [need.tag] : undefined });
  return { principal: p, userId: p.userId, environment: p.environment };
}
