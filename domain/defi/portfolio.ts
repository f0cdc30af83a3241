/**
 * The DeFi portfolio of a caller (GET /api/v2/defi/portfolio): holdings per chain and asset from
 * the ledger's chain books (every account of the caller in the environment, ./holdings.ts),
 * valued at the latest USD rates; swap history; flash-loan history; open liquidity positions
 * valued at the same rates (./liquidity-value.ts). Lending, staking and yield positions are not
 * offered yet: those lists are empty, with a note.
 */
import { getPool as getDb, type Queryable } from '../db/pool';
import { DecimalMoney as D } from '../money/amount';
import type { Environment } from '../platform/environment';
import { listFlashLoans, type FlashLoan } from './flash-loans';
import { chainHoldings, portfolioAccountIds } from './holdings';
import { valuedLiquidityPositions, type ValuedPosition } from './liquidity-value';
import { listSwaps, type Swap } from './swaps';

export const POSITIONS_NOTE =
  'Liquidity positions are the open LP positions (POST /api/v2/defi/liquidity/add), valued at their share of the pool reserves; the platform offers no lending, staking or yield products yet, so those lists are empty. Holdings are token balances per chain; the totals include the liquidity positions.';

export interface DefiHolding {
  accountId: string;
  chain: string;
  assetCode: string;
  /** The token's symbol on the chain (the asset code when the registry lists none). */
  token: string;
  availableBalance: string;
  reservedBalance: string;
  totalBalance: string;
  /** To the cent; null when the asset has no USD rate. */
  usdValue: string | null;
}

export interface DefiPortfolio {
  /** Sum of the holdings' and the open liquidity positions' (rounded) USD values. */
  totalUsdValue: string;
  /** USD value per chain, by chain id. */
  chains: Array<{ chain: string; usdValue: string }>;
  /** Non-empty chain books only. */
  holdings: DefiHolding[];
  swaps: Swap[];
  flashLoans: FlashLoan[];
  /** Open liquidity positions with their value now. */
  liquidityPositions: ValuedPosition[];
  note: string;
}

export async function defiPortfolio(userId: string, environment: Environment, c: Queryable = getDb()): Promise<DefiPortfolio> {
  const [holdingsAll, swaps, flashLoans, liquidityPositions] = await Promise.all([
    portfolioAccountIds(userId, environment, null, c).then((ids) => chainHoldings(ids, c)),
    listSwaps(userId, environment, 50, c),
    listFlashLoans(userId, environment, 50, c),
    valuedLiquidityPositions(userId, environment, {}, c),
  ]);
  const holdings: DefiHolding[] = [];
  const byChain = new Map<string, InstanceType<typeof D>>();
  let total = new D(0);
  for (const h of holdingsAll) {
    if (new D(h.totalBalance).isZero() && new D(h.reservedBalance).isZero()) continue;
    const usd = h.usdValue ? h.usdValue.toDecimalPlaces(2, D.ROUND_HALF_EVEN) : null;
    holdings.push({
      accountId: h.accountId,
      chain: h.chain,
      assetCode: h.assetCode,
      token: h.token?.symbol ?? h.assetCode,
      availableBalance: h.availableBalance,
      reservedBalance: h.reservedBalance,
      totalBalance: h.totalBalance,
      usdValue: usd ? usd.toFixed(2) : null,
    });
    if (usd) {
      total = total.plus(usd);
      byChain.set(h.chain, (byChain.get(h.chain) ?? new D(0)).plus(usd));
    }
  }
  for (const p of liquidityPositions) {
    if (p.valuation.usdValue === null) continue;
    total = total.plus(p.valuation.usdValue);
    byChain.set(p.chain, (byChain.get(p.chain) ?? new D(0)).plus(p.valuation.usdValue));
  }
  return {
    totalUsdValue: total.toFixed(2),
    chains: [...byChain.entries()].sort(([x], [y]) => x.localeCompare(y)).map(([chain, usd]) => ({ chain, usdValue: usd.toFixed(2) })),
    holdings,
    swaps,
    flashLoans,
    liquidityPositions,
    note: POSITIONS_NOTE,
  };
}
