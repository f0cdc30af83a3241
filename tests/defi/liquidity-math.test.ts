/**
 * LP share math against hand-computed values: constant product by hand (sqrt, ratios), StableSwap
 * and weighted against a Python transcription of Curve's add_liquidity (integer arithmetic) and of
 * Balancer's calcBptOutGivenExactTokensIn (decimal, 80 digits).
 */
import { describe, expect, it } from 'vitest';
import { burnShares, CP_MINIMUM_LIQUIDITY, initialSupply, isqrt, mintShares, shareOfReserves, WEIGHTED_MINIMUM_BPT } from '../../domain/defi/liquidity/math';
import { applySwap, getAmountOut, poolInvariant, type PoolState } from '../../domain/defi/swaps/pricing';

const E18 = 10n ** 18n;
const E6 = 10n ** 6n;
const cp: PoolState = { id: 'cp', chain: 'ethereum', dex: 'sushiswap', kind: 'constant_product', tokens: ['WETH', 'USDC'], decimals: [18, 6], reserves: [100n * E18, 340_000n * E6], feePpm: 3000 };
const stable: PoolState = { id: 'st', chain: 'ethereum', dex: 'curve', kind: 'stable_swap', tokens: ['DAI', 'USDC', 'USDT'], decimals: [18, 6, 6], reserves: [1000n * E18, 1000n * E6, 1000n * E6], feePpm: 100, amplification: 2000 };
const weighted: PoolState = { id: 'w', chain: 'ethereum', dex: 'balancer', kind: 'weighted', tokens: ['WETH', 'USDC'], decimals: [18, 6], reserves: [8000n * E18, 6_800_000n * E6], feePpm: 2500, weights: ['0.8', '0.2'] };

describe('constant product (Uniswap V2)', () => {
  it('isqrt floors', () => {
    expect([0n, 1n, 3n, 4n, 15n, 16n, 10n ** 36n + 1n].map(isqrt)).toEqual([0n, 1n, 1n, 2n, 3n, 4n, 10n ** 18n]);
  });

  it('first deposit: sqrt(x·y) minus the locked minimum', () => {
    const r = mintShares({ ...cp, reserves: [0n, 0n] }, 0n, [4n * E18, 9n * E6]);
    // sqrt(4e18 · 9e6) = sqrt(36e24) = 6e12
    expect(r.shares).toBe(6_000_000_000_000n - 1000n);
    expect(r.locked).toBe(CP_MINIMUM_LIQUIDITY);
    expect(r.reserves).toEqual([4n * E18, 9n * E6]);
  });

  it('later deposit: min(dx/X, dy/Y)·S, the surplus token trimmed to the ratio', () => {
    const S = initialSupply(cp).total;
    expect(S).toBe(5_830_951_894_845_300n); // floor(sqrt(100e18 · 340000e6))
    // 1 WETH + 3500 USDC into 100 WETH / 340000 USDC: the router takes 3400 USDC; 1 % of S.
    const r = mintShares(cp, S, [E18, 3500n * E6]);
    expect(r.used).toEqual([E18, 3400n * E6]);
    expect(r.shares).toBe(58_309_518_948_453n);
    // 1 WETH + 3000 USDC: USDC binds, WETH trimmed to 3000·100/340000 = 0.882352941176470588 (floored)
    const t = mintShares(cp, S, [E18, 3000n * E6]);
    expect(t.used).toEqual([882_352_941_176_470_588n, 3000n * E6]);
    expect(t.shares).toBe(51_449_575_542_752n);
    // The trimmed amount floored to what the book can hold (a 6-decimal ledger for an 18-decimal token).
    expect(mintShares(cp, S, [E18, 3000n * E6], [10n ** 12n, 1n]).used[0]).toBe(882_352_000_000_000_000n);
    expect(() => mintShares(cp, S, [E18, 0n])).toThrow(/both tokens/);
  });
});

describe('StableSwap (Curve add_liquidity)', () => {
  it('a balanced pool has D = n·x; a proportional deposit mints S·ΔD/D exactly, no fee', () => {
    const S = initialSupply(stable).total;
    expect(S).toBe(3000n * E18);
    const r = mintShares(stable, S, [100n * E18, 100n * E6, 100n * E6]);
    expect(r.shares).toBe(300n * E18);
  });

  it('a one-sided deposit pays the imbalance fee (Python reference)', () => {
    const S = 3000n * E18;
    const r = mintShares(stable, S, [300n * E18, 0n, 0n]);
    expect(r.shares).toBe(299_972_093_479_133_139_858n);
    expect(r.shares < 300n * E18).toBe(true);
    // The seeded ethereum 3pool: 1,000,000 USDC alone.
    const seeded = { ...stable, reserves: [60_000_000n * E18, 70_000_000n * E6, 65_000_000n * E6] };
    const S2 = initialSupply(seeded).total;
    expect(S2).toBe(194_999_806_645_063_604_445_621_733n);
    expect(mintShares(seeded, S2, [0n, 1_000_000n * E6, 0n]).shares).toBe(999_913_429_859_627_468_520_539n);
  });
});

describe('weighted (Balancer V2)', () => {
  it('initial supply n·∏B^w with the minimum locked; a proportional join mints S·ratio', () => {
    const init = initialSupply(weighted);
    expect(init).toEqual({ total: 61_660_035_126_395_525_268_216n, locked: WEIGHTED_MINIMUM_BPT });
    const r = mintShares(weighted, init.total, [800n * E18, 680_000n * E6]);
    expect(r.shares).toBe(init.total / 10n);
  });

  it('a single-token join is charged the swap fee on its non-proportional part (Python decimal reference)', () => {
    const S = 61_660_035_126_395_525_268_216n;
    expect(mintShares(weighted, S, [100n * E18, 0n]).shares).toBe(615_525_892_949_449_705_806n);
  });
});

describe('removal and fees', () => {
  it('burning is proportional and floored; add then remove returns the deposit (less rounding dust)', () => {
    const S = initialSupply(cp).total;
    const add = mintShares(cp, S, [E18, 3400n * E6]);
    const out = burnShares(add.reserves, S + add.shares, add.shares);
    expect(E18 - out[0] >= 0n && E18 - out[0] < 10n ** 6n).toBe(true);
    expect(3400n * E6 - out[1] >= 0n && 3400n * E6 - out[1] <= 1n).toBe(true);
    expect(burnShares([1000n, 999n], 10n, 3n)).toEqual([300n, 299n]);
  });

  it('a swap leaves its fee in the pool: the same shares are worth more, and the invariant per share grows', () => {
    const S = initialSupply(cp).total;
    const before = shareOfReserves(cp.reserves, S, S / 100n);
    const dx = 10n * E18;
    const dy = getAmountOut(cp, 'WETH', 'USDC', dx);
    const after = applySwap(cp, 'WETH', 'USDC', dx, dy);
    const back = getAmountOut(after, 'USDC', 'WETH', dy);
    const round = applySwap(after, 'USDC', 'WETH', dy, back);
    const now = shareOfReserves(round.reserves, S, S / 100n);
    // Both directions paid 0.3 %: the pool holds more of WETH and at least as much USDC.
    expect(now[0] > before[0]).toBe(true);
    expect(now[1] >= before[1]).toBe(true);
    expect(poolInvariant(round).gt(poolInvariant(cp))).toBe(true);
  });
});
