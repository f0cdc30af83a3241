/** Staking routes: caller -> one domain operation (domain/defi/staking*.ts) -> presenter. */
import type { FastifyInstance } from 'fastify';
import { findStakingPosition, listStakingPositions, listStakingProducts, stake } from '../../../domain/defi/staking';
import { harvestNow, type HarvestMode } from '../../../domain/defi/staking/harvest';
import { unstake } from '../../../domain/defi/staking/unbond';
import { caller } from '../../operations/caller';
import { presentStakingHarvest, presentStakingPosition, presentStakingProduct } from '../../operations/defi/staking-presenters';
import { getStakingPositionSchema, harvestSchema, listStakingPositionsSchema, productsSchema, stakeSchema, unstakeSchema } from '../../operations/defi/staking-schemas';

export default async function stakingRoutes(app: FastifyInstance) {
  app.get('/api/v2/defi/staking/products', { schema: productsSchema }, async (request) => ({
    data: (await listStakingProducts(caller(request).environment)).map(presentStakingProduct),
  }));

  app.post<{ Body: { product_id: string; amount: string; account_id?: string; auto_compound?: boolean } }>('/api/v2/defi/staking/stake', { schema: stakeSchema }, async (request, reply) => {
    const b = request.body;
    const p = await stake({ ...caller(request), productId: b.product_id, amount: b.amount, accountId: b.account_id, autoCompound: b.auto_compound, idempotencyKey: request.idempotencyKey });
    return reply.code(201).send({ data: presentStakingPosition(p) });
  });

  app.post<{ Body: { position_id: string } }>('/api/v2/defi/staking/unstake', { schema: unstakeSchema }, async (request, reply) => {
    const p = await unstake({ ...caller(request), positionId: request.body.position_id });
    return reply.code(202).send({ data: presentStakingPosition(p) });
  });

  app.post<{ Body: { position_id: string; mode?: HarvestMode } }>('/api/v2/defi/staking/harvest', { schema: harvestSchema }, async (request) => ({
    data: presentStakingHarvest(await harvestNow({ ...caller(request), positionId: request.body.position_id, mode: request.body.mode, idempotencyKey: request.idempotencyKey })),
  }));

  app.get<{ Querystring: { status?: 'active' | 'all' } }>('/api/v2/defi/staking/positions', { schema: listStakingPositionsSchema }, async (request) => {
    const { userId, environment } = caller(request);
    return { data: (await listStakingPositions(userId, environment, { all: request.query.status === 'all' })).map(presentStakingPosition) };
  });

  app.get<{ Params: { id: string } }>('/api/v2/defi/staking/positions/:id', { schema: getStakingPositionSchema }, async (request) => ({
    data: presentStakingPosition(await findStakingPosition(request.params.id, caller(request))),
  }));
}
