/**
 * Teller cash (domain/microfinance/teller; docs/microfinance-teller.md): offices and their vaults
 * (operators), cashier sessions (tellers; supervisors approve variances) and counter transactions.
 * Mounted under /api/v1/microfinance.
 */
import type { FastifyInstance } from 'fastify';
import {
  approveVariance,
  assignStaff,
  closeSession,
  createOffice,
  createTellerTransaction,
  fundVault,
  getSession,
  listOffices,
  listSessions,
  listTellerTransactions,
  openSession,
  type SessionStatus,
  type StaffRole,
  type TellerTransactionInput,
} from '../../../domain/microfinance/teller';
import { paginate, pageParams } from '../../pagination';
import { envelope, errorResponses, paginatedEnvelope, paginationQuery } from '../../schemas';
import { principalOf } from '../../types';
import {
  TAG,
  closeBody,
  fundingBody,
  fundingSchema,
  idParams,
  officeBody,
  officeSchema,
  openBody,
  presentOffice,
  presentSession,
  presentStaff,
  presentTransaction,
  sessionSchema,
  sessionsQuery,
  staffBody,
  staffSchema,
  transactionBody,
  transactionSchema,
  transactionsQuery,
} from '../../operations/microfinance/teller-schemas';

type Page = { page?: number; per_page?: number };
const emptyBody = { type: 'object', additionalProperties: false, properties: {} };

export function tellerRoutes(app: FastifyInstance) {
  app.post<{ Body: { name: string; external_id?: string; parent_id?: string; fx_spread?: string } }>(
    '/offices',
    {
      config: { admin: true },
      schema: {
        tags: [TAG],
        summary: 'Create an office (branch) (platform operators only)',
        description: 'An office has a vault per currency (an internal ledger account), funded by POST /offices/{id}/vault/funding, and staff: tellers and supervisors.',
        body: officeBody,
        response: { 201: envelope(officeSchema), ...errorResponses },
      },
    },
    async (request, reply) => reply.code(201).send({ data: presentOffice(await createOffice(principalOf(request), request.body)) }),
  );

  app.get<{ Querystring: Page }>(
    '/offices',
    {
      schema: {
        tags: [TAG],
        summary: 'Offices with their vault balances',
        description: "Operators see every office of the key's environment; staff the offices they are teller or supervisor of.",
        querystring: { type: 'object', additionalProperties: false, properties: paginationQuery },
        response: { 200: paginatedEnvelope(officeSchema), ...errorResponses },
      },
    },
    async (request) => {
      const pp = pageParams(request.query);
      const { items, total } = await listOffices(principalOf(request), { limit: pp.perPage, offset: pp.offset });
      return paginate(request, items.map(presentOffice), total, pp);
    },
  );

  app.post<{ Params: { id: string }; Body: { user_id: string; role?: StaffRole } }>(
    '/offices/:id/tellers',
    {
      config: { admin: true },
      schema: {
        tags: [TAG],
        summary: "Assign a user to an office as teller or supervisor (platform operators only)",
        description: 'A teller serves one office (409 TELLER_ALREADY_ASSIGNED otherwise); supervisors approve the cash variances of the offices they supervise. Idempotent.',
        params: idParams,
        body: staffBody,
        response: { 201: envelope(staffSchema), ...errorResponses },
      },
    },
    async (request, reply) => reply.code(201).send({ data: presentStaff(await assignStaff(principalOf(request), request.params.id, request.body)) }),
  );

  app.post<{ Params: { id: string }; Body: { currency: string; amount: string } }>(
    '/offices/:id/vault/funding',
    {
      config: { admin: true },
      schema: {
        tags: [TAG],
        summary: "Fund an office's vault: physical cash arriving (platform operators only)",
        description: 'Posts Dr vault / Cr the funding system account. Keyed by the Idempotency-Key.',
        params: idParams,
        body: fundingBody,
        response: { 201: envelope(fundingSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const { office, entry } = await fundVault(principalOf(request), request.params.id, request.body, request.idempotencyKey);
      return reply.code(201).send({ data: { office: presentOffice(office), entry_id: entry.id } });
    },
  );

  app.post<{ Body: { office_id: string; allocations: Array<{ currency: string; amount: string }> } }>(
    '/teller/sessions',
    {
      schema: {
        tags: [TAG],
        summary: 'Open a cashier session with a float from the office vault (tellers)',
        description:
          'Moves each allocation from the vault to the session\'s till (Dr till / Cr vault, one entry). The caller must be a teller of the office (403 TELLER_NOT_IN_OFFICE); one session that is not closed per teller (409 TELLER_SESSION_ALREADY_OPEN); a vault short of cash is 422 VAULT_INSUFFICIENT_CASH.',
        body: openBody,
        response: { 201: envelope(sessionSchema), ...errorResponses },
      },
    },
    async (request, reply) => reply.code(201).send({ data: presentSession(await openSession(principalOf(request), request.body, request.idempotencyKey)) }),
  );

  app.get<{ Querystring: Page & { office_id?: string; status?: SessionStatus } }>(
    '/teller/sessions',
    {
      schema: {
        tags: [TAG],
        summary: "Cashier sessions: the caller's own, and those of offices they supervise (operators: all)",
        querystring: sessionsQuery,
        response: { 200: paginatedEnvelope(sessionSchema), ...errorResponses },
      },
    },
    async (request) => {
      const pp = pageParams(request.query);
      const { items, total } = await listSessions(principalOf(request), { officeId: request.query.office_id, status: request.query.status, limit: pp.perPage, offset: pp.offset });
      return paginate(request, items.map(presentSession), total, pp);
    },
  );

  app.get<{ Params: { id: string } }>(
    '/teller/sessions/:id',
    { schema: { tags: [TAG], summary: 'One cashier session with its tills', params: idParams, response: { 200: envelope(sessionSchema), ...errorResponses } } },
    async (request) => ({ data: presentSession(await getSession(principalOf(request), request.params.id)) }),
  );

  app.post<{ Params: { id: string }; Body: { counted: Array<{ currency: string; amount: string }> } }>(
    '/teller/sessions/:id/close',
    {
      schema: {
        tags: [TAG],
        summary: 'Close a cashier session with the cash counted (the session\'s teller)',
        description:
          'The counted cash (up to what the till should hold) goes back to the vault. A difference (counted - expected: over or short) leaves the session variance_pending until a supervisor approves it; otherwise it is closed. Every till with cash expected must be counted (422 COUNT_MISSING).',
        params: idParams,
        body: closeBody,
        response: { 200: envelope(sessionSchema), ...errorResponses },
      },
    },
    async (request) => ({ data: presentSession(await closeSession(principalOf(request), request.params.id, request.body, request.idempotencyKey)) }),
  );

  app.post<{ Params: { id: string } }>(
    '/teller/sessions/:id/variance/approve',
    {
      schema: {
        tags: [TAG],
        summary: "Approve a session's cash variance (a supervisor of its office, not its teller)",
        description:
          'Posts the variance (short: Dr cash variance / Cr till; over: Dr vault / Cr cash variance) and closes the session. 403 VARIANCE_SELF_APPROVAL for the session\'s teller, 403 SUPERVISOR_REQUIRED for anyone else who is not a supervisor of the office; 409 VARIANCE_NOT_PENDING.',
        params: idParams,
        body: emptyBody,
        response: { 200: envelope(sessionSchema), ...errorResponses },
      },
    },
    async (request) => ({ data: presentSession(await approveVariance(principalOf(request), request.params.id, request.idempotencyKey)) }),
  );

  app.post<{ Body: TellerTransactionInput }>(
    '/teller/transactions',
    {
      schema: {
        tags: [TAG],
        summary: 'A cash deposit, cash withdrawal or currency exchange at the counter (tellers)',
        description:
          "Within the caller's open session. cash_deposit: Dr till / Cr the customer's account. cash_withdrawal: the reverse, refused beyond the customer's available balance (422 INSUFFICIENT_FUNDS) and beyond the till's cash (422 TILL_INSUFFICIENT_CASH). currency_exchange (walk-in, cash for cash; account_id optional, recorded only): the customer hands `amount` of `currency` and receives `to_amount` of `to_currency` at the latest rate less the office's spread, rounded half-even to the currency's decimals (JPY 0); both legs pass through the FX position account of each currency, and the rates used are stored. Keyed by the Idempotency-Key.",
        body: transactionBody,
        response: { 201: envelope(transactionSchema), ...errorResponses },
      },
    },
    async (request, reply) => reply.code(201).send({ data: presentTransaction(await createTellerTransaction(principalOf(request), request.body, request.idempotencyKey)) }),
  );

  app.get<{ Querystring: Page & { session_id: string } }>(
    '/teller/transactions',
    {
      schema: {
        tags: [TAG],
        summary: "A session's counter transactions (its teller, a supervisor of its office, operators)",
        querystring: transactionsQuery,
        response: { 200: paginatedEnvelope(transactionSchema), ...errorResponses },
      },
    },
    async (request) => {
      const pp = pageParams(request.query);
      const { items, total } = await listTellerTransactions(principalOf(request), request.query.session_id, { limit: pp.perPage, offset: pp.offset });
      return paginate(request, items.map(presentTransaction), total, pp);
    },
  );
}
