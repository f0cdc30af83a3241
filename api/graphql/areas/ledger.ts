/**
 * The double-entry ledger over GraphQL (api/routes/ledger): the chart of ledger accounts (operators
 * see the environment's, customers their own), and for operators one journal entry, manual entries,
 * settlement of pending entries (post / void) and the trial balance. Each resolver is one call of
 * the domain function the REST route calls (domain/ledger/scoped).
 */
import type { LedgerAccountKind } from '../../../domain/ledger';
import { environmentTrialBalance, getEnvironmentEntry, listVisibleLedgerAccounts, postOperatorEntry, settlePendingEntry, type ManualEntryRequest } from '../../../domain/ledger/scoped';
import { manualEntryBody, parseRange, type ManualEntryBody } from '../../operations/ledger/schemas';
import { as, type GqlContext } from '../context';
import { PAGE_ARGS, paginateList, paginatorOf, type PageArgs } from '../pagination';
import { restBody } from '../rest';
import type { GraphQLArea } from './types';

const typeDefs = /* GraphQL */ `
  "A ledger account: a customer's (one per account and asset) or a system account (funding, fees, suspense, settlement, internal)."
  type LedgerAccount {
    "la_…"
    id: ID!
    name: String!
    "customer, funding, fee_revenue, suspense, settlement or internal."
    kind: String!
    code: String
    assetCode: String!
    "debit or credit: the side on which the balance grows."
    normalBalance: String!
    noOverdraft: Boolean!
    status: String!
    "The customer account (kind customer), else null."
    accountId: ID
    debitsPending: Decimal!
    debitsPosted: Decimal!
    creditsPending: Decimal!
    creditsPosted: Decimal!
    "Posted balance on the normal side."
    totalBalance: Decimal!
    "totalBalance less pending outflows."
    availableBalance: Decimal!
    "Pending outflows."
    reservedBalance: Decimal!
    overdraftAllowance: Decimal!
    createdAt: DateTime!
  }

  type LedgerEntryLine {
    "txn_… (a line on a customer ledger account is that customer's transaction)."
    id: ID!
    "The ledger account (la_…)."
    accountId: ID!
    assetCode: String!
    "debit or credit."
    direction: String!
    amount: Decimal!
    "The account's total balance right after this line was posted; null while pending or voided."
    balanceAfter: Decimal
    status: String!
  }

  "A balanced journal entry."
  type LedgerEntry {
    id: ID!
    type: String!
    "pending, posted or voided."
    status: String!
    twoPhase: Boolean!
    description: String
    reference: String
    metadata: JSON!
    reversesEntryId: ID
    reversedByEntryId: ID
    "Set on a forced reversal: [{ accountId, amount }] taken below funds."
    forcedOverdraft: JSON
    pendingExpiresAt: DateTime
    voidReason: String
    createdAt: DateTime!
    postedAt: DateTime
    voidedAt: DateTime
    lines: [LedgerEntryLine!]!
  }

  type TrialBalanceAsset {
    assetCode: String!
    totalDebits: Decimal!
    totalCredits: Decimal!
    balanced: Boolean!
  }

  type TrialBalanceAccount {
    id: ID!
    name: String!
    kind: String!
    code: String
    assetCode: String!
    normalBalance: String!
    debits: Decimal!
    credits: Decimal!
    "debits - credits for debit-normal accounts, credits - debits for credit-normal ones (may be negative)."
    balance: String!
  }

  type TrialBalance {
    environment: String!
    from: DateTime
    to: DateTime
    "true when every asset balances."
    balanced: Boolean!
    assets: [TrialBalanceAsset!]!
    accounts: [TrialBalanceAccount!]!
  }

  ${paginatorOf('LedgerAccount')}

  enum LedgerDirection {
    debit
    credit
  }

  input LedgerEntryLineInput {
    "A ledger account (la_…)."
    accountId: ID!
    direction: LedgerDirection!
    amount: Decimal!
  }

  input LedgerEntryInput {
    "Default manual."
    type: String
    description: String
    reference: String
    "true: two-phase (pending until posted or voided)."
    pending: Boolean
    "At least 2 lines; per asset, debits equal credits."
    lines: [LedgerEntryLineInput!]!
  }

  extend type Query {
    "Chart of ledger accounts with balances: operators see the environment's, customers their own accounts' ledger accounts."
    ledgerAccounts(${PAGE_ARGS}, assetCode: String, kind: String): LedgerAccountPaginator!
    "Operators: one journal entry with its lines."
    ledgerEntry(id: ID!): LedgerEntry!
    "Operators: posted debits and credits per asset and account; from/to (to exclusive) limit it to lines posted in that range."
    trialBalance(from: DateTime, to: DateTime): TrialBalance!
  }

  extend type Mutation {
    "Operators: a balanced manual journal entry, keyed by the Idempotency-Key header when given."
    postLedgerEntry(input: LedgerEntryInput!): LedgerEntry!
    "Operators: confirm settlement of a pending entry (at most once)."
    postPendingLedgerEntry(id: ID!, reason: String): LedgerEntry!
    "Operators: settlement failed, void a pending entry (at most once)."
    voidPendingLedgerEntry(id: ID!, reason: String): LedgerEntry!
  }
`;

const TAG = 'Ledger';

type LineInput = { accountId: string; direction: 'debit' | 'credit'; amount: string };
type EntryInput = { type?: string | null; description?: string | null; reference?: string | null; pending?: boolean | null; lines: LineInput[] };

const iso = (d?: Date | null) => (d ? d.toISOString() : undefined);

async function settle(action: 'post' | 'void', args: { id: string; reason?: string | null }, ctx: GqlContext) {
  const c = await as(ctx, { permission: 'write', tag: TAG, admin: true });
  return settlePendingEntry(c.principal, args.id, action, args.reason ?? undefined);
}

export const ledgerArea = (): GraphQLArea => ({
  typeDefs,
  resolvers: {
    Query: {
      ledgerAccounts: async (_: unknown, args: PageArgs & { assetCode?: string | null; kind?: string | null }, ctx: GqlContext) => {
        const c = await as(ctx, { tag: TAG });
        const all = await listVisibleLedgerAccounts(c.principal, { assetCode: args.assetCode ?? undefined, kind: (args.kind ?? undefined) as LedgerAccountKind | undefined });
        return paginateList(all, args);
      },
      ledgerEntry: async (_: unknown, args: { id: string }, ctx: GqlContext) => getEnvironmentEntry((await as(ctx, { tag: TAG, admin: true })).principal, args.id),
      trialBalance: async (_: unknown, args: { from?: Date | null; to?: Date | null }, ctx: GqlContext) => {
        const c = await as(ctx, { tag: TAG, admin: true });
        return environmentTrialBalance(c.principal, parseRange({ from: iso(args.from), to: iso(args.to) }));
      },
    },
    Mutation: {
      postLedgerEntry: async (_: unknown, { input }: { input: EntryInput }, ctx: GqlContext) => {
        const c = await as(ctx, { permission: 'write', tag: TAG, admin: true });
        const b = restBody<ManualEntryBody>(manualEntryBody, {
          type: input.type,
          description: input.description,
          reference: input.reference,
          pending: input.pending,
          lines: input.lines.map((l) => ({ account_id: l.accountId, direction: l.direction, amount: l.amount })),
        });
        const req: ManualEntryRequest = {
          type: b.type,
          description: b.description,
          reference: b.reference,
          pending: b.pending,
          lines: b.lines.map((l) => ({ accountId: l.account_id, direction: l.direction, amount: l.amount })),
        };
        return postOperatorEntry(c.principal, req, ctx.idempotencyKey);
      },
      postPendingLedgerEntry: (_: unknown, args: { id: string; reason?: string | null }, ctx: GqlContext) => settle('post', args, ctx),
      voidPendingLedgerEntry: (_: unknown, args: { id: string; reason?: string | null }, ctx: GqlContext) => settle('void', args, ctx),
    },
  },
});
