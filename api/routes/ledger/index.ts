import type { FastifyInstance } from 'fastify';
import { randomUUID } from 'node:crypto';
import {
  clientIdempotencyKey,
  getEntry,
  listLedgerAccounts,
  postManualEntry,
  postPending,
  trialBalance,
  voidPending,
  type Entry,
  type LedgerAccount,
} from '../../../domain/ledger';
import { ApiError, notFound } from '../../errors';
import { decimalString, envelope, errorResponses } from '../../schemas';
import { principalOf } from '../../types';

function presentLedgerAccount(a: LedgerAccount) {
  return {
    id: a.id,
    name: a.name,
    kind: a.kind,
    code: a.code,
    asset_code: a.assetCode,
    normal_balance: a.normalBalance,
    no_overdraft: a.noOverdraft,
    status: a.status,
    account_uuid: a.accountId,
    debits_pending: a.debitsPending,
    debits_posted: a.debitsPosted,
    credits_pending: a.creditsPending,
    credits_posted: a.creditsPosted,
    total_balance: a.totalBalance,
    available_balance: a.availableBalance,
    reserved_balance: a.reservedBalance,
    overdraft_allowance: a.overdraftAllowance,
  };
}

export function presentEntry(e: Entry) {
  return {
    id: e.id,
    type: e.type,
    status: e.status,
    two_phase: e.twoPhase,
    description: e.description,
    reference: e.reference,
    metadata: e.metadata,
    reverses_entry_id: e.reversesEntryId,
    reversed_by_entry_id: e.reversedByEntryId,
    forced_overdraft: e.forcedOverdraft,
    pending_expires_at: e.pendingExpiresAt?.toISOString() ?? null,
    void_reason: e.voidReason,
    created_at: e.createdAt.toISOString(),
    posted_at: e.postedAt?.toISOString() ?? null,
    voided_at: e.voidedAt?.toISOString() ?? null,
    lines: e.lines.map((l) => ({
      id: l.id,
      account_id: l.accountId,
      asset_code: l.assetCode,
      direction: l.direction,
      amount: l.amount,
      balance_after: l.balanceAfter,
      status: l.status,
    })),
  };
}

const entrySchema = { type: 'object', additionalProperties: true };
const idParams = { type: 'object', required: ['id'], properties: { id: { type: 'string', maxLength: 64 } } };

export default async function ledgerRoutes(app: FastifyInstance) {
  const tags = ['Ledger'];

  app.get<{ Querystring: { asset_code?: string; kind?: LedgerAccount['kind'] } }>(
    '/api/v1/ledger/accounts',
    {
      schema: {
        tags,
        summary: 'Chart of accounts with balances',
        description: "Operators see every ledger account of the environment (customer and system); customers see their own accounts' ledger accounts.",
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            asset_code: { type: 'string', maxLength: 12 },
            kind: { type: 'string', enum: ['customer', 'funding', 'fee_revenue', 'suspense', 'settlement', 'internal'] },
          },
        },
        response: { 200: envelope({ type: 'array', items: { type: 'object', additionalProperties: true } }), ...errorResponses },
      },
    },
    async (request) => {
      const p = principalOf(request);
      const all = await listLedgerAccounts({ environment: p.environment, assetCode: request.query.asset_code?.toUpperCase(), kind: request.query.kind });
      const visible = p.isAdmin ? all : all.filter((a) => a.userId === p.userId);
      return { data: visible.map(presentLedgerAccount), meta: { total: visible.length } };
    },
  );

  app.post<{
    Body: { type?: string; description?: string; reference?: string; pending?: boolean; lines: Array<{ account_id: string; direction: 'debit' | 'credit'; amount: string }> };
  }>(
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
        body: {
          type: 'object',
          required: ['lines'],
          additionalProperties: false,
          properties: {
            type: { type: 'string', minLength: 1, maxLength: 40, default: 'manual' },
            description: { type: 'string', maxLength: 500 },
            reference: { type: 'string', maxLength: 140 },
            pending: { type: 'boolean', default: false },
            lines: {
              type: 'array',
              minItems: 2,
              maxItems: 100,
              items: {
                type: 'object',
                required: ['account_id', 'direction', 'amount'],
                additionalProperties: false,
                properties: {
                  account_id: { type: 'string', minLength: 1, maxLength: 64 },
                  direction: { type: 'string', enum: ['debit', 'credit'] },
                  amount: decimalString,
                },
              },
            },
          },
        },
        response: { 201: envelope(entrySchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const p = principalOf(request);
      const b = request.body;
      const entry = await postManualEntry({
        environment: p.environment,
        idempotencyKey: request.idempotencyKey
          ? clientIdempotencyKey(p.userId, 'ledger-entry', request.idempotencyKey)
          : `manual:${randomUUID()}`,
        type: b.type ?? 'manual',
        description: b.description,
        reference: b.reference,
        pending: b.pending,
        userId: p.userId,
        lines: b.lines.map((l) => ({ accountId: l.account_id, direction: l.direction, amount: l.amount })),
        metadata: { posted_by: p.email },
      });
      return reply.code(201).send({ data: presentEntry(entry) });
    },
  );

  app.get<{ Params: { id: string } }>(
    '/api/v1/ledger/entries/:id',
    { config: { admin: true }, schema: { tags, summary: 'One journal entry with its lines (operators)', params: idParams, response: { 200: envelope(entrySchema), ...errorResponses } } },
    async (request) => {
      const p = principalOf(request);
      const entry = await getEntry(request.params.id);
      if (!entry || entry.environment !== p.environment) throw notFound('Entry');
      return { data: presentEntry(entry) };
    },
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
          body: { type: ['object', 'null'], additionalProperties: false, properties: { reason: { type: 'string', maxLength: 500 } } },
          response: { 200: envelope(entrySchema), ...errorResponses },
        },
      },
      async (request) => {
        const p = principalOf(request);
        const existing = await getEntry(request.params.id);
        if (!existing || existing.environment !== p.environment) throw notFound('Entry');
        const key = `${action}:${existing.id}`;
        const entry =
          action === 'post'
            ? await postPending(existing.id, { idempotencyKey: key })
            : await voidPending(existing.id, { idempotencyKey: key, reason: request.body?.reason ?? 'voided by operator' });
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
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: { from: { type: 'string', format: 'date-time' }, to: { type: 'string', format: 'date-time' } },
        },
        response: { 200: envelope({ type: 'object', additionalProperties: true }), ...errorResponses },
      },
    },
    async (request) => {
      const p = principalOf(request);
      const from = request.query.from ? new Date(request.query.from) : undefined;
      const to = request.query.to ? new Date(request.query.to) : undefined;
      if (from && to && from > to) throw new ApiError(422, 'VALIDATION_ERROR', 'from must not be after to', { source: { parameter: 'from' } });
      const tb = await trialBalance({ environment: p.environment, from, to });
      return {
        data: {
          environment: tb.environment,
          from: tb.from?.toISOString() ?? null,
          to: tb.to?.toISOString() ?? null,
          balanced: tb.balanced,
          assets: tb.assets.map((a) => ({ asset_code: a.assetCode, total_debits: a.totalDebits, total_credits: a.totalCredits, balanced: a.balanced })),
          accounts: tb.accounts.map((a) => ({
            id: a.id,
            name: a.name,
            kind: a.kind,
            code: a.code,
            asset_code: a.assetCode,
            normal_balance: a.normalBalance,
            debits: a.debits,
            credits: a.credits,
            balance: a.balance,
          })),
        },
      };
    },
  );
}
