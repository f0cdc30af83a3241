/**
 * Liquidity-provider share math, exactly as each pool type's contract mints and burns LP tokens.
 * Reserves and amounts in base units (bigint); LP shares are integers of an 18-decimal LP token.
 * Every result rounds down (in the pool's favour), as the contracts do.
 *
 * - constant_product (Uniswap V2 Pair.mint / Router.addLiquidity): the first deposit mints
 *   sqrt(x·y) and locks MINIMUM_LIQUIDITY (1000) forever; later deposits are trimmed to the pool's
 *   ratio (the router's quote) and mint min(dx·S/X, dy·S/Y).
 * - stable_swap (Curve StableSwap3Pool.add_liquidity): mint S·(D2 − D0)/D0, D0 the invariant
 *   before, D2 after the deposit less the imbalance fee (fee·n/(4(n−1)) of each coin's distance
 *   from the ideal proportional balance); the first deposit mints D. The whole fee stays in the
 *   pool for the LPs (admin fee 0).
 * - weighted (Balancer V2 WeightedMath.calcBptOutGivenExactTokensIn): the swap fee charged on the
 *   part of each amount above the proportional join, then S·(∏ ratio_i^w_i − 1), in decimal.js
 *   at 60 digits; the first deposit mints n·∏ B_i^w_i (balances upscaled to 18 decimals) and locks
 *   1e6 (Balancer's _MINIMUM_BPT).
 * - Removal is proportional for every type (Uniswap burn, Curve remove_liquidity, Balancer
 *   EXACT_BPT_IN_FOR_TOKENS_OUT): out_i = R_i·burn/S, floored.
 */
import { DecimalMoney as D } from '../../money/amount';
import { FEE_DENOMINATOR, PricingError, stableGetD, stableRate, type PoolState } from '../swaps/pricing';

export const LP_DECIMALS = 18;
export const CP_MINIMUM_LIQUIDITY = 1000n;
export const WEIGHTED_MINIMUM_BPT = 1_000_000n;
const WAD = 10n ** 18n;

/** Integer square root, floored (Uniswap's Math.sqrt, Babylonian). */
export function isqrt(n: bigint): bigint {
  if (n < 0n) throw new PricingError('AMOUNT_TOO_SMALL', 'square root of a negative number');
  if (n < 2n) return n;
  let x = n;
  let y = (x + 1n) / 2n;
  while (y < x) {
    x = y;
    y = (x + n / x) / 2n;
  }
  return x;
}

export interface MintResult {
  /** The amounts actually taken from the depositor (constant product may trim one to the pool's ratio). */
  used: bigint[];
  /** LP shares minted to the depositor. */
  shares: bigint;
  /** Shares minted to nobody on a first deposit (locked forever); 0 otherwise. */
  locked: bigint;
  /** The pool's reserves after the deposit. */
  reserves: bigint[];
}

/** The LP supply a pool has at its first deposit of `reserves` (what the pool's first LP would mint, locked part included). */
export function initialSupply(pool: PoolState, reserves: bigint[] = pool.reserves): { total: bigint; locked: bigint } {
  switch (pool.kind) {
    case 'constant_product':
      return { total: isqrt(reserves[0] * reserves[1]), locked: CP_MINIMUM_LIQUIDITY };
    case 'stable_swap':
      return { total: stableGetD(xpOf(pool.decimals, reserves), amp(pool)), locked: 0n };
    case 'weighted': {
      const inv = reserves.reduce((acc, r, i) => acc.times(new D(upscale(r, pool.decimals[i]).toString()).div(WAD.toString()).pow(pool.weights![i])), new D(1));
      return { total: BigInt(inv.times(reserves.length).times(WAD.toString()).floor().toFixed(0)), locked: WEIGHTED_MINIMUM_BPT };
    }
  }
}

/**
 * Shares minted for depositing `amounts` into a pool whose LP supply is `supply` (0: first
 * deposit). `unit[i]` is the base-unit granularity the depositor's book can hold (10^(decimals −
 * ledger precision), 1 when the ledger is as fine as the token): a trimmed amount is floored to it.
 */
export function mintShares(pool: PoolState, supply: bigint, amounts: bigint[], unit: bigint[] = amounts.map(() => 1n)): MintResult {
  if (amounts.length !== pool.reserves.length || amounts.some((a) => a < 0n) || amounts.every((a) => a === 0n)) {
    throw new PricingError('AMOUNT_TOO_SMALL', 'amounts must be non-negative with at least one positive');
  }
  const reserves = pool.reserves;
  let result: MintResult;
  switch (pool.kind) {
    case 'constant_product':
      result = mintConstantProduct(reserves, supply, amounts, unit);
      break;
    case 'stable_swap':
      result = mintStable(pool, supply, amounts);
      break;
    case 'weighted':
      result = mintWeighted(pool, supply, amounts);
      break;
  }
  if (result.shares <= 0n) throw new PricingError('AMOUNT_TOO_SMALL', 'the deposit is too small to mint any LP share');
  return result;
}

function mintConstantProduct(reserves: bigint[], supply: bigint, amounts: bigint[], unit: bigint[]): MintResult {
  const [r0, r1] = reserves;
  let [a0, a1] = amounts;
  if (a0 <= 0n || a1 <= 0n) throw new PricingError('AMOUNT_TOO_SMALL', 'a constant-product pool takes both tokens');
  if (supply === 0n) {
    const total = isqrt(a0 * a1);
    if (total <= CP_MINIMUM_LIQUIDITY) throw new PricingError('AMOUNT_TOO_SMALL', 'the first deposit must exceed the minimum liquidity');
    return { used: [a0, a1], shares: total - CP_MINIMUM_LIQUIDITY, locked: CP_MINIMUM_LIQUIDITY, reserves: [r0 + a0, r1 + a1] };
  }
  // UniswapV2Router.addLiquidity: keep amount 0 when the optimal amount 1 fits, else the reverse.
  const b1 = floorTo((a0 * r1) / r0, unit[1]);
  if (b1 <= a1) a1 = b1;
  else a0 = floorTo((a1 * r0) / r1, unit[0]);
  if (a0 <= 0n || a1 <= 0n) throw new PricingError('AMOUNT_TOO_SMALL', 'the deposit is too small for the pool ratio');
  const s0 = (a0 * supply) / r0;
  const s1 = (a1 * supply) / r1;
  return { used: [a0, a1], shares: s0 < s1 ? s0 : s1, locked: 0n, reserves: [r0 + a0, r1 + a1] };
}

function mintStable(pool: PoolState, supply: bigint, amounts: bigint[]): MintResult {
  const A = amp(pool);
  const n = BigInt(amounts.length);
  const old = pool.reserves;
  const D0 = supply > 0n ? stableGetD(xpOf(pool.decimals, old), A) : 0n;
  const next = old.map((b, i) => b + amounts[i]);
  if (supply === 0n && amounts.some((a) => a === 0n)) throw new PricingError('AMOUNT_TOO_SMALL', 'the first deposit takes every coin');
  const D1 = stableGetD(xpOf(pool.decimals, next), A);
  if (D1 <= D0) throw new PricingError('AMOUNT_TOO_SMALL', 'the deposit does not grow the invariant');
  if (supply === 0n) return { used: amounts, shares: D1, locked: 0n, reserves: next };
  const fee = (BigInt(pool.feePpm) * n) / (4n * (n - 1n));
  const afterFees = next.map((nb, i) => {
    const ideal = (D1 * old[i]) / D0;
    const diff = ideal > nb ? ideal - nb : nb - ideal;
    return nb - (fee * diff) / FEE_DENOMINATOR;
  });
  const D2 = stableGetD(xpOf(pool.decimals, afterFees), A);
  return { used: amounts, shares: (supply * (D2 - D0)) / D0, locked: 0n, reserves: next };
}

function mintWeighted(pool: PoolState, supply: bigint, amounts: bigint[]): MintResult {
  const w = pool.weights;
  if (!w) throw new PricingError('INSUFFICIENT_LIQUIDITY', 'weighted pool without weights');
  const next = pool.reserves.map((b, i) => b + amounts[i]);
  if (supply === 0n) {
    if (amounts.some((a) => a === 0n)) throw new PricingError('AMOUNT_TOO_SMALL', 'the first deposit takes every token');
    const { total, locked } = initialSupply(pool, amounts);
    return { used: amounts, shares: total - locked, locked, reserves: next };
  }
  const B = pool.reserves.map((b) => new D(b.toString()));
  const a = amounts.map((x) => new D(x.toString()));
  const feeFrac = new D(pool.feePpm).div(FEE_DENOMINATOR.toString());
  const ratiosWithFee = B.map((b, i) => b.plus(a[i]).div(b));
  const invariantRatioWithFees = ratiosWithFee.reduce((acc, r, i) => acc.plus(r.times(w[i])), new D(0));
  let invariantRatio = new D(1);
  for (let i = 0; i < B.length; i++) {
    let amountInWithoutFee = a[i];
    if (ratiosWithFee[i].gt(invariantRatioWithFees)) {
      const nonTaxable = B[i].times(invariantRatioWithFees.minus(1));
      const taxable = a[i].minus(nonTaxable);
      amountInWithoutFee = nonTaxable.plus(taxable.times(new D(1).minus(feeFrac)));
    }
    invariantRatio = invariantRatio.times(B[i].plus(amountInWithoutFee).div(B[i]).pow(w[i]));
  }
  const shares = invariantRatio.gt(1) ? BigInt(new D(supply.toString()).times(invariantRatio.minus(1)).floor().toFixed(0)) : 0n;
  return { used: amounts, shares, locked: 0n, reserves: next };
}

/** Proportional exit: burning `shares` of `supply` pays R_i·shares/S of each coin, floored (then to `unit`). */
export function burnShares(reserves: bigint[], supply: bigint, shares: bigint, unit: bigint[] = reserves.map(() => 1n)): bigint[] {
  if (shares <= 0n || shares > supply) throw new PricingError('AMOUNT_TOO_SMALL', 'shares to burn must be positive and within the supply');
  return reserves.map((r, i) => floorTo((r * shares) / supply, unit[i]));
}

/** What `shares` of `supply` are worth in each coin now (base units, floored): share × reserves. */
export function shareOfReserves(reserves: bigint[], supply: bigint, shares: bigint): bigint[] {
  return supply === 0n ? reserves.map(() => 0n) : reserves.map((r) => (r * shares) / supply);
}

const floorTo = (v: bigint, unit: bigint): bigint => (unit > 1n ? (v / unit) * unit : v);
const upscale = (v: bigint, decimals: number): bigint => v * 10n ** BigInt(18 - decimals);
const xpOf = (decimals: number[], reserves: bigint[]): bigint[] => reserves.map((r, i) => (r * stableRate(decimals[i])) / WAD);
function amp(pool: PoolState): bigint {
  const a = BigInt(pool.amplification ?? 0);
  if (a <= 0n) throw new PricingError('INSUFFICIENT_LIQUIDITY', 'stable pool without amplification');
  return a;
}
