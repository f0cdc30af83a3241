import type { FastifyInstance } from 'fastify';
import { listRailPayments, type RailPaymentStatus } from '../../../domain/rails';
import type { RailName } from '../../../domain/rails/calendar';
import { getRailPaymentView } from '../../../domain/rails/start';
import { pageParams, paginate } from '../../pagination';
import { envelope, errorResponses, paginatedEnvelope } from '../../schemas';
import { principalOf } from '../../types';
import { requestKeyOf } from '../../plugins/idempotency';
import { presentRailPayment, presentRailPaymentSummary } from '../../operations/rails/presenters';
import { idParams, parseDateRange, paymentBody, paymentListQuery, paymentSchema, TAG } from '../../operations/rails/schemas';
import { type PaymentBody, startPaymentFromBody } from '../../operations/rails/operations';

export function paymentRoutes(app: FastifyInstance) {
  app.post<{ Body: PaymentBody }>(
    '/payments',
    {
      schema: {
        tags: [TAG],
        summary: 'Pay out over a rail (or let auto routing choose)',
        description:
          'Debits account_id (the caller\'s) and pays creditor_account over `rail`, or with rail "auto" picks a rail by amount, currency, the creditor\'s ' +
          'reachable rails (IBAN: SEPA/SWIFT; US routing number: ACH/Fedwire/RTP/FedNow), urgency, cut-offs and price; `routing` says which and why. ' +
          'A Temporal workflow reserves, screens, builds the message (pacs.008 or NACHA), submits, waits for settlement, posts; rejection, timeout or ' +
          'return compensates (void or reversal) with the rail\'s reason code. Sandbox magic values in creditor name or memo: REJECT:<code>, RETURN:<Rnn> (ACH), TIMEOUT.',
        body: paymentBody,
        response: { 201: envelope(paymentSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const view = await startPaymentFromBody(principalOf(request), request.body, requestKeyOf(request));
      return reply.code(201).send({ data: presentRailPayment(view) });
    },
  );

  app.get<{
    Querystring: { page?: number; per_page?: number; status?: RailPaymentStatus; rail?: RailName; account_id?: string; currency?: string; start_date?: string; end_date?: string };
  }>(
    '/payments',
    {
      schema: {
        tags: [TAG],
        summary: "The caller's rail payments, newest first, paginated",
        description:
          'Filters: status, rail, account_id, currency, and created_at from start_date (inclusive) to end_date (exclusive). Items leave out the rail ' +
          'message, the last status report and the history: GET /payments/{id} has them.',
        querystring: paymentListQuery,
        response: { 200: paginatedEnvelope(paymentSchema), ...errorResponses },
      },
    },
    async (request) => {
      const pr = principalOf(request);
      const q = request.query;
      const { startDate, endDate } = parseDateRange(q);
      const pp = pageParams(q);
      const { items, total } = await listRailPayments({
        userId: pr.userId,
        environment: pr.environment,
        status: q.status,
        rail: q.rail,
        accountId: q.account_id,
        currency: q.currency?.toUpperCase(),
        startDate,
        endDate,
        offset: pp.offset,
        limit: pp.perPage,
      });
      return paginate(request, items.map(presentRailPaymentSummary), total, pp);
    },
  );

  app.get<{ Params: { id: string } }>(
    '/payments/:id',
    {
      schema: {
        tags: [TAG],
        summary: 'A rail payment with its status history',
        params: idParams,
        response: { 200: envelope(paymentSchema), ...errorResponses },
      },
    },
    async (request) => ({ data: presentRailPayment(await getRailPaymentView(principalOf(request), request.params.id)) }),
  );
}
