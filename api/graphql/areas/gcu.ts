/**
 * Baskets, GCU and GCU governance over GraphQL (docs/gcu.md). Each resolver checks the input
 * against the REST route's schema, makes the one domain call its REST route makes
 * (api/routes/baskets, api/routes/gcu) and shows the REST presenter's answer in camelCase.
 *
 * The REST reads of baskets, GCU and proposals are public (no credential: production); so are
 * these fields: a guest reads production, a credential reads its environment with the same
 * checks as any field (`as`: permission, a partner's or tenant's modules).
 */
import type { FastifyInstance } from 'fastify';
import { basketView, basketViews, defineBasket, operateBasket, type CreateBasketRequest } from '../../../domain/baskets';
import { getOwnBuy, startBuy, type BuyRequest } from '../../../domain/baskets/buy';
import { createCompositionService } from '../../../domain/baskets/composition';
import { PRIMARY_BASKET } from '../../../domain/baskets/definitions';
import { valueHistory } from '../../../domain/baskets/history';
import { cancelProposal, castVote, executeProposalByOperator, listMyVotes, listProposals, proposalView, proposeComposition, type CreateProposalRequest } from '../../../domain/governance';
import type { Environment } from '../../../domain/platform/environment';
import { presentBasket, presentOperation } from '../../operations/baskets/presenters';
import { composeSchema, createSchema, TAG as BASKETS } from '../../operations/baskets/schemas';
import { presentBuy } from '../../operations/gcu/buy-presenters';
import { buyPostSchema } from '../../operations/gcu/buy-schemas';
import { presentComposition, presentHistory, presentInfo } from '../../operations/gcu/info-presenters';
import { historyRouteSchema, TAG as GCU } from '../../operations/gcu/info-schemas';
import { presentMyVote, presentProposal, presentVote } from '../../operations/gcu/voting-presenters';
import { cancelProposalSchema, castVoteSchema, createProposalSchema, listProposalsSchema, TAG as GOVERNANCE } from '../../operations/gcu/voting-schemas';
import { as, type GqlContext } from '../context';
import { pageOf, paginated, paginateList, type PageArgs } from '../pagination';
import { gcuTypeDefs } from './gcu-schema';
import { camelize, restInput } from '../rest';
import type { GraphQLArea } from './types';

/** A public read's reader (REST config { public: true, optionalAuth: true }): a guest reads production. */
async function reader(ctx: GqlContext, tag: string): Promise<{ environment: Environment; userId?: string }> {
  if (!ctx.principal) return { environment: 'production' };
  return as(ctx, { tag });
}

type Weighted = Array<{ assetCode: string; weight: string }>;
const weighted = (cs: Weighted) => cs.map((c) => ({ asset_code: c.assetCode, weight: c.weight }));

export function gcuArea(_app: FastifyInstance): GraphQLArea {
  // As the REST routes: each environment's composition is computed at most once a second.
  const compositions = createCompositionService();
  const basketOperation = (kind: 'compose' | 'decompose') => async (_: unknown, args: { accountId: string; basketCode: string; amount: string }, ctx: GqlContext) => {
    const c = await as(ctx, { permission: 'write', tag: BASKETS });
    const b = restInput<{ basket_code: string; amount: string }>(composeSchema.body, { basketCode: args.basketCode, amount: args.amount });
    const op = await operateBasket(kind, { userId: c.userId, environment: c.environment, accountId: args.accountId, basketCode: b.basket_code, amount: b.amount, idempotencyKey: ctx.idempotencyKey });
    return camelize(presentOperation(op));
  };
  return {
    typeDefs: gcuTypeDefs,
    resolvers: {
      Query: {
        baskets: async (_: unknown, args: PageArgs, ctx: GqlContext) => paginateList((await basketViews((await reader(ctx, BASKETS)).environment)).map((v) => camelize(presentBasket(v))), args),
        basket: async (_: unknown, args: { code: string }, ctx: GqlContext) => camelize(presentBasket(await basketView(args.code, (await reader(ctx, BASKETS)).environment))),
        gcu: async (_: unknown, __: unknown, ctx: GqlContext) => camelize(presentInfo(await compositions.view((await reader(ctx, GCU)).environment))),
        gcuComposition: async (_: unknown, __: unknown, ctx: GqlContext) => camelize(presentComposition(await compositions.view((await reader(ctx, GCU)).environment))),
        gcuValueHistory: async (_: unknown, args: { period?: string | null; interval?: string | null }, ctx: GqlContext) => {
          const r = await reader(ctx, GCU);
          const q = restInput<{ period?: string; interval?: string }>(historyRouteSchema.querystring, args, 'querystring');
          const h = camelize(presentHistory(await valueHistory({ basketCode: PRIMARY_BASKET, environment: r.environment, period: q.period, interval: q.interval })));
          return { points: h.data, ...h.meta };
        },
        gcuBuy: async (_: unknown, args: { id: string }, ctx: GqlContext) => camelize(presentBuy(await getOwnBuy((await as(ctx, { tag: GCU })).principal, args.id))),
        governanceProposals: async (_: unknown, args: PageArgs & { status?: string | null }, ctx: GqlContext) => {
          const r = await reader(ctx, GOVERNANCE);
          const q = restInput<{ status?: string }>(listProposalsSchema.querystring, { status: args.status }, 'querystring');
          const p = pageOf(args);
          const { items, total } = await listProposals(r.environment, q.status, p);
          return paginated(items.map((v) => camelize(presentProposal(v))), total, p);
        },
        governanceProposal: async (_: unknown, args: { id: string }, ctx: GqlContext) => {
          const r = await reader(ctx, GOVERNANCE);
          return camelize(presentProposal(await proposalView(args.id, r.environment, r.userId)));
        },
        myGovernanceVotes: async (_: unknown, args: PageArgs, ctx: GqlContext) => {
          const c = await as(ctx, { tag: GOVERNANCE });
          const p = pageOf(args);
          const { items, total } = await listMyVotes(c.userId, c.environment, p);
          return paginated(items.map((v) => camelize(presentMyVote(v))), total, p);
        },
      },
      Mutation: {
        createBasket: async (_: unknown, { input }: { input: Record<string, unknown> & { components: Weighted } }, ctx: GqlContext) => {
          const c = await as(ctx, { permission: 'write', tag: BASKETS, admin: true });
          const body = restInput<CreateBasketRequest>(createSchema.body, { ...input, components: weighted(input.components) });
          return camelize(presentBasket(await defineBasket(c.principal, body)));
        },
        composeBasket: basketOperation('compose'),
        decomposeBasket: basketOperation('decompose'),
        buyGcu: async (_: unknown, { input }: { input: Record<string, unknown> }, ctx: GqlContext) => {
          const c = await as(ctx, { permission: 'write', tag: GCU });
          const body = restInput<BuyRequest>(buyPostSchema.body, input);
          return camelize(presentBuy(await startBuy(c.principal, body, ctx.idempotencyKey)));
        },
        castGovernanceVote: async (_: unknown, args: { proposalId: string; vote: string }, ctx: GqlContext) => {
          const c = await as(ctx, { permission: 'write', tag: GOVERNANCE });
          const b = restInput<{ vote: string }>(castVoteSchema.body, { vote: args.vote });
          return camelize(presentVote(await castVote({ userId: c.userId, environment: c.environment, proposalId: args.proposalId, vote: b.vote })));
        },
        createGovernanceProposal: async (_: unknown, { input }: { input: Record<string, unknown> & { components: Weighted } }, ctx: GqlContext) => {
          const c = await as(ctx, { permission: 'write', tag: GOVERNANCE, admin: true });
          const body = restInput<CreateProposalRequest>(createProposalSchema.body, { ...input, components: weighted(input.components) });
          return camelize(presentProposal(await proposeComposition(c.principal, body)));
        },
        cancelGovernanceProposal: async (_: unknown, args: { id: string; reason?: string | null }, ctx: GqlContext) => {
          const c = await as(ctx, { permission: 'write', tag: GOVERNANCE, admin: true });
          const b = restInput<{ reason?: string | null }>(cancelProposalSchema.body, { reason: args.reason });
          return camelize(presentProposal(await cancelProposal(c.principal, args.id, b.reason ?? null)));
        },
        executeGovernanceProposal: async (_: unknown, args: { id: string }, ctx: GqlContext) => {
          const c = await as(ctx, { permission: 'write', tag: GOVERNANCE, admin: true });
          return camelize(presentProposal(await executeProposalByOperator(c.principal, args.id)));
        },
      },
    },
  };
}
