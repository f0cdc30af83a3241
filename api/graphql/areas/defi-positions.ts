/**
 * DeFi positions over GraphQL (docs/defi.md): liquidity, lending markets and positions, staking
 * products and positions. Each resolver checks the input against the REST route's schema, makes
 * the one domain call its REST route makes (api/routes/defi/{liquidity,lending,staking}.ts) and
 * shows the REST presenter's answer in camelCase. REST lists are whole (bounded) lists: one page here.
 */
import type { FastifyInstance } from 'fastify';
import { lendingMarketsNow, lendingOperation, lendingPositionWithOperations, type LendingOperationKind } from '../../../domain/defi/lending';
import { listLendingPositions } from '../../../domain/defi/lending/positions';
import { addLiquidity, removeLiquidity } from '../../../domain/defi/liquidity';
import { findLiquidityPosition, valuedLiquidityPositions } from '../../../domain/defi/liquidity/value';
import { findStakingPosition, listStakingPositions, listStakingProducts, stake } from '../../../domain/defi/staking';
import { harvestNow, type HarvestMode } from '../../../domain/defi/staking/harvest';
import { unstake } from '../../../domain/defi/staking/unbond';
import { presentLendingOperation, presentLendingPosition, presentMarket } from '../../operations/defi/lending-presenters';
import { borrowSchema, listLendingPositionsSchema, marketsSchema, repaySchema, supplySchema, withdrawSchema } from '../../operations/defi/lending-schemas';
import { addLiquiditySchema, listPositionsSchema, removeLiquiditySchema } from '../../operations/defi/liquidity-schemas';
import { presentLiquidityPosition, presentLiquidityRemoval } from '../../operations/defi/presenters';
import { TAG } from '../../operations/defi/schemas';
import { presentStakingHarvest, presentStakingPosition, presentStakingProduct } from '../../operations/defi/staking-presenters';
import { harvestSchema, listStakingPositionsSchema, stakeSchema, unstakeSchema } from '../../operations/defi/staking-schemas';
import { as, type GqlContext } from '../context';
import { paginateList, type PageArgs } from '../pagination';
import { defiPositionsTypeDefs } from './defi-positions-schema';
import { camelize, restInput } from '../rest';
import type { GraphQLArea } from './types';

type Input = { input: Record<string, unknown> };
type StatusArgs = PageArgs & { status?: string | null };
type LendingBody = { market_id: string; amount: string; account_id?: string };

const LENDING_SCHEMAS: Record<LendingOperationKind, { body: object }> = { supply: supplySchema, withdraw: withdrawSchema, borrow: borrowSchema, repay: repaySchema };

/** POST /api/v2/defi/lending/{kind}. */
function lendingMutation(kind: LendingOperationKind) {
  return async (_: unknown, { input }: Input, ctx: GqlContext) => {
    const c = await as(ctx, { permission: 'write', tag: TAG });
    const b = restInput<LendingBody>(LENDING_SCHEMAS[kind].body, input);
    const r = await lendingOperation({ userId: c.userId, environment: c.environment, kind, marketId: b.market_id, amount: b.amount, accountId: b.account_id, idempotencyKey: ctx.idempotencyKey });
    return camelize({ operation: presentLendingOperation(r.operation), position: presentLendingPosition(r.position) });
  };
}

/** The list filter as the REST query string takes it (enum and default from the REST schema). */
const statusOf = (schema: { querystring: object }, args: StatusArgs) => restInput<{ status: string }>(schema.querystring, { status: args.status }, 'querystring').status;

export function defiPositionsArea(_app: FastifyInstance): GraphQLArea {
  return {
    typeDefs: defiPositionsTypeDefs,
    resolvers: {
      Query: {
        liquidityPositions: async (_: unknown, args: StatusArgs, ctx: GqlContext) => {
          const c = await as(ctx, { tag: TAG });
          const all = statusOf(listPositionsSchema, args) === 'all';
          return paginateList((await valuedLiquidityPositions(c.userId, c.environment, { all })).map((p) => camelize(presentLiquidityPosition(p))), args);
        },
        liquidityPosition: async (_: unknown, args: { id: string }, ctx: GqlContext) => camelize(presentLiquidityPosition(await findLiquidityPosition(args.id, await as(ctx, { tag: TAG })))),
        lendingMarkets: async (_: unknown, args: PageArgs & { chain?: string | null }, ctx: GqlContext) => {
          const c = await as(ctx, { tag: TAG });
          const qs = restInput<{ chain?: string }>(marketsSchema.querystring, { chain: args.chain }, 'querystring');
          return paginateList((await lendingMarketsNow(c.environment, qs.chain)).map((m) => camelize(presentMarket(m.market, m.usdPrice))), args);
        },
        lendingPositions: async (_: unknown, args: StatusArgs, ctx: GqlContext) => {
          const c = await as(ctx, { tag: TAG });
          const all = statusOf(listLendingPositionsSchema, args) === 'all';
          return paginateList((await listLendingPositions(c.userId, c.environment, { all })).map((p) => camelize(presentLendingPosition(p))), args);
        },
        lendingPosition: async (_: unknown, args: { id: string }, ctx: GqlContext) => {
          const r = await lendingPositionWithOperations(args.id, await as(ctx, { tag: TAG }));
          return camelize({ ...presentLendingPosition(r.position), operations: r.operations.map(presentLendingOperation) });
        },
        stakingProducts: async (_: unknown, args: PageArgs, ctx: GqlContext) => {
          const c = await as(ctx, { tag: TAG });
          return paginateList((await listStakingProducts(c.environment)).map((p) => camelize(presentStakingProduct(p))), args);
        },
        stakingPositions: async (_: unknown, args: StatusArgs, ctx: GqlContext) => {
          const c = await as(ctx, { tag: TAG });
          const all = statusOf(listStakingPositionsSchema, args) === 'all';
          return paginateList((await listStakingPositions(c.userId, c.environment, { all })).map((p) => camelize(presentStakingPosition(p))), args);
        },
        stakingPosition: async (_: unknown, args: { id: string }, ctx: GqlContext) => camelize(presentStakingPosition(await findStakingPosition(args.id, await as(ctx, { tag: TAG })))),
      },
      Mutation: {
        addLiquidity: async (_: unknown, { input }: Input, ctx: GqlContext) => {
          const c = await as(ctx, { permission: 'write', tag: TAG });
          const b = restInput<{ pool_id: string; account_id?: string; amounts: Record<string, string> }>(addLiquiditySchema.body, input);
          const p = await addLiquidity({ userId: c.userId, environment: c.environment, poolId: b.pool_id, accountId: b.account_id, amounts: b.amounts, idempotencyKey: ctx.idempotencyKey });
          return camelize(presentLiquidityPosition(p));
        },
        removeLiquidity: async (_: unknown, args: { positionId: string; share?: string | null }, ctx: GqlContext) => {
          const c = await as(ctx, { permission: 'write', tag: TAG });
          const b = restInput<{ position_id: string; share?: string }>(removeLiquiditySchema.body, args);
          return camelize(presentLiquidityRemoval(await removeLiquidity({ userId: c.userId, environment: c.environment, positionId: b.position_id, share: b.share, idempotencyKey: ctx.idempotencyKey })));
        },
        lendingSupply: lendingMutation('supply'),
        lendingWithdraw: lendingMutation('withdraw'),
        lendingBorrow: lendingMutation('borrow'),
        lendingRepay: lendingMutation('repay'),
        stake: async (_: unknown, { input }: Input, ctx: GqlContext) => {
          const c = await as(ctx, { permission: 'write', tag: TAG });
          const b = restInput<{ product_id: string; amount: string; account_id?: string; auto_compound?: boolean }>(stakeSchema.body, input);
          const p = await stake({ userId: c.userId, environment: c.environment, productId: b.product_id, amount: b.amount, accountId: b.account_id, autoCompound: b.auto_compound, idempotencyKey: ctx.idempotencyKey });
          return camelize(presentStakingPosition(p));
        },
        unstake: async (_: unknown, args: { positionId: string }, ctx: GqlContext) => {
          const c = await as(ctx, { permission: 'write', tag: TAG });
          const b = restInput<{ position_id: string }>(unstakeSchema.body, args);
          return camelize(presentStakingPosition(await unstake({ userId: c.userId, environment: c.environment, positionId: b.position_id })));
        },
        harvestStaking: async (_: unknown, args: { positionId: string; mode?: string | null }, ctx: GqlContext) => {
          const c = await as(ctx, { permission: 'write', tag: TAG });
          const b = restInput<{ position_id: string; mode?: HarvestMode }>(harvestSchema.body, args);
          return camelize(presentStakingHarvest(await harvestNow({ userId: c.userId, environment: c.environment, positionId: b.position_id, mode: b.mode, idempotencyKey: ctx.idempotencyKey })));
        },
      },
    },
  };
}
