/**
 * Staking positions (docs/defi.md "Staking"): products, records, staking, and what a position is
 * worth now. Harvests are in ./harvest.ts, unstaking and unbonding in ./unbond.ts,
 * the reward math in ./math.ts.
 *
 * Ledger (internal accounts are debit-normal, per asset, like dex_settlement):
 * - staking_pool:<chain>:<protocol>: what customers have staked (credited at stake and by
 *   compounding, debited at withdrawal).
 * - staking_rewards:<chain>:<protocol>: rewards received from the network (debited per harvest),
 *   so its debit balance is every reward the platform passed on.
 * Each change is ONE database transaction: the entry, the position row, its event. As for
 * liquidity the sandbox chain runs no contract code (the transaction is the execution);
 * production needs a configured chain adapter (503 CHAIN_NOT_CONFIGURED otherwise, nothing done).
 * Times come from the caller (`asOf`): the API's clock, or a workflow's, so the time-skipping test
 * server can move time.
 */
import { getAsset } from '../../assets';
import { getPool as getDb, withTransaction, type Queryable } from '../../db/pool';
import { writeOutboxEvent } from '../../events/outbox';
import { clientIdempotencyKey, internalLedgerAccountId, postEntry } from '../../ledger';
import { DecimalMoney as D, parseRequestAmount } from '../../money/amount';
import type { Environment } from '../../platform/environment';
import { DomainError } from '../../platform/errors';
import { newId } from '../../platform/ids';
import { latestRates } from '../../rates';
import { ensureChainLedgerAccount, resolveAccount } from '../accounts';
import { chainAdapterOrUnavailable } from '../gas';
import { roundUsd } from '../holdings';
import { POSITION_TYPE_STAKING } from './events';
import { payableEpochs, rewardForEpochs } from './math';

export interface StakingProduct {
  id: string;
  environment: Environment;
  chain: string;
  protocol: string;
  assetCode: string;
  name: string;
  /** Fraction a year ("0.031"). */
  annualRate: string;
  epochSeconds: number;
  unbondingSeconds: number;
  minimumStake: string;
  active: boolean;
  /** The asset's ledger precision. */
  precision: number;
}

export type StakingStatus = 'staked' | 'unbonding' | 'withdrawn';

export interface StakingPosition {
  id: string;
  environment: Environment;
  userId: string;
  accountId: string;
  productId: string;
  chain: string;
  protocol: string;
  assetCode: string;
  /** The asset's ledger precision; the amounts below are decimal strings at it. */
  precision: number;
  stakedAmount: string;
  principal: string;
  autoCompound: boolean;
  rewardsHarvested: string;
  harvestedEpochs: number;
  lastHarvestedAt: Date | null;
  rewardEpochs: number | null;
  status: StakingStatus;
  stakedAt: Date;
  unbondRequestedAt: Date | null;
  unbondingEndsAt: Date | null;
  withdrawnAt: Date | null;
  finalRewards: string | null;
  stakeEntryId: string;
  withdrawEntryId: string | null;
  workflowId: string | null;
  createdAt: Date;
}

interface ProductRow {
  id: string;
  environment: Environment;
  chain: string;
  protocol: string;
  asset_code: string;
  name: string;
  annual_rate: string;
  epoch_seconds: number;
  unbonding_seconds: number;
  minimum_stake: string;
  active: boolean;
  precision: number;
}

const PRODUCT_COLUMNS = `p.id, p.environment, p.chain, p.protocol, p.asset_code, p.name, p.annual_rate::text AS annual_rate, p.epoch_seconds, p.unbonding_seconds,
  p.minimum_stake::text AS minimum_stake, p.active, a.precision`;

const toProduct = (r: ProductRow): StakingProduct => ({
  id: r.id,
  environment: r.environment,
  chain: r.chain,
  protocol: r.protocol,
  assetCode: r.asset_code,
  name: r.name,
  annualRate: new D(r.annual_rate).toFixed(),
  epochSeconds: r.epoch_seconds,
  unbondingSeconds: r.unbonding_seconds,
  minimumStake: new D(r.minimum_stake).toFixed(r.precision),
  active: r.active,
  precision: r.precision,
});

export async function listStakingProducts(environment: Environment, c: Queryable = getDb()): Promise<StakingProduct[]> {
  const { rows } = await c.query<ProductRow>(
    `SELECT ${PRODUCT_COLUMNS} FROM defi_staking_products p JOIN assets a ON a.code = p.asset_code WHERE p.environment = $1 ORDER BY p.chain, p.id`,
    [environment],
  );
  return rows.map(toProduct);
}

export async function getStakingProduct(environment: Environment, id: string, c: Queryable = getDb()): Promise<StakingProduct | null> {
  const { rows } = await c.query<ProductRow>(`SELECT ${PRODUCT_COLUMNS} FROM defi_staking_products p JOIN assets a ON a.code = p.asset_code WHERE p.environment = $1 AND p.id = $2`, [
    environment,
    id,
  ]);
  return rows[0] ? toProduct(rows[0]) : null;
}

interface PositionRow {
  id: string;
  environment: Environment;
  user_id: string;
  account_id: string;
  product_id: string;
  chain: string;
  protocol: string;
  asset_code: string;
  staked_amount: string;
  principal: string;
  auto_compound: boolean;
  rewards_harvested: string;
  harvested_epochs: number;
  last_harvested_at: Date | null;
  reward_epochs: number | null;
  status: StakingStatus;
  staked_at: Date;
  unbond_requested_at: Date | null;
  unbonding_ends_at: Date | null;
  withdrawn_at: Date | null;
  final_rewards: string | null;
  stake_entry_id: string;
  withdraw_entry_id: string | null;
  workflow_id: string | null;
  created_at: Date;
  precision: number;
}

/** Columns of a position (alias s) with its asset's precision (join assets a). */
export const POSITION_COLUMNS = `s.id, s.environment, s.user_id, s.account_id, s.product_id, s.chain, s.protocol, s.asset_code, s.staked_amount::text AS staked_amount,
  s.principal::text AS principal, s.auto_compound, s.rewards_harvested::text AS rewards_harvested, s.harvested_epochs, s.last_harvested_at, s.reward_epochs,
  s.status, s.staked_at, s.unbond_requested_at, s.unbonding_ends_at, s.withdrawn_at, s.final_rewards::text AS final_rewards, s.stake_entry_id,
  s.withdraw_entry_id, s.workflow_id, s.created_at, a.precision`;
export const POSITION_FROM = 'defi_staking_positions s JOIN assets a ON a.code = s.asset_code';

const at = (v: string | null, precision: number) => (v === null ? null : new D(v).toFixed(precision));

export const toStakingPosition = (r: PositionRow): StakingPosition => ({
  id: r.id,
  environment: r.environment,
  userId: r.user_id,
  accountId: r.account_id,
  productId: r.product_id,
  chain: r.chain,
  protocol: r.protocol,
  assetCode: r.asset_code,
  precision: r.precision,
  stakedAmount: new D(r.staked_amount).toFixed(r.precision),
  principal: new D(r.principal).toFixed(r.precision),
  autoCompound: r.auto_compound,
  rewardsHarvested: new D(r.rewards_harvested).toFixed(r.precision),
  harvestedEpochs: r.harvested_epochs,
  lastHarvestedAt: r.last_harvested_at,
  rewardEpochs: r.reward_epochs,
  status: r.status,
  stakedAt: r.staked_at,
  unbondRequestedAt: r.unbond_requested_at,
  unbondingEndsAt: r.unbonding_ends_at,
  withdrawnAt: r.withdrawn_at,
  finalRewards: at(r.final_rewards, r.precision),
  stakeEntryId: r.stake_entry_id,
  withdrawEntryId: r.withdraw_entry_id,
  workflowId: r.workflow_id,
  createdAt: r.created_at,
});

/** The position under its row lock (FOR UPDATE OF s: the asset row is only read). */
export async function lockStakingPosition(c: Queryable, id: string): Promise<StakingPosition | null> {
  const { rows } = await c.query<PositionRow>(`SELECT ${POSITION_COLUMNS} FROM ${POSITION_FROM} WHERE s.id = $1 FOR UPDATE OF s`, [id]);
  return rows[0] ? toStakingPosition(rows[0]) : null;
}

export async function readStakingPosition(id: string, c: Queryable = getDb()): Promise<StakingPosition | null> {
  const { rows } = await c.query<PositionRow>(`SELECT ${POSITION_COLUMNS} FROM ${POSITION_FROM} WHERE s.id = $1`, [id]);
  return rows[0] ? toStakingPosition(rows[0]) : null;
}

/** The caller's position (null for anyone else's, or another environment's). */
export async function getStakingPosition(id: string, owner: { userId: string; environment: Environment }, c: Queryable = getDb()): Promise<StakingPosition | null> {
  const { rows } = await c.query<PositionRow>(`SELECT ${POSITION_COLUMNS} FROM ${POSITION_FROM} WHERE s.id = $1 AND s.user_id = $2 AND s.environment = $3`, [
    id,
    owner.userId,
    owner.environment,
  ]);
  return rows[0] ? toStakingPosition(rows[0]) : null;
}

/** The staking pool's account for the asset (internal, debit-normal). */
export function stakingPoolAccount(environment: Environment, chain: string, protocol: string, assetCode: string, c: Queryable): Promise<string> {
  return internalLedgerAccountId({ environment, assetCode, code: `staking_pool:${chain}:${protocol}`, name: `${protocol} staking pool ${assetCode} on ${chain}`, normalBalance: 'debit' }, c);
}

/** Where the network's rewards come from (internal, debit-normal): each harvest debits it. */
export function stakingRewardsAccount(environment: Environment, chain: string, protocol: string, assetCode: string, c: Queryable): Promise<string> {
  return internalLedgerAccountId({ environment, assetCode, code: `staking_rewards:${chain}:${protocol}`, name: `${protocol} staking rewards ${assetCode} on ${chain}`, normalBalance: 'debit' }, c);
}

export interface StakeInput {
  userId: string;
  environment: Environment;
  productId: unknown;
  amount: unknown;
  accountId?: string | null;
  autoCompound?: boolean;
  /** The request's Idempotency-Key: a retried stake finds the position it opened. */
  idempotencyKey?: string;
  /** The stake's time: epochs are counted from it (the API's clock; a test may give another). */
  asOf?: Date;
}

export async function stake(input: StakeInput): Promise<StakingPosition> {
  // As liquidity: without the environment's chain nothing is looked at or done.
  chainAdapterOrUnavailable(input.environment);
  const productId = typeof input.productId === 'string' ? input.productId : '';
  const product = await getStakingProduct(input.environment, productId);
  if (!product || !product.active) throw new DomainError('UNKNOWN_PRODUCT', `No staking product ${productId}; GET /api/v2/defi/staking/products lists them`, '/product_id');
  const asset = (await getAsset(product.assetCode))!;
  const amount = parseRequestAmount(input.amount, asset);
  if (new D(amount).lt(product.minimumStake)) {
    throw new DomainError('AMOUNT_BELOW_MINIMUM', `The minimum stake of ${product.id} is ${product.minimumStake} ${product.assetCode}`, '/amount');
  }
  const { accountId } = await resolveAccount({ userId: input.userId, environment: input.environment, accountId: input.accountId, assetCode: product.assetCode, chain: product.chain, needed: amount });
  const positionId = newId('st');
  const key = input.idempotencyKey ? clientIdempotencyKey(input.userId, 'defi-staking-stake', input.idempotencyKey) : `defi:st:${positionId}:stake`;
  const stakedAt = input.asOf ?? new Date();

  return withTransaction(async (c) => {
    const { rows: done } = await c.query<PositionRow>(`SELECT ${POSITION_COLUMNS} FROM ${POSITION_FROM} WHERE s.environment = $1 AND s.idempotency_key = $2`, [input.environment, key]);
    if (done[0]) return toStakingPosition(done[0]);
    const entry = await postEntry(
      {
        environment: input.environment,
        idempotencyKey: key,
        type: 'staking_stake',
        description: `Staked ${amount} ${product.assetCode} with ${product.protocol} on ${product.chain}`,
        lines: [
          { accountId: await ensureChainLedgerAccount(c, accountId, product.assetCode, product.chain), direction: 'debit', amount },
          { accountId: await stakingPoolAccount(input.environment, product.chain, product.protocol, product.assetCode, c), direction: 'credit', amount },
        ],
        userId: input.userId,
        metadata: { position_id: positionId, product_id: product.id, chain: product.chain, protocol: product.protocol },
      },
      c,
    );
    await c.query(
      `INSERT INTO defi_staking_positions (id, environment, user_id, account_id, product_id, chain, protocol, asset_code, staked_amount, principal, auto_compound,
         status, staked_at, stake_entry_id, idempotency_key)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9, $10, 'staked', $11, $12, $13)`,
      [positionId, input.environment, input.userId, accountId, product.id, product.chain, product.protocol, product.assetCode, amount, input.autoCompound ?? false, stakedAt, entry.id, key],
    );
    const position = (await readStakingPosition(positionId, c))!;
    await writeOutboxEvent(c, {
      type: 'position.opened',
      environment: input.environment,
      userId: input.userId,
      aggregateType: 'defi_position',
      aggregateId: positionId,
      data: stakingOpenedData(position, product),
    });
    return position;
  });
}

/** What every staking position event says of the position. */
export const stakingEventBase = (p: StakingPosition) => ({
  position_id: p.id,
  position_type: POSITION_TYPE_STAKING,
  account_id: p.accountId,
  chain: p.chain,
  protocol: p.protocol,
  product_id: p.productId,
  asset: p.assetCode,
});

export function stakingOpenedData(p: StakingPosition, product: StakingProduct) {
  return {
    ...stakingEventBase(p),
    amount: p.stakedAmount,
    auto_compound: p.autoCompound,
    annual_rate: product.annualRate,
    epoch_seconds: product.epochSeconds,
    unbonding_seconds: product.unbondingSeconds,
    entry_id: p.stakeEntryId,
    opened_at: p.stakedAt.toISOString(),
  };
}

export interface StakingValuation {
  /** Completed unpaid epochs at the valuation's time (capped by the unstake). */
  pendingEpochs: number;
  /** Their reward at the current principal (asset precision, each epoch rounded down). */
  pendingRewards: string;
  /** (principal + pending rewards) × the latest USD rate; null without a rate or once withdrawn. */
  usdValue: string | null;
  /** The next epoch's end while rewards still accrue, else null. */
  nextEpochEndsAt: Date | null;
}

export type ValuedStakingPosition = StakingPosition & { annualRate: string; valuation: StakingValuation };

function valueStaking(p: StakingPosition, product: StakingProduct, rates: Map<string, string>, asOf: Date): StakingValuation {
  if (p.status === 'withdrawn') return { pendingEpochs: 0, pendingRewards: new D(0).toFixed(product.precision), usdValue: null, nextEpochEndsAt: null };
  const { from, to } = payableEpochs({ stakedAtMs: p.stakedAt.getTime(), harvestedEpochs: p.harvestedEpochs, rewardEpochs: p.rewardEpochs }, asOf.getTime(), product.epochSeconds);
  const pendingRewards = rewardForEpochs(p.principal, to - from, product);
  const rate = rates.get(p.assetCode);
  const epochMs = product.epochSeconds * 1000;
  const next = p.stakedAt.getTime() + (Math.floor((asOf.getTime() - p.stakedAt.getTime()) / epochMs) + 1) * epochMs;
  const accruing = p.rewardEpochs === null || next <= p.stakedAt.getTime() + p.rewardEpochs * epochMs;
  return {
    pendingEpochs: to - from,
    pendingRewards,
    usdValue: rate ? roundUsd(new D(p.principal).plus(pendingRewards).times(rate)) : null,
    nextEpochEndsAt: accruing ? new Date(next) : null,
  };
}

async function valueAll(positions: StakingPosition[], asOf: Date, c: Queryable): Promise<ValuedStakingPosition[]> {
  if (positions.length === 0) return [];
  const rates = await latestRates(c);
  const products = new Map<string, StakingProduct>();
  const out: ValuedStakingPosition[] = [];
  for (const p of positions) {
    let product = products.get(p.productId);
    if (!product) {
      product = (await getStakingProduct(p.environment, p.productId, c))!;
      products.set(p.productId, product);
    }
    out.push({ ...p, annualRate: product.annualRate, valuation: valueStaking(p, product, rates, asOf) });
  }
  return out;
}

/** The caller's position with its pending rewards and value now (404 POSITION_NOT_FOUND for anyone else's). */
export async function findStakingPosition(id: string, owner: { userId: string; environment: Environment }, asOf = new Date(), c: Queryable = getDb()): Promise<ValuedStakingPosition> {
  const p = await getStakingPosition(id, owner, c);
  if (!p) throw new DomainError('POSITION_NOT_FOUND', 'Staking position not found');
  return (await valueAll([p], asOf, c))[0];
}

/** The caller's positions, newest first (staked and unbonding only unless `all`), valued now. */
export async function listStakingPositions(
  userId: string,
  environment: Environment,
  opts: { all?: boolean; limit?: number; asOf?: Date } = {},
  c: Queryable = getDb(),
): Promise<ValuedStakingPosition[]> {
  const { rows } = await c.query<PositionRow>(
    `SELECT ${POSITION_COLUMNS} FROM ${POSITION_FROM} WHERE s.user_id = $1 AND s.environment = $2 AND ($3 OR s.status <> 'withdrawn')
      ORDER BY s.created_at DESC, s.id DESC LIMIT $4`,
    [userId, environment, opts.all ?? false, opts.limit ?? 100],
  );
  return valueAll(rows.map(toStakingPosition), opts.asOf ?? new Date(), c);
}
