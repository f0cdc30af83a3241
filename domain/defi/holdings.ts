/**
 * Token holdings per chain from the ledger's chain books, valued at the latest USD rates: the one
 * computation behind both portfolios (DeFi: domain/defi/portfolio.ts; cross-chain:
 * domain/crosschain/portfolio.ts). Each portfolio aggregates the holdings its own way.
 */
import { chainBalances } from '../chains/books';
import { tokenForAsset, type TokenInfo } from '../chains/registry';
import { getPool as getDb, type Queryable } from '../db/pool';
import { DecimalMoney as D } from '../money/amount';
import type { Environment } from '../platform/environment';
import { DomainError } from '../platform/errors';
import { latestRates } from '../rates';

type Dec = InstanceType<typeof D>;

export interface ChainHolding {
  accountId: string;
  chain: string;
  assetCode: string;
  /** The token the asset is on that chain (null when the registry lists none). */
  token: TokenInfo | null;
  availableBalance: string;
  reservedBalance: string;
  totalBalance: string;
  /** total_balance x the asset's latest USD rate, unrounded; null when no rate is known. */
  usdValue: Dec | null;
}

/** USD amounts are shown to the cent, rounded half-even. */
export const roundUsd = (v: Dec): string => v.toDecimalPlaces(2, D.ROUND_HALF_EVEN).toFixed(2);

/**
 * The caller's accounts in the environment (every status), oldest first; only `accountId` when it
 * is given (404 NOT_FOUND when it is not one of the caller's).
 */
export async function portfolioAccountIds(userId: string, environment: Environment, accountId: string | null = null, c: Queryable = getDb()): Promise<string[]> {
  const { rows } = await c.query<{ id: string }>(
    'SELECT id FROM accounts WHERE user_id = $1 AND environment = $2 AND ($3::text IS NULL OR id = $3) ORDER BY created_at, id',
    [userId, environment, accountId],
  );
  if (accountId && rows.length === 0) throw new DomainError('NOT_FOUND', 'Account not found');
  return rows.map((r) => r.id);
}

/** Every chain book of the accounts, in account order, then chain and asset, with its USD value. */
export async function chainHoldings(accountIds: string[], c: Queryable = getDb()): Promise<ChainHolding[]> {
  const rates = await latestRates(c);
  const out: ChainHolding[] = [];
  for (const accountId of accountIds) {
    for (const b of await chainBalances(accountId, {}, c)) {
      const chain = b.chain!;
      const rate = rates.get(b.assetCode);
      out.push({
        accountId,
        chain,
        assetCode: b.assetCode,
        token: tokenForAsset(chain, b.assetCode) ?? null,
        availableBalance: b.availableBalance,
        reservedBalance: b.reservedBalance,
        totalBalance: b.totalBalance,
        usdValue: rate ? new D(b.totalBalance).times(rate) : null,
      });
    }
  }
  return out;
}
