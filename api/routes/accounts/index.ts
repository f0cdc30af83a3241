import type { FastifyInstance } from 'fastify';
import { closeAccount, createAccount, freezeAccount, listAccounts, unfreezeAccount, type AccountType } from '../../../domain/accounts';
import { getOwnAccount, getOwnBalances, listOwnAccountTransactions, listOwnAccountTransfers } from '../../../domain/accounts/own';
import { updateOwnAccount } from '../../../domain/accounts/update';
import { moveCash } from '../../../domain/cash';
import type { TransactionSort, TransactionStatus, TransactionType } from '../../../domain/ledger/transactions';
import { pageParams, paginate } from '../../pagination';
import { envelope, errorResponses, paginatedEnvelope } from '../../schemas';
import { principalOf } from '../../types';
import { presentTransaction } from '../../operations/transactions/presenters';
import { transactionSchema } from '../../operations/transactions/schemas';
import { presentTransfer } from '../../operations/transfers/presenters';
import { transferSchema } from '../../operations/transfers/schemas';
import { presentAccount, presentBalances, presentCashMovement, presentOwnAccount, presentOwnAccounts } from '../../operations/accounts/presenters';
import { accountSchema, balancesSchema, cashBody, cashResult, createBody, pageQuery, reasonBody, transactionsQuery, updateBody, uuidParams } from '../../operations/accounts/schemas';

export default async function accountRoutes(app: FastifyInstance) {
  // The published v2 paths, and the unversioned core paths the spec lists for the same operations.
  for (const base of ['/api/v2', '/api']) {
    const tags = [base === '/api' ? 'Accounts (unversioned)' : 'Accounts'];

    app.get<{ Querystring: { page?: number; per_page?: number } }>(
      `${base}/accounts`,
      {
        schema: {
          tags,
          summary: "The caller's accounts in the key's environment",
          querystring: pageQuery,
          response: { 200: paginatedEnvelope(accountSchema), ...errorResponses },
        },
      },
      async (request) => {
        const p = principalOf(request);
        const pp = pageParams(request.query);
        const { items, total } = await listAccounts(p.userId, p.environment, { page: pp.page, perPage: pp.perPage });
        return paginate(request, await presentOwnAccounts(p, items), total, pp);
      },
    );

    app.post<{ Body: { name: string; type?: AccountType; metadata?: Record<string, unknown> } }>(
      `${base}/accounts`,
      {
        schema: {
          tags,
          summary: 'Open an account (status active); balances appear per asset on first use',
          body: createBody,
          response: { 201: envelope(accountSchema), ...errorResponses },
        },
      },
      async (request, reply) => {
        const p = principalOf(request);
        const account = await createAccount({ userId: p.userId, environment: p.environment, ...request.body });
        return reply.code(201).send({ data: await presentOwnAccount(p, account) });
      },
    );

    app.get<{ Params: { uuid: string } }>(
      `${base}/accounts/:uuid`,
      { schema: { tags, summary: 'One account', params: uuidParams, response: { 200: envelope(accountSchema), ...errorResponses } } },
      async (request) => {
        const p = principalOf(request);
        return { data: await presentOwnAccount(p, await getOwnAccount(p, request.params.uuid)) };
      },
    );

    app.get<{ Params: { uuid: string } }>(
      `${base}/accounts/:uuid/balances`,
      {
        schema: {
          tags,
          summary: 'Balances per asset: available (posted less reserved), reserved (pending outflows), total (posted)',
          params: uuidParams,
          response: { 200: envelope(balancesSchema), ...errorResponses },
        },
      },
      async (request) => ({ data: presentBalances(await getOwnBalances(principalOf(request), request.params.uuid)) }),
    );
  }

  const tags = ['Accounts'];

  app.patch<{ Params: { uuid: string }; Body: { name?: string; metadata?: Record<string, unknown> } }>(
    '/api/v2/accounts/:uuid',
    {
      schema: {
        tags,
        summary: "Rename an account or replace its metadata (emits account.updated when something changed)",
        params: uuidParams,
        body: updateBody,
        response: { 200: envelope(accountSchema), ...errorResponses },
      },
    },
    async (request) => {
      const p = principalOf(request);
      return { data: await presentOwnAccount(p, await updateOwnAccount(p, request.params.uuid, request.body)) };
    },
  );

  app.get<{
    Params: { uuid: string };
    Querystring: { page?: number; per_page?: number; limit?: number; type?: string; status?: TransactionStatus; start_date?: string; end_date?: string; sort?: TransactionSort; asset_code?: string };
  }>(
    '/api/v2/accounts/:uuid/transactions',
    {
      schema: {
        tags,
        summary: 'Transactions of an account (every posting to it), paginated',
        description: 'type filters deposit, withdrawal, transfer (in and out), fee or reversal; limit is an alias of per_page; sort takes created_at or amount, "-" for descending (default -created_at).',
        params: uuidParams,
        querystring: transactionsQuery,
        response: { 200: paginatedEnvelope(transactionSchema), ...errorResponses },
      },
    },
    async (request) => {
      const q = request.query;
      const pp = pageParams({ page: q.page, per_page: q.limit ?? q.per_page });
      const { items, total } = await listOwnAccountTransactions(principalOf(request), request.params.uuid, {
        type: q.type as TransactionType | 'transfer' | undefined,
        status: q.status,
        assetCode: q.asset_code,
        startDate: q.start_date ? new Date(q.start_date) : undefined,
        endDate: q.end_date ? new Date(q.end_date) : undefined,
        sort: q.sort,
        page: pp.page,
        perPage: pp.perPage,
      });
      return paginate(request, items.map(presentTransaction), total, pp);
    },
  );

  app.get<{ Params: { uuid: string }; Querystring: { page?: number; per_page?: number } }>(
    '/api/v2/accounts/:uuid/transfers',
    {
      schema: {
        tags,
        summary: 'Transfers into or out of an account, newest first',
        params: uuidParams,
        querystring: pageQuery,
        response: { 200: paginatedEnvelope(transferSchema), ...errorResponses },
      },
    },
    async (request) => {
      const pp = pageParams(request.query);
      const { items, total } = await listOwnAccountTransfers(principalOf(request), request.params.uuid, { offset: pp.offset, limit: pp.perPage });
      return paginate(request, items.map((t) => presentTransfer(t)), total, pp);
    },
  );

  for (const kind of ['deposit', 'withdrawal'] as const) {
    app.post<{ Params: { uuid: string }; Body: { amount: string; asset_code: string; reference?: string; chain?: string } }>(
      `/api/v2/accounts/:uuid/${kind === 'deposit' ? 'deposit' : 'withdraw'}`,
      {
        schema: {
          tags,
          summary: kind === 'deposit' ? 'Deposit into an account' : 'Withdraw from an account',
          description:
            'Sandbox keys settle at once against the sandbox funding account. Production keys create a pending ' +
            (kind === 'deposit' ? 'deposit (not spendable)' : 'withdrawal (funds reserved)') +
            ' that completes when the settlement is confirmed (operator: POST /api/v1/ledger/entries/{id}/post) or fails (…/void).' +
            (kind === 'withdrawal' ? ' Insufficient funds is a 422 and nothing is written.' : ''),
          params: uuidParams,
          body: cashBody,
          response: { 201: envelope(cashResult), ...errorResponses },
        },
      },
      async (request, reply) => {
        const p = principalOf(request);
        const movement = await moveCash(kind, {
          userId: p.userId,
          environment: p.environment,
          accountId: request.params.uuid,
          amount: request.body.amount,
          assetCode: request.body.asset_code,
          reference: request.body.reference,
          chain: request.body.chain,
          idempotencyKey: request.idempotencyKey,
        });
        return reply.code(201).send({ data: presentCashMovement(movement) });
      },
    );
  }

  const ops = { freeze: freezeAccount, unfreeze: unfreezeAccount, close: closeAccount } as const;
  for (const [action, fn] of Object.entries(ops)) {
    app.post<{ Params: { uuid: string }; Body: { reason?: string } | null }>(
      `/api/v2/accounts/:uuid/${action}`,
      {
        config: { admin: true },
        schema: {
          tags: ['Operations'],
          summary: `${action[0].toUpperCase()}${action.slice(1)} an account (platform operators only)`,
          description:
            action === 'freeze'
              ? 'A frozen account cannot send (no new debits) but still receives.'
              : action === 'close'
                ? 'Only accounts with zero balances and nothing pending can be closed; a closed account can neither send nor receive.'
                : 'Lets a frozen account send again.',
          params: uuidParams,
          body: reasonBody,
          response: { 200: envelope(accountSchema), ...errorResponses },
        },
      },
      async (request) => {
        const p = principalOf(request);
        const account = await fn(request.params.uuid, { environment: p.environment, reason: request.body?.reason });
        return { data: presentAccount(account) };
      },
    );
  }
}
