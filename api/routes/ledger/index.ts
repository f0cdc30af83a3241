import type { FastifyInstance } from 'fastify';
import type { LedgerAccount } from '../../../domain/ledger';
import { environmentTrialBalance, getEnvironmentEntry, listVisibleLedgerAccounts, postOperatorEntry, settlePendingEntry } from '../../../domain/ledger/scoped';
import { envelope, errorResponses } from '../../schemas';
import { principalOf } from '../../types';
import { presentEntry, presentLedgerAccount, presentTrialBalance } from '../../operations/ledger/presenters';
import { accountsQuery, entrySchema, idParams, manualEntryBody, parseRange, reasonBody, trialBalanceQuery, type ManualEntryBody } from '../../operations/ledger/schemas';

export default async function ledgerRoutes(app: FastifyInstance) {
  const tags = ['Ledger'];

  app.get<{ Querystring: { asset_code?: string; kind?: LedgerAccount['kind'] } }>(
    '/api/v1/ledger/accounts',
    {
      schema: {
        tags,
        summary: 'Chart of accounts with balances',
        description: "Operators see every ledger account of the environment (customer and system); customers see their own accounts' ledger accounts.",
        querystring: accountsQuery,
        response: { 200: envelope({ type: 'array', items: { type: 'object', additionalProperties: true } }), ...errorResponses },
      },
    },
    async (request) => {
      const visible = await listVisibleLedgerAccounts(principalOf(request), { assetCode: request.query.asset_code, kind: request.query.kind });
      return { data: visible.map(presentLedgerAccount), meta: { total: visible.length } };
    },
  );

  app.post<{ Body: ManualEntryBody }>(
    '/api/v1/ledger/entries',
    {
      config: { admin: true },
      schema: {
        tags,
        summary: 'Post a balanced manual journal entry (platform operators only)',
        description:
          'Body: lines[] of {account_id (la_…), direction (debit|credit), amount (decimal string)}, optional type (default manual), description, ' +
          'reference, pending (two-phase). Per asset, debits must equal credits: an unbalanced entry, an unknown account or an amount in the wrong ' +
          "asset's precision is 422. Send Idempotency-Key: the entry is keyed by it.",
        body: manualEntryBody,
        response: { 201: envelope(entrySchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const entry = await postOperatorEntry(
        principalOf(request),
        {
          type: b.type,
          description: b.description,
          reference: b.reference,
          pending: b.pending,
          lines: b.lines.map((l) => ({ accountId: l.account_id, direction: l.direction, amount: l.amount })),
        },
        request.idempotencyKey,
      );
      return reply.code(201).send({ data: presentEntry(entry) });
    },
  );

  app.get<{ Params: { id: string } }>(
    '/api/v1/ledger/entries/:id',
    { config: { admin: true }, schema: { tags, summary: 'One journal entry with its lines (operators)', params: idParams, response: { 200: envelope(entrySchema), ...errorResponses } } },
    async (request) => ({ data: presentEntry(await getEnvironmentEntry(principalOf(request), request.params.id)) }),
  );

  for (const action of ['post', 'void'] as const) {
    app.post<{ Params: { id: string }; Body: { reason?: string } | null }>(
      `/api/v1/ledger/entries/:id/${action}`,
      {
        config: { admin: true },
        schema: {
          tags,
          summary: action === 'post' ? 'Confirm settlement: post a pending entry (operators)' : 'Settlement failed: void a pending entry (operators)',
          description: 'Used to settle production deposits and withdrawals. Each pending entry is posted or voided at most once.',
          params: idParams,
          body: reasonBody,
          response: { 200: envelope(entrySchema), ...errorResponses },
        },
      },
      async (request) => {
        const entry = await settlePendingEntry(principalOf(request), request.params.id, action, request.body?.reason);
        return { data: presentEntry(entry) };
      },
    );
  }

  app.get<{ Querystring: { from?: string; to?: string } }>(
    '/api/v1/ledger/trial-balance',
    {
      config: { admin: true },
      schema: {
        tags,
        summary: 'Trial balance: posted debits and credits per asset and account (operators)',
        description: 'from and to (ISO 8601, to exclusive) limit it to lines posted in that range; without them it covers all time. Debits equal credits for every asset.',
        querystring: trialBalanceQuery,
        response: { 200: envelope({ type: 'object', additionalProperties: true }), ...errorResponses },
      },
    },
    async (request) => {
      const tb = await environmentTrialBalance(principalOf(request), parseRange(request.query));
      return { data: presentTrialBalance(tb) };
    },
  );
}
