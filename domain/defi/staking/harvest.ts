/**
 * Harvesting a staking position (docs/defi.md "Staking"): every completed unpaid epoch's reward,
 * in ONE database transaction under the position's row lock. The rewards are a real inbound
 * movement from the network: the entry debits staking_rewards:<chain>:<protocol> and credits the
 * customer's chain book (payout) or the staking pool (compound: the principal grows, so later
 * epochs earn on more). One defi_staking_harvests row per harvest, keyed by (position, first
 * epoch): an epoch is paid once whoever retries; the request's key (a workflow step's or the
 * client's) answers a retry with the first harvest. Nothing to pay: no entry, no event, null.
 */
import { getPool as getDb, withTransaction, type Queryable } from '../../db/pool';
import { writeOutboxEvent } from '../../events/outbox';
import { clientIdempotencyKey, postEntry } from '../../ledger';
import { DecimalMoney as D } from '../../money/amount';
import type { Environment } from '../../platform/environment';
import { DomainError } from '../../platform/errors';
import { ensureChainLedgerAccount } from '../accounts';
import { chainAdapterOrUnavailable } from '../gas';
import { getStakingPosition, getStakingProduct, lockStakingPosition, stakingEventBase, stakingPoolAccount, stakingRewardsAccount, type StakingPosition } from './index';
import { payableEpochs, rewardForEpochs } from './math';

export type HarvestMode = 'compounded' | 'paid_out';

export interface StakingHarvest {
  positionId: string;
  fromEpoch: number;
  toEpoch: number;
  mode: HarvestMode;
  amount: string;
  /** The principal after the harvest. */
  principal: string;
  entryId: string;
  harvestedAt: Date;
}

interface HarvestRow {
  position_id: string;
  from_epoch: number;
  to_epoch: number;
  mode: HarvestMode;
  amount: string;
  principal: string;
  entry_id: string;
  harvested_at: Date;
  precision: number;
}

const toHarvest = (r: HarvestRow): StakingHarvest => ({
  positionId: r.position_id,
  fromEpoch: r.from_epoch,
  toEpoch: r.to_epoch,
  mode: r.mode,
  amount: new D(r.amount).toFixed(r.precision),
  principal: new D(r.principal).toFixed(r.precision),
  entryId: r.entry_id,
  harvestedAt: r.harvested_at,
});

async function harvestByKey(c: Queryable, environment: Environment, key: string): Promise<StakingHarvest | null> {
  const { rows } = await c.query<HarvestRow>(
    `SELECT h.position_id, h.from_epoch, h.to_epoch, h.mode, h.amount::text AS amount, h.principal::text AS principal, h.entry_id, h.harvested_at, a.precision
       FROM defi_staking_harvests h JOIN defi_staking_positions s ON s.id = h.position_id JOIN assets a ON a.code = s.asset_code
      WHERE h.environment = $1 AND h.idempotency_key = $2`,
    [environment, key],
  );
  return rows[0] ? toHarvest(rows[0]) : null;
}

export interface HarvestInput {
  positionId: string;
  /** The harvest's clock: epochs completed by then are paid (a workflow's time, or the API's). */
  asOf: Date;
  /** Default: the position's own choice (auto_compound: compounded, else paid_out). */
  mode?: HarvestMode;
  /** A workflow step's key (wf:<id>:harvest:<position>), or a client key: a retry answers the first harvest. */
  idempotencyKey?: string;
}

/**
 * Pays the position's completed unpaid epochs. Only a staked position harvests (an unbonding one
 * is paid with its principal at withdrawal); anything else, or nothing completed, is null.
 */
export async function harvestStakingPosition(input: HarvestInput): Promise<{ harvest: StakingHarvest; position: StakingPosition } | null> {
  return withTransaction(async (c) => {
    const p = await lockStakingPosition(c, input.positionId);
    if (!p) throw new DomainError('POSITION_NOT_FOUND', 'Staking position not found', '/position_id');
    if (input.idempotencyKey) {
      const replay = await harvestByKey(c, p.environment, input.idempotencyKey);
      if (replay) return { harvest: replay, position: p };
    }
    if (p.status !== 'staked') return null;
    const product = (await getStakingProduct(p.environment, p.productId, c))!;
    const { from, to } = payableEpochs({ stakedAtMs: p.stakedAt.getTime(), harvestedEpochs: p.harvestedEpochs, rewardEpochs: p.rewardEpochs }, input.asOf.getTime(), product.epochSeconds);
    const amount = rewardForEpochs(p.principal, to - from, product);
    // Nothing completed, or epochs whose reward rounds to zero (a tiny stake): they stay unpaid, to be paid with later ones.
    if (to <= from || new D(amount).isZero()) return null;
    const mode: HarvestMode = input.mode ?? (p.autoCompound ? 'compounded' : 'paid_out');
    const principal = mode === 'compounded' ? new D(p.principal).plus(amount).toFixed(product.precision) : p.principal;
    const target =
      mode === 'compounded'
        ? await stakingPoolAccount(p.environment, p.chain, p.protocol, p.assetCode, c)
        : await ensureChainLedgerAccount(c, p.accountId, p.assetCode, p.chain);
    const entry = await postEntry(
      {
        environment: p.environment,
        // Per (position, first epoch): the ledger's own guard against paying an epoch twice.
        idempotencyKey: `defi:st:${p.id}:epochs:${from}`,
        type: 'staking_reward',
        description: `Staking rewards of ${p.id}, epochs ${from}-${to - 1}: ${amount} ${p.assetCode} ${mode === 'compounded' ? 'compounded' : 'paid out'}`,
        lines: [
          { accountId: await stakingRewardsAccount(p.environment, p.chain, p.protocol, p.assetCode, c), direction: 'debit', amount },
          { accountId: target, direction: 'credit', amount },
        ],
        userId: p.userId,
        metadata: { position_id: p.id, product_id: p.productId, from_epoch: from, to_epoch: to, mode },
      },
      c,
    );
    const key = input.idempotencyKey ?? `defi:st:${p.id}:harvest:${from}`;
    await c.query(
      `INSERT INTO defi_staking_harvests (position_id, from_epoch, to_epoch, environment, mode, amount, principal, entry_id, idempotency_key, harvested_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [p.id, from, to, p.environment, mode, amount, principal, entry.id, key, input.asOf],
    );
    await c.query(
      `UPDATE defi_staking_positions SET principal = $2, rewards_harvested = rewards_harvested + $3, harvested_epochs = $4, last_harvested_at = $5, updated_at = now()
        WHERE id = $1`,
      [p.id, principal, amount, to, input.asOf],
    );
    const harvest: StakingHarvest = { positionId: p.id, fromEpoch: from, toEpoch: to, mode, amount, principal, entryId: entry.id, harvestedAt: input.asOf };
    await writeOutboxEvent(c, {
      type: 'yield.harvested',
      environment: p.environment,
      userId: p.userId,
      aggregateType: 'defi_position',
      aggregateId: p.id,
      data: yieldHarvestedData(p, harvest),
    });
    return { harvest, position: (await lockStakingPosition(c, p.id))! };
  });
}

/** What a harvest paid, as the event and the API both give it. */
export function harvestFields(h: StakingHarvest) {
  return {
    amount: h.amount,
    mode: h.mode,
    epochs: h.toEpoch - h.fromEpoch,
    from_epoch: h.fromEpoch,
    to_epoch: h.toEpoch,
    principal: h.principal,
    entry_id: h.entryId,
    harvested_at: h.harvestedAt.toISOString(),
  };
}

export function yieldHarvestedData(p: StakingPosition, h: StakingHarvest) {
  return { ...stakingEventBase(p), ...harvestFields(h) };
}

export interface HarvestNowInput {
  userId: string;
  environment: Environment;
  positionId: string;
  /** Default paid_out: the customer asked for the rewards now. */
  mode?: HarvestMode;
  idempotencyKey?: string;
  asOf?: Date;
}

/**
 * The customer's harvest (POST /api/v2/defi/staking/harvest): their position only (404 otherwise),
 * then the chain; 422 NOTHING_TO_HARVEST when no unpaid epoch has completed.
 */
export async function harvestNow(input: HarvestNowInput): Promise<{ harvest: StakingHarvest; position: StakingPosition }> {
  const p = await getStakingPosition(input.positionId, input);
  if (!p) throw new DomainError('POSITION_NOT_FOUND', 'Staking position not found', '/position_id');
  chainAdapterOrUnavailable(input.environment);
  if (p.status === 'withdrawn') throw new DomainError('POSITION_CLOSED', 'The position was withdrawn: its rewards were paid with the principal', '/position_id');
  if (p.status === 'unbonding') throw new DomainError('POSITION_UNBONDING', 'The position is unbonding: its unpaid rewards come back with the principal', '/position_id');
  const r = await harvestStakingPosition({
    positionId: p.id,
    asOf: input.asOf ?? new Date(),
    mode: input.mode ?? 'paid_out',
    idempotencyKey: input.idempotencyKey ? clientIdempotencyKey(input.userId, `defi-staking-harvest:${p.id}`, input.idempotencyKey) : undefined,
  });
  if (!r) throw new DomainError('NOTHING_TO_HARVEST', 'No unpaid epoch has completed yet (or its reward rounds to zero); GET the position for the next epoch\'s end', '/position_id');
  return r;
}

/**
 * Staked positions with a completed unpaid epoch at `asOf`, in id order after `after` (the daily
 * harvest pages through them). Every environment.
 */
export async function dueStakingPositions(asOf: Date, after: string | null, limit: number, c: Queryable = getDb()): Promise<string[]> {
  const { rows } = await c.query<{ id: string }>(
    `SELECT s.id FROM defi_staking_positions s JOIN defi_staking_products p ON p.environment = s.environment AND p.id = s.product_id
      WHERE s.status = 'staked' AND ($2::text IS NULL OR s.id > $2)
        AND floor(extract(epoch FROM ($1::timestamptz - s.staked_at)) / p.epoch_seconds) > s.harvested_epochs
      ORDER BY s.id LIMIT $3`,
    [asOf, after, limit],
  );
  return rows.map((r) => r.id);
}
