import type { FastifyInstance } from 'fastify';
import { getTransaction, listTransactions, TRANSACTION_TYPES, type TransactionStatus, type TransactionType } from '../../../domain/ledger/transactions';
import { reverseTransaction } from '../../../domain/reversals';
import { pageParams, paginate } from '../../pagination';
import { presentTransaction, transactionSchema } from '../../presenters/banking';
import { envelope, errorResponses, paginatedEnvelope, paginationQuery } from '../../schemas';
import { principalOf } from '../../types';

export default async function transactionRoutes(app: FastifyInstance) {
  for (const base of ['/api/v2', '/api']) {
    app.get<{ Querystring: { page?: number; per_page?: number; asset_code?: string; status?: TransactionStatus; type?: string } }>(
      `${base}/transactions`,
      {
        schema: {
          tags: [base === '/api' ? 'Transactions (unversioned)' : 'Transactions'],
          summary: "All transactions of the caller's accounts, newest first",
          querystring: {
            type: 'object',
            additionalProperties: false,
            properties: {
              ...paginationQuery,
              asset_code: { type: 'string', maxLength: 12 },
              status: { type: 'string', enum: ['pending', 'completed', 'failed'] },
              type: { type: 'string', enum: ['transfer', ...TRANSACTION_TYPES] },
            },
          },
          response: { 200: paginatedEnvelope(transactionSchema), ...errorResponses },
        },
      },
      async (request) => {
        const p = principalOf(request);
        const pp = pageParams(request.query);
        const { items, total } = await listTransactions({
          userId: p.userId,
          environment: p.environment,
          assetCode: request.query.asset_code,
          status: request.query.status,
          type: request.query.type as TransactionType | 'transfer' | undefined,
          page: pp.page,
          perPage: pp.perPage,
        });
        return paginate(request, items.map(presentTransaction), total, pp);
      },
    );
  }

  app.post<{ Body: { transaction_id: string; reason: string; force?: boolean } }>(
    '/api/transactions/reverse',
    {
      schema: {
        tags: ['Transactions'],
        summary: 'Reverse a completed transaction with a linked reversing entry',
        description:
          'Body: transaction_id (txn_…), reason, and force (operators only). The whole entry behind the transaction (amount and fee) is reversed ' +
          'once; a second reversal is 422. A customer may reverse only what takes money back from their own accounts (e.g. returning an incoming ' +
          'transfer). Reversing an incoming transfer whose funds were already spent is 422 INSUFFICIENT_FUNDS unless an operator forces it, which ' +
          'records the account going negative.',
        body: {
          type: 'object',
          required: ['transaction_id', 'reason'],
          additionalProperties: false,
          properties: {
            transaction_id: { type: 'string', minLength: 1, maxLength: 64 },
            reason: { type: 'string', minLength: 1, maxLength: 500 },
            force: { type: 'boolean', default: false },
          },
        },
        response: {
          201: envelope({
            type: 'object',
            properties: {
              reversal_entry_id: { type: 'string' },
              original_entry_id: { type: 'string' },
              transfer_uuid: { type: ['string', 'null'] },
              transactions: { type: 'array', items: transactionSchema },
              forced_overdraft: { type: ['array', 'null'], items: { type: 'object', additionalProperties: true } },
            },
          }),
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const p = principalOf(request);
      const { reversal, original, transfer } = await reverseTransaction(p, {
        transactionId: request.body.transaction_id,
        reason: request.body.reason,
        force: request.body.force,
      });
      const txns = [];
      for (const line of reversal.lines.filter((l) => l.customerAccountId)) {
        const t = await getTransaction({ id: line.id, userId: p.isAdmin ? null : p.userId, environment: p.environment });
        if (t) txns.push(presentTransaction(t));
      }
      return reply.code(201).send({
        data: {
          reversal_entry_id: reversal.id,
          original_entry_id: original.id,
          transfer_uuid: transfer?.id ?? null,
          transactions: txns,
          forced_overdraft: reversal.forcedOverdraft,
        },
      });
    },
  );
}
