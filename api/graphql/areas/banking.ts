/**
 * Core banking over GraphQL: the caller, accounts, balances, transactions and transfers. Each
 * resolver is one call of the domain function its REST route calls (api/routes/accounts,
 * transactions, transfers), with the same rules through `as(ctx, …)`.
 */
import { closeAccount, createAccount, freezeAccount, listAccounts, unfreezeAccount, type Account } from '../../../domain/accounts';
import { getOwnAccount, listOwnAccountTransactions, listOwnAccountTransfers } from '../../../domain/accounts/own';
import { updateOwnAccount } from '../../../domain/accounts/update';
import { moveCash } from '../../../domain/cash';
import { listTransactions, type Transaction, type TransactionStatus, type TransactionType } from '../../../domain/ledger/transactions';
import { reviewTransfer, startTransfer } from '../../../domain/transfers/start';
import type { Transfer } from '../../../domain/transfers/records';
import { getTransferWithProgress } from '../../../domain/transfers/visibility';
import type { FastifyInstance } from 'fastify';
import { as, mutationRequestKey, type GqlContext } from '../context';
import { PAGE_ARGS, pageOf, paginated, paginatorOf, type PageArgs } from '../pagination';
import type { GraphQLArea } from './types';
import { createInput, decisionWaitArgument } from '../../operations/transfers/input';
import { transferBody, type TransferBody } from '../../operations/transfers/schemas';
import { restInput } from '../rest';
import { ACCOUNT_BALANCES_RESOURCE, refuseIfMonetized } from '../../../domain/x402/endpoints';

const typeDefs = /* GraphQL */ `
  "The authenticated caller."
  type Me {
    userId: ID!
    email: String!
    environment: String!
    "read, write, delete (an OAuth token's scopes)."
    permissions: [String!]!
    "api_key, session or oauth."
    kind: String!
    isAdmin: Boolean!
  }

  type Asset {
    code: ID!
    name: String!
    "fiat, crypto, commodity or basket."
    type: String!
    precision: Int!
    maxAmount: Decimal!
  }

  type Account {
    id: ID!
    name: String!
    "personal, business or savings."
    type: String!
    "active, frozen or closed."
    status: String!
    metadata: JSON!
    createdAt: DateTime!
    updatedAt: DateTime!
    "The account's identifiers, for its owner only (null on another customer's account, e.g. an operator's freeze); REST: identifiers."
    identifiers: AccountIdentifiers
    "Balances per asset held (summed over the asset's chain books)."
    balances: [Balance!]!
    "About the REST summary: number of assets and the USD equivalent at the latest rates."
    totalUsdEquivalent: Decimal!
    transactions(${PAGE_ARGS}, type: String, status: String, assetCode: String): TransactionPaginator!
    transfers(${PAGE_ARGS}): TransferPaginator!
  }

  "What identifies an account to payers and third parties. The platform issues no US routing/account numbers."
  type AccountIdentifiers {
    "The IBAN: to receive a SEPA transfer, and to name the account in an open-banking consent."
    iban: String!
  }

  type Balance {
    assetCode: String!
    asset: Asset
    available: Decimal!
    reserved: Decimal!
    total: Decimal!
  }

  "A posting to a customer account (a ledger line)."
  type Transaction {
    id: ID!
    accountId: ID!
    account: Account
    entryId: ID!
    "deposit, withdrawal, transfer_in, transfer_out, fee, reversal, …"
    type: String!
    amount: Decimal!
    assetCode: String!
    asset: Asset
    "pending, completed or failed."
    status: String!
    reference: String
    description: String
    "The account's total right after the posting; null while pending."
    balanceAfter: Decimal
    createdAt: DateTime!
    completedAt: DateTime
  }

  type Transfer {
    id: ID!
    fromAccountId: ID!
    toAccountId: ID!
    fromAccount: Account
    toAccount: Account
    assetCode: String!
    asset: Asset
    amount: Decimal!
    fee: Decimal!
    "pending, pending_review, completed, failed, reversed or expired."
    status: String!
    reference: String
    description: String
    metadata: JSON!
    workflowId: String
    entryId: String
    estimatedCompletion: DateTime
    failureCode: String
    failureReason: String
    createdAt: DateTime!
    completedAt: DateTime
    failedAt: DateTime
  }

  type CashMovement {
    "deposit or withdrawal."
    kind: String!
    entryId: ID!
    "The account's posting: completed (sandbox) or pending (production, until settlement)."
    transaction: Transaction!
  }

  ${paginatorOf('Account')}
  ${paginatorOf('Transaction')}
  ${paginatorOf('Transfer')}

  input CreateAccountInput {
    name: String!
    type: String
    metadata: JSON
  }

  input UpdateAccountInput {
    name: String
    metadata: JSON
  }

  input TransferInput {
    fromAccount: ID!
    toAccount: ID!
    amount: Decimal!
    assetCode: String!
    reference: String
    description: String
    metadata: JSON
    "true (default): a Temporal workflow with review and compensation; false: posted at once."
    workflowEnabled: Boolean
  }

  extend type Query {
    me: Me!
    accounts(${PAGE_ARGS}): AccountPaginator!
    account(id: ID!): Account!
    "Every transaction of the caller's accounts, newest first."
    transactions(${PAGE_ARGS}, type: String, status: String, assetCode: String): TransactionPaginator!
    transfer(id: ID!): Transfer!
  }

  extend type Mutation {
    createAccount(input: CreateAccountInput!): Account!
    "Renames an account or replaces its metadata (account.updated)."
    updateAccount(id: ID!, input: UpdateAccountInput!): Account!
    "chain: where a crypto deposit arrives (its chain book; default the asset's home chain), as REST's chain."
    deposit(accountId: ID!, amount: Decimal!, assetCode: String!, reference: String, chain: String): CashMovement!
    withdraw(accountId: ID!, amount: Decimal!, assetCode: String!, reference: String, chain: String): CashMovement!
    "waitSeconds (1-10): wait up to that long for a workflow transfer to be decided (completed, pending_review or failed), as REST's Prefer: wait=N."
    createTransfer(input: TransferInput!, waitSeconds: Int): Transfer!
    "Operators: approve or reject a transfer held for review."
    reviewTransfer(id: ID!, decision: String!, reason: String): Transfer!
    "Operators only."
    freezeAccount(id: ID!, reason: String): Account!
    unfreezeAccount(id: ID!, reason: String): Account!
    closeAccount(id: ID!, reason: String): Account!
  }
`;

const TAG = { accounts: 'Accounts', transactions: 'Transactions', transfers: 'Transfers' };

type TxArgs = PageArgs & { type?: string | null; status?: string | null; assetCode?: string | null };

export function bankingArea(app: FastifyInstance): GraphQLArea {
  return {
    typeDefs,
    resolvers: {
      Query: {
        me: async (_: unknown, __: unknown, ctx: GqlContext) => (await as(ctx)).principal,
        accounts: async (_: unknown, args: PageArgs, ctx: GqlContext) => {
          const c = await as(ctx, { tag: TAG.accounts });
          const p = pageOf(args);
          const { items, total } = await listAccounts(c.userId, c.environment, { page: p.page, perPage: p.perPage });
          return paginated(items, total, p);
        },
        account: async (_: unknown, args: { id: string }, ctx: GqlContext) => getOwnAccount((await as(ctx, { tag: TAG.accounts })).principal, args.id),
        transactions: async (_: unknown, args: TxArgs, ctx: GqlContext) => {
          const c = await as(ctx, { tag: TAG.transactions });
          const p = pageOf(args);
          const { items, total } = await listTransactions({
            userId: c.userId,
            environment: c.environment,
            assetCode: args.assetCode ?? undefined,
            status: (args.status ?? undefined) as TransactionStatus | undefined,
            type: (args.type ?? undefined) as TransactionType | 'transfer' | undefined,
            page: p.page,
            perPage: p.perPage,
          });
          return paginated(items, total, p);
        },
        transfer: async (_: unknown, args: { id: string }, ctx: GqlContext) => (await getTransferWithProgress((await as(ctx, { tag: TAG.transfers })).principal, args.id)).transfer,
      },
      Mutation: {
        createAccount: async (_: unknown, { input }: { input: { name: string; type?: string; metadata?: Record<string, unknown> } }, ctx: GqlContext) => {
          const c = await as(ctx, { permission: 'write', tag: TAG.accounts });
          return createAccount({ userId: c.userId, environment: c.environment, name: input.name, type: input.type as never, metadata: input.metadata });
        },
        updateAccount: async (_: unknown, { id, input }: { id: string; input: { name?: string; metadata?: Record<string, unknown> } }, ctx: GqlContext) =>
          updateOwnAccount((await as(ctx, { permission: 'write', tag: TAG.accounts })).principal, id, input),
        deposit: (_: unknown, args: CashArgs, ctx: GqlContext) => cash('deposit', args, ctx),
        withdraw: (_: unknown, args: CashArgs, ctx: GqlContext) => cash('withdrawal', args, ctx),
        createTransfer: async (_: unknown, { input, waitSeconds }: { input: TransferInputArgs; waitSeconds?: number | null }, ctx: GqlContext) => {
          const c = await as(ctx, { permission: 'write', tag: TAG.transfers });
          // The REST body's schema decides (lengths, formats, unknown fields): one set of input rules.
          const body = restInput<TransferBody>(transferBody, input);
          const workflow = body.workflow_enabled !== false;
          const wait = decisionWaitArgument(waitSeconds);
          return startTransfer(app.transfers, createInput(c.principal, body, mutationRequestKey(ctx)), { workflow, waitMs: workflow && wait ? wait * 1000 : undefined });
        },
        reviewTransfer: async (_: unknown, args: { id: string; decision: string; reason?: string }, ctx: GqlContext) => {
          const c = await as(ctx, { permission: 'write', tag: TAG.transfers, admin: true });
          return reviewTransfer(c.principal, args.id, { decision: args.decision as 'approve' | 'reject', reason: args.reason });
        },
        freezeAccount: (_: unknown, args: StatusArgs, ctx: GqlContext) => accountStatus(freezeAccount, args, ctx),
        unfreezeAccount: (_: unknown, args: StatusArgs, ctx: GqlContext) => accountStatus(unfreezeAccount, args, ctx),
        closeAccount: (_: unknown, args: StatusArgs, ctx: GqlContext) => accountStatus(closeAccount, args, ctx),
      },
      Account: {
        identifiers: (a: Account, _: unknown, ctx: GqlContext) => ctx.loaders.identifiers.load(a.id),
        // The balances resource, paid on REST when monetized, is not served free here (no payment on GraphQL).
        balances: async (a: Account, _: unknown, ctx: GqlContext) => {
          await refuseIfMonetized((await as(ctx)).environment, ACCOUNT_BALANCES_RESOURCE);
          return (await ctx.loaders.balances.load(a.id)).balances;
        },
        totalUsdEquivalent: async (a: Account, _: unknown, ctx: GqlContext) => {
          await refuseIfMonetized((await as(ctx)).environment, ACCOUNT_BALANCES_RESOURCE);
          return (await ctx.loaders.balances.load(a.id)).summary.total_usd_equivalent;
        },
        transactions: async (a: Account, args: TxArgs, ctx: GqlContext) => {
          const p = pageOf(args);
          const { items, total } = await listOwnAccountTransactions((await as(ctx)).principal, a.id, {
            type: (args.type ?? undefined) as TransactionType | 'transfer' | undefined,
            status: (args.status ?? undefined) as TransactionStatus | undefined,
            assetCode: args.assetCode ?? undefined,
            page: p.page,
            perPage: p.perPage,
          });
          return paginated(items, total, p);
        },
        transfers: async (a: Account, args: PageArgs, ctx: GqlContext) => {
          const p = pageOf(args);
          const { items, total } = await listOwnAccountTransfers((await as(ctx)).principal, a.id, { offset: p.offset, limit: p.perPage });
          return paginated(items, total, p);
        },
      },
      Balance: {
        assetCode: (b: { asset_code: string }) => b.asset_code,
        available: (b: { available_balance: string }) => b.available_balance,
        reserved: (b: { reserved_balance: string }) => b.reserved_balance,
        total: (b: { total_balance: string }) => b.total_balance,
        asset: (b: { asset_code: string }, _: unknown, ctx: GqlContext) => ctx.loaders.asset.load(b.asset_code),
      },
      Transaction: {
        account: (t: Transaction, _: unknown, ctx: GqlContext) => ctx.loaders.account.load(t.accountId),
        asset: (t: Transaction, _: unknown, ctx: GqlContext) => ctx.loaders.asset.load(t.assetCode),
      },
      Transfer: {
        fee: (t: Transfer) => t.feeAmount,
        fromAccount: (t: Transfer, _: unknown, ctx: GqlContext) => ctx.loaders.account.load(t.fromAccountId),
        toAccount: (t: Transfer, _: unknown, ctx: GqlContext) => ctx.loaders.account.load(t.toAccountId),
        asset: (t: Transfer, _: unknown, ctx: GqlContext) => ctx.loaders.asset.load(t.assetCode),
      },
    },
  };
}

type CashArgs = { accountId: string; amount: string; assetCode: string; reference?: string | null; chain?: string | null };
type StatusArgs = { id: string; reason?: string | null };
type TransferInputArgs = {
  fromAccount: string;
  toAccount: string;
  amount: string;
  assetCode: string;
  reference?: string | null;
  description?: string | null;
  metadata?: Record<string, unknown> | null;
  workflowEnabled?: boolean | null;
};

async function cash(kind: 'deposit' | 'withdrawal', args: CashArgs, ctx: GqlContext) {
  const c = await as(ctx, { permission: 'write', tag: TAG.accounts });
  const m = await moveCash(kind, {
    userId: c.userId,
    environment: c.environment,
    accountId: args.accountId,
    amount: args.amount,
    assetCode: args.assetCode,
    reference: args.reference ?? undefined,
    chain: args.chain ?? undefined,
    idempotencyKey: ctx.idempotencyKey,
  });
  return { kind, entryId: m.entry.id, transaction: m.transaction };
}

async function accountStatus(fn: typeof freezeAccount, args: StatusArgs, ctx: GqlContext) {
  const c = await as(ctx, { permission: 'write', tag: 'Operations', admin: true });
  return fn(args.id, { environment: c.environment, reason: args.reason ?? undefined });
}
