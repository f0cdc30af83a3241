import { ensureCustomerLedgerAccount, getAccount } from '../accounts';
import { bookChain } from '../chains/books';
import { getAsset } from '../assets';
import { withTransaction } from '../db/pool';
import { LedgerError, clientIdempotencyKey, postEntry, systemAccount, type Entry } from '../ledger';
import { getTransaction, type Transaction } from '../ledger/transactions';
import { parseRequestAmount } from '../money/amount';
import type { Environment } from '../platform/environment';
import { newId } from '../platform/ids';
import { DomainError } from '../platform/errors';

export interface CashMovementInput {
  userId: string;
  environment: Environment;
  accountId: string;
  amount: string;
  assetCode: string;
  reference?: string | null;
  /**
   * The chain a crypto deposit arrives on or a withdrawal leaves from (its chain book,
   * domain/chains/books.ts); unset: the asset's home chain. An asset the chain does not carry is
   * 422 UNKNOWN_TOKEN (an off-chain asset on any chain included).
   */
  chain?: string | null;
  /** The client's Idempotency-Key: the ledger entry is keyed by it, so a retry never moves money twice. */
  idempotencyKey?: string;
}

export interface CashMovement {
  entry: Entry;
  transaction: Transaction;
}

/**
 * Deposits and withdrawals move money between a customer account and the platform's side of
 * the world. Sandbox settles at once against the sandbox funding account. Production creates a
 * pending entry against the settlement account: a deposit shows as pending (not spendable) and a
 * withdrawal reserves the funds, until a settlement is confirmed (POST /api/v1/ledger/entries/{id}/post,
 * or void on failure). No money appears from nowhere.
 */
export async function moveCash(kind: 'deposit' | 'withdrawal', input: CashMovementInput): Promise<CashMovement> {
  const asset = await getAsset(input.assetCode);
  if (!asset) throw new DomainError('UNKNOWN_ASSET', `Asset ${input.assetCode} is not supported`, '/asset_code');
  const amount = parseRequestAmount(input.amount, asset);
  return withTransaction(async (c) => {
    const account = await getAccount(input.userId, input.environment, input.accountId, c);
    if (!account) throw new DomainError('ACCOUNT_NOT_FOUND', `Account ${input.accountId} not found`);
    if (account.status === 'closed') throw new DomainError('ACCOUNT_CLOSED', 'The account is closed');
    if (kind === 'withdrawal' && account.status === 'frozen') throw new DomainError('ACCOUNT_FROZEN', 'The account is frozen');
    const idempotencyKey = input.idempotencyKey
      ? clientIdempotencyKey(input.userId, `${kind}:${input.accountId}`, input.idempotencyKey)
      : `${kind}:${newId('op')}`;
    const customer = await ensureCustomerLedgerAccount(account.id, asset.code, c, bookChain(asset.code, input.chain));
    const sandbox = input.environment === 'sandbox';
    const platform = await systemAccount(input.environment, asset.code, sandbox ? 'funding' : 'settlement', idempotencyKey, c);
    const [debit, credit] = kind === 'deposit' ? [platform, customer] : [customer, platform];
    const entry = await postEntry(
      {
        environment: input.environment,
        idempotencyKey,
        type: kind,
        reference: input.reference ?? undefined,
        lines: [
          { accountId: debit, direction: 'debit', amount },
          { accountId: credit, direction: 'credit', amount },
        ],
        pending: !sandbox,
        userId: input.userId,
        metadata: { account_id: account.id, settlement: sandbox ? 'sandbox_instant' : 'awaiting_confirmation', ...(input.chain ? { chain: input.chain } : {}) },
      },
      c,
    ).catch((err) => {
      if (err instanceof LedgerError) throw new DomainError(err.code, err.message);
      throw err;
    });
    const line = entry.lines.find((l) => l.accountId === customer)!;
    const transaction = await getTransaction({ id: line.id, userId: input.userId, environment: input.environment }, c);
    return { entry, transaction: transaction! };
  });
}
