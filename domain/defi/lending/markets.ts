/**
 * The money markets (docs/defi.md "Lending"): one per chain, protocol and asset, with the kinked
 * rate model and the scaled-balance indexes of ./math.ts. A market accrues over whole blocks
 * of its chain's block time since it last accrued (interest exists per block on chain, so a
 * fraction of a block earns nothing yet), at the rates the utilization gave at the start of the
 * interval, as Aave's updateState does. Writers lock the markets they touch (lockMarkets, in id
 * order so two writers never wait on each other crosswise) and save them accrued.
 */
import { getAsset } from '../../assets';
import { getChain } from '../../chains/registry';
import { getPool as getDb, type Queryable } from '../../db/pool';
import { DecimalMoney as D } from '../../money/amount';
import type { Environment } from '../../platform/environment';
import { DomainError } from '../../platform/errors';
import { accrueBorrowIndex, accrueSupplyIndex, borrowRate, supplyRate, utilization, type RateModel } from './math';

type Dec = InstanceType<typeof D>;

/** Indexes and scaled balances keep 27 decimals (Aave's ray). */
export const RAY_DECIMALS = 27;

export interface LendingMarket {
  environment: Environment;
  id: string;
  chain: string;
  protocol: string;
  asset: string;
  /** The asset's ledger precision: balances are whole units of it. */
  precision: number;
  model: RateModel;
  ltv: string;
  liquidationThreshold: string;
  liquidationBonus: string;
  cash: string;
  scaledSupply: string;
  scaledBorrows: string;
  supplyIndex: string;
  borrowIndex: string;
  accruedAt: Date;
  active: boolean;
}

interface Row {
  environment: Environment;
  id: string;
  chain: string;
  protocol: string;
  asset: string;
  base_rate: string;
  slope1: string;
  slope2: string;
  optimal_utilization: string;
  reserve_factor: string;
  ltv: string;
  liquidation_threshold: string;
  liquidation_bonus: string;
  cash: string;
  scaled_supply: string;
  scaled_borrows: string;
  supply_index: string;
  borrow_index: string;
  accrued_at: Date;
  active: boolean;
}

const COLUMNS = `environment, id, chain, protocol, asset, base_rate::text, slope1::text, slope2::text, optimal_utilization::text, reserve_factor::text,
  ltv::text, liquidation_threshold::text, liquidation_bonus::text, cash::text, scaled_supply::text, scaled_borrows::text,
  supply_index::text, borrow_index::text, accrued_at, active`;

// Numeric text as decimal.js writes it back: no trailing zeros, so equal values compare equal.
const norm = (v: string): string => new D(v).toFixed();

async function toMarket(r: Row, c: Queryable): Promise<LendingMarket> {
  const asset = await getAsset(r.asset, c);
  return {
    environment: r.environment,
    id: r.id,
    chain: r.chain,
    protocol: r.protocol,
    asset: r.asset,
    precision: asset!.precision,
    model: { base: norm(r.base_rate), slope1: norm(r.slope1), slope2: norm(r.slope2), optimalUtilization: norm(r.optimal_utilization), reserveFactor: norm(r.reserve_factor) },
    ltv: norm(r.ltv),
    liquidationThreshold: norm(r.liquidation_threshold),
    liquidationBonus: norm(r.liquidation_bonus),
    cash: norm(r.cash),
    scaledSupply: norm(r.scaled_supply),
    scaledBorrows: norm(r.scaled_borrows),
    supplyIndex: norm(r.supply_index),
    borrowIndex: norm(r.borrow_index),
    accruedAt: r.accrued_at,
    active: r.active,
  };
}

async function toMarkets(rows: Row[], c: Queryable): Promise<LendingMarket[]> {
  const out: LendingMarket[] = [];
  for (const r of rows) out.push(await toMarket(r, c)); // one client: one query at a time
  return out;
}

export async function listMarkets(environment: Environment, filter: { chain?: string | null } = {}, c: Queryable = getDb()): Promise<LendingMarket[]> {
  const { rows } = await c.query<Row>(`SELECT ${COLUMNS} FROM defi_lending_markets WHERE environment = $1 AND active AND ($2::text IS NULL OR chain = $2) ORDER BY chain, protocol, asset`, [
    environment,
    filter.chain ?? null,
  ]);
  return toMarkets(rows, c);
}

export async function getMarket(environment: Environment, id: unknown, c: Queryable = getDb()): Promise<LendingMarket> {
  const { rows } = await c.query<Row>(`SELECT ${COLUMNS} FROM defi_lending_markets WHERE environment = $1 AND id = $2 AND active`, [environment, typeof id === 'string' ? id : '']);
  if (!rows[0]) throw new DomainError('UNKNOWN_MARKET', `No lending market ${String(id)}; GET /api/v2/defi/lending/markets lists them`, '/market_id');
  return toMarket(rows[0], c);
}

/** The markets by id, read without a lock (reads never wait on writers). */
export async function marketsById(c: Queryable, environment: Environment, ids: string[]): Promise<Map<string, LendingMarket>> {
  if (ids.length === 0) return new Map();
  const { rows } = await c.query<Row>(`SELECT ${COLUMNS} FROM defi_lending_markets WHERE environment = $1 AND id = ANY($2::text[])`, [environment, ids]);
  return new Map((await toMarkets(rows, c)).map((m) => [m.id, m]));
}

/** Locks the markets (id order) for the caller's transaction; keyed by id. */
export async function lockMarkets(c: Queryable, environment: Environment, ids: string[]): Promise<Map<string, LendingMarket>> {
  const sorted = [...new Set(ids)].sort();
  const { rows } = await c.query<Row>(`SELECT ${COLUMNS} FROM defi_lending_markets WHERE environment = $1 AND id = ANY($2::text[]) ORDER BY id FOR UPDATE`, [environment, sorted]);
  return new Map((await toMarkets(rows, c)).map((m) => [m.id, m]));
}

export async function saveMarket(c: Queryable, m: LendingMarket): Promise<void> {
  await c.query(
    `UPDATE defi_lending_markets SET cash = $3, scaled_supply = $4, scaled_borrows = $5, supply_index = $6, borrow_index = $7, accrued_at = $8, updated_at = now()
     WHERE environment = $1 AND id = $2`,
    [m.environment, m.id, m.cash, m.scaledSupply, m.scaledBorrows, m.supplyIndex, m.borrowIndex, m.accruedAt],
  );
}

export const totalSupplied = (m: LendingMarket): Dec => new D(m.scaledSupply).times(m.supplyIndex);
export const totalBorrowed = (m: LendingMarket): Dec => new D(m.scaledBorrows).times(m.borrowIndex);
export const marketUtilization = (m: LendingMarket): Dec => utilization(m.cash, totalBorrowed(m).toFixed());

/** Annual borrow and supply rates at the market's utilization now. */
export function marketRates(m: LendingMarket): { utilization: Dec; borrowRate: Dec; supplyRate: Dec } {
  const u = marketUtilization(m);
  return { utilization: u, borrowRate: borrowRate(m.model, u), supplyRate: supplyRate(m.model, u) };
}

/**
 * The market accrued to `asOf`: the indexes grown over the whole blocks elapsed, accruedAt moved
 * by exactly those blocks. Pure; an asOf before accruedAt (a clock behind the last writer's)
 * accrues nothing.
 */
export function accrueMarket(m: LendingMarket, asOf: Date): LendingMarket {
  const blockMs = getChain(m.chain).blockTimeMs;
  const blocks = Math.floor((asOf.getTime() - m.accruedAt.getTime()) / blockMs);
  if (blocks <= 0) return m;
  const elapsedMs = blocks * blockMs;
  // Block times are multiples of 250 ms, so the seconds are exact in binary (Arbitrum's 0.25 s).
  const seconds = elapsedMs / 1000;
  const { borrowRate: br, supplyRate: sr } = marketRates(m);
  return {
    ...m,
    supplyIndex: accrueSupplyIndex(m.supplyIndex, sr, seconds).toDecimalPlaces(RAY_DECIMALS, D.ROUND_DOWN).toFixed(),
    borrowIndex: accrueBorrowIndex(m.borrowIndex, br, seconds).toDecimalPlaces(RAY_DECIMALS, D.ROUND_UP).toFixed(),
    accruedAt: new Date(m.accruedAt.getTime() + elapsedMs),
  };
}

/**
 * A scaled balance as ledger units of the market's asset, rounded half up as the protocol's
 * rayMul does: the scaled units already round in the market's favour (toScaled) by less than
 * 1e-27 of a unit, which must not turn 10 supplied into 9.999…9 or 20,000 borrowed into 20,000.000001.
 */
const balanceOf = (scaled: string, index: string, precision: number): string => new D(scaled).times(index).toDecimalPlaces(precision, D.ROUND_HALF_UP).toFixed(precision);
export const supplyBalance = (m: LendingMarket, scaled: string): string => balanceOf(scaled, m.supplyIndex, m.precision);
export const debtBalance = (m: LendingMarket, scaled: string): string => balanceOf(scaled, m.borrowIndex, m.precision);

/** Scaled units for an amount at an index, rounded the way that favours the market. */
export const toScaled = (amount: string, index: string, rounding: 'down' | 'up'): Dec =>
  new D(amount).div(index).toDecimalPlaces(RAY_DECIMALS, rounding === 'down' ? D.ROUND_DOWN : D.ROUND_UP);
