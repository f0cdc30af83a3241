/**
 * Basket routes: definitions (public reads in the caller's environment, operator-defined baskets)
 * and composing/decomposing units on an account. Each handler is caller → one domain call →
 * presenter.
 */
import type { FastifyInstance } from 'fastify';
import { basketView, basketViews, defineBasket, operateBasket, type CreateBasketRequest } from '../../../domain/baskets';
import { principalOf } from '../../types';
import { readerEnvironment } from '../../operations/caller';
import { presentBasket, presentOperation } from '../../operations/baskets/presenters';
import { composeSchema, createSchema, decomposeSchema, getSchema, listSchema } from '../../operations/baskets/schemas';

export default async function basketRoutes(app: FastifyInstance) {
  app.get('/api/v2/baskets', { config: { public: true, optionalAuth: true }, schema: listSchema }, async (request) => ({
    data: (await basketViews(readerEnvironment(request))).map(presentBasket),
  }));

  app.get<{ Params: { code: string } }>('/api/v2/baskets/:code', { config: { public: true, optionalAuth: true }, schema: getSchema }, async (request) => ({
    data: presentBasket(await basketView(request.params.code, readerEnvironment(request))),
  }));

  app.post<{ Body: CreateBasketRequest }>('/api/v2/baskets', { config: { admin: true }, schema: createSchema }, async (request, reply) => {
    return reply.code(201).send({ data: presentBasket(await defineBasket(principalOf(request), request.body)) });
  });

  for (const kind of ['compose', 'decompose'] as const) {
    app.post<{ Params: { uuid: string }; Body: { basket_code: string; amount: string } }>(
      `/api/v2/accounts/:uuid/baskets/${kind}`,
      { schema: kind === 'compose' ? composeSchema : decomposeSchema },
      async (request, reply) => {
        const p = principalOf(request);
        const op = await operateBasket(kind, {
          userId: p.userId,
          environment: p.environment,
          accountId: request.params.uuid,
          basketCode: request.body.basket_code,
          amount: request.body.amount,
          idempotencyKey: request.idempotencyKey,
        });
        return reply.code(201).send({ data: presentOperation(op) });
      },
    );
  }
}
