/**
 * Liquidity provision on the DEX pools (docs/defi.md "Liquidity positions"). Adding deposits a
 * customer's chain-book tokens into a pool and mints LP shares by the pool's own math
 * (./math.ts); removing burns shares for the proportional part of the pool's current
 * reserves, swap fees included. Each is ONE database transaction under the pool's row lock (the
 * same lock swaps settle under): the pool's reserves and LP supply, one balanced ledger entry (per
 * asset: the chain book against the pool's liquidity account), the position and its event. As for
 * flash loans, the sandbox chain executes no contract code: the transaction is the execution;
 * production needs a configured chain adapter (503 CHAIN_NOT_CONFIGURED otherwise, as swaps).
 */
import { getAsset } from '../../assets';
import { getPool as getDb, withTransaction, type Queryable } from '../../db/pool';
import { writeOutboxEvent } from '../../events/outbox';
import { clientIdempotencyKey, getEntryByIdempotencyKey, internalLedgerAccountId, postEntry, type LineInput } from '../../ledger';
import { DecimalMoney as D, parseAmount } from '../../money/amount';
import type { Environment } from '../../platform/environment';
import { DomainError } from '../../platform/errors';
import { newId } from '../../platform/ids';
import { ensureChainLedgerAccount, resolveAccount } from '../accounts';
import { chainAdapterOrUnavailable } from '../gas';
import { burnShares, initialSupply, LP_DECIMALS, mintShares } from './math';
import { DEX_INFO, getPool, lockPools, saveReserves, type DexName, type DexPool } from '../pools';
import { fromBaseUnits, PricingError, toBaseUnits } from '../swaps/pricing';

export interface LiquidityPosition {
  id: string;
  environment: Environment;
  userId: string;
  accountId: string;
  poolId: string;
  chain: string;
  dex: string;
  tokens: string[];
  /** LP token base units (18 decimals) held now. */
  shares: bigint;
  sharesMinted: bigint;
  /** Ledger amounts deposited, in the pool's coin order. */
  deposited: string[];
  /** Ledger amounts paid out by removals so far. */
  withdrawn: string[];
  status: 'open' | 'closed';
  openEntryId: string;
  closeEntryId: string | null;
  createdAt: Date;
  closedAt: Date | null;
}

interface Row {
  id: string;
  environment: Environment;
  user_id: string;
  account_id: string;
  pool_id: string;
  chain: string;
  dex: string;
  tokens: string[];
  shares: string;
  shares_minted: string;
  deposited: string[];
  withdrawn: string[];
  status: 'open' | 'closed';
  open_entry_id: string;
  close_entry_id: string | null;
  created_at: Date;
  closed_at: Date | null;
}

const COLUMNS = `id, environment, user_id, account_id, pool_id, chain, dex, tokens, shares::text AS shares, shares_minted::text AS shares_minted,
  deposited, withdrawn, status, open_entry_id, close_entry_id, created_at, closed_at`;

const toPosition = (r: Row): LiquidityPosition => ({
  id: r.id,
  environment: r.environment,
  userId: r.user_id,
  accountId: r.account_id,
  poolId: r.pool_id,
  chain: r.chain,
  dex: r.dex,
  tokens: r.tokens,
  shares: BigInt(r.shares),
  sharesMinted: BigInt(r.shares_minted),
  deposited: r.deposited,
  withdrawn: r.withdrawn,
  status: r.status,
  openEntryId: r.open_entry_id,
  closeEntryId: r.close_entry_id,
  createdAt: r.created_at,
  closedAt: r.closed_at,
});

/** The pool's liquidity account for an asset (internal, debit-normal, like dex_settlement). */
export function poolLiquidityAccount(environment: Environment, pool: DexPool, assetCode: string, c: Queryable): Promise<string> {
  const name = DEX_INFO[pool.dex as DexName]?.name ?? pool.dex;
  return internalLedgerAccountId({ environment, assetCode, code: `dex_liquidity:${pool.id}`, name: `${name} liquidity ${assetCode} in ${pool.id}`, normalBalance: 'debit' }, c);
}

/** The pool's LP supply, set at its first deposit (./math.ts initialSupply) when the platform first touches it. Caller holds the pool lock. */
export async function poolSupply(c: Queryable, pool: DexPool): Promise<bigint> {
  const { rows } = await c.query<{ total: string }>('SELECT total_shares::text AS total FROM defi_pool_shares WHERE environment = $1 AND pool_id = $2', [pool.environment, pool.id]);
  if (rows[0]) return BigInt(rows[0].total);
  const init = initialSupply(pool);
  await c.query('INSERT INTO defi_pool_shares (environment, pool_id, total_shares, locked_shares) VALUES ($1, $2, $3, $4)', [pool.environment, pool.id, init.total.toString(), init.locked.toString()]);
  return init.total;
}

/** The supply as stored, without initialising it (reads): what initialSupply would set when none is. */
export async function readPoolSupply(c: Queryable, pool: DexPool): Promise<bigint> {
  const { rows } = await c.query<{ total: string }>('SELECT total_shares::text AS total FROM defi_pool_shares WHERE environment = $1 AND pool_id = $2', [pool.environment, pool.id]);
  return rows[0] ? BigInt(rows[0].total) : initialSupply(pool).total;
}

async function saveSupply(c: Queryable, pool: DexPool, total: bigint): Promise<void> {
  await c.query('UPDATE defi_pool_shares SET total_shares = $3, updated_at = now() WHERE environment = $1 AND pool_id = $2', [pool.environment, pool.id, total.toString()]);
}

/** Ledger precision of each pool token and the base-unit granularity a book can hold. */
async function precisions(pool: DexPool, c: Queryable): Promise<{ precision: number[]; unit: bigint[] }> {
  const precision: number[] = [];
  for (const t of pool.tokens) precision.push((await getAsset(t, c))!.precision); // one client: one query at a time
  return { precision, unit: precision.map((p, i) => (pool.decimals[i] > p ? 10n ** BigInt(pool.decimals[i] - p) : 1n)) };
}

export interface AddLiquidityInput {
  userId: string;
  environment: Environment;
  poolId: unknown;
  accountId?: string | null;
  /** Asset code -> decimal string; the pool's tokens only. */
  amounts: Record<string, unknown>;
  /** The request's Idempotency-Key: a retried request (even one taking over a dead one's key) finds the position it opened. */
  idempotencyKey?: string;
}

export async function addLiquidity(input: AddLiquidityInput): Promise<LiquidityPosition> {
  chainAdapterOrUnavailable(input.environment);
  const poolId = typeof input.poolId === 'string' ? input.poolId : '';
  const known = await getPool(getDb(), input.environment, poolId);
  if (!known) throw new DomainError('UNKNOWN_POOL', `No pool ${poolId}; GET /api/v2/defi/pools lists them`, '/pool_id');
  for (const k of Object.keys(input.amounts)) {
    if (!known.tokens.includes(k)) throw new DomainError('UNKNOWN_TOKEN', `${k} is not a token of pool ${known.id} (${known.tokens.join(', ')})`, `/amounts/${k}`);
  }
  const { precision, unit } = await precisions(known, getDb());
  const given = known.tokens.map((t, i) => {
    const v = input.amounts[t];
    if (v === undefined) return null;
    return parseAmount(v, Math.min(precision[i], known.decimals[i]));
  });
  if (given.every((g) => g === null)) throw new DomainError('VALIDATION_ERROR', `amounts names no token of the pool (${known.tokens.join(', ')})`, '/amounts');
  const first = known.tokens.findIndex((_, i) => given[i] !== null);
  const { accountId } = await resolveAccount({ userId: input.userId, environment: input.environment, accountId: input.accountId, assetCode: known.tokens[first], chain: known.chain, needed: given[first] });
  const positionId = newId('lp');
  const key = input.idempotencyKey ? clientIdempotencyKey(input.userId, 'defi-liquidity-add', input.idempotencyKey) : `defi:lp:${positionId}:add`;

  return withTransaction(async (c) => {
    const pool = (await lockPools(c, input.environment, [known.id])).get(known.id)!;
    const { rows: done } = await c.query<Row>(`SELECT ${COLUMNS} FROM defi_liquidity_positions WHERE environment = $1 AND idempotency_key = $2`, [input.environment, key]);
    if (done[0]) return toPosition(done[0]);
    const supply = await poolSupply(c, pool);
    let minted;
    try {
      minted = mintShares(pool, supply, pool.tokens.map((_, i) => (given[i] === null ? 0n : toBaseUnits(given[i]!, pool.decimals[i]))), unit);
    } catch (err) {
      if (err instanceof PricingError) throw new DomainError(err.code, err.message, '/amounts');
      throw err;
    }
    const used = minted.used.map((u, i) => fromBaseUnits(u, pool.decimals[i], precision[i]));
    const lines: LineInput[] = [];
    for (const [i, t] of pool.tokens.entries()) {
      if (new D(used[i]).isZero()) continue;
      lines.push({ accountId: await ensureChainLedgerAccount(c, accountId, t, pool.chain), direction: 'debit', amount: used[i] });
      lines.push({ accountId: await poolLiquidityAccount(input.environment, pool, t, c), direction: 'credit', amount: used[i] });
    }
    const entry = await postEntry(
      {
        environment: input.environment,
        idempotencyKey: key,
        type: 'liquidity_add',
        description: `Liquidity into ${pool.id}: ${pool.tokens.map((t, i) => `${used[i]} ${t}`).join(' + ')}`,
        lines,
        userId: input.userId,
        metadata: { position_id: positionId, pool_id: pool.id, chain: pool.chain, dex: pool.dex, shares: minted.shares.toString() },
      },
      c,
    );
    await saveReserves(c, { ...pool, reserves: minted.reserves }, 0);
    await saveSupply(c, pool, supply + minted.shares + minted.locked);
    const { rows } = await c.query<Row>(
      `INSERT INTO defi_liquidity_positions (id, environment, user_id, account_id, pool_id, chain, dex, tokens, shares, shares_minted, deposited, withdrawn, status, open_entry_id, idempotency_key)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9, $10, $11, 'open', $12, $13) RETURNING ${COLUMNS}`,
      [positionId, input.environment, input.userId, accountId, pool.id, pool.chain, pool.dex, pool.tokens, minted.shares.toString(), used, used.map(() => '0'), entry.id, key],
    );
    const position = toPosition(rows[0]);
    await writeOutboxEvent(c, { type: 'position.opened', environment: input.environment, userId: input.userId, aggregateType: 'defi_position', aggregateId: positionId, data: positionOpenedData(position) });
    return position;
  });
}

export interface RemoveLiquidityInput {
  userId: string;
  environment: Environment;
  positionId: string;
  /** Fraction of the position's shares to burn, (0, 1]; default 1 (everything, closing it). */
  share?: unknown;
  /** The request's Idempotency-Key: a retried removal answers what the first one did, burning nothing more. */
  idempotencyKey?: string;
}

export async function removeLiquidity(input: RemoveLiquidityInput): Promise<{ position: LiquidityPosition; amounts: string[]; sharesBurnt: bigint; entryId: string }> {
  const fraction = parseShare(input.share);
  const existing = await getLiquidityPosition(input.positionId, input);
  if (!existing) throw new DomainError('POSITION_NOT_FOUND', 'Liquidity position not found', '/position_id');
  chainAdapterOrUnavailable(input.environment);
  return withTransaction(async (c) => {
    const pool = (await lockPools(c, input.environment, [existing.poolId])).get(existing.poolId)!;
    const { rows: locked } = await c.query<Row>(`SELECT ${COLUMNS} FROM defi_liquidity_positions WHERE id = $1 FOR UPDATE`, [existing.id]);
    const p = toPosition(locked[0]);
    const key = input.idempotencyKey ? clientIdempotencyKey(input.userId, `defi-liquidity-remove:${p.id}`, input.idempotencyKey) : `defi:lp:${p.id}:remove:${p.shares.toString()}`;
    const replay = input.idempotencyKey ? await getEntryByIdempotencyKey(input.environment, key, c) : null;
    if (replay) {
      const m = replay.metadata as { amounts: string[]; shares_burnt: string };
      return { position: p, amounts: m.amounts, sharesBurnt: BigInt(m.shares_burnt), entryId: replay.id };
    }
    if (p.status === 'closed') throw new DomainError('POSITION_CLOSED', 'The position is closed: every share was already withdrawn', '/position_id');
    const burn = fraction.eq(1) ? p.shares : BigInt(fraction.times(p.shares.toString()).floor().toFixed(0));
    if (burn <= 0n) throw new DomainError('AMOUNT_TOO_SMALL', 'share is too small to burn any LP share', '/share');
    const supply = await poolSupply(c, pool);
    const { precision, unit } = await precisions(pool, c);
    const out = burnShares(pool.reserves, supply, burn, unit);
    const amounts = out.map((o, i) => fromBaseUnits(o, pool.decimals[i], precision[i]));
    if (out.every((o) => o === 0n)) throw new DomainError('AMOUNT_TOO_SMALL', 'share is too small to withdraw anything the account can hold', '/share');
    const lines: LineInput[] = [];
    for (const [i, t] of pool.tokens.entries()) {
      if (out[i] === 0n) continue;
      lines.push({ accountId: await poolLiquidityAccount(input.environment, pool, t, c), direction: 'debit', amount: amounts[i] });
      lines.push({ accountId: await ensureChainLedgerAccount(c, p.accountId, t, pool.chain), direction: 'credit', amount: amounts[i] });
    }
    const entry = await postEntry(
      {
        environment: input.environment,
        idempotencyKey: key,
        type: 'liquidity_remove',
        description: `Liquidity out of ${pool.id}: ${pool.tokens.map((t, i) => `${amounts[i]} ${t}`).join(' + ')}`,
        lines,
        userId: input.userId,
        metadata: { position_id: p.id, pool_id: pool.id, chain: pool.chain, dex: pool.dex, shares_burnt: burn.toString(), amounts },
      },
      c,
    );
    await saveReserves(c, { ...pool, reserves: pool.reserves.map((r, i) => r - out[i]) }, 0);
    await saveSupply(c, pool, supply - burn);
    const left = p.shares - burn;
    const { rows } = await c.query<Row>(
      `UPDATE defi_liquidity_positions SET shares = $2, withdrawn = $3,
         status = $4, close_entry_id = CASE WHEN $4 = 'closed' THEN $5 ELSE close_entry_id END, closed_at = CASE WHEN $4 = 'closed' THEN now() END, updated_at = now()
       WHERE id = $1 RETURNING ${COLUMNS}`,
      [p.id, left.toString(), p.withdrawn.map((w, i) => new D(w).plus(amounts[i]).toFixed(precision[i])), left === 0n ? 'closed' : 'open', entry.id],
    );
    const position = toPosition(rows[0]);
    if (position.status === 'closed') {
      await writeOutboxEvent(c, { type: 'position.closed', environment: input.environment, userId: input.userId, aggregateType: 'defi_position', aggregateId: p.id, data: positionClosedData(position, amounts, burn, entry.id) });
    }
    return { position, amounts, sharesBurnt: burn, entryId: entry.id };
  });
}

function parseShare(v: unknown) {
  if (v === undefined) return new D(1);
  if (typeof v !== 'string' || !/^(0(\.\d{1,18})?|1(\.0{1,18})?)$/.test(v) || new D(v).isZero()) {
    throw new DomainError('INVALID_SHARE', 'share is a decimal string in (0, 1], the fraction of the position to withdraw (default "1")', '/share');
  }
  return new D(v);
}

/** The caller's position (null for anyone else's). */
export async function getLiquidityPosition(id: string, owner: { userId: string; environment: Environment }, c: Queryable = getDb()): Promise<LiquidityPosition | null> {
  const { rows } = await c.query<Row>(`SELECT ${COLUMNS} FROM defi_liquidity_positions WHERE id = $1 AND user_id = $2 AND environment = $3`, [id, owner.userId, owner.environment]);
  return rows[0] ? toPosition(rows[0]) : null;
}

/** The caller's positions, newest first (open ones only unless `all`). */
export async function listLiquidityPositions(userId: string, environment: Environment, opts: { all?: boolean; limit?: number } = {}, c: Queryable = getDb()): Promise<LiquidityPosition[]> {
  const { rows } = await c.query<Row>(
    `SELECT ${COLUMNS} FROM defi_liquidity_positions WHERE user_id = $1 AND environment = $2 AND ($3 OR status = 'open') ORDER BY created_at DESC, id DESC LIMIT $4`,
    [userId, environment, opts.all ?? false, opts.limit ?? 100],
  );
  return rows.map(toPosition);
}

export const lpShares = (v: bigint): string => fromBaseUnits(v, LP_DECIMALS);

/** What both position events say of the position. */
const positionEventBase = (p: LiquidityPosition) => ({
  position_id: p.id,
  position_type: 'liquidity',
  account_id: p.accountId,
  chain: p.chain,
  dex: p.dex,
  pool_id: p.poolId,
  tokens: p.tokens,
});

export function positionOpenedData(p: LiquidityPosition) {
  return {
    ...positionEventBase(p),
    amounts: p.deposited,
    shares: lpShares(p.sharesMinted),
    entry_id: p.openEntryId,
    opened_at: p.createdAt.toISOString(),
  };
}

export function positionClosedData(p: LiquidityPosition, lastAmounts: string[], burnt: bigint, entryId: string) {
  return {
    ...positionEventBase(p),
    amounts: lastAmounts,
    total_withdrawn: p.withdrawn,
    total_deposited: p.deposited,
    shares_burnt: lpShares(burnt),
    entry_id: entryId,
    closed_at: (p.closedAt ?? new Date()).toISOString(),
  };
}
