/**
 * DEX pools and flash-loan lending pools: their state in PostgreSQL (defi_pools,
 * defi_lending_pools; seeded per environment by migration 20261121060000_defi). Reads for quoting
 * take no lock; executions lock the rows they change (FOR UPDATE, in id order so concurrent
 * multi-hop swaps cannot deadlock) and write the new reserves in the same transaction as the
 * ledger entry.
 */
import type { Queryable } from '../db/pool';
import type { Environment } from '../platform/environment';
import type { PoolKind, PoolState } from './swaps/pricing';

/** DEX sources per chain family; the API accepts these names in dex_sources. */
export const DEX_NAMES = ['uniswap_v3', 'sushiswap', 'curve', 'balancer', 'raydium', 'orca', 'saber'] as const;
export type DexName = (typeof DEX_NAMES)[number];

export const DEX_INFO: Record<DexName, { name: string; model: string }> = {
  uniswap_v3: { name: 'Uniswap V3', model: 'constant product per fee tier (0.05 %, 0.3 %, 1 %), approximating in-range concentrated liquidity' },
  sushiswap: { name: 'SushiSwap', model: 'constant product, 0.3 %' },
  curve: { name: 'Curve', model: 'StableSwap invariant with amplification A' },
  balancer: { name: 'Balancer V2', model: 'weighted constant mean' },
  raydium: { name: 'Raydium', model: 'constant product, 0.25 %' },
  orca: { name: 'Orca', model: 'constant product, 0.3 % (whirlpool approximated)' },
  saber: { name: 'Saber', model: 'StableSwap invariant with amplification A' },
};

export interface DexPool extends PoolState {
  environment: Environment;
  address: string;
  swapCount: number;
  updatedAt: Date;
}

interface PoolRow {
  environment: Environment;
  id: string;
  chain: string;
  dex: string;
  kind: PoolKind;
  address: string;
  tokens: string[];
  decimals: number[];
  reserves: string[];
  weights: string[];
  fee_ppm: number;
  amplification: number | null;
  swap_count: string;
  updated_at: Date;
}

const COLUMNS = `environment, id, chain, dex, kind, address, tokens, decimals, reserves::text[] AS reserves,
  weights::text[] AS weights, fee_ppm, amplification, swap_count, updated_at`;

function toPool(r: PoolRow): DexPool {
  return {
    environment: r.environment,
    id: r.id,
    chain: r.chain,
    dex: r.dex,
    kind: r.kind,
    address: r.address,
    tokens: r.tokens,
    decimals: r.decimals,
    reserves: r.reserves.map((x) => BigInt(x)),
    weights: r.weights.length ? r.weights : null,
    feePpm: r.fee_ppm,
    amplification: r.amplification,
    swapCount: Number(r.swap_count),
    updatedAt: r.updated_at,
  };
}

export async function listPools(c: Queryable, environment: Environment, chain?: string): Promise<DexPool[]> {
  const { rows } = await c.query<PoolRow>(
    `SELECT ${COLUMNS} FROM defi_pools WHERE environment = $1 AND ($2::text IS NULL OR chain = $2) ORDER BY chain, dex, id`,
    [environment, chain ?? null],
  );
  return rows.map(toPool);
}

export async function getPool(c: Queryable, environment: Environment, id: string): Promise<DexPool | null> {
  const { rows } = await c.query<PoolRow>(`SELECT ${COLUMNS} FROM defi_pools WHERE environment = $1 AND id = $2`, [environment, id]);
  return rows[0] ? toPool(rows[0]) : null;
}

/** Locks the pools (in id order) for the rest of the caller's transaction and returns them by id. */
export async function lockPools(c: Queryable, environment: Environment, ids: string[]): Promise<Map<string, DexPool>> {
  const sorted = [...new Set(ids)].sort();
  const { rows } = await c.query<PoolRow>(
    `SELECT ${COLUMNS} FROM defi_pools WHERE environment = $1 AND id = ANY($2::text[]) ORDER BY id FOR UPDATE`,
    [environment, sorted],
  );
  return new Map(rows.map((r) => [r.id, toPool(r)]));
}

/** Writes a pool's new reserves (the caller holds its lock) and counts the swaps it served. */
export async function saveReserves(c: Queryable, pool: PoolState & { environment: Environment }, swaps = 1): Promise<void> {
  await c.query(
    `UPDATE defi_pools SET reserves = $3::numeric[], swap_count = swap_count + $4, updated_at = now() WHERE environment = $1 AND id = $2`,
    [pool.environment, pool.id, pool.reserves.map((r) => r.toString()), swaps],
  );
}

// ---------------------------------------------------------------------------------------------
// Lending pools (flash loans)
// ---------------------------------------------------------------------------------------------

export interface LendingPool {
  environment: Environment;
  id: string;
  chain: string;
  protocol: string;
  /** Ledger asset code the pool lends. */
  token: string;
  decimals: number;
  liquidity: bigint;
  feePpm: number;
  loanCount: number;
}

interface LendingRow {
  environment: Environment;
  id: string;
  chain: string;
  protocol: string;
  token: string;
  decimals: number;
  liquidity: string;
  fee_ppm: number;
  loan_count: string;
}

const toLending = (r: LendingRow): LendingPool => ({
  environment: r.environment,
  id: r.id,
  chain: r.chain,
  protocol: r.protocol,
  token: r.token,
  decimals: r.decimals,
  liquidity: BigInt(r.liquidity),
  feePpm: r.fee_ppm,
  loanCount: Number(r.loan_count),
});

const LENDING_COLUMNS = 'environment, id, chain, protocol, token, decimals, liquidity::text AS liquidity, fee_ppm, loan_count';

export async function listLendingPools(c: Queryable, environment: Environment, chain?: string): Promise<LendingPool[]> {
  const { rows } = await c.query<LendingRow>(
    `SELECT ${LENDING_COLUMNS} FROM defi_lending_pools WHERE environment = $1 AND ($2::text IS NULL OR chain = $2) ORDER BY chain, token`,
    [environment, chain ?? null],
  );
  return rows.map(toLending);
}

/** The lending pool of a token on a chain, locked for the caller's transaction; null when none. */
export async function lockLendingPool(c: Queryable, environment: Environment, chain: string, token: string): Promise<LendingPool | null> {
  const { rows } = await c.query<LendingRow>(
    `SELECT ${LENDING_COLUMNS} FROM defi_lending_pools WHERE environment = $1 AND chain = $2 AND token = $3 ORDER BY protocol LIMIT 1 FOR UPDATE`,
    [environment, chain, token],
  );
  return rows[0] ? toLending(rows[0]) : null;
}

/** The loan was repaid with its fee: the lender's liquidity grows by the fee. */
export async function recordLoanRepaid(c: Queryable, pool: LendingPool, fee: bigint): Promise<void> {
  await c.query(
    `UPDATE defi_lending_pools SET liquidity = liquidity + $3::numeric, loan_count = loan_count + 1, updated_at = now() WHERE environment = $1 AND id = $2`,
    [pool.environment, pool.id, fee.toString()],
  );
}
