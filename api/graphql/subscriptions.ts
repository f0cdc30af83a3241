/**
 * The four subscriptions of the spec's Events part (docs/graphql.md "Subscriptions"), fed by the
 * live event feed (domain/events/live-feed.ts: outbox events after their commit, across processes).
 * Ownership is checked when the client subscribes (another user's account or transfer: an error and
 * no events), and every event is matched on the caller's user and environment as well.
 */
import type { Account } from '../../domain/accounts';
import { getOwnAccount } from '../../domain/accounts/own';
import { liveFeed, type LiveEvent } from '../../domain/events/live-feed';
import type { Transaction } from '../../domain/ledger/transactions';
import { DecimalMoney as D } from '../../domain/money/amount';
import type { Transfer } from '../../domain/transfers/records';
import { getTransferWithProgress } from '../../domain/transfers/visibility';
import { as, type GqlContext } from './context';
import { gqlError } from './errors';
import type { GraphQLArea } from './areas/types';

const typeDefs = /* GraphQL */ `
  "A change of one account: a balance (account.balance_updated), its details (account.updated) or its status (account.frozen, account.unfrozen, account.closed)."
  type AccountUpdate {
    eventId: ID!
    "The event type."
    type: String!
    occurredAt: DateTime!
    accountId: ID!
    "The account as it is now."
    account: Account
    "For balance changes: the book that changed."
    balance: BalanceChange
  }

  type BalanceChange {
    assetCode: String!
    "'' for the asset's home book, else the chain of the book."
    chain: String!
    available: Decimal!
    reserved: Decimal!
    total: Decimal!
    entryId: ID!
  }

  "One of the caller's trades executing: a DeFi swap is the platform's order match."
  type OrderMatch {
    swapId: ID!
    accountId: ID!
    "As subscribed, e.g. WETH/USDC."
    pair: String!
    chain: String!
    dex: String!
    tokenIn: String!
    tokenOut: String!
    amountIn: Decimal!
    amountOut: Decimal!
    "tokenOut received per tokenIn."
    price: Decimal!
    networkFee: Decimal!
    txHash: String!
    executedAt: DateTime!
  }

  type Subscription {
    "Balance, detail and status changes of one of the caller's accounts."
    accountUpdated(id: ID!): AccountUpdate!
    "Each new posting to one of the caller's accounts, once (pending or posted)."
    transactionCreated(accountId: ID!): Transaction!
    "The transfer when it completes (at once when it already has), then the subscription ends."
    transferCompleted(id: ID!): Transfer!
    "The caller's trades on a pair (either direction), e.g. pair: \\"WETH/USDC\\"."
    orderMatched(pair: String!): OrderMatch!
  }
`;

/**
 * An async iterator over the live feed's events that `matches`, mapped by `map` (null skips). The
 * feed's LISTEN connection is open before the iterator is returned, so nothing committed after the
 * subscription is missed. `first` is yielded before any event.
 */
/**
 * `current` is read after the stream listens, so a change that lands between a caller's own read
 * and the listener is not lost: what it answers (non-null) is sent first.
 */
async function eventStream<T>(
  matches: (e: LiveEvent) => boolean,
  map: (e: LiveEvent) => Promise<T | null> | T | null,
  opts: { once?: boolean; current?: () => Promise<T | null> } = {},
): Promise<AsyncIterableIterator<T>> {
  const queue: LiveEvent[] = [];
  let wake: (() => void) | null = null;
  let done = false;
  const unsubscribe = await liveFeed().subscribe({
    matches,
    push(e) {
      queue.push(e);
      wake?.();
    },
  });
  const finish = () => {
    done = true;
    unsubscribe();
    wake?.();
  };
  let first: T | undefined;
  if (opts.current) {
    try {
      first = (await opts.current()) ?? undefined;
    } catch (err) {
      unsubscribe();
      throw err;
    }
  }
  let pendingFirst = first !== undefined;
  const it: AsyncIterableIterator<T> = {
    async next(): Promise<IteratorResult<T>> {
      if (pendingFirst) {
        pendingFirst = false;
        if (opts.once) finish();
        return { value: first as T, done: false };
      }
      while (!done) {
        const e = queue.shift();
        if (e) {
          const value = await map(e);
          if (value === null) continue;
          if (opts.once) finish();
          return { value, done: false };
        }
        await new Promise<void>((res) => (wake = res));
        wake = null;
      }
      return { value: undefined, done: true };
    },
    async return(): Promise<IteratorResult<T>> {
      finish();
      return { value: undefined, done: true };
    },
    [Symbol.asyncIterator]() {
      return it;
    },
  };
  return it;
}

const ACCOUNT_EVENTS = new Set(['account.updated', 'account.balance_updated', 'account.frozen', 'account.unfrozen', 'account.closed']);
const accountIdOf = (e: LiveEvent): string | undefined => (e.data.account_id as string | undefined) ?? ((e.data.account as { uuid?: string } | undefined)?.uuid ?? undefined);

function transactionOf(e: LiveEvent): Transaction {
  const d = e.data as Record<string, string | null>;
  return {
    id: d.id!,
    accountId: d.account_id!,
    ledgerAccountId: d.ledger_account_id!,
    entryId: d.entry_id!,
    type: d.type as Transaction['type'],
    amount: d.amount!,
    assetCode: d.asset_code!,
    status: d.status as Transaction['status'],
    reference: d.reference ?? null,
    description: (d.description as string | undefined) ?? null,
    createdAt: new Date(d.created_at!),
    completedAt: d.completed_at ? new Date(d.completed_at) : null,
    balanceAfter: d.balance_after ?? null,
  };
}

/** "WETH/USDC" -> the two asset codes, upper case; a malformed pair is refused. */
function parsePair(pair: string): [string, string] {
  const m = /^([A-Za-z0-9]{1,12})[/-]([A-Za-z0-9]{1,12})$/.exec(pair.trim());
  if (!m || m[1].toUpperCase() === m[2].toUpperCase()) throw gqlError('INVALID_PAIR', 'pair names two different asset codes, e.g. "WETH/USDC"', 422);
  return [m[1].toUpperCase(), m[2].toUpperCase()];
}

export const subscriptionsArea: GraphQLArea = {
  typeDefs,
  resolvers: {
    Subscription: {
      accountUpdated: {
        subscribe: async (_: unknown, args: { id: string }, ctx: GqlContext) => {
          const c = await as(ctx, { tag: 'Accounts' });
          await getOwnAccount(c.principal, args.id); // another user's: ACCOUNT_NOT_FOUND, nothing subscribed
          return eventStream(
            (e) => ACCOUNT_EVENTS.has(e.type) && e.userId === c.userId && e.environment === c.environment && accountIdOf(e) === args.id,
            (e) => ({ accountUpdated: { eventId: e.id, type: e.type, occurredAt: e.occurredAt, accountId: args.id, data: e.data } }),
          );
        },
      },
      transactionCreated: {
        subscribe: async (_: unknown, args: { accountId: string }, ctx: GqlContext) => {
          const c = await as(ctx, { tag: 'Transactions' });
          await getOwnAccount(c.principal, args.accountId);
          return eventStream(
            (e) => e.type === 'transaction.created' && e.userId === c.userId && e.environment === c.environment && e.data.account_id === args.accountId,
            (e) => ({ transactionCreated: transactionOf(e) }),
          );
        },
      },
      transferCompleted: {
        subscribe: async (_: unknown, args: { id: string }, ctx: GqlContext) => {
          const c = await as(ctx, { tag: 'Transfers' });
          await getTransferWithProgress(c.principal, args.id); // another user's: 404, before listening
          const load = async () => ({ transferCompleted: (await getTransferWithProgress(c.principal, args.id)).transfer as Transfer });
          // Completed already, or between that read and the listener: answered from the record.
          const current = async () => {
            const { transfer } = await getTransferWithProgress(c.principal, args.id);
            return transfer.status === 'completed' ? { transferCompleted: transfer as Transfer } : null;
          };
          return eventStream(
            (e) => e.type === 'transfer.completed' && e.environment === c.environment && e.data.transfer_id === args.id,
            load,
            { current, once: true },
          );
        },
      },
      orderMatched: {
        subscribe: async (_: unknown, args: { pair: string }, ctx: GqlContext) => {
          const c = await as(ctx, { tag: 'Decentralized finance' });
          const [a, b] = parsePair(args.pair);
          const pair = `${a}/${b}`;
          return eventStream(
            (e) => {
              if (e.type !== 'swap.completed' || e.userId !== c.userId || e.environment !== c.environment) return false;
              const tin = String(e.data.token_in).toUpperCase();
              const tout = String(e.data.token_out).toUpperCase();
              return (tin === a && tout === b) || (tin === b && tout === a);
            },
            (e) => {
              const d = e.data as Record<string, string>;
              const price = new D(d.amount_in).isZero() ? '0' : new D(d.amount_out).div(d.amount_in).toDecimalPlaces(18).toFixed();
              return {
                orderMatched: {
                  swapId: d.swap_id,
                  accountId: d.account_id,
                  pair,
                  chain: d.chain,
                  dex: d.dex,
                  tokenIn: d.token_in,
                  tokenOut: d.token_out,
                  amountIn: d.amount_in,
                  amountOut: d.amount_out,
                  price,
                  networkFee: d.network_fee,
                  txHash: d.tx_hash,
                  executedAt: new Date(d.completed_at),
                },
              };
            },
          );
        },
      },
    },
    AccountUpdate: {
      // "As it is now": a subscription's context (and its loaders) lives as long as the subscription, so each event reads afresh.
      account: (u: { accountId: string }, _: unknown, ctx: GqlContext): Promise<Account | null> => ctx.loaders.account.clear(u.accountId).load(u.accountId),
      balance: (u: { type: string; data: Record<string, string> }) =>
        u.type === 'account.balance_updated'
          ? { assetCode: u.data.asset_code, chain: u.data.chain ?? '', available: u.data.available_balance, reserved: u.data.reserved_balance, total: u.data.total_balance, entryId: u.data.entry_id }
          : null,
    },
  },
};
