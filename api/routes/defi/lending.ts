/** Lending routes: caller -> one domain operation (domain/defi/lending*.ts) -> presenter. */
import type { FastifyInstance } from 'fastify';
import { lendingMarketsNow, lendingOperation, lendingPositionWithOperations, type LendingOperationKind } from '../../../domain/defi/lending';
import { listLendingPositions } from '../../../domain/defi/lending/positions';
import { caller } from '../../operations/caller';
import { presentLendingOperation, presentLendingPosition, presentMarket } from '../../operations/defi/lending-presenters';
import { borrowSchema, getLendingPositionSchema, listLendingPositionsSchema, marketsSchema, repaySchema, supplySchema, withdrawSchema } from '../../operations/defi/lending-schemas';

type OperationBody = { market_id: string; amount: string; account_id?: string };

export default async function lendingRoutes(app: FastifyInstance) {
  app.get<{ Querystring: { chain?: string } }>('/api/v2/defi/lending/markets', { schema: marketsSchema }, async (request) => ({
    data: (await lendingMarketsNow(caller(request).environment, request.query.chain)).map((m) => presentMarket(m.market, m.usdPrice)),
  }));

  const operations: Array<[LendingOperationKind, object]> = [
    ['supply', supplySchema],
    ['withdraw', withdrawSchema],
    ['borrow', borrowSchema],
    ['repay', repaySchema],
  ];
  for (const [kind, schema] of operations) {
    app.post<{ Body: OperationBody }>(`/api/v2/defi/lending/${kind}`, { schema }, async (request) => {
      const b = request.body;
      const r = await lendingOperation({ ...caller(request), kind, marketId: b.market_id, amount: b.amount, accountId: b.account_id, idempotencyKey: request.idempotencyKey });
      return { data: { operation: presentLendingOperation(r.operation), position: presentLendingPosition(r.position) } };
    });
  }

  app.get<{ Querystring: { status?: 'open' | 'all' } }>('/api/v2/defi/lending/positions', { schema: listLendingPositionsSchema }, async (request) => {
    const { userId, environment } = caller(request);
    return { data: (await listLendingPositions(userId, environment, { all: request.query.status === 'all' })).map(presentLendingPosition) };
  });

  app.get<{ Params: { id: string } }>('/api/v2/defi/lending/positions/:id', { schema: getLendingPositionSchema }, async (request) => {
    const r = await lendingPositionWithOperations(request.params.id, caller(request));
    return { data: { ...presentLendingPosition(r.position), operations: r.operations.map(presentLendingOperation) } };
  });
}
