/**
 * Swap quotes: the best route across the requested DEX sources for an amount, with price impact,
 * gas in USD, alternatives per DEX, the slippage-bounded minimum and an expiry (30 s by default).
 * A quote is spent once, by its owner, before it expires (domain/defi/swaps/index.ts).
 */
import type pg from 'pg';
import { getAsset } from '../../assets';
import { getChain, getToken, tokenForAsset, type ChainInfo, type TokenInfo } from '../../chains/registry';
import { getPool as getDb, type Queryable } from '../../db/pool';
import { DecimalMoney as D, parseRequestAmount } from '../../money/amount';
import type { Environment } from '../../platform/environment';
import { DomainError } from '../../platform/errors';
import { newId } from '../../platform/ids';
import { latestRate } from '../../rates';
import { chainAdapterOrUnavailable, gasCostNative, nativeUsdPrice } from '../gas';
import { DEX_NAMES, listPools } from '../pools';
import { fromBaseUnits, PricingError, toBaseUnits } from './pricing';
import { candidatePaths, chooseRoute, type Route } from './routing';

type Dec = InstanceType<typeof D>;

export const DEFAULT_SLIPPAGE_BPS = 50;

export function quoteTtlSeconds(): number {
  const v = parseInt(process.env.DEFI_QUOTE_TTL_SECONDS ?? '30', 10);
  return Number.isFinite(v) && v > 0 ? v : 30;
}

/** The asset a token trades as in pools: routers wrap native ETH into WETH. */
export function poolAsset(token: TokenInfo): string {
  return token.native && token.assetCode === 'ETH' ? 'WETH' : token.assetCode;
}

export interface StoredHop {
  pool_id: string;
  dex: string;
  token_in: string;
  token_out: string;
  fee_ppm: number;
  amount_in: string;
  amount_out: string;
}

/** A route as stored on the quote and the swap (base-unit amounts as strings). */
export interface StoredRoute {
  dex: string;
  /** Token symbols on the chain, as shown (the requested tokens at the ends). */
  path: string[];
  /** Pool assets (ledger codes) the hops trade. */
  pool_path: string[];
  pools: string[];
  fee_tier: string;
  hops: StoredHop[];
  gas_units: string;
  amount_out_base: string;
}

export interface StoredAlternative {
  dex: string;
  estimated_output: string;
  price_impact_percent: string;
  path: string[];
  pools: string[];
  fee_tier: string;
  estimated_gas_usd: string;
}

export interface SwapQuote {
  id: string;
  environment: Environment;
  userId: string;
  chain: string;
  tokenIn: string;
  tokenOut: string;
  assetIn: string;
  assetOut: string;
  amountIn: string;
  estimatedOutput: string;
  minimumOutput: string;
  slippageBps: number;
  priceImpactPercent: string;
  gasUnits: string;
  gasPriceGwei: string;
  estimatedGasUsd: string;
  networkFee: string;
  dexSources: string[];
  route: StoredRoute;
  alternatives: StoredAlternative[];
  expiresAt: Date;
  usedAt: Date | null;
  swapId: string | null;
  createdAt: Date;
}

interface QuoteRow {
  id: string;
  environment: Environment;
  user_id: string;
  chain: string;
  token_in: string;
  token_out: string;
  asset_in: string;
  asset_out: string;
  amount_in: string;
  estimated_output: string;
  minimum_output: string;
  slippage_bps: number;
  price_impact_percent: string;
  gas_units: string;
  gas_price_gwei: string;
  estimated_gas_usd: string;
  network_fee: string;
  dex_sources: string[];
  route: StoredRoute;
  alternatives: StoredAlternative[];
  expires_at: Date;
  used_at: Date | null;
  swap_id: string | null;
  created_at: Date;
  p_in: number;
  p_out: number;
}

const SELECT = `SELECT q.*, ai.precision AS p_in, ao.precision AS p_out FROM defi_swap_quotes q
  JOIN assets ai ON ai.code = q.asset_in JOIN assets ao ON ao.code = q.asset_out`;

const fmt = (v: string, p: number) => new D(v).toFixed(p);

function toQuote(r: QuoteRow): SwapQuote {
  return {
    id: r.id,
    environment: r.environment,
    userId: r.user_id,
    chain: r.chain,
    tokenIn: r.token_in,
    tokenOut: r.token_out,
    assetIn: r.asset_in,
    assetOut: r.asset_out,
    amountIn: fmt(r.amount_in, r.p_in),
    estimatedOutput: fmt(r.estimated_output, r.p_out),
    minimumOutput: fmt(r.minimum_output, r.p_out),
    slippageBps: r.slippage_bps,
    priceImpactPercent: new D(r.price_impact_percent).toFixed(4),
    gasUnits: r.gas_units,
    gasPriceGwei: new D(r.gas_price_gwei).toFixed(),
    estimatedGasUsd: new D(r.estimated_gas_usd).toFixed(4),
    networkFee: fmt(r.network_fee, r.p_out),
    dexSources: r.dex_sources,
    route: r.route,
    alternatives: r.alternatives,
    expiresAt: r.expires_at,
    usedAt: r.used_at,
    swapId: r.swap_id,
    createdAt: r.created_at,
  };
}

export interface QuoteInput {
  userId: string;
  environment: Environment;
  chain: unknown;
  tokenIn: unknown;
  tokenOut: unknown;
  amountIn: unknown;
  slippageBps?: number;
  dexSources?: string[] | null;
  now: Date;
  /** Body field names for error pointers (v1 and v2 name them differently). */
  pointers?: { chain?: string; tokenIn?: string; tokenOut?: string; amount?: string; dexSources?: string };
}

/** What pricing needs, resolved from a request. */
export interface PricedTrade {
  chain: ChainInfo;
  tIn: TokenInfo;
  tOut: TokenInfo;
  amountIn: string;
  amountInBase: bigint;
  precisionOut: number;
  best: Route;
  alternatives: Route[];
  gasPrice: string;
  gasUsd: (r: Route) => Dec;
  rateOut: Dec;
  dexSources: string[];
}

function pricingRefusal(err: PricingError, pointer: string): DomainError {
  const code = err.code === 'AMOUNT_PRECISION' ? 'AMOUNT_PRECISION' : err.code === 'AMOUNT_TOO_SMALL' ? 'AMOUNT_TOO_SMALL' : 'INSUFFICIENT_LIQUIDITY';
  return new DomainError(code, err.message, pointer);
}

/** Validates the trade and prices every route on the requested DEXes at the current reserves. */
export async function priceTrade(input: Omit<QuoteInput, 'userId' | 'slippageBps'>, c: Queryable = getDb()): Promise<PricedTrade> {
  const ptr = { chain: '/chain', tokenIn: '/token_in', tokenOut: '/token_out', amount: '/amount_in', dexSources: '/dex_sources', ...input.pointers };
  const chain = getChain(input.chain, ptr.chain);
  const tIn = getToken(chain.id, input.tokenIn, ptr.tokenIn, ptr.chain);
  const tOut = getToken(chain.id, input.tokenOut, ptr.tokenOut, ptr.chain);
  if (poolAsset(tIn) === poolAsset(tOut)) {
    throw new DomainError('SAME_TOKEN', `${tIn.symbol} and ${tOut.symbol} trade as the same pool asset on ${chain.id}; nothing to swap`, ptr.tokenOut);
  }
  const aIn = await getAsset(tIn.assetCode, c);
  const aOut = await getAsset(tOut.assetCode, c);
  if (!aIn || !aOut) throw new DomainError('UNKNOWN_TOKEN', 'token is not a ledger asset', ptr.tokenIn);
  const amountIn = parseRequestAmount(input.amountIn, aIn, ptr.amount, Math.min(aIn.precision, tIn.decimals));
  const amountInBase = toBaseUnits(amountIn, tIn.decimals);

  const pools = await listPools(c, input.environment, chain.id);
  const available = [...new Set(pools.map((p) => p.dex))];
  let dexes: string[];
  if (input.dexSources && input.dexSources.length > 0) {
    dexes = [];
    input.dexSources.forEach((d, i) => {
      const name = String(d).toLowerCase();
      if (!(DEX_NAMES as readonly string[]).includes(name)) {
        throw new DomainError('UNKNOWN_DEX', `Unknown DEX source ${JSON.stringify(d)}; supported: ${DEX_NAMES.join(', ')}`, `${ptr.dexSources}/${i}`);
      }
      if (!dexes.includes(name)) dexes.push(name);
    });
    if (!dexes.some((d) => available.includes(d))) {
      throw new DomainError('NO_ROUTE', `None of ${dexes.join(', ')} has pools on ${chain.id}; available there: ${available.join(', ')}`, ptr.dexSources);
    }
  } else {
    dexes = available;
  }
  const candidates = candidatePaths(pools, poolAsset(tIn), poolAsset(tOut), dexes);
  if (candidates.length === 0) {
    throw new DomainError('NO_ROUTE', `No pool path from ${tIn.symbol} to ${tOut.symbol} on ${chain.id} via ${dexes.join(', ')}`, ptr.tokenOut);
  }
  const adapter = chainAdapterOrUnavailable(input.environment);
  const [gasPrice, nativeUsd, rateOutQ] = await Promise.all([adapter.gasPriceGwei(chain.id, input.now), nativeUsdPrice(chain, c), latestRate(aOut.code, c)]);
  const rateOut = new D(rateOutQ?.rate ?? '0');
  const gasUsd = (r: Route) => gasCostNative(chain, r.gasUnits, gasPrice).times(nativeUsd);
  const outUnit = new D(10).pow(tOut.decimals);
  const score = (r: Route) => new D(r.amountOut.toString()).div(outUnit).times(rateOut).minus(gasUsd(r));
  const wrapsNative = (tIn.native && poolAsset(tIn) !== tIn.assetCode) || (tOut.native && poolAsset(tOut) !== tOut.assetCode);
  try {
    const choice = chooseRoute(candidates, amountInBase, { outputPrecision: aOut.precision, wrapsNative, solana: chain.kind === 'solana' }, score);
    return { chain, tIn, tOut, amountIn, amountInBase, precisionOut: aOut.precision, best: choice.best, alternatives: choice.alternatives, gasPrice, gasUsd, rateOut, dexSources: dexes };
  } catch (err) {
    if (err instanceof PricingError) throw pricingRefusal(err, ptr.amount);
    throw err;
  }
}

/** Token symbols along a route, with the requested tokens at the ends (ETH shown, WETH traded). */
function displayPath(chain: string, route: Route, tIn: TokenInfo, tOut: TokenInfo): string[] {
  return route.path.map((asset, k) => (k === 0 ? tIn.symbol : k === route.path.length - 1 ? tOut.symbol : (tokenForAsset(chain, asset)?.symbol ?? asset)));
}

export function storedRoute(t: Pick<PricedTrade, 'chain' | 'tIn' | 'tOut'>, r: Route): StoredRoute {
  return {
    dex: r.dex,
    path: displayPath(t.chain.id, r, t.tIn, t.tOut),
    pool_path: r.path,
    pools: r.pools,
    fee_tier: r.feeTier,
    hops: r.hops.map((h) => ({ pool_id: h.poolId, dex: h.dex, token_in: h.tokenIn, token_out: h.tokenOut, fee_ppm: h.feePpm, amount_in: h.amountIn.toString(), amount_out: h.amountOut.toString() })),
    gas_units: r.gasUnits.toString(),
    amount_out_base: r.amountOut.toString(),
  };
}

export const percent = (fraction: Dec) => fraction.times(100).toDecimalPlaces(4, D.ROUND_HALF_UP).toFixed(4);
export const usd4 = (v: Dec) => v.toDecimalPlaces(4, D.ROUND_HALF_UP).toFixed(4);

/** The amount of the output token worth `usd` (rounded up: what the customer is charged). */
function inOutputToken(usd: Dec, t: PricedTrade): string {
  if (t.rateOut.isZero()) return new D(0).toFixed(t.precisionOut);
  return usd.div(t.rateOut).toDecimalPlaces(t.precisionOut, D.ROUND_UP).toFixed(t.precisionOut);
}

/** Prices the trade and stores the quote. */
export async function createSwapQuote(input: QuoteInput): Promise<SwapQuote> {
  const slippageBps = input.slippageBps ?? DEFAULT_SLIPPAGE_BPS;
  if (!Number.isInteger(slippageBps) || slippageBps < 0 || slippageBps > 5000) {
    throw new DomainError('INVALID_SLIPPAGE', 'slippage must be between 0 and 50 % (0 to 5000 basis points)', '/slippage_tolerance');
  }
  const t = await priceTrade(input);
  const estimated = fromBaseUnits(t.best.amountOut, t.tOut.decimals, t.precisionOut);
  const gasUsd = t.gasUsd(t.best);
  const networkFee = inOutputToken(gasUsd, t);
  if (new D(networkFee).gte(estimated)) {
    throw new DomainError('AMOUNT_TOO_SMALL', `The output (${estimated} ${t.tOut.symbol}) would not cover the network fee (${networkFee} ${t.tOut.symbol})`, input.pointers?.amount ?? '/amount_in');
  }
  const minimum = new D(estimated).times(10_000 - slippageBps).div(10_000).toDecimalPlaces(t.precisionOut, D.ROUND_DOWN).toFixed(t.precisionOut);
  const alternatives: StoredAlternative[] = t.alternatives.map((r) => {
    const s = storedRoute(t, r);
    return {
      dex: r.dex,
      estimated_output: fromBaseUnits(r.amountOut, t.tOut.decimals, t.precisionOut),
      price_impact_percent: percent(r.priceImpact),
      path: s.path,
      pools: s.pools,
      fee_tier: s.fee_tier,
      estimated_gas_usd: usd4(t.gasUsd(r)),
    };
  });
  const { rows } = await getDb().query<QuoteRow>(
    `WITH q AS (
       INSERT INTO defi_swap_quotes (id, environment, user_id, chain, token_in, token_out, asset_in, asset_out, amount_in, estimated_output, minimum_output,
                                     slippage_bps, price_impact_percent, gas_units, gas_price_gwei, estimated_gas_usd, network_fee, dex_sources, route, alternatives, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21) RETURNING *)
     SELECT q.*, ai.precision AS p_in, ao.precision AS p_out FROM q JOIN assets ai ON ai.code = q.asset_in JOIN assets ao ON ao.code = q.asset_out`,
    [
      newId('swq'),
      input.environment,
      input.userId,
      t.chain.id,
      t.tIn.symbol,
      t.tOut.symbol,
      t.tIn.assetCode,
      t.tOut.assetCode,
      t.amountIn,
      estimated,
      minimum,
      slippageBps,
      t.best.priceImpact.times(100).toFixed(),
      t.best.gasUnits.toString(),
      t.gasPrice,
      gasUsd.toFixed(),
      networkFee,
      t.dexSources,
      JSON.stringify(storedRoute(t, t.best)),
      JSON.stringify(alternatives),
      new Date(input.now.getTime() + quoteTtlSeconds() * 1000),
    ],
  );
  return toQuote(rows[0]);
}

export async function getSwapQuote(id: string, scope: { userId?: string; environment?: Environment } = {}, c: Queryable = getDb()): Promise<SwapQuote | null> {
  const { rows } = await c.query<QuoteRow>(`${SELECT} WHERE q.id = $1`, [id]);
  const r = rows[0];
  if (!r) return null;
  if ((scope.userId && r.user_id !== scope.userId) || (scope.environment && r.environment !== scope.environment)) return null;
  return toQuote(r);
}

export async function lockSwapQuote(c: pg.PoolClient, id: string): Promise<SwapQuote | null> {
  const { rows } = await c.query<QuoteRow>(`${SELECT} WHERE q.id = $1 FOR UPDATE OF q`, [id]);
  return rows[0] ? toQuote(rows[0]) : null;
}
