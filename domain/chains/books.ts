/**
 * Chain books: a customer account's holding of a token is one ledger account per chain (kind
 * 'customer', no overdraft). The '' book is the asset's home chain and is the one every
 * non-chain path (deposits, withdrawals, transfers, rails) uses; another chain's book carries that
 * chain's id. A bridge moves value from one book to another through an in-transit account, so the
 * account's total (GET balances sums the books) only changes by the fee.
 */
import { ensureCustomerLedgerAccount } from '../accounts';
import { getPool, type Queryable } from '../db/pool';
import { DomainError } from '../platform/errors';
import { getChain, homeChain, tokenForAsset } from './registry';

/**
 * The book key for an asset on a chain: '' for the asset's home chain (or when no chain is
 * given), else the chain's id. 422 UNKNOWN_CHAIN for an unknown chain, 422 UNKNOWN_TOKEN when the
 * asset does not exist on that chain.
 */
export function bookChain(assetCode: string, chain: string | null | undefined, pointer = '/chain'): string {
  if (chain === undefined || chain === null || chain === '') return '';
  const c = getChain(chain, pointer);
  const asset = assetCode.toUpperCase();
  if (homeChain(asset) === c.id) return '';
  if (!tokenForAsset(c.id, asset)) throw new DomainError('UNKNOWN_TOKEN', `${asset} does not exist on ${c.id}`, pointer);
  return c.id;
}

/** The chain a book stands for: '' resolves to the asset's home chain (null for off-chain assets). */
export function bookToChain(assetCode: string, book: string): string | null {
  return book === '' ? homeChain(assetCode) : book;
}

/**
 * The customer's ledger account (la_...) for an asset on a chain, opened on first use like
 * ensureCustomerLedgerAccount (which it calls with the normalised book).
 */
export async function ensureChainLedgerAccount(client: Queryable, accountId: string, assetCode: string, chain: string): Promise<string> {
  return ensureCustomerLedgerAccount(accountId, assetCode, client, bookChain(assetCode, chain));
}

/** The book's ledger account id if it has been opened, else null (nothing is created). */
export async function findChainLedgerAccount(accountId: string, assetCode: string, chain: string, client: Queryable = getPool()): Promise<string | null> {
  const { rows } = await client.query<{ id: string }>('SELECT id FROM ledger_accounts WHERE account_id = $1 AND asset_code = $2 AND chain = $3', [
    accountId,
    assetCode.toUpperCase(),
    bookChain(assetCode, chain),
  ]);
  return rows[0]?.id ?? null;
}

export interface ChainBalance {
  /** The chain the book is on ('' resolved to the home chain); null for assets that live on no chain. */
  chain: string | null;
  /** The stored book key ('' = home book). */
  book: string;
  assetCode: string;
  ledgerAccountId: string;
  availableBalance: string;
  reservedBalance: string;
  totalBalance: string;
}

/**
 * Balances per chain and asset (one row per opened book), ordered by chain then asset. Assets
 * that live on no chain (fiat, gold, GCU) are left out unless includeOffChain.
 */
export async function chainBalances(accountId: string, opts: { includeOffChain?: boolean } = {}, client: Queryable = getPool()): Promise<ChainBalance[]> {
  const { rows } = await client.query<{ id: string; asset_code: string; chain: string; b: { available_balance: string; reserved_balance: string; total_balance: string } }>(
    `SELECT la.id, la.asset_code, la.chain, ledger_balance_json(la) AS b FROM ledger_accounts la WHERE la.account_id = $1 ORDER BY la.chain, la.asset_code`,
    [accountId],
  );
  const out: ChainBalance[] = [];
  for (const r of rows) {
    const chain = bookToChain(r.asset_code, r.chain);
    if (chain === null && !opts.includeOffChain) continue;
    out.push({
      chain,
      book: r.chain,
      assetCode: r.asset_code,
      ledgerAccountId: r.id,
      availableBalance: r.b.available_balance,
      reservedBalance: r.b.reserved_balance,
      totalBalance: r.b.total_balance,
    });
  }
  return out.sort((a, b) => (a.chain ?? '').localeCompare(b.chain ?? '') || a.assetCode.localeCompare(b.assetCode));
}

export interface PayingCandidate {
  accountId: string;
  /** Available balance of the account's book of the asset on the chain ('0' if never opened); null when no asset was asked. */
  available: string | null;
}

/**
 * Which customer account pays a chain operation (bridge, swap, flash loan): the spec's bodies name
 * none, so `account_id` is optional. Returns the caller's active accounts in opening order (only
 * `accountId` when given) with the available balance of their book of the asset on the chain, in
 * one query; callers pick the first that covers the amount. A given `accountId` that is not the
 * caller's is 404; one that is not active is 422 ACCOUNT_<STATUS>.
 */
export async function payingAccountCandidates(
  input: { userId: string; environment: string; accountId?: string | null; assetCode?: string; chain?: string },
  client: Queryable = getPool(),
): Promise<PayingCandidate[]> {
  const asset = input.assetCode && input.chain ? input.assetCode.toUpperCase() : null;
  const { rows } = await client.query<{ id: string; status: string; available: string | null }>(
    `SELECT a.id, a.status,
            CASE WHEN $4::text IS NULL THEN NULL ELSE coalesce(ledger_balance_json(la)->>'available_balance', '0') END AS available
       FROM accounts a LEFT JOIN ledger_accounts la ON la.account_id = a.id AND la.asset_code = $4 AND la.chain = $5
      WHERE a.user_id = $1 AND a.environment = $2 AND ($3::text IS NULL OR a.id = $3)
      ORDER BY a.created_at, a.id`,
    [input.userId, input.environment, input.accountId ?? null, asset, asset ? bookChain(asset, input.chain) : ''],
  );
  if (input.accountId) {
    if (!rows[0]) throw new DomainError('ACCOUNT_NOT_FOUND', `Account ${input.accountId} not found`, '/account_id');
    if (rows[0].status !== 'active') throw new DomainError(`ACCOUNT_${rows[0].status.toUpperCase()}`, `The account is ${rows[0].status}`, '/account_id');
  }
  return rows.filter((r) => r.status === 'active').map((r) => ({ accountId: r.id, available: r.available }));
}
