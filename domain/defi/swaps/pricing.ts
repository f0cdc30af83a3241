/**
 * DEX pricing math over pool reserves, in integer base units (token amount x 10^decimals on that
 * chain), rounding down like the contracts do. No JS floats: bigint for the integer contract math,
 * decimal.js (DecimalMoney, 60 significant digits) where a contract uses fixed-point powers.
 *
 * - constant_product: Uniswap V2 getAmountOut with the fee in parts per million (Uniswap V3 fee
 *   units: 500 = 0.05 %, 3000 = 0.3 %, 10000 = 1 %). Uniswap V3 pools are approximated by a
 *   constant-product curve over their in-range liquidity (no ticks).
 * - stable_swap: Curve StableSwap (3pool contract): get_D and get_y by Newton iteration on
 *   balances normalised to 18 decimals, fee taken from the output.
 * - weighted: Balancer V2 WeightedMath.calcOutGivenIn, fee taken from the input.
 */
import { DecimalMoney as D } from '../../money/amount';

type Dec = InstanceType<typeof D>;

export type PoolKind = 'constant_product' | 'stable_swap' | 'weighted';

export interface PoolState {
  id: string;
  chain: string;
  dex: string;
  kind: PoolKind;
  /** Ledger asset codes, in the pool's coin order. */
  tokens: string[];
  /** On-chain decimals of each token on this chain. */
  decimals: number[];
  /** Balances in base units. */
  reserves: bigint[];
  /** Swap fee in parts per million of the amount (Uniswap V3 units). */
  feePpm: number;
  /** StableSwap amplification (the contract's A, used as Ann = A * n). */
  amplification?: number | null;
  /** Weighted pools: normalised weights (decimal strings summing to 1). */
  weights?: string[] | null;
}

export const FEE_DENOMINATOR = 1_000_000n;
const PRECISION = 10n ** 18n;

export class PricingError extends Error {
  constructor(
    readonly code: 'INSUFFICIENT_LIQUIDITY' | 'TOKEN_NOT_IN_POOL' | 'AMOUNT_TOO_SMALL' | 'AMOUNT_PRECISION' | 'NO_CONVERGENCE',
    message: string,
  ) {
    super(message);
    this.name = 'PricingError';
  }
}

// ---------------------------------------------------------------------------------------------
// Constant product (Uniswap V2 / SushiSwap; Uniswap V3 approximated)
// ---------------------------------------------------------------------------------------------

/**
 * UniswapV2Library.getAmountOut with a ppm fee: for 3000 ppm it is exactly
 * amountIn*997*reserveOut / (reserveIn*1000 + amountIn*997), floored.
 */
export function constantProductOut(amountIn: bigint, reserveIn: bigint, reserveOut: bigint, feePpm: number): bigint {
  if (amountIn <= 0n) throw new PricingError('AMOUNT_TOO_SMALL', 'amount in must be positive');
  if (reserveIn <= 0n || reserveOut <= 0n) throw new PricingError('INSUFFICIENT_LIQUIDITY', 'the pool has no liquidity');
  const amountInWithFee = amountIn * (FEE_DENOMINATOR - BigInt(feePpm));
  return (amountInWithFee * reserveOut) / (reserveIn * FEE_DENOMINATOR + amountInWithFee);
}

// ---------------------------------------------------------------------------------------------
// StableSwap (Curve 3pool)
// ---------------------------------------------------------------------------------------------

/** Multiplier that brings a token of `decimals` to 18 decimals, scaled by 1e18 (the contract's RATES). */
export function stableRate(decimals: number): bigint {
  return 10n ** BigInt(36 - decimals);
}

function xpOf(pool: PoolState): bigint[] {
  return pool.reserves.map((r, i) => (r * stableRate(pool.decimals[i])) / PRECISION);
}

/** Curve get_D: the invariant D for normalised balances, Newton iteration to within 1. */
export function stableGetD(xp: bigint[], amp: bigint): bigint {
  const n = BigInt(xp.length);
  let S = 0n;
  for (const x of xp) S += x;
  if (S === 0n) return 0n;
  let D = S;
  const Ann = amp * n;
  for (let i = 0; i < 255; i++) {
    let DP = D;
    for (const x of xp) DP = (DP * D) / (x * n);
    const Dprev = D;
    D = ((Ann * S + DP * n) * D) / ((Ann - 1n) * D + (n + 1n) * DP);
    if (D > Dprev ? D - Dprev <= 1n : Dprev - D <= 1n) return D;
  }
  throw new PricingError('NO_CONVERGENCE', 'StableSwap invariant did not converge');
}

/** Curve get_y: the new balance of coin j when coin i's normalised balance becomes x. */
export function stableGetY(i: number, j: number, x: bigint, xp: bigint[], amp: bigint): bigint {
  if (i === j) throw new PricingError('TOKEN_NOT_IN_POOL', 'same coin');
  const n = BigInt(xp.length);
  const D = stableGetD(xp, amp);
  const Ann = amp * n;
  let c = D;
  let S = 0n;
  for (let k = 0; k < xp.length; k++) {
    let _x: bigint;
    if (k === i) _x = x;
    else if (k !== j) _x = xp[k];
    else continue;
    S += _x;
    c = (c * D) / (_x * n);
  }
  c = (c * D) / (Ann * n);
  const b = S + D / Ann;
  let y = D;
  for (let k = 0; k < 255; k++) {
    const yPrev = y;
    y = (y * y + c) / (2n * y + b - D);
    if (y > yPrev ? y - yPrev <= 1n : yPrev - y <= 1n) return y;
  }
  throw new PricingError('NO_CONVERGENCE', 'StableSwap get_y did not converge');
}

/** Curve get_dy: output of coin j for dx of coin i, after the fee (taken from the output). */
export function stableSwapOut(pool: PoolState, i: number, j: number, dx: bigint): bigint {
  if (dx <= 0n) throw new PricingError('AMOUNT_TOO_SMALL', 'amount in must be positive');
  const amp = BigInt(pool.amplification ?? 0);
  if (amp <= 0n) throw new PricingError('INSUFFICIENT_LIQUIDITY', 'stable pool without amplification');
  const xp = xpOf(pool);
  if (xp.some((v) => v <= 0n)) throw new PricingError('INSUFFICIENT_LIQUIDITY', 'the pool has no liquidity');
  const rateI = stableRate(pool.decimals[i]);
  const rateJ = stableRate(pool.decimals[j]);
  const x = xp[i] + (dx * rateI) / PRECISION;
  const y = stableGetY(i, j, x, xp, amp);
  const raw = xp[j] - y - 1n;
  if (raw <= 0n) return 0n;
  const dy = (raw * PRECISION) / rateJ;
  const fee = (BigInt(pool.feePpm) * dy) / FEE_DENOMINATOR;
  return dy - fee;
}

// ---------------------------------------------------------------------------------------------
// Weighted (Balancer V2)
// ---------------------------------------------------------------------------------------------

/**
 * WeightedMath.calcOutGivenIn: out = Bo * (1 - (Bi / (Bi + Ai))^(wi/wo)), with the swap fee
 * subtracted from the input (rounded up, in the pool's favour) and the result floored.
 */
export function weightedOut(pool: PoolState, i: number, j: number, amountIn: bigint): bigint {
  if (amountIn <= 0n) throw new PricingError('AMOUNT_TOO_SMALL', 'amount in must be positive');
  if (!pool.weights) throw new PricingError('INSUFFICIENT_LIQUIDITY', 'weighted pool without weights');
  const bi = pool.reserves[i];
  const bo = pool.reserves[j];
  if (bi <= 0n || bo <= 0n) throw new PricingError('INSUFFICIENT_LIQUIDITY', 'the pool has no liquidity');
  const fee = (amountIn * BigInt(pool.feePpm) + FEE_DENOMINATOR - 1n) / FEE_DENOMINATOR;
  const ai = amountIn - fee;
  if (ai <= 0n) return 0n;
  const base = new D(bi.toString()).div(new D((bi + ai).toString()));
  const exponent = new D(pool.weights[i]).div(pool.weights[j]);
  const power = base.pow(exponent);
  const out = new D(bo.toString()).times(new D(1).minus(power)).floor();
  return out.isNegative() ? 0n : BigInt(out.toFixed(0));
}

// ---------------------------------------------------------------------------------------------
// Generic pool operations
// ---------------------------------------------------------------------------------------------

export function tokenIndex(pool: PoolState, token: string): number {
  const i = pool.tokens.indexOf(token);
  if (i < 0) throw new PricingError('TOKEN_NOT_IN_POOL', `${token} is not in pool ${pool.id}`);
  return i;
}

/** Exact output in base units of `tokenOut` for `amountIn` base units of `tokenIn`. */
export function getAmountOut(pool: PoolState, tokenIn: string, tokenOut: string, amountIn: bigint): bigint {
  const i = tokenIndex(pool, tokenIn);
  const j = tokenIndex(pool, tokenOut);
  if (i === j) throw new PricingError('TOKEN_NOT_IN_POOL', 'token in and token out are the same');
  switch (pool.kind) {
    case 'constant_product':
      return constantProductOut(amountIn, pool.reserves[i], pool.reserves[j], pool.feePpm);
    case 'stable_swap':
      return stableSwapOut(pool, i, j, amountIn);
    case 'weighted':
      return weightedOut(pool, i, j, amountIn);
  }
}

/** The pool after a swap: amountIn joins, amountOut leaves (fees stay in the pool). */
export function applySwap(pool: PoolState, tokenIn: string, tokenOut: string, amountIn: bigint, amountOut: bigint): PoolState {
  const i = tokenIndex(pool, tokenIn);
  const j = tokenIndex(pool, tokenOut);
  if (amountOut >= pool.reserves[j]) throw new PricingError('INSUFFICIENT_LIQUIDITY', `pool ${pool.id} cannot pay ${amountOut}`);
  const reserves = [...pool.reserves];
  reserves[i] += amountIn;
  reserves[j] -= amountOut;
  return { ...pool, reserves };
}

const human = (v: bigint, decimals: number): Dec => new D(v.toString()).div(new D(10).pow(decimals));

/**
 * Marginal price before fees: units of tokenOut per unit of tokenIn (human units) for an
 * infinitesimal trade. Constant product Ro/Ri; weighted (Bo/wo)/(Bi/wi); StableSwap the ratio of
 * the invariant's partial derivatives (Ann + D_P/x_i) / (Ann + D_P/x_j), D_P = D^(n+1)/(n^n prod x).
 */
export function spotPrice(pool: PoolState, tokenIn: string, tokenOut: string): Dec {
  const i = tokenIndex(pool, tokenIn);
  const j = tokenIndex(pool, tokenOut);
  switch (pool.kind) {
    case 'constant_product':
      return human(pool.reserves[j], pool.decimals[j]).div(human(pool.reserves[i], pool.decimals[i]));
    case 'weighted': {
      const w = pool.weights!;
      return human(pool.reserves[j], pool.decimals[j]).div(w[j]).div(human(pool.reserves[i], pool.decimals[i]).div(w[i]));
    }
    case 'stable_swap': {
      const xp = xpOf(pool);
      const n = xp.length;
      const D0 = new D(stableGetD(xp, BigInt(pool.amplification ?? 0)).toString());
      let dp = D0;
      for (const x of xp) dp = dp.times(D0).div(new D(x.toString()).times(n));
      const ann = new D(pool.amplification ?? 0).times(n);
      return ann.plus(dp.div(xp[i].toString())).div(ann.plus(dp.div(xp[j].toString())));
    }
  }
}

/** Invariant of the pool (k = x*y for constant product, D for StableSwap, prod B^w for weighted). */
export function poolInvariant(pool: PoolState): Dec {
  switch (pool.kind) {
    case 'constant_product':
      return pool.reserves.reduce((acc, r) => acc.times(r.toString()), new D(1));
    case 'stable_swap':
      return new D(stableGetD(xpOf(pool), BigInt(pool.amplification ?? 0)).toString());
    case 'weighted':
      return pool.reserves.reduce((acc, r, k) => acc.times(new D(r.toString()).pow(pool.weights![k])), new D(1));
  }
}

// ---------------------------------------------------------------------------------------------
// Units
// ---------------------------------------------------------------------------------------------

/** "1.5" with 6 decimals -> 1500000n. The amount must not carry more decimals than the token. */
export function toBaseUnits(amount: string, decimals: number): bigint {
  const [int, frac = ''] = amount.split('.');
  if (frac.replace(/0+$/, '').length > decimals) throw new PricingError('AMOUNT_PRECISION', `amount has more than ${decimals} decimals`);
  return BigInt(int + frac.padEnd(decimals, '0').slice(0, decimals));
}

/** 1500000n with 6 decimals -> "1.500000" (shown at `places` decimals: fewer rounds down, more pads). */
export function fromBaseUnits(value: bigint, decimals: number, places = decimals): string {
  const neg = value < 0n;
  let v = neg ? -value : value;
  if (places < decimals) v = v / 10n ** BigInt(decimals - places);
  else if (places > decimals) v = v * 10n ** BigInt(places - decimals);
  const s = v.toString().padStart(places + 1, '0');
  const out = places > 0 ? `${s.slice(0, -places)}.${s.slice(-places)}` : s;
  return neg ? `-${out}` : out;
}

/** Floors base units of a token with `decimals` to a multiple of the ledger's precision. */
export function floorToPrecision(value: bigint, decimals: number, precision: number): bigint {
  if (precision >= decimals) return value;
  const unit = 10n ** BigInt(decimals - precision);
  return (value / unit) * unit;
}

export { human as humanAmount };
