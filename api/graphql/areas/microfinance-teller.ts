/**
 * Teller cash over GraphQL (docs/microfinance-teller.md; REST: api/routes/microfinance/teller.ts):
 * offices and vaults (operators), cashier sessions (tellers; supervisors approve variances) and
 * counter transactions. Part of the microfinance area (./microfinance.ts); SDL in ./microfinance-teller-schema.ts.
 */
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
import { closeBody, fundingBody, officeBody, openBody, sessionsQuery, staffBody, TAG, transactionBody, transactionsQuery } from '../../operations/microfinance/teller-schemas';
import { as, type GqlContext } from '../context';
import { pageOf, paginated, type PageArgs } from '../pagination';
import { restInput } from '../rest';

type Id = { id: string };
type Input = { input: Record<string, unknown> };
type Cash = { currency: string; amount: string };

const read = (ctx: GqlContext) => as(ctx, { tag: TAG });
const write = (ctx: GqlContext, admin = false) => as(ctx, { permission: 'write', tag: TAG, admin });

export const tellerQueries = {
  tellerOffices: async (_: unknown, args: PageArgs, ctx: GqlContext) => {
    const c = await read(ctx);
    const p = pageOf(args);
    const { items, total } = await listOffices(c.principal, { limit: p.perPage, offset: p.offset });
    return paginated(items, total, p);
  },
  tellerSessions: async (_: unknown, args: PageArgs & { officeId?: string | null; status?: string | null }, ctx: GqlContext) => {
    const c = await read(ctx);
    const qs = restInput<{ office_id?: string; status?: SessionStatus }>(sessionsQuery, { officeId: args.officeId, status: args.status }, 'querystring');
    const p = pageOf(args);
    const { items, total } = await listSessions(c.principal, { officeId: qs.office_id, status: qs.status, limit: p.perPage, offset: p.offset });
    return paginated(items, total, p);
  },
  tellerSession: async (_: unknown, args: Id, ctx: GqlContext) => getSession((await read(ctx)).principal, args.id),
  tellerTransactions: async (_: unknown, args: PageArgs & { sessionId: string }, ctx: GqlContext) => {
    const c = await read(ctx);
    const qs = restInput<{ session_id: string }>(transactionsQuery, { sessionId: args.sessionId }, 'querystring');
    const p = pageOf(args);
    const { items, total } = await listTellerTransactions(c.principal, qs.session_id, { limit: p.perPage, offset: p.offset });
    return paginated(items, total, p);
  },
};

export const tellerMutations = {
  createTellerOffice: async (_: unknown, { input }: Input, ctx: GqlContext) => {
    const c = await write(ctx, true);
    return createOffice(c.principal, restInput<{ name: string; external_id?: string; parent_id?: string; fx_spread?: string }>(officeBody, input));
  },
  assignOfficeStaff: async (_: unknown, args: { officeId: string; userId: string; role?: string | null }, ctx: GqlContext) => {
    const c = await write(ctx, true);
    return assignStaff(c.principal, args.officeId, restInput<{ user_id: string; role?: StaffRole }>(staffBody, { userId: args.userId, role: args.role }));
  },
  fundOfficeVault: async (_: unknown, args: Cash & { officeId: string }, ctx: GqlContext) => {
    const c = await write(ctx, true);
    const { office, entry } = await fundVault(c.principal, args.officeId, restInput<Cash>(fundingBody, { currency: args.currency, amount: args.amount }), ctx.idempotencyKey);
    return { office, entryId: entry.id };
  },
  openTellerSession: async (_: unknown, { input }: Input, ctx: GqlContext) => {
    const c = await write(ctx);
    return openSession(c.principal, restInput<{ office_id: string; allocations: Cash[] }>(openBody, input), ctx.idempotencyKey);
  },
  closeTellerSession: async (_: unknown, args: Id & { counted: Cash[] }, ctx: GqlContext) => {
    const c = await write(ctx);
    return closeSession(c.principal, args.id, restInput<{ counted: Cash[] }>(closeBody, { counted: args.counted }), ctx.idempotencyKey);
  },
  approveTellerVariance: async (_: unknown, args: Id, ctx: GqlContext) => approveVariance((await write(ctx)).principal, args.id, ctx.idempotencyKey),
  createTellerTransaction: async (_: unknown, { input }: Input, ctx: GqlContext) => {
    const c = await write(ctx);
    return createTellerTransaction(c.principal, restInput<TellerTransactionInput>(transactionBody, input), ctx.idempotencyKey);
  },
};
