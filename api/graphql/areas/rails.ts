/**
 * Payment rails over GraphQL (api/routes/rails): the rails catalog, the caller's rail
 * payments (pay out, list, read one with its history), NACHA ACH files (the file's text in
 * `content`), ACH return files and pacs.002 status reports. Each resolver is one call of the domain
 * function the REST route calls, after the REST body schema (./rest-body).
 */
import { requestAchFile, type AchFile, type RequestEntry } from '../../../domain/ach/files';
import { listRailPayments, railPaymentHistory, type RailPayment, type RailPaymentEvent, type RailPaymentStatus } from '../../../domain/rails';
import type { RailName } from '../../../domain/rails/calendar';
import { railCatalog, type RailCatalogEntry } from '../../../domain/rails/catalog';
import { ingestAchReturns, ingestRailStatusReport } from '../../../domain/rails/inbound-scope';
import type { CreditorAccount, Urgency } from '../../../domain/rails/routing';
import { getRailPaymentView, type RailPaymentView } from '../../../domain/rails/start';
import { startPaymentFromBody, type PaymentBody } from '../../operations/rails/operations';
import { achFileBody, achReturnBody, parseDateRange, paymentBody, statusReportBody, TAG } from '../../operations/rails/schemas';
import { as, mutationRequestKey, type GqlContext } from '../context';
import { PAGE_ARGS, pageOf, paginated, paginateList, paginatorOf, type PageArgs } from '../pagination';
import { restBody } from '../rest';
import type { GraphQLArea } from './types';

const typeDefs = /* GraphQL */ `
  "A rail of the catalog: limits, settlement, cut-offs, calendars and whether it accepts payments now."
  type PaymentRail {
    "ach_standard, ach_same_day, fedwire, rtp, fednow, sepa_ct, sepa_instant or swift."
    rail: ID!
    name: String!
    network: String!
    currencies: [String!]!
    minAmount: Decimal!
    maxAmount: Decimal!
    "instant, same_day, next_day or real_time_gross."
    settlementSpeed: String!
    settlement: String!
    "nacha or pacs.008."
    messageFormat: String!
    "routing_number, iban, bic."
    addressing: [String!]!
    "Sandbox price per payment in the rail's first currency."
    cost: Decimal!
    timeZone: String!
    "Banking days of the rail's calendar, in words."
    businessDays: String!
    "Opening time (local) on banking days; null: open all day."
    opens: String
    "[{ cutoff, settles, settlementDayOffset }] in the rail's local time."
    cutOffTimes: JSON!
    returnWindowBankingDays: Int
    "Holidays of this year and next: [{ date, name }]."
    holidays: JSON!
    "SWIFT: each currency's home-market calendar [{ currency, businessDays, holidays }]."
    settlementCalendars: JSON
    "{ available_now, next_cutoff, next_submission_at, expected_settlement_at, settlement_date, is_banking_day_today, local_time }."
    availability: JSON!
  }

  type RailCreditorAccount {
    name: String!
    iban: String
    accountNumber: String
    routingNumber: String
    bic: String
    country: String
    "checking or savings."
    accountType: String
  }

  type RailPaymentEvent {
    status: String!
    at: DateTime!
    detail: JSON!
  }

  "A payout over a payment rail."
  type RailPayment {
    id: ID!
    "pending, reserved, submitted, settled, completed, rejected, failed or returned."
    status: String!
    "The rail used (auto routing resolved)."
    rail: String!
    "As asked: a rail name or auto."
    requestedRail: String!
    accountId: ID!
    amount: Decimal!
    currency: String!
    creditorAccount: RailCreditorAccount!
    memo: String
    "standard, same_day or instant."
    urgency: String!
    "{ rail, reason, alternatives[] }: why this rail."
    routing: JSON!
    workflowId: String!
    traceNumber: String
    endToEndId: String
    networkReference: String
    settlementDate: String
    expectedSettlementAt: DateTime
    achFileId: ID
    failureCode: String
    failureReason: String
    compensationExecuted: Boolean!
    "The rail message built (pacs.008 XML or the NACHA entry record)."
    railMessage: String
    "The last status report received (pacs.002 XML)."
    statusReport: String
    history: [RailPaymentEvent!]!
    createdAt: DateTime!
    updatedAt: DateTime!
    completedAt: DateTime
    failedAt: DateTime
  }

  "A NACHA ACH file (operators: built or transmitted) or a customer's preview of their queued ACH payments."
  type AchFile {
    "null for a preview (nothing stored)."
    id: ID
    "preview, built or transmitted."
    status: String!
    fileIdModifier: String!
    "The NACHA file itself: 94-character records."
    content: String!
    "Counts, totals, batches and trace numbers."
    summary: JSON!
    paymentIds: [ID!]!
    acknowledgement: String
    transmittedAt: DateTime
  }

  type AchReturnOutcome {
    traceNumber: String!
    returnReasonCode: String!
    reason: String!
    paymentId: ID
    "signalled, reversed, already_compensated or unmatched."
    action: String!
  }

  type RailStatusReportOutcome {
    originalEndToEndId: String
    status: String!
    reasonCode: String
    paymentId: ID
    "signalled, recorded, already_final or unmatched."
    action: String!
  }

  ${paginatorOf('PaymentRail')}
  ${paginatorOf('RailPayment')}

  input RailCreditorAccountInput {
    name: String!
    iban: String
    accountNumber: String
    routingNumber: String
    bic: String
    country: String
    accountType: String
  }

  input RailPaymentInput {
    "The caller's account to debit."
    accountId: ID!
    amount: Decimal!
    currency: String!
    "A rail name, or auto to let routing choose."
    rail: String!
    creditorAccount: RailCreditorAccountInput!
    memo: String
    "standard, same_day or instant."
    urgency: String
  }

  input AchEntryInput {
    "PPD or CCD."
    secCode: String
    "22/32 credit checking/savings, 27/37 debit."
    transactionCode: String!
    routingNumber: String!
    accountNumber: String!
    amount: Decimal!
    name: String!
    individualId: String
    addenda: String
    "YYYY-MM-DD."
    effectiveDate: String!
  }

  input AchFileInput {
    "Operators: build from these entries (else from the queued ACH payments)."
    entries: [AchEntryInput!]
    companyName: String
    companyId: String
    "Operators: hand the file to the ACH operator."
    transmit: Boolean
  }

  extend type Query {
    "Rails offered, with limits, settlement, cut-offs, calendars and availability now."
    paymentRails(${PAGE_ARGS}): PaymentRailPaginator!
    "The caller's rail payments, newest first; createdAt from startDate (inclusive) to endDate (exclusive)."
    railPayments(${PAGE_ARGS}, status: String, rail: String, accountId: ID, currency: String, startDate: DateTime, endDate: DateTime): RailPaymentPaginator!
    railPayment(id: ID!): RailPayment!
  }

  extend type Mutation {
    "Pay out over a rail (or rail auto); a Temporal workflow reserves, screens, submits, settles or compensates."
    createRailPayment(input: RailPaymentInput!): RailPayment!
    "Operators: build (and transmit) a NACHA file; customers: a preview of their queued ACH payments (no entries, no transmit)."
    buildAchFile(input: AchFileInput): AchFile!
    "Ingest a NACHA return file (sandbox: own payments; production: operators)."
    ingestAchReturns(file: String!): [AchReturnOutcome!]!
    "Ingest a pacs.002 status report (sandbox: own payments; production: operators)."
    ingestRailStatusReport(message: String!): [RailStatusReportOutcome!]!
  }
`;

type CreditorInput = { name: string; iban?: string; accountNumber?: string; routingNumber?: string; bic?: string; country?: string; accountType?: string };
type PaymentInput = { accountId: string; amount: string; currency: string; rail: string; creditorAccount: CreditorInput; memo?: string; urgency?: string };
type EntryInput = {
  secCode?: string;
  transactionCode: string;
  routingNumber: string;
  accountNumber: string;
  amount: string;
  name: string;
  individualId?: string;
  addenda?: string;
  effectiveDate: string;
};
type FileInput = { entries?: EntryInput[]; companyName?: string; companyId?: string; transmit?: boolean };
type ListArgs = PageArgs & { status?: string; rail?: string; accountId?: string; currency?: string; startDate?: Date; endDate?: Date };

/** A payment as the single-payment answer shows it (with history) or as a list item (history on demand). */
type PaymentNode = RailPayment & { history?: RailPaymentEvent[] };
const node = (v: RailPaymentView): PaymentNode => ({ ...v.payment, history: v.history });
const iso = (d?: Date | null) => (d ? d.toISOString() : undefined);

export const railsArea = (): GraphQLArea => ({
  typeDefs,
  resolvers: {
    Query: {
      paymentRails: async (_: unknown, args: PageArgs, ctx: GqlContext) => {
        await as(ctx, { tag: TAG });
        return paginateList(railCatalog(new Date()), args);
      },
      railPayments: async (_: unknown, args: ListArgs, ctx: GqlContext) => {
        const c = await as(ctx, { tag: TAG });
        const { startDate, endDate } = parseDateRange({ start_date: iso(args.startDate), end_date: iso(args.endDate) });
        const p = pageOf(args);
        const { items, total } = await listRailPayments({
          userId: c.userId,
          environment: c.environment,
          status: (args.status ?? undefined) as RailPaymentStatus | undefined,
          rail: (args.rail ?? undefined) as RailName | undefined,
          accountId: args.accountId ?? undefined,
          currency: args.currency?.toUpperCase(),
          startDate,
          endDate,
          offset: p.offset,
          limit: p.perPage,
        });
        return paginated(items, total, p);
      },
      railPayment: async (_: unknown, args: { id: string }, ctx: GqlContext) => node(await getRailPaymentView((await as(ctx, { tag: TAG })).principal, args.id)),
    },
    Mutation: {
      createRailPayment: async (_: unknown, { input }: { input: PaymentInput }, ctx: GqlContext) => {
        const c = await as(ctx, { permission: 'write', tag: TAG });
        const cr = input.creditorAccount;
        const b = restBody<PaymentBody>(paymentBody, {
          account_id: input.accountId,
          amount: input.amount,
          currency: input.currency,
          rail: input.rail,
          creditor_account: {
            name: cr.name,
            iban: cr.iban,
            account_number: cr.accountNumber,
            routing_number: cr.routingNumber,
            bic: cr.bic,
            country: cr.country,
            account_type: cr.accountType,
          },
          memo: input.memo,
          urgency: input.urgency,
        });
        const view = await startPaymentFromBody(c, b, mutationRequestKey(ctx));
        return node(view);
      },
      buildAchFile: async (_: unknown, { input }: { input?: FileInput | null }, ctx: GqlContext) => {
        const c = await as(ctx, { permission: 'write', tag: TAG });
        const i = input ?? {};
        const b = restBody<{ entries?: RequestEntry[]; company_name?: string; company_id?: string; transmit?: boolean }>(achFileBody, {
          entries: i.entries?.map((e) => ({
            sec_code: e.secCode,
            transaction_code: e.transactionCode,
            routing_number: e.routingNumber,
            account_number: e.accountNumber,
            amount: e.amount,
            name: e.name,
            individual_id: e.individualId,
            addenda: e.addenda,
            effective_date: e.effectiveDate,
          })),
          company_name: i.companyName,
          company_id: i.companyId,
          transmit: i.transmit,
        });
        return requestAchFile(c.principal, { entries: b.entries, companyName: b.company_name, companyId: b.company_id, transmit: b.transmit }, new Date());
      },
      ingestAchReturns: async (_: unknown, args: { file: string }, ctx: GqlContext) => {
        const c = await as(ctx, { permission: 'write', tag: TAG });
        const b = restBody<{ file: string }>(achReturnBody, { file: args.file });
        return ingestAchReturns(c.principal, b.file);
      },
      ingestRailStatusReport: async (_: unknown, args: { message: string }, ctx: GqlContext) => {
        const c = await as(ctx, { permission: 'write', tag: TAG });
        return ingestRailStatusReport(c.principal, restBody<{ message: string }>(statusReportBody, { message: args.message }).message);
      },
    },
    PaymentRail: {
      rail: (e: RailCatalogEntry) => e.rail.name,
      name: (e: RailCatalogEntry) => e.rail.display_name,
      network: (e: RailCatalogEntry) => e.rail.network,
      currencies: (e: RailCatalogEntry) => e.rail.currencies,
      minAmount: (e: RailCatalogEntry) => e.rail.min_amount,
      maxAmount: (e: RailCatalogEntry) => e.rail.max_amount,
      settlementSpeed: (e: RailCatalogEntry) => e.rail.settlement_speed,
      settlement: (e: RailCatalogEntry) => e.rail.settlement_description,
      messageFormat: (e: RailCatalogEntry) => e.rail.message_format,
      addressing: (e: RailCatalogEntry) => e.rail.addressing,
      cost: (e: RailCatalogEntry) => e.rail.cost,
      timeZone: (e: RailCatalogEntry) => e.rail.time_zone,
      opens: (e: RailCatalogEntry) => (e.rail.opens ? `${e.rail.opens}${e.rail.opens_previous_evening ? ' (previous evening)' : ''}` : null),
      cutOffTimes: (e: RailCatalogEntry) => e.rail.windows ?? [],
      returnWindowBankingDays: (e: RailCatalogEntry) => e.rail.return_window_banking_days ?? null,
    },
    RailPayment: {
      creditorAccount: (p: RailPayment) => p.creditor,
      history: (p: PaymentNode) => p.history ?? railPaymentHistory(p.id),
    },
    RailCreditorAccount: {
      accountNumber: (c: CreditorAccount) => c.account_number ?? null,
      routingNumber: (c: CreditorAccount) => c.routing_number ?? null,
      accountType: (c: CreditorAccount) => c.account_type ?? null,
    },
    RailPaymentEvent: {
      at: (h: RailPaymentEvent) => h.occurredAt,
    },
    AchFile: {
      transmittedAt: (f: AchFile) => f.transmittedAt,
    },
    AchReturnOutcome: {
      traceNumber: (o: { trace_number: string }) => o.trace_number,
      returnReasonCode: (o: { return_reason_code: string }) => o.return_reason_code,
      paymentId: (o: { payment_id: string | null }) => o.payment_id,
    },
    RailStatusReportOutcome: {
      originalEndToEndId: (o: { original_end_to_end_id: string | null }) => o.original_end_to_end_id,
      reasonCode: (o: { reason_code: string | null }) => o.reason_code,
      paymentId: (o: { payment_id: string | null }) => o.payment_id,
    },
  },
});
