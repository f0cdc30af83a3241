/**
 * What a liquidity position is worth now: its share of the pool's current reserves (swap fees
 * grow the reserves, so they are in it), in USD at the platform's latest rates, against holding
 * the deposited tokens instead at the same rates (impermanent loss, fees included: value now vs
 * hold).
 */
import { getAsset } from '../../assets';
import { getPool as getDb, type Queryable } from '../../db/pool';
import { DecimalMoney as D } from '../../money/amount';
import type { Environment } from '../../platform/environment';
import { DomainError } from '../../platform/errors';
import { latestRates } from '../../rates';
import { roundUsd } from '../holdings';
import { getLiquidityPosition, listLiquidityPositions, readPoolSupply, type LiquidityPosition } from './index';
import { shareOfReserves } from './math';
import { getPool, type DexPool } from '../pools';
import { fromBaseUnits } from '../swaps/pricing';

export interface LiquidityValuation {
  /** Each token's amount the shares are worth now (ledger precision, floored). */
  amounts: string[];
  /** The hold basis: deposited × shares / shares minted (ledger precision, floored). */
  holdAmounts: string[];
  /** shares / supply, as a percentage (8 decimals). */
  poolSharePercent: string;
  /** null when a token has no USD rate. */
  usdValue: string | null;
  holdUsdValue: string | null;
  /** value − hold (USD); negative is a loss against holding. */
  impermanentLossUsd: string | null;
  /** (value / hold − 1) × 100, 4 decimals. */
  impermanentLossPercent: string | null;
}

export type ValuedPosition = LiquidityPosition & { valuation: LiquidityValuation };

export function valuePosition(p: LiquidityPosition, pool: DexPool, supply: bigint, precision: number[], rates: Map<string, string>): LiquidityValuation {
  const now = shareOfReserves(pool.reserves, supply, p.shares);
  const amounts = now.map((v, i) => fromBaseUnits(v, pool.decimals[i], precision[i]));
  const hold = p.deposited.map((d, i) => new D(d).times(p.shares.toString()).div(p.sharesMinted.toString()).toDecimalPlaces(precision[i], D.ROUND_DOWN));
  const holdAmounts = hold.map((h, i) => h.toFixed(precision[i]));
  const priced = pool.tokens.every((t) => rates.has(t));
  let usd = new D(0);
  let holdUsd = new D(0);
  if (priced) {
    for (const [i, t] of pool.tokens.entries()) {
      const rate = rates.get(t)!;
      usd = usd.plus(new D(amounts[i]).times(rate));
      holdUsd = holdUsd.plus(hold[i].times(rate));
    }
  }
  return {
    amounts,
    holdAmounts,
    poolSharePercent: supply === 0n ? '0' : new D(p.shares.toString()).div(supply.toString()).times(100).toDecimalPlaces(8, D.ROUND_HALF_EVEN).toFixed(8),
    usdValue: priced ? roundUsd(usd) : null,
    holdUsdValue: priced ? roundUsd(holdUsd) : null,
    impermanentLossUsd: priced ? roundUsd(usd.minus(holdUsd)) : null,
    impermanentLossPercent: priced && holdUsd.gt(0) ? usd.div(holdUsd).minus(1).times(100).toDecimalPlaces(4, D.ROUND_HALF_EVEN).toFixed(4) : null,
  };
}

async function valueAll(positions: LiquidityPosition[], c: Queryable): Promise<ValuedPosition[]> {
  if (positions.length === 0) return [];
  const rates = await latestRates(c);
  const pools = new Map<string, { pool: DexPool; supply: bigint; precision: number[] }>();
  const out: ValuedPosition[] = [];
  for (const p of positions) {
    let entry = pools.get(p.poolId);
    if (!entry) {
      const pool = (await getPool(c, p.environment, p.poolId))!;
      const precision: number[] = [];
      for (const t of pool.tokens) precision.push((await getAsset(t, c))!.precision);
      entry = { pool, supply: await readPoolSupply(c, pool), precision };
      pools.set(p.poolId, entry);
    }
    out.push({ ...p, valuation: valuePosition(p, entry.pool, entry.supply, entry.precision, rates) });
  }
  return out;
}

/** The caller's position with its value now (404 NOT_FOUND for anyone else's). */
export async function findLiquidityPosition(id: string, owner: { userId: string; environment: Environment }, c: Queryable = getDb()): Promise<ValuedPosition> {
  const p = await getLiquidityPosition(id, owner, c);
  if (!p) throw new DomainError('NOT_FOUND', 'Liquidity position not found');
  return (await valueAll([p], c))[0];
}

/** The caller's positions (open only unless `all`) with their values now. */
export async function valuedLiquidityPositions(userId: string, environment: Environment, opts: { all?: boolean; limit?: number } = {}, c: Queryable = getDb()): Promise<ValuedPosition[]> {
  return valueAll(await listLiquidityPositions(userId, environment, opts, c), c);
}
