import type { FastifyInstance } from 'fastify';
import { createRailActivities } from '../../../activities/rails';
import { ingestReturnFile, requestAchFile, type RequestEntry } from '../../../domain/ach/files';
import { createRailPayment, getRailPayment, listRailPayments, railPaymentHistory, type RailPayment, type RailPaymentStatus } from '../../../domain/rails';
import { calendarDescription, holidays, RAIL_NAMES, RAILS, railAvailability, zoned, type RailName } from '../../../domain/rails/calendar';
import type { CreditorAccount, Urgency } from '../../../domain/rails/routing';
import { ingestStatusReport } from '../../../domain/rails/inbound';
import { signalAchReturn, signalRailSettlement, startRailPaymentWorkflow } from '../../../domain/rails/workflow';
import type { Principal } from '../../../domain/auth/principal';
import { ApiError, notFound } from '../../errors';
import { pageParams, paginate } from '../../pagination';
import { decimalString, envelope, errorResponses, paginatedEnvelope, paginationQuery, timestamp } from '../../schemas';
import { principalOf } from '../../types';

const TAG = 'Payment rails';

const creditorSchema = {
  type: 'object',
  required: ['name'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 140 },
    iban: { type: 'string', minLength: 15, maxLength: 34 },
    account_number: { type: 'string', pattern: '^[0-9A-Za-z-]{1,17}$' },
    routing_number: { type: 'string', pattern: '^[0-9]{9}$' },
    bic: { type: 'string', pattern: '^[A-Z]{6}[A-Z0-9]{2}([A-Z0-9]{3})?$' },
    country: { type: 'string', pattern: '^[A-Z]{2}$' },
    account_type: { type: 'string', enum: ['checking', 'savings'] },
  },
};

const paymentSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    status: { type: 'string', enum: ['pending', 'reserved', 'submitted', 'settled', 'completed', 'rejected', 'failed', 'returned'] },
    rail: { type: 'string' },
    requested_rail: { type: 'string' },
    account_id: { type: 'string' },
    amount: { type: 'string' },
    currency: { type: 'string' },
    creditor_account: { type: 'object', additionalProperties: true },
    memo: { type: ['string', 'null'] },
    urgency: { type: 'string' },
    routing: {
      type: 'object',
      properties: {
        rail: { type: 'string' },
        reason: { type: 'string' },
        alternatives: { type: 'array', items: { type: 'object', additionalProperties: true } },
      },
    },
    workflow_id: { type: 'string' },
    trace_number: { type: ['string', 'null'] },
    end_to_end_id: { type: ['string', 'null'] },
    network_reference: { type: ['string', 'null'] },
    settlement_date: { type: ['string', 'null'] },
    expected_settlement_at: { type: ['string', 'null'] },
    ach_file_id: { type: ['string', 'null'] },
    failure: { type: ['object', 'null'], properties: { code: { type: 'string' }, reason: { type: 'string' } } },
    compensation_executed: { type: 'boolean' },
    rail_message: { type: ['string', 'null'] },
    status_report: { type: ['string', 'null'] },
    history: {
      type: 'array',
      items: { type: 'object', properties: { status: { type: 'string' }, at: timestamp, detail: { type: 'object', additionalProperties: true } } },
    },
    created_at: timestamp,
    updated_at: timestamp,
    completed_at: { type: ['string', 'null'] },
    failed_at: { type: ['string', 'null'] },
  },
};

/** A list item: the payment without its messages and history (GET /payments/{id} has them). */
function presentSummary(p: RailPayment) {
  const { rail_message: _m, status_report: _s, history: _h, ...rest } = presentFields(p, []);
  return rest;
}

async function present(p: RailPayment) {
  return presentFields(p, await railPaymentHistory(p.id));
}

function presentFields(p: RailPayment, history: Awaited<ReturnType<typeof railPaymentHistory>>) {
  return {
    id: p.id,
    status: p.status,
    rail: p.rail,
    requested_rail: p.requestedRail,
    account_id: p.accountId,
    amount: p.amount,
    currency: p.currency,
    creditor_account: p.creditor,
    memo: p.memo,
    urgency: p.urgency,
    routing: p.routing,
    workflow_id: p.workflowId,
    trace_number: p.traceNumber,
    end_to_end_id: p.endToEndId,
    network_reference: p.networkReference,
    settlement_date: p.settlementDate,
    expected_settlement_at: p.expectedSettlementAt?.toISOString() ?? null,
    ach_file_id: p.achFileId,
    failure: p.failureCode ? { code: p.failureCode, reason: p.failureReason ?? '' } : null,
    compensation_executed: p.compensationExecuted,
    rail_message: p.railMessage,
    status_report: p.statusReport,
    history: history.map((h) => ({ status: h.status, at: h.occurredAt.toISOString(), detail: h.detail })),
    created_at: p.createdAt.toISOString(),
    updated_at: p.updatedAt.toISOString(),
    completed_at: p.completedAt?.toISOString() ?? null,
    failed_at: p.failedAt?.toISOString() ?? null,
  };
}

const achEntrySchema = {
  type: 'object',
  required: ['transaction_code', 'routing_number', 'account_number', 'amount', 'name', 'effective_date'],
  additionalProperties: false,
  properties: {
    sec_code: { type: 'string', enum: ['PPD', 'CCD'] },
    transaction_code: { type: 'string', enum: ['22', '27', '32', '37'], description: '22/32 credit checking/savings, 27/37 debit' },
    routing_number: { type: 'string', pattern: '^[0-9]{9}$' },
    account_number: { type: 'string', pattern: '^[0-9A-Za-z-]{1,17}$' },
    amount: decimalString,
    name: { type: 'string', minLength: 1, maxLength: 22 },
    individual_id: { type: 'string', maxLength: 15 },
    addenda: { type: 'string', maxLength: 80 },
    effective_date: { type: 'string', format: 'date' },
  },
};

/**
 * Who may feed rail messages in, and about which payments. Sandbox: the caller plays the rail for
 * their own sandbox payments. Production: a customer must never settle, reject or return their
 * own payment, so only operators (the bank-partner integration's service user) may, for any
 * production payment.
 */
function inboundScope(pr: Principal): { environment: Principal['environment']; userId: string | null } {
  if (pr.environment === 'sandbox') return { environment: 'sandbox', userId: pr.userId };
  if (!pr.isAdmin) throw new ApiError(403, 'ADMIN_REQUIRED', 'In production, rail status messages and return files are accepted from platform operators only');
  return { environment: pr.environment, userId: null };
}

export default async function paymentRailRoutes(app: FastifyInstance) {
  app.get(
    '/rails',
    {
      schema: {
        tags: [TAG],
        summary: 'Rails offered, with limits, settlement, cut-offs, calendars and availability now',
        description:
          'Every rail: currencies, per-payment limits, settlement speed, cut-off windows in the rail\'s own time zone, the banking calendar ' +
          '(US Federal Reserve holidays for US rails, TARGET2 closing days for SEPA, UK bank holidays for the London SWIFT desk, and for SWIFT the ' +
          'calendar of each currency\'s market that sets the value date) for this and next year, and whether it accepts payments right now.',
        response: { 200: envelope({ type: 'array', items: { type: 'object', additionalProperties: true } }), ...errorResponses },
      },
    },
    async () => {
      const now = new Date();
      return {
        data: RAIL_NAMES.map((name) => {
          const r = RAILS[name];
          const year = parseInt(zoned(now, r.time_zone).date.slice(0, 4), 10);
          return {
            rail: r.name,
            name: r.display_name,
            network: r.network,
            currencies: r.currencies,
            limits: { min_amount: r.min_amount, max_amount: r.max_amount, currency: r.currencies[0] },
            settlement_speed: r.settlement_speed,
            settlement: r.settlement_description,
            message_format: r.message_format,
            addressing: r.addressing,
            cost: r.cost,
            time_zone: r.time_zone,
            business_days: calendarDescription(r.calendar),
            opens: r.opens ? `${r.opens}${r.opens_previous_evening ? ' (previous evening)' : ''}` : null,
            cut_off_times: (r.windows ?? []).map((w) => ({ cutoff: w.cutoff, settles: w.settles, settlement_day_offset: w.settlementDayOffset })),
            return_window_banking_days: r.return_window_banking_days ?? null,
            holidays: [...holidays(r.calendar, year), ...holidays(r.calendar, year + 1)],
            // SWIFT: each currency's value dates follow its home market's calendar.
            ...(r.settlement_calendars
              ? {
                  settlement_calendars: Object.entries(r.settlement_calendars).map(([currency, cal]) => ({
                    currency,
                    business_days: calendarDescription(cal),
                    holidays: [...holidays(cal, year), ...holidays(cal, year + 1)],
                  })),
                }
              : {}),
            ...railAvailability(name, now),
          };
        }),
      };
    },
  );

  app.post<{ Body: { account_id: string; amount: string; currency: string; rail: string; creditor_account: CreditorAccount; memo?: string; urgency?: Urgency } }>(
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
        body: {
          type: 'object',
          required: ['account_id', 'amount', 'currency', 'rail', 'creditor_account'],
          additionalProperties: false,
          properties: {
            account_id: { type: 'string', minLength: 1, maxLength: 64 },
            amount: decimalString,
            currency: { type: 'string', pattern: '^[A-Za-z]{3}$' },
            rail: { type: 'string', enum: ['auto', ...RAIL_NAMES] },
            creditor_account: creditorSchema,
            memo: { type: 'string', maxLength: 140 },
            urgency: { type: 'string', enum: ['standard', 'same_day', 'instant'] },
          },
        },
        response: { 201: envelope(paymentSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const pr = principalOf(request);
      const b = request.body;
      const p = await createRailPayment({
        userId: pr.userId,
        environment: pr.environment,
        accountId: b.account_id,
        amount: b.amount,
        currency: b.currency.toUpperCase(),
        rail: b.rail,
        creditor: b.creditor_account,
        memo: b.memo,
        urgency: b.urgency,
        now: new Date(),
      });
      await startRailPaymentWorkflow(p).catch(() => {
        throw new ApiError(503, 'WORKFLOW_UNAVAILABLE', 'The payment could not be started; nothing was moved. Retry later.');
      });
      return reply.code(201).send({ data: await present(p) });
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
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            ...paginationQuery,
            status: { type: 'string', enum: ['pending', 'reserved', 'submitted', 'settled', 'completed', 'rejected', 'failed', 'returned'] },
            rail: { type: 'string', enum: RAIL_NAMES },
            account_id: { type: 'string', minLength: 1, maxLength: 64 },
            currency: { type: 'string', pattern: '^[A-Za-z]{3}$' },
            start_date: { type: 'string', format: 'date-time' },
            end_date: { type: 'string', format: 'date-time' },
          },
        },
        response: { 200: paginatedEnvelope(paymentSchema), ...errorResponses },
      },
    },
    async (request) => {
      const pr = principalOf(request);
      const q = request.query;
      const startDate = q.start_date ? new Date(q.start_date) : undefined;
      const endDate = q.end_date ? new Date(q.end_date) : undefined;
      if (startDate && endDate && startDate >= endDate) throw new ApiError(422, 'INVALID_DATE_RANGE', 'start_date must be before end_date', { source: { parameter: 'start_date' } });
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
      return paginate(request, items.map(presentSummary), total, pp);
    },
  );

  app.get<{ Params: { id: string } }>(
    '/payments/:id',
    {
      schema: {
        tags: [TAG],
        summary: 'A rail payment with its status history',
        params: { type: 'object', required: ['id'], properties: { id: { type: 'string', maxLength: 64 } } },
        response: { 200: envelope(paymentSchema), ...errorResponses },
      },
    },
    async (request) => {
      const pr = principalOf(request);
      const p = await getRailPayment(request.params.id, { userId: pr.userId, environment: pr.environment });
      if (!p) throw notFound('Payment');
      return { data: await present(p) };
    },
  );

  app.post<{ Body: { entries?: RequestEntry[]; company_name?: string; company_id?: string; transmit?: boolean } }>(
    '/ach/files',
    {
      schema: {
        tags: [TAG],
        summary: 'Build a NACHA ACH file (operators); preview your queued ACH payments (customers)',
        description:
          'Operators: from `entries` when given, else from the environment\'s submitted ACH payments not yet in a file (the queue the scheduled ' +
          'file workflow sends before every ACH cut-off). `transmit` hands the file to the ACH operator (sandbox operator in sandbox); only a ' +
          'transmitted file takes its payments out of the queue (they settle on their effective date once the operator has them); without ' +
          '`transmit` the file is stored as built and the payments wait for the next transmitted file. Customers: building from `entries` and ' +
          '`transmit` are 403 ADMIN_REQUIRED (nothing is debited for arbitrary entries; your money reaches an ACH file only through a payment, ' +
          'POST /payments with an ACH rail); without them you get a read-only preview of your own queued payments as a file (status `preview`, ' +
          '`id` null, nothing stored or claimed). Batches by SEC code (PPD/CCD) and effective date; 94-character records, blocking factor 10. ' +
          'JSON answer carries `content` and a summary; with Accept: text/plain the file itself.',
        body: {
          type: 'object',
          additionalProperties: false,
          properties: {
            entries: { type: 'array', minItems: 1, maxItems: 100000, items: achEntrySchema },
            company_name: { type: 'string', maxLength: 16 },
            company_id: { type: 'string', maxLength: 10 },
            transmit: { type: 'boolean', default: false },
          },
        },
        response: {
          201: envelope({
            type: 'object',
            properties: {
              id: { type: ['string', 'null'] },
              status: { type: 'string', enum: ['preview', 'built', 'transmitted'] },
              file_id_modifier: { type: 'string' },
              content: { type: 'string' },
              summary: { type: 'object', additionalProperties: true },
              payment_ids: { type: 'array', items: { type: 'string' } },
              acknowledgement: { type: ['string', 'null'] },
              transmitted_at: { type: ['string', 'null'] },
            },
          }),
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const pr = principalOf(request);
      const b = request.body ?? {};
      const f = await requestAchFile(pr, { entries: b.entries, companyName: b.company_name, companyId: b.company_id, transmit: b.transmit }, new Date());
      const accept = String(request.headers.accept ?? '');
      if (accept.includes('text/plain') && !accept.includes('application/json')) {
        return reply.code(201).type('text/plain; charset=utf-8').header('content-disposition', `attachment; filename="${f.id ?? 'preview'}.ach"`).serializer((x: unknown) => x as string).send(f.content);
      }
      return reply.code(201).send({
        data: {
          id: f.id,
          status: f.status,
          file_id_modifier: f.fileIdModifier,
          content: f.content,
          summary: f.summary,
          payment_ids: f.paymentIds,
          acknowledgement: f.acknowledgement,
          transmitted_at: f.transmittedAt?.toISOString() ?? null,
        },
      });
    },
  );

  app.post<{ Body: { file: string } }>(
    '/ach/returns',
    {
      schema: {
        tags: [TAG],
        summary: 'Ingest an ACH return file (NACHA)',
        description:
          'Each return entry (addenda 99) names the original trace number and reason (R01...). Its payment is compensated: a running workflow gets the ' +
          'return as a signal and reverses the posted entry; a completed payment is reversed here. Unknown trace numbers are reported as unmatched. ' +
          'Sandbox keys apply returns to their own payments (the caller plays the RDFI); in production only platform operators may post return files.',
        body: { type: 'object', required: ['file'], additionalProperties: false, properties: { file: { type: 'string', minLength: 94, maxLength: 10_000_000 } } },
        response: { 200: envelope({ type: 'array', items: { type: 'object', additionalProperties: true } }), ...errorResponses },
      },
    },
    async (request) => {
      const acts = createRailActivities();
      const out = await ingestReturnFile(request.body.file, inboundScope(principalOf(request)), signalAchReturn, async (paymentId, code, reason) => {
        const p = (await getRailPayment(paymentId))!;
        await acts.compensateRailPayment({ paymentId, workflowId: p.workflowId, status: 'returned', code, reason });
      });
      return { data: out };
    },
  );
  app.post<{ Body: { message: string } }>(
    '/status-reports',
    {
      schema: {
        tags: [TAG],
        summary: 'Ingest a rail status report (pacs.002) for submitted payments',
        description:
          'The inbound path of the ISO 20022 rails (Fedwire, RTP, FedNow, SEPA, SWIFT): `message` is a pacs.002 (any version the ISO 20022 module ' +
          'knows; XSD-validated). Each TxInfAndSts is matched to its payment by OrgnlEndToEndId (and OrgnlMsgId when given). ACSC settles and RJCT ' +
          'rejects the payment through its running workflow (signal `railSettlement`; a rejection voids the reservation with the ISO reason code); ' +
          'interim statuses (ACSP, ACTC, PDNG ...) are recorded. Per transaction the answer says signalled, recorded, already_final or unmatched. ' +
          'Sandbox keys report on their own payments (the caller plays the rail); in production only platform operators may post.',
        body: {
          type: 'object',
          required: ['message'],
          additionalProperties: false,
          properties: { message: { type: 'string', minLength: 50, maxLength: 1_000_000, description: 'pacs.002 XML' } },
        },
        response: {
          200: envelope({
            type: 'array',
            items: {
              type: 'object',
              properties: {
                original_end_to_end_id: { type: ['string', 'null'] },
                status: { type: 'string' },
                reason_code: { type: ['string', 'null'] },
                payment_id: { type: ['string', 'null'] },
                action: { type: 'string', enum: ['signalled', 'recorded', 'already_final', 'unmatched'] },
              },
            },
          }),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const out = await ingestStatusReport(request.body.message, inboundScope(principalOf(request)), signalRailSettlement);
      return { data: out };
    },
  );
}
