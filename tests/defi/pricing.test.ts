import { describe, expect, it } from 'vitest';
import { DecimalMoney as D } from '../../domain/money/amount';
import {
  applySwap,
  constantProductOut,
  fromBaseUnits,
  getAmountOut,
  poolInvariant,
  PricingError,
  spotPrice,
  stableGetD,
  stableSwapOut,
  toBaseUnits,
  type PoolState,
} from '../../domain/defi/swaps/pricing';
import { candidatePaths, chooseRoute, priceRoute } from '../../domain/defi/swaps/routing';

const E18 = 10n ** 18n;
const E6 = 10n ** 6n;

const cp = (id: string, dex: string, tokens: [string, string], decimals: [number, number], reserves: [bigint, bigint], feePpm: number): PoolState => ({
  id,
  chain: 'ethereum',
  dex,
  kind: 'constant_product',
  tokens,
  decimals,
  reserves,
  feePpm,
});

const threePool = (): PoolState => ({
  id: 'curve-3pool',
  chain: 'ethereum',
  dex: 'curve',
  kind: 'stable_swap',
  tokens: ['DAI', 'USDC', 'USDT'],
  decimals: [18, 6, 6],
  reserves: [100_000_000n * E18, 120_000_000n * E6, 80_000_000n * E6],
  feePpm: 100,
  amplification: 2000,
});

describe('constant product (Uniswap V2 getAmountOut)', () => {
  it('matches the hand-computed output with the 0.3 % fee, rounded down', () => {
    // 1e6 * 997000 * 2e9 / (1e9 * 1e6 + 1e6 * 997000) = 1.994e21 / 1.000997e15 = 1992013.96... -> 1992013
    expect(constantProductOut(1_000_000n, 1_000_000_000n, 2_000_000_000n, 3000)).toBe(1_992_013n);
    // Identical to the V2 contract's 997/1000 formulation.
    const v2 = (1_000_000n * 997n * 2_000_000_000n) / (1_000_000_000n * 1000n + 1_000_000n * 997n);
    expect(constantProductOut(1_000_000n, 1_000_000_000n, 2_000_000_000n, 3000)).toBe(v2);
  });

  it('applies the Uniswap V3 fee tiers 0.05 % and 1 %', () => {
    // 1e6 * 999500 * 2e9 / (1e15 + 999500e6) = 1997003.5... ; with 990000: 1978041.5...
    expect(constantProductOut(1_000_000n, 1_000_000_000n, 2_000_000_000n, 500)).toBe(1_997_003n);
    expect(constantProductOut(1_000_000n, 1_000_000_000n, 2_000_000_000n, 10000)).toBe(1_978_041n);
  });

  it('keeps x*y from decreasing and refuses an empty pool', () => {
    const p = cp('p', 'sushiswap', ['WETH', 'USDC'], [18, 6], [100n * E18, 340_000n * E6], 3000);
    const out = getAmountOut(p, 'WETH', 'USDC', 5n * E18);
    const after = applySwap(p, 'WETH', 'USDC', 5n * E18, out);
    expect(after.reserves[0] * after.reserves[1] >= p.reserves[0] * p.reserves[1]).toBe(true);
    expect(poolInvariant(after).gte(poolInvariant(p))).toBe(true);
    expect(() => constantProductOut(1n, 0n, 10n, 3000)).toThrow(PricingError);
  });
});

describe('StableSwap (Curve 3pool math)', () => {
  // Reference values from a line-by-line Python transcription of StableSwap3Pool.vy (get_D,
  // get_y, get_dy with RATES [1e18, 1e30, 1e30], fee 1e6 / 1e10), integer arithmetic.
  it('matches the contract reference for an unbalanced pool', () => {
    const p = threePool();
    const xp = [p.reserves[0], p.reserves[1] * 10n ** 12n, p.reserves[2] * 10n ** 12n];
    expect(stableGetD(xp, 2000n)).toBe(299997917765608652100285788n);
    expect(getAmountOut(p, 'USDC', 'DAI', 1_000_000n * E6)).toBe(999808754133748832044257n);
    expect(getAmountOut(p, 'DAI', 'USDT', 250_000n * E18)).toBe(249942045894n);
    expect(getAmountOut(p, 'USDT', 'USDC', 10_000_000n * E6)).toBe(10000577356974n);
  });

  it('agrees with the closed-form solution of the invariant on a balanced pool', () => {
    // Balanced: D = sum of balances exactly; get_y's Newton step solves y^2 + (b - D) y = c with
    // c = D^4 / (n^3 x X Ann), b = x + X + D/Ann (n = 3, Ann = A n): y = ((D - b) + sqrt((D - b)^2 + 4c)) / 2.
    const X = 50_000_000n * E18;
    const p: PoolState = { ...threePool(), reserves: [X, 50_000_000n * E6, 50_000_000n * E6], feePpm: 0 };
    expect(stableGetD([X, X, X], 2000n)).toBe(3n * X);
    const dx = 5_000_000n * E6; // 5M USDC in, DAI out
    const n = new D(3);
    const Dd = new D((3n * X).toString());
    const ann = new D(2000).times(n);
    const x = new D((X + dx * 10n ** 12n).toString());
    const Xd = new D(X.toString());
    const c = Dd.pow(4).div(n.pow(3).times(x).times(Xd).times(ann));
    const b = x.plus(Xd).plus(Dd.div(ann));
    const y = Dd.minus(b).plus(Dd.minus(b).pow(2).plus(c.times(4)).sqrt()).div(2);
    const expected = Xd.minus(y).minus(1);
    const got = new D(getAmountOut(p, 'USDC', 'DAI', dx).toString());
    expect(got.minus(expected).abs().lte(2)).toBe(true);
    // Near the peg a stable pool barely moves: 5M of 150M trades within 0.1 %.
    expect(got.div(new D(dx.toString()).times(1e12)).gt('0.999')).toBe(true);
    // And far better than a constant-product pool of the same balances would.
    const cpOut = constantProductOut(dx * 10n ** 12n, X, X, 0);
    expect(BigInt(got.toFixed(0)) > cpOut).toBe(true);
  });

  it('charges the fee on the output and keeps D from decreasing', () => {
    const p = threePool();
    const noFee = stableSwapOut({ ...p, feePpm: 0 }, 1, 0, 1_000n * E6);
    const withFee = stableSwapOut(p, 1, 0, 1_000n * E6);
    expect(withFee).toBe(noFee - (noFee * 100n) / 1_000_000n);
    const after = applySwap(p, 'USDC', 'DAI', 1_000n * E6, withFee);
    expect(poolInvariant(after).gte(poolInvariant(p))).toBe(true);
  });

  it('prices at the marginal rate: spot from the invariant gradient matches a tiny trade', () => {
    const p = threePool();
    const spot = spotPrice(p, 'USDC', 'DAI');
    const tiny = new D(stableSwapOut({ ...p, feePpm: 0 }, 1, 0, 1_000_000n).toString()).div(new D(10).pow(18));
    expect(tiny.minus(spot).abs().lt('0.000001')).toBe(true);
    // The pool is short of USDT, so USDT is dearer than par and USDC cheaper.
    expect(spot.lt(1)).toBe(true);
    expect(spotPrice(p, 'USDT', 'USDC').gt(1)).toBe(true);
  });
});

describe('weighted pool (Balancer V2 calcOutGivenIn)', () => {
  const pool: PoolState = {
    id: 'bal-80-20',
    chain: 'ethereum',
    dex: 'balancer',
    kind: 'weighted',
    tokens: ['WETH', 'USDC'],
    decimals: [18, 6],
    reserves: [8000n * E18, 6_800_000n * E6],
    feePpm: 3000,
    weights: ['0.8', '0.2'],
  };
  it('matches Python decimal (80 digits) values for both directions', () => {
    // bo * (1 - (bi / (bi + ai))^(wi/wo)), ai = amount - ceil(amount * 0.003), floored
    expect(getAmountOut(pool, 'WETH', 'USDC', E18)).toBe(3388744128n);
    expect(getAmountOut(pool, 'USDC', 'WETH', 3400n * E6)).toBe(996689488276454622n);
    expect(spotPrice(pool, 'WETH', 'USDC').toFixed()).toBe('3400');
  });
});

describe('routes', () => {
  const wethUsdc = cp('uni-weth-usdc', 'uniswap_v3', ['WETH', 'USDC'], [18, 6], [100n * E18, 340_000n * E6], 3000);
  const usdcDai = cp('uni-usdc-dai', 'uniswap_v3', ['USDC', 'DAI'], [6, 18], [1_000_000n * E6, 1_000_000n * E18], 500);

  it('prices a two-hop path WETH -> USDC -> DAI hop by hop', () => {
    const [c] = candidatePaths([wethUsdc, usdcDai], 'WETH', 'DAI', ['uniswap_v3']);
    expect(c.path).toEqual(['WETH', 'USDC', 'DAI']);
    const r = priceRoute(c, E18, { outputPrecision: 18 });
    // Hop 1: 0.997 * 340000 / (100 + 0.997) = 3356.337316... USDC (floored to 3356.337316)
    expect(r.hops[0].amountOut).toBe(3356337316n);
    // Hop 2: 3356.337316 * 0.9995 * 1e6 / (1e6 + 3356.337316 * 0.9995) = 3343.443035579077742889 DAI
    expect(r.amountOut).toBe(3343443035579077742889n);
    expect(r.feeTier).toBe('0.3% / 0.05%');
    expect(r.pools).toEqual(['uni-weth-usdc', 'uni-usdc-dai']);
    // Price impact excludes fees: 1 - out / (1 * 3400 * 1 * 0.997 * 0.9995)
    const ideal = new D(3400).times('0.997').times('0.9995');
    expect(r.priceImpact.toFixed(12)).toBe(new D(1).minus(new D('3343.443035579077742889').div(ideal)).toFixed(12));
  });

  it('floors the output to the ledger precision and refuses trades beyond the liquidity', () => {
    const c = candidatePaths([wethUsdc], 'USDC', 'WETH', ['uniswap_v3'])[0];
    const r = priceRoute(c, 100n * E6, { outputPrecision: 8 });
    expect(r.amountOut % 10n ** 10n).toBe(0n);
    expect(() => priceRoute(c, 200_000n * E6, { outputPrecision: 18 })).toThrow(/move the price/);
  });

  it('chooses the DEX with the best output net of gas and lists the others as alternatives', () => {
    const sushi = cp('sushi-weth-usdc', 'sushiswap', ['WETH', 'USDC'], [18, 6], [100n * E18, 341_000n * E6], 3000);
    const cands = candidatePaths([wethUsdc, usdcDai, sushi], 'WETH', 'USDC', ['uniswap_v3', 'sushiswap']);
    const choice = chooseRoute(cands, E18, { outputPrecision: 6 }, (r) => new D(r.amountOut.toString()));
    expect(choice.best.dex).toBe('sushiswap');
    expect(choice.alternatives.map((a) => a.dex)).toEqual(['uniswap_v3']);
    // A gas-heavy winner loses when gas is counted.
    const gasScore = (r: { dex: string; amountOut: bigint }) => new D(r.amountOut.toString()).minus(r.dex === 'sushiswap' ? 10_000_000 : 0);
    expect(chooseRoute(cands, E18, { outputPrecision: 6 }, gasScore).best.dex).toBe('uniswap_v3');
  });

  it('converts between decimal strings and base units exactly', () => {
    expect(toBaseUnits('1.5', 6)).toBe(1_500_000n);
    expect(toBaseUnits('0.000000000000000001', 18)).toBe(1n);
    expect(fromBaseUnits(1_500_000n, 6)).toBe('1.500000');
    expect(fromBaseUnits(123456789n, 8, 2)).toBe('1.23');
    expect(() => toBaseUnits('0.1234567', 6)).toThrow(PricingError);
  });
});
