import type { FastifyInstance } from 'fastify';
import { listTransactions, type TransactionStatus, type TransactionType } from '../../../domain/ledger/transactions';
import { reverseTransactionForCaller } from '../../../domain/reversals/request';
import { pageParams, paginate } from '../../pagination';
import { errorResponses, paginatedEnvelope } from '../../schemas';
import { principalOf } from '../../types';
import { presentReversal, presentTransaction } from '../../operations/transactions/presenters';
import { listQuery, reversalResult, reverseBody, transactionSchema } from '../../operations/transactions/schemas';

export default async function transactionRoutes(app: FastifyInstance) {
  for (const base of ['/api/v2', '/api']) {
    app.get<{ Querystring: { page?: number; per_page?: number; asset_code?: string; status?: TransactionStatus; type?: string } }>(
      `${base}/transactions`,
      {
        schema: {
          tags: [base === '/api' ? 'Transactions (unversioned)' : 'Transactions'],
          summary: "All transactions of the caller's accounts, newest first",
          querystring: listQuery,
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
        summary: 'Reverse a completed internal transaction with a linked reversing entry',
        description:
          'Body: transaction_id (txn_…), reason, and force (operators only). A reversal is only for movements that stayed inside the ' +
          "platform's ledger: internal transfers between platform accounts (the whole entry, amount and fee, once) and operators' manual " +
          'ledger entries. Deposits, withdrawals, rail payments (ACH, Fedwire, RTP, FedNow, SEPA, SWIFT), Interledger payments, swaps, bridges, ' +
          'cross-chain swaps, flash loans and any other entry are 422 NOT_REVERSIBLE for everyone, operators included; the detail names the ' +
          'process that undoes them (ACH return, pacs.004 return after a camt.056 recall, chain refund, a new withdrawal or deposit). ' +
          'A customer may return an internal transfer only when the money comes back out of their own accounts (they received it, or both ' +
          'sides are theirs), else 403 REVERSAL_NOT_PERMITTED; within REVERSAL_WINDOW_DAYS (default 90) of its posting, else 422 ' +
          'REVERSAL_WINDOW_EXPIRED. Manual entries are reversed by operators only. Operators reverse any internal transfer without a window. ' +
          'Reversing an incoming transfer whose funds were already spent is 422 INSUFFICIENT_FUNDS unless an operator forces it, which records ' +
          'the account going negative. Also 422 ALREADY_REVERSED, CANNOT_REVERSE_REVERSAL, NOT_POSTED; 404 for an unknown or another ' +
          "customer's transaction. Rules: docs/ledger.md, \"Reversals\".",
        body: reverseBody,
        response: { 201: reversalResult, ...errorResponses },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const r = await reverseTransactionForCaller(principalOf(request), { transactionId: b.transaction_id, reason: b.reason, force: b.force });
      return reply.code(201).send({ data: presentReversal(r) });
    },
  );
}
