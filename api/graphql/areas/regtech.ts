/**
 * Regulatory technology over GraphQL: MiFID II transaction reports (and their file), MiCA checks and
 * the register, Travel Rule checks and the operators' compliance holds. Each resolver is one call of
 * the domain function its REST route calls (api/routes/regtech), with the same rules through `as(ctx, …)`.
 */
import { decideHold, getHoldForOperator, listHolds, type ComplianceHold, type HoldStatus } from '../../../domain/regtech/holds';
import { getOwnMicaCheck, listIssuers, listWhitepapers, registerIssuer, registerWhitepaper, runMicaCheck } from '../../../domain/regtech/mica';
import { createReport, getOwnReport, getOwnReportXml, listInstruments, listOwnReports, registerInstrument, submitReport, type MifidReport, type RegisterInstrumentRequest, type ReportRequest } from '../../../domain/regtech/mifid';
import { reloadSanctionsList, sanctionsStatus, screenForCaller } from '../../../domain/regtech/sanctions';
import { regtechStatus } from '../../../domain/regtech/status';
import { checkTravelRule, getOwnTravelRuleCheck, recordTravelRuleTransfer, type TravelRuleCheck } from '../../../domain/regtech/travel-rule';
import { issuerBody, whitepaperBody } from '../../operations/regtech/mica';
import { instrumentBody } from '../../operations/regtech/mifid';
import { presentListStatus, presentReload, presentScreening, screenBody } from '../../operations/regtech/sanctions';
import { as, type GqlContext } from '../context';
import { pageOf, paginated, paginateList, type PageArgs } from '../pagination';
import { camelize, restInput } from '../rest';
import { typeDefs } from './regtech-schema';
import type { GraphQLArea } from './types';

const TAG = 'Regtech';
/** The register writes' REST routes are filed under Operations (their first tag). */
const OPERATIONS = 'Operations';
type Input = { input: Record<string, unknown> };

type MifidClientArgs = { lei?: string | null; firstName?: string | null; surname?: string | null; birthDate?: string | null; nationality?: string | null; nationalId?: string | null; nationalIdType?: string | null };
type PartyArgs = { name: string; accountNumber?: string | null; institutionName?: string | null; institutionCountry?: string | null; type?: 'natural' | 'legal' | null };
type TravelRuleCheckArgs = { transferId: string; originator: PartyArgs; beneficiary: PartyArgs; amount: string; currency: string; assetType?: string | null; purpose?: string | null; jurisdiction: string };
type TravelRuleTransferArgs = {
  transferId: string;
  originatorName: string;
  originatorAccount?: string | null;
  beneficiaryName: string;
  beneficiaryVaspId?: string | null;
  beneficiaryAccount?: string | null;
  amount: string;
  currency: string;
  jurisdiction?: string | null;
};

/** GraphQL leaves an absent optional as undefined; the REST bodies have no nulls where the domain does not expect them. */
const opt = <T>(v: T | null | undefined): T | undefined => v ?? undefined;

const party = (x: PartyArgs) => ({
  name: x.name,
  account_number: opt(x.accountNumber),
  institution_name: opt(x.institutionName),
  institution_country: opt(x.institutionCountry),
  type: x.type ?? 'natural',
});

const client = (x: MifidClientArgs | null | undefined): ReportRequest['client'] =>
  x
    ? { lei: x.lei, first_name: x.firstName, surname: x.surname, birth_date: x.birthDate, nationality: x.nationality, national_id: x.nationalId, national_id_type: x.nationalIdType as 'NIDN' | 'CCPT' | null | undefined }
    : x;

export function regtechArea(): GraphQLArea {
  return {
    typeDefs,
    resolvers: {
      Query: {
        mifidReports: async (_: unknown, args: PageArgs & { status?: string | null; transactionId?: string | null }, ctx: GqlContext) => {
          const c = await as(ctx, { tag: TAG });
          const p = pageOf(args);
          const { items, total } = await listOwnReports(c.principal, { status: opt(args.status), transaction_id: opt(args.transactionId) }, { perPage: p.perPage, offset: p.offset });
          return paginated(items, total, p);
        },
        mifidReport: async (_: unknown, args: { id: string }, ctx: GqlContext) => getOwnReport((await as(ctx, { tag: TAG })).principal, args.id),
        mifidInstruments: async (_: unknown, args: PageArgs, ctx: GqlContext) => {
          await as(ctx, { tag: TAG });
          return paginateList(await listInstruments(), args);
        },
        micaCheck: async (_: unknown, args: { id: string }, ctx: GqlContext) => getOwnMicaCheck((await as(ctx, { tag: TAG })).principal, args.id),
        micaIssuers: async (_: unknown, args: PageArgs, ctx: GqlContext) => {
          await as(ctx, { tag: TAG });
          return paginateList(await listIssuers(), args);
        },
        micaWhitepapers: async (_: unknown, args: PageArgs, ctx: GqlContext) => {
          await as(ctx, { tag: TAG });
          return paginateList(await listWhitepapers(), args);
        },
        travelRuleCheck: async (_: unknown, args: { id: string }, ctx: GqlContext) => getOwnTravelRuleCheck((await as(ctx, { tag: TAG })).principal, args.id),
        regtechStatus: async (_: unknown, __: unknown, ctx: GqlContext) => regtechStatus((await as(ctx, { tag: TAG })).principal),
        sanctionsListStatus: async (_: unknown, __: unknown, ctx: GqlContext) => {
          await as(ctx, { tag: TAG });
          return camelize(presentListStatus(await sanctionsStatus()));
        },
        complianceHolds: async (_: unknown, args: PageArgs & { status?: HoldStatus | null }, ctx: GqlContext) => {
          const c = await as(ctx, { tag: TAG, admin: true });
          const p = pageOf(args);
          const { items, total } = await listHolds(c.principal, { status: opt(args.status), limit: p.perPage, offset: p.offset });
          return paginated(items, total, p);
        },
        complianceHold: async (_: unknown, args: { id: string }, ctx: GqlContext) => getHoldForOperator((await as(ctx, { tag: TAG, admin: true })).principal, args.id),
      },
      Mutation: {
        createMifidReport: async (_: unknown, { input }: { input: { transactionId: string; reportType: 'NEWT' | 'CANC'; jurisdiction: string; client?: MifidClientArgs | null } }, ctx: GqlContext) => {
          const c = await as(ctx, { permission: 'write', tag: TAG });
          return createReport(c.principal, { transaction_id: input.transactionId, report_type: input.reportType, jurisdiction: input.jurisdiction, client: client(input.client) });
        },
        submitMifidReport: async (_: unknown, args: { id: string }, ctx: GqlContext) => submitReport((await as(ctx, { permission: 'write', tag: TAG })).principal, args.id),
        runMicaCheck: async (_: unknown, { input }: { input: { assetType: string; issuerId: string; whitepaperHash: string } }, ctx: GqlContext) => {
          const c = await as(ctx, { permission: 'write', tag: TAG });
          return runMicaCheck(c.principal, { asset_type: input.assetType, issuer_id: input.issuerId, whitepaper_hash: input.whitepaperHash });
        },
        checkTravelRule: async (_: unknown, { input }: { input: TravelRuleCheckArgs }, ctx: GqlContext) => {
          const c = await as(ctx, { permission: 'write', tag: TAG });
          return checkTravelRule(c.principal, {
            transfer_id: input.transferId,
            originator: party(input.originator),
            beneficiary: party(input.beneficiary),
            transfer_details: { amount: input.amount, currency: input.currency, asset_type: opt(input.assetType), purpose: opt(input.purpose) },
            jurisdiction: input.jurisdiction,
          });
        },
        recordTravelRuleTransfer: async (_: unknown, { input }: { input: TravelRuleTransferArgs }, ctx: GqlContext) => {
          const c = await as(ctx, { permission: 'write', tag: TAG });
          return recordTravelRuleTransfer(c.principal, {
            transfer_id: input.transferId,
            originator: { name: input.originatorName, account: opt(input.originatorAccount) },
            beneficiary: { name: input.beneficiaryName, vasp_id: opt(input.beneficiaryVaspId), account: opt(input.beneficiaryAccount) },
            amount: input.amount,
            currency: input.currency,
            jurisdiction: opt(input.jurisdiction),
          });
        },
        addMicaIssuer: async (_: unknown, { input }: Input, ctx: GqlContext) => {
          const c = await as(ctx, { permission: 'write', tag: OPERATIONS, admin: true });
          return registerIssuer(c.principal, restInput<Parameters<typeof registerIssuer>[1]>(issuerBody, input));
        },
        registerMicaWhitepaper: async (_: unknown, { input }: Input, ctx: GqlContext) => {
          const c = await as(ctx, { permission: 'write', tag: OPERATIONS, admin: true });
          return registerWhitepaper(c.principal, restInput<Parameters<typeof registerWhitepaper>[1]>(whitepaperBody, input));
        },
        registerMifidInstrument: async (_: unknown, { input }: Input, ctx: GqlContext) => {
          const c = await as(ctx, { permission: 'write', tag: OPERATIONS, admin: true });
          return registerInstrument(c.principal, restInput<RegisterInstrumentRequest>(instrumentBody, input));
        },
        screenSanctions: async (_: unknown, args: { names: string[] }, ctx: GqlContext) => {
          await as(ctx, { permission: 'write', tag: TAG });
          return camelize(presentScreening(await screenForCaller(restInput<{ names: string[] }>(screenBody, args).names)));
        },
        reloadSanctionsList: async (_: unknown, __: unknown, ctx: GqlContext) => {
          const c = await as(ctx, { permission: 'write', tag: OPERATIONS, admin: true });
          return camelize(presentReload(await reloadSanctionsList(c.principal)));
        },
        releaseComplianceHold: async (_: unknown, args: { id: string; note?: string | null }, ctx: GqlContext) =>
          decideHold((await as(ctx, { permission: 'write', tag: TAG, admin: true })).principal, args.id, 'release', opt(args.note)),
        rejectComplianceHold: async (_: unknown, args: { id: string; note?: string | null }, ctx: GqlContext) =>
          decideHold((await as(ctx, { permission: 'write', tag: TAG, admin: true })).principal, args.id, 'reject', opt(args.note)),
      },
      MifidReport: {
        xml: async (r: MifidReport, _: unknown, ctx: GqlContext) => (await getOwnReportXml((await as(ctx, { tag: TAG })).principal, r.id)).xml,
      },
      TravelRuleCheck: {
        applicableJurisdiction: (c: TravelRuleCheck) => c.jurisdiction,
        applicableRegulations: (c: TravelRuleCheck) => c.threshold.regulations,
        thresholdAnalysis: (c: TravelRuleCheck) => ({
          amountUsd: c.amountUsd,
          exceedsThreshold: c.exceedsThreshold,
          thresholdAmount: c.threshold.amountUsd,
          fullIdentificationRequired: c.fullIdentificationRequired,
          thresholdCurrency: c.threshold.currency,
          thresholdInCurrency: c.threshold.amount,
          usdRate: c.usdRate,
          usdRateAsOf: new Date(c.usdRateAsOf),
          source: c.threshold.source,
          asOf: c.threshold.asOf,
        }),
        sanctionsScreening: (c: TravelRuleCheck) => ({
          originatorCleared: c.sanctions.originatorCleared,
          beneficiaryCleared: c.sanctions.beneficiaryCleared,
          screeningProvider: c.sanctions.provider,
          screenedAt: c.sanctions.screenedAt,
          listVersion: c.sanctions.listVersion,
        }),
      },
      ComplianceHold: {
        matches: (h: ComplianceHold) => h.screening?.matches ?? [],
        listVersion: (h: ComplianceHold) => h.screening?.listVersion ?? null,
      },
    },
  };
}
