/** Liquidity routes: caller -> one domain operation (domain/defi/liquidity*.ts) -> presenter. */
import type { FastifyInstance } from 'fastify';
import { addLiquidity, removeLiquidity } from '../../../domain/defi/liquidity';
import { findLiquidityPosition, valuedLiquidityPositions } from '../../../domain/defi/liquidity/value';
import { caller } from '../../operations/caller';
import { addLiquiditySchema, getPositionSchema, listPositionsSchema, removeLiquiditySchema } from '../../operations/defi/liquidity-schemas';
import { presentLiquidityPosition, presentLiquidityRemoval } from '../../operations/defi/presenters';

export default async function liquidityRoutes(app: FastifyInstance) {
  app.post<{ Body: { pool_id: string; account_id?: string; amounts: Record<string, string> } }>('/api/v2/defi/liquidity/add', { schema: addLiquiditySchema }, async (request, reply) => {
    const b = request.body;
    const p = await addLiquidity({ ...caller(request), poolId: b.pool_id, accountId: b.account_id, amounts: b.amounts, idempotencyKey: request.idempotencyKey });
    return reply.code(201).send({ data: presentLiquidityPosition(p) });
  });

  app.post<{ Body: { position_id: string; share?: string } }>('/api/v2/defi/liquidity/remove', { schema: removeLiquiditySchema }, async (request) => ({
    data: presentLiquidityRemoval(await removeLiquidity({ ...caller(request), positionId: request.body.position_id, share: request.body.share, idempotencyKey: request.idempotencyKey })),
  }));

  app.get<{ Querystring: { status?: 'open' | 'all' } }>('/api/v2/defi/liquidity/positions', { schema: listPositionsSchema }, async (request) => {
    const { userId, environment } = caller(request);
    return { data: (await valuedLiquidityPositions(userId, environment, { all: request.query.status === 'all' })).map(presentLiquidityPosition) };
  });

  app.get<{ Params: { id: string } }>('/api/v2/defi/liquidity/positions/:id', { schema: getPositionSchema }, async (request) => ({
    data: presentLiquidityPosition(await findLiquidityPosition(request.params.id, caller(request))),
  }));
}
