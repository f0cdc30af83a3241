/**
 * Route finding over pool states (pure: no database, no clock). A route stays on one DEX (the
 * spec's best_route and alternative_routes each name one dex) and has one hop (A -> B) or two
 * (A -> X -> B through any token X that DEX pools with both). Each candidate is priced with the
 * exact contract math hop by hop; the final output is floored to the ledger precision of the
 * output asset (the customer cannot hold dust finer than that; the pool keeps it).
 */
import { DecimalMoney as D } from '../../money/amount';
import { floorToPrecision, getAmountOut, PricingError, spotPrice, type PoolState } from './pricing';

type Dec = InstanceType<typeof D>;

export interface RouteHop {
  poolId: string;
  dex: string;
  kind: PoolState['kind'];
  feePpm: number;
  tokenIn: string;
  tokenOut: string;
  amountIn: bigint;
  amountOut: bigint;
}

export interface Route {
  dex: string;
  /** Pool assets along the route (ledger asset codes). */
  path: string[];
  pools: string[];
  feeTier: string;
  hops: RouteHop[];
  amountIn: bigint;
  /** Base units of the output token the customer receives (floored to ledger precision). */
  amountOut: bigint;
  /** Fraction (0.0123 = 1.23 %) by which the execution price is below the marginal price, fees excluded. */
  priceImpact: Dec;
  gasUnits: bigint;
}

/** A route whose price moves more than this is refused as beyond the pools' liquidity. */
export const MAX_PRICE_IMPACT = new D('0.25');

/** Gas a swap costs: the transaction and router overhead, each hop by venue, wrapping native ETH. */
export const GAS_UNITS = {
  base: 60_000n,
  wrapNative: 25_000n,
  hop: { uniswap_v3: 95_000n, sushiswap: 65_000n, curve: 120_000n, balancer: 90_000n, raydium: 45_000n, orca: 55_000n, saber: 40_000n } as Record<string, bigint>,
  defaultHop: 100_000n,
  /** Solana counts compute units, not gas (base 5000 lamports per signature is priced separately). */
  solanaBase: 20_000n,
};

export function feeTierLabel(feePpm: number): string {
  return `${new D(feePpm).div(10_000).toFixed()}%`;
}

export interface Candidate {
  dex: string;
  pools: PoolState[];
  path: string[];
}

/** Every one- and two-hop path from `tokenIn` to `tokenOut` on the given DEXes. */
export function candidatePaths(pools: PoolState[], tokenIn: string, tokenOut: string, dexes: readonly string[]): Candidate[] {
  const out: Candidate[] = [];
  const has = (p: PoolState, t: string) => p.tokens.includes(t);
  for (const dex of dexes) {
    const mine = pools.filter((p) => p.dex === dex);
    for (const p of mine) if (has(p, tokenIn) && has(p, tokenOut)) out.push({ dex, pools: [p], path: [tokenIn, tokenOut] });
    const mids = new Set(mine.flatMap((p) => p.tokens).filter((t) => t !== tokenIn && t !== tokenOut));
    for (const mid of [...mids].sort()) {
      for (const p1 of mine.filter((p) => has(p, tokenIn) && has(p, mid))) {
        for (const p2 of mine.filter((p) => has(p, mid) && has(p, tokenOut))) {
          if (p1.id !== p2.id) out.push({ dex, pools: [p1, p2], path: [tokenIn, mid, tokenOut] });
        }
      }
    }
  }
  return out;
}

export interface RouteOptions {
  /** Ledger precision of the output asset; the final amount is floored to it. */
  outputPrecision: number;
  /** The route starts or ends in the chain's native coin (wrapped by the router). */
  wrapsNative?: boolean;
  solana?: boolean;
}

/**
 * Prices a path with the exact math. Throws PricingError when a hop cannot be served
 * (no liquidity, output 0) or the price moves more than MAX_PRICE_IMPACT.
 */
export function priceRoute(c: Candidate, amountIn: bigint, opts: RouteOptions): Route {
  const hops: RouteHop[] = [];
  let amount = amountIn;
  let ideal = new D(1);
  for (let k = 0; k < c.pools.length; k++) {
    const pool = c.pools[k];
    const tIn = c.path[k];
    const tOut = c.path[k + 1];
    let out = getAmountOut(pool, tIn, tOut, amount);
    const last = k === c.pools.length - 1;
    if (last) out = floorToPrecision(out, pool.decimals[pool.tokens.indexOf(tOut)], opts.outputPrecision);
    if (out <= 0n) throw new PricingError('AMOUNT_TOO_SMALL', `the amount is too small: ${pool.id} would return nothing`);
    if (out >= pool.reserves[pool.tokens.indexOf(tOut)]) throw new PricingError('INSUFFICIENT_LIQUIDITY', `${pool.id} does not hold enough ${tOut}`);
    ideal = ideal.times(spotPrice(pool, tIn, tOut)).times(new D(1).minus(new D(pool.feePpm).div(1_000_000)));
    hops.push({ poolId: pool.id, dex: pool.dex, kind: pool.kind, feePpm: pool.feePpm, tokenIn: tIn, tokenOut: tOut, amountIn: amount, amountOut: out });
    amount = out;
  }
  const first = c.pools[0];
  const lastPool = c.pools[c.pools.length - 1];
  const humanIn = new D(amountIn.toString()).div(new D(10).pow(first.decimals[first.tokens.indexOf(c.path[0])]));
  const humanOut = new D(amount.toString()).div(new D(10).pow(lastPool.decimals[lastPool.tokens.indexOf(c.path[c.path.length - 1])]));
  let impact = new D(1).minus(humanOut.div(humanIn.times(ideal)));
  if (impact.isNegative()) impact = new D(0);
  if (impact.gt(MAX_PRICE_IMPACT)) {
    throw new PricingError('INSUFFICIENT_LIQUIDITY', `the trade would move the price by ${impact.times(100).toFixed(2)} % on ${c.dex} (limit ${MAX_PRICE_IMPACT.times(100).toFixed()} %)`);
  }
  const hopGas = hops.reduce((acc, h) => acc + (GAS_UNITS.hop[h.dex] ?? GAS_UNITS.defaultHop), 0n);
  const gasUnits = (opts.solana ? GAS_UNITS.solanaBase : GAS_UNITS.base) + hopGas + (opts.wrapsNative ? GAS_UNITS.wrapNative : 0n);
  return {
    dex: c.dex,
    path: c.path,
    pools: c.pools.map((p) => p.id),
    feeTier: hops.map((h) => feeTierLabel(h.feePpm)).join(' / '),
    hops,
    amountIn,
    amountOut: amount,
    priceImpact: impact,
    gasUnits,
  };
}

export interface RouteChoice {
  best: Route;
  /** The best route of every other DEX that can serve the trade, best first. */
  alternatives: Route[];
  /** Why candidates were refused (for the error when none is left). */
  refusals: PricingError[];
}

/**
 * The best route across the DEXes: highest value out net of gas (`score`, e.g. USD of the output
 * minus USD of the gas), ties to the larger output. Throws the most telling PricingError when
 * no candidate works.
 */
export function chooseRoute(candidates: Candidate[], amountIn: bigint, opts: RouteOptions, score: (r: Route) => Dec): RouteChoice {
  const priced: Array<{ r: Route; s: Dec }> = [];
  const refusals: PricingError[] = [];
  for (const c of candidates) {
    try {
      const r = priceRoute(c, amountIn, opts);
      priced.push({ r, s: score(r) });
    } catch (err) {
      if (err instanceof PricingError) refusals.push(err);
      else throw err;
    }
  }
  if (priced.length === 0) {
    throw refusals.find((e) => e.code === 'INSUFFICIENT_LIQUIDITY') ?? refusals[0] ?? new PricingError('INSUFFICIENT_LIQUIDITY', 'no pool can serve this trade');
  }
  priced.sort((a, b) => b.s.comparedTo(a.s) || (b.r.amountOut > a.r.amountOut ? 1 : b.r.amountOut < a.r.amountOut ? -1 : 0));
  const best = priced[0].r;
  const seen = new Set([best.dex]);
  const alternatives: Route[] = [];
  for (const { r } of priced) {
    if (seen.has(r.dex)) continue;
    seen.add(r.dex);
    alternatives.push(r);
  }
  return { best, alternatives, refusals };
}
