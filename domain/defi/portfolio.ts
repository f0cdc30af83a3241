/**
 * The DeFi portfolio of a caller (GET /api/v2/defi/portfolio): holdings per chain and asset from
 * the ledger's chain books (every active or frozen account of the caller in the environment),
 * valued at the latest USD rates; swap history; flash-loan history. The platform offers no
 * lending, staking, liquidity-providing or yield positions: those lists are empty, with a note.
 */
import { chainBalances } from '../chains/books';
import { tokenForAsset } from '../chains/registry';
import { getPool as getDb, type Queryable } from '../db/pool';
import { DecimalMoney as D } from '../money/amount';
import type { Environment } from '../platform/environment';
import { latestRates } from '../rates';
import { listFlashLoans, presentFlashLoan } from './flash-loans';
import { listSwaps, presentSwap } from './swaps';

export const POSITIONS_NOTE =
  'The platform offers no lending, staking, liquidity-providing or yield products, so there are no such positions; holdings are token balances per chain.';

export async function defiPortfolio(userId: string, environment: Environment, c: Queryable = getDb()) {
  const [{ rows: accounts }, rates, swaps, loans] = await Promise.all([
    c.query<{ id: string; name: string; status: string }>(`SELECT id, name, status FROM accounts WHERE user_id = $1 AND environment = $2 ORDER BY created_at, id`, [userId, environment]),
    latestRates(c),
    listSwaps(userId, environment, 50, c),
    listFlashLoans(userId, environment, 50, c),
  ]);
  const holdings: Array<Record<string, unknown>> = [];
  const byChain = new Map<string, InstanceType<typeof D>>();
  let total = new D(0);
  for (const a of accounts) {
    for (const b of await chainBalances(a.id, {}, c)) {
      if (new D(b.totalBalance).isZero() && new D(b.reservedBalance).isZero()) continue;
      const rate = rates.get(b.assetCode);
      const usd = rate ? new D(b.totalBalance).times(rate).toDecimalPlaces(2, D.ROUND_HALF_EVEN) : null;
      holdings.push({
        account_id: a.id,
        chain: b.chain,
        asset_code: b.assetCode,
        token: tokenForAsset(b.chain!, b.assetCode)?.symbol ?? b.assetCode,
        available_balance: b.availableBalance,
        reserved_balance: b.reservedBalance,
        total_balance: b.totalBalance,
        usd_value: usd ? usd.toFixed(2) : null,
      });
      if (usd) {
        total = total.plus(usd);
        byChain.set(b.chain!, (byChain.get(b.chain!) ?? new D(0)).plus(usd));
      }
    }
  }
  return {
    total_usd_value: total.toFixed(2),
    chains: [...byChain.entries()].sort(([x], [y]) => x.localeCompare(y)).map(([chain, usd]) => ({ chain, usd_value: usd.toFixed(2) })),
    holdings,
    swaps: swaps.map(presentSwap),
    flash_loans: loans.map(presentFlashLoan),
    lending_positions: [],
    staking_positions: [],
    liquidity_positions: [],
    yield_positions: [],
    note: POSITIONS_NOTE,
  };
}
