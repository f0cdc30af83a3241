/**
 * Microfinance over GraphQL (docs/microfinance-loans.md, microfinance-provisioning.md,
 * microfinance-teller.md): joint-liability groups, loan products, group loans and repayments,
 * IFRS 9 provisioning, and teller cash (./microfinance-teller.ts). Each resolver checks the input
 * against the REST route's schema (api/routes/microfinance/*-schemas.ts) and makes the one domain
 * call its REST route makes; the domain objects carry the REST fields in camelCase. REST lists that
 * are whole (a group's loans, a schedule, the report) are one page here.
 */
import type { FastifyInstance } from 'fastify';
import { activateGroup, answerInvitation, closeGroup, createGroup, getGroup, listGroups } from '../../../domain/microfinance/groups';
import { applyForLoan, approveLoan, disburseLoan, getLoan, listGroupLoans, rejectLoan, repayLoan, writeOffLoan, type Loan } from '../../../domain/microfinance/loans';
import { createLoanProduct, listLoanProducts } from '../../../domain/microfinance/products';
import {
  createProvisionPolicy,
  getLoanProvision,
  listProvisionPolicies,
  listProvisionRuns,
  portfolioReport,
  runDateOrToday,
  runProvisioningForEnvironment,
} from '../../../domain/microfinance/provisioning';
import { getLoanView, loanSchedule } from '../../../domain/microfinance/view';
import type { Principal } from '../../../domain/auth/principal';
import { acceptBody, applyBody, groupBody, productBody, repaymentBody, TAG } from '../../operations/microfinance/loans-schemas';
import { policyBody, portfolioQuery, presentPolicy, presentPortfolio, runBody, runsQuery } from '../../operations/microfinance/provisioning-schemas';
import { as, type GqlContext } from '../context';
import { pageOf, paginated, paginateList, type PageArgs } from '../pagination';
import { camelize, restBody, restInput } from '../rest';
import { microfinanceTypeDefs } from './microfinance-schema';
import { tellerMutations, tellerQueries } from './microfinance-teller';
import { tellerTypeDefs } from './microfinance-teller-schema';
import type { GraphQLArea } from './types';

type Id = { id: string };
type Input = { input: Record<string, unknown> };
type GroupBody = { name: string; liability_type?: 'joint'; members: Array<{ user_id: string; account_id?: string; role?: 'leader' | 'member' }> };
type ProductBody = {
  name: string; currency: string; principal_min: string; principal_max: string; annual_interest_rate: string; interest_method: 'flat' | 'declining_balance';
  term_instalments: number; repayment_frequency: 'weekly' | 'biweekly' | 'monthly'; grace_instalments?: number; arrears_tolerance_days?: number; disbursement_fee?: string;
};
type MemberArg = { userId: string; accountId?: string | null; role?: string | null };

const read = (ctx: GqlContext) => as(ctx, { tag: TAG });
const write = (ctx: GqlContext, admin = false) => as(ctx, { permission: 'write', tag: TAG, admin });
const pageQuery = (args: PageArgs) => {
  const p = pageOf(args);
  return { p, q: { limit: p.perPage, offset: p.offset } };
};

/** POST /loans/{id}/{approve,reject,disburse,write-off}: operators. */
const operatorStep = (fn: (p: Principal, id: string) => Promise<Loan>) => async (_: unknown, args: Id, ctx: GqlContext) => {
  return fn((await write(ctx, true)).principal, args.id);
};

export function microfinanceArea(_app: FastifyInstance): GraphQLArea {
  return {
    typeDefs: microfinanceTypeDefs + tellerTypeDefs,
    resolvers: {
      Query: {
        microfinanceGroups: async (_: unknown, args: PageArgs, ctx: GqlContext) => {
          const c = await read(ctx);
          const { p, q } = pageQuery(args);
          const { items, total } = await listGroups(c.principal, q);
          return paginated(items, total, p);
        },
        microfinanceGroup: async (_: unknown, args: Id, ctx: GqlContext) => getGroup((await read(ctx)).principal, args.id),
        loanProducts: async (_: unknown, args: PageArgs, ctx: GqlContext) => {
          const c = await read(ctx);
          const { p, q } = pageQuery(args);
          const { items, total } = await listLoanProducts(c.principal, q);
          return paginated(items, total, p);
        },
        groupLoans: async (_: unknown, args: PageArgs & { groupId: string }, ctx: GqlContext) => paginateList(await listGroupLoans((await read(ctx)).principal, args.groupId), args),
        groupLoan: async (_: unknown, args: Id, ctx: GqlContext) => getLoanView((await read(ctx)).principal, args.id),
        groupLoanSchedule: async (_: unknown, args: PageArgs & { loanId: string }, ctx: GqlContext) =>
          paginateList(await loanSchedule(await getLoan((await read(ctx)).principal, args.loanId)), args),
        groupLoanProvision: async (_: unknown, args: { loanId: string }, ctx: GqlContext) => getLoanProvision((await read(ctx)).principal, args.loanId),
        provisionPolicies: async (_: unknown, args: PageArgs, ctx: GqlContext) => {
          await as(ctx, { tag: TAG, admin: true });
          return paginateList((await listProvisionPolicies()).map((x) => camelize(presentPolicy(x))), args);
        },
        provisioningRuns: async (_: unknown, args: PageArgs & { currency?: string | null }, ctx: GqlContext) => {
          const c = await as(ctx, { tag: TAG, admin: true });
          const qs = restInput<{ currency?: string }>(runsQuery, { currency: args.currency }, 'querystring');
          const { p, q } = pageQuery(args);
          const { items, total } = await listProvisionRuns(c.environment, { currency: qs.currency, ...q });
          return paginated(items, total, p);
        },
        loanPortfolioReport: async (_: unknown, args: PageArgs & { asOf?: string | null }, ctx: GqlContext) => {
          const c = await as(ctx, { tag: TAG, admin: true });
          const qs = restInput<{ as_of?: string }>(portfolioQuery, { asOf: args.asOf }, 'querystring');
          const asOf = runDateOrToday(qs.as_of, null);
          const report = await portfolioReport(c.environment, asOf);
          return paginateList(report.map((x) => camelize(presentPortfolio(x, asOf), ['allowance_by_stage', 'loans_by_stage'])), args);
        },
        ...tellerQueries,
      },
      Mutation: {
        createMicrofinanceGroup: async (_: unknown, { input }: { input: { name: string; liabilityType?: string | null; members: MemberArg[] } }, ctx: GqlContext) => {
          const c = await write(ctx);
          const b = restBody<GroupBody>(groupBody, {
            name: input.name,
            liability_type: input.liabilityType ?? undefined,
            members: input.members.map((m) => ({ user_id: m.userId, account_id: m.accountId ?? undefined, role: m.role ?? undefined })),
          });
          const members = b.members.map((m) => ({ userId: m.user_id, accountId: m.account_id, role: m.role }));
          return createGroup(c.principal, { name: b.name, members, liabilityType: b.liability_type });
        },
        acceptMicrofinanceGroupInvitation: async (_: unknown, args: Id & { accountId?: string | null }, ctx: GqlContext) => {
          const c = await write(ctx);
          const b = restBody<{ account_id?: string }>(acceptBody, args.accountId != null ? { account_id: args.accountId } : {});
          return answerInvitation(c.principal, args.id, { accept: true, accountId: b.account_id });
        },
        declineMicrofinanceGroupInvitation: async (_: unknown, args: Id, ctx: GqlContext) => answerInvitation((await write(ctx)).principal, args.id, { accept: false }),
        activateMicrofinanceGroup: async (_: unknown, args: Id, ctx: GqlContext) => activateGroup((await write(ctx, true)).principal, args.id),
        closeMicrofinanceGroup: async (_: unknown, args: Id, ctx: GqlContext) => closeGroup((await write(ctx, true)).principal, args.id),
        createLoanProduct: async (_: unknown, { input }: Input, ctx: GqlContext) => {
          const c = await write(ctx, true);
          const b = restInput<ProductBody>(productBody, input);
          return createLoanProduct(c.principal, {
            name: b.name, currency: b.currency, principalMin: b.principal_min, principalMax: b.principal_max, annualInterestRate: b.annual_interest_rate,
            interestMethod: b.interest_method, termInstalments: b.term_instalments, repaymentFrequency: b.repayment_frequency, graceInstalments: b.grace_instalments,
            arrearsToleranceDays: b.arrears_tolerance_days, disbursementFee: b.disbursement_fee,
          });
        },
        applyForGroupLoan: async (_: unknown, { groupId, input }: Input & { groupId: string }, ctx: GqlContext) => {
          const c = await write(ctx);
          const b = restInput<{ product_id: string; principal: string; user_id?: string }>(applyBody, input);
          return applyForLoan(c.principal, groupId, { productId: b.product_id, principal: b.principal, userId: b.user_id });
        },
        approveGroupLoan: operatorStep(approveLoan),
        rejectGroupLoan: operatorStep(rejectLoan),
        disburseGroupLoan: operatorStep((p, id) => disburseLoan(p, id)),
        writeOffGroupLoan: operatorStep(writeOffLoan),
        repayGroupLoan: async (_: unknown, args: Id & { amount: string }, ctx: GqlContext) => {
          const c = await write(ctx);
          const b = restBody<{ amount: string }>(repaymentBody, { amount: args.amount });
          return (await repayLoan(c.principal, args.id, { amount: b.amount, idempotencyKey: ctx.idempotencyKey })).loan;
        },
        createProvisionPolicy: async (_: unknown, { input }: Input, ctx: GqlContext) => {
          const c = await write(ctx, true);
          const b = restInput<{ effective_from: string; stages: Array<{ stage: number; pd: string; lgd: string; description?: string }> }>(policyBody, {
            effectiveFrom: input.effectiveFrom,
            stages: (input.stages as Array<Record<string, unknown>>).map((s) => ({ ...s, description: s.description ?? undefined })),
          });
          return camelize(presentPolicy(await createProvisionPolicy({ effectiveFrom: b.effective_from, stages: b.stages, createdBy: c.userId })));
        },
        runProvisioning: async (_: unknown, args: { runDate?: string | null }, ctx: GqlContext) => {
          const c = await write(ctx, true);
          const b = restInput<{ run_date?: string }>(runBody, { runDate: args.runDate });
          return runProvisioningForEnvironment(c.environment, runDateOrToday(b.run_date));
        },
        ...tellerMutations,
      },
    },
  };
}
