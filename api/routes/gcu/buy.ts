/** POST /gcu/buy and GET /gcu/buy/{id}: caller → one domain call → presenter. */
import type { FastifyInstance } from 'fastify';
import { getOwnBuy, startBuy, type BuyRequest } from '../../../domain/baskets/buy';
import { principalOf } from '../../types';
import { presentBuy } from '../../operations/gcu/buy-presenters';
import { buyGetSchema, buyPostSchema } from '../../operations/gcu/buy-schemas';

export default async function gcuBuyRoutes(app: FastifyInstance) {
  app.post<{ Body: BuyRequest }>('/api/v2/gcu/buy', { schema: buyPostSchema }, async (request, reply) => {
    const buy = await startBuy(principalOf(request), request.body, request.idempotencyKey);
    return reply.code(202).send({ data: presentBuy(buy) });
  });

  app.get<{ Params: { id: string } }>('/api/v2/gcu/buy/:id', { schema: buyGetSchema }, async (request) => ({
    data: presentBuy(await getOwnBuy(principalOf(request), request.params.id)),
  }));
}
