/**
 * The DeFi portfolio of a caller (GET /api/v2/defi/portfolio): holdings per chain and asset from
 * the ledger's chain books (every account of the caller in the environment, ./holdings.ts),
 * valued at the latest USD rates; swap history; flash-loan history; open liquidity positions
 * valued at the same rates (./liquidity/value.ts); open lending positions (net: collateral less
 * debt, ./lending/positions.ts); staking positions with their pending rewards (./staking/index.ts); and
 * the yield positions, a view of those three by what earns: each lending supply at its supply
 * rate, each stake at its reward rate, each liquidity position on its pool's swap fees.
 */
import { getPool as getDb, type Queryable } from '../db/pool';
import { DecimalMoney as D } from '../money/amount';
import type { Environment } from '../platform/environment';
import { listFlashLoans, type FlashLoan } from './flash-loans';
import { listLendingPositions, type LendingPositionView } from './lending/positions';
import { listStakingPositions, type ValuedStakingPosition } from './staking/index';
import { chainHoldings, portfolioAccountIds } from './holdings';
import { valuedLiquidityPositions, type ValuedPosition } from './liquidity/value';
import { listSwaps, type Swap } from './swaps/index';

export const POSITIONS_NOTE =
  'Holdings are token balances per chain. Liquidity positions are valued at their share of the pool reserves, lending positions at collateral less debt, staking positions at principal plus pending rewards; the totals include every position once. Yield positions list what earns (lending supplies, stakes, liquidity fees) from those same positions and are not added again.';

/** One source of yield among the caller's positions (a view of them; never counted in the totals). */
export interface YieldPosition {
  positionId: string;
  positionType: 'lending' | 'staking' | 'liquidity';
  source: 'lending_supply' | 'staking_rewards' | 'liquidity_fees';
  chain: string;
  /** The protocol or DEX. */
  protocol: string;
  assetCodes: string[];
  /** What earns, in the single asset (null for a pool's several tokens). */
  amount: string | null;
  /** Annual rate as a fraction, or null when it floats with trading (pool fees). */
  annualRate: string | null;
  /** Earned and not yet paid (stakes only; supplies compound into the balance, fees into the reserves). */
  pendingRewards: string | null;
  usdValue: string | null;
}

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
  lendingPositions: LendingPositionView[];
  stakingPositions: ValuedStakingPosition[];
  yieldPositions: YieldPosition[];
  note: string;
}

export async function defiPortfolio(userId: string, environment: Environment, c: Queryable = getDb()): Promise<DefiPortfolio> {
  const [holdingsAll, swaps, flashLoans, liquidityPositions, lendingPositions, stakingPositions] = await Promise.all([
    portfolioAccountIds(userId, environment, null, c).then((ids) => chainHoldings(ids, c)),
    listSwaps(userId, environment, 50, c),
    listFlashLoans(userId, environment, 50, c),
    valuedLiquidityPositions(userId, environment, {}, c),
    listLendingPositions(userId, environment, {}, c),
    listStakingPositions(userId, environment, {}, c),
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
  const add = (chain: string, usd: string | InstanceType<typeof D> | null) => {
    if (usd === null) return;
    total = total.plus(usd);
    byChain.set(chain, (byChain.get(chain) ?? new D(0)).plus(usd));
  };
  for (const p of liquidityPositions) add(p.chain, p.valuation.usdValue);
  for (const p of lendingPositions) add(p.chain, p.health.collateralUsd.minus(p.health.debtUsd).toDecimalPlaces(2, D.ROUND_HALF_EVEN));
  for (const p of stakingPositions) add(p.chain, p.valuation.usdValue);
  return {
    totalUsdValue: total.toFixed(2),
    chains: [...byChain.entries()].sort(([x], [y]) => x.localeCompare(y)).map(([chain, usd]) => ({ chain, usdValue: usd.toFixed(2) })),
    holdings,
    swaps,
    flashLoans,
    liquidityPositions,
    lendingPositions,
    stakingPositions,
    yieldPositions: yieldPositions(liquidityPositions, lendingPositions, stakingPositions),
    note: POSITIONS_NOTE,
  };
}

function yieldPositions(liquidity: ValuedPosition[], lending: LendingPositionView[], staking: ValuedStakingPosition[]): YieldPosition[] {
  const out: YieldPosition[] = [];
  for (const p of lending) {
    for (const s of p.health.supplied) {
      out.push({
        positionId: p.id,
        positionType: 'lending',
        source: 'lending_supply',
        chain: p.chain,
        protocol: p.protocol,
        assetCodes: [s.market.asset],
        amount: s.amount,
        annualRate: p.rates.get(s.market.id)?.supplyRate ?? null,
        pendingRewards: null,
        usdValue: s.usdValue.toDecimalPlaces(2, D.ROUND_HALF_EVEN).toFixed(2),
      });
    }
  }
  for (const p of staking) {
    if (p.status !== 'staked') continue; // unbonding stakes no longer earn
    out.push({
      positionId: p.id,
      positionType: 'staking',
      source: 'staking_rewards',
      chain: p.chain,
      protocol: p.protocol,
      assetCodes: [p.assetCode],
      amount: p.principal,
      annualRate: p.annualRate,
      pendingRewards: p.valuation.pendingRewards,
      usdValue: p.valuation.usdValue,
    });
  }
  for (const p of liquidity) {
    out.push({
      positionId: p.id,
      positionType: 'liquidity',
      source: 'liquidity_fees',
      chain: p.chain,
      protocol: p.dex,
      assetCodes: p.tokens,
      amount: null,
      annualRate: null,
      pendingRewards: null,
      usdValue: p.valuation.usdValue,
    });
  }
  return out;
}
