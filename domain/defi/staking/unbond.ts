/**
 * Unstaking (docs/defi.md "Staking"): the unbonding workflow (workflows/defi-staking.ts, id
 * staking-unbond-<position id>) turns the position `unbonding` at its clock (startUnbond), sleeps
 * the product's unbonding period on a Temporal timer, then (completeUnbond) pays the principal and
 * every unpaid reward back to the chain book in ONE entry and closes the position (`withdrawn`,
 * position.closed). Rewards stop with the epoch in progress at the request: it still completes
 * during the unbonding period (at least an epoch long) and earns; later epochs do not.
 */
import { withTransaction } from '../../db/pool';
import { writeOutboxEvent } from '../../events/outbox';
import { postEntry, workflowIdempotencyKey, type LineInput } from '../../ledger';
import { DecimalMoney as D } from '../../money/amount';
import type { Environment } from '../../platform/environment';
import { DomainError } from '../../platform/errors';
import { SA } from '../../temporal/search-attributes';
import { startMoneyWorkflow } from '../../temporal/start';
import { ensureChainLedgerAccount } from '../accounts';
import { chainAdapterOrUnavailable } from '../gas';
import {
  getStakingPosition,
  getStakingProduct,
  lockStakingPosition,
  readStakingPosition,
  stakingEventBase,
  stakingPoolAccount,
  stakingRewardsAccount,
  type StakingPosition,
} from './index';
import { rewardEpochsAtUnstake, rewardForEpochs } from './math';

export const stakingUnbondWorkflowId = (positionId: string) => `staking-unbond-${positionId}`;

/** Refusal of a change a position's state does not allow. */
function refuseState(p: StakingPosition): never {
  if (p.status === 'withdrawn') throw new DomainError('POSITION_CLOSED', 'The position was already withdrawn', '/position_id');
  throw new DomainError('POSITION_UNBONDING', `The position is already unbonding (until ${p.unbondingEndsAt?.toISOString()})`, '/position_id');
}

/**
 * The customer's unstake (POST /api/v2/defi/staking/unstake): their position only (404
 * otherwise), then the chain, then its state; starts the unbonding workflow and waits (up to
 * `waitMs`) until it has turned the position `unbonding`, answering the position as it is then.
 */
export async function unstake(input: { userId: string; environment: Environment; positionId: string; waitMs?: number }): Promise<StakingPosition> {
  const p = await getStakingPosition(input.positionId, input);
  if (!p) throw new DomainError('POSITION_NOT_FOUND', 'Staking position not found', '/position_id');
  chainAdapterOrUnavailable(input.environment);
  if (p.status !== 'staked') refuseState(p);
  await startMoneyWorkflow({
    workflowType: 'stakingUnbondWorkflow',
    // From the position: a second unstake while the first is starting joins the same workflow.
    workflowId: stakingUnbondWorkflowId(p.id),
    args: [{ positionId: p.id }],
    subject: { id: p.id, accountIds: [p.accountId], assetCode: p.assetCode, amount: p.principal, environment: p.environment, userId: p.userId },
    idKey: SA.operationId,
    extraSearchAttributes: [{ key: SA.chain, value: p.chain }],
    // Nothing was changed yet: the position stays staked.
    onStartFailed: async () => undefined,
  }).catch(() => {
    throw new DomainError('WORKFLOW_UNAVAILABLE', 'Unstaking could not be started; the position is still staked. Retry later.');
  });
  const until = Date.now() + (input.waitMs ?? 10_000);
  for (let delay = 10; ; delay = Math.min(delay * 2, 200)) {
    const now = (await readStakingPosition(p.id))!;
    if (now.status !== 'staked' || Date.now() >= until) return now;
    await new Promise((r) => setTimeout(r, delay));
  }
}

/**
 * Activity step 1: the position turns `unbonding` at `asOf` (the workflow's clock); its earning
 * epochs are fixed. Idempotent: a position already unbonding (or withdrawn) answers its end.
 */
export async function startUnbond(input: { positionId: string; workflowId: string; asOf: Date }): Promise<{ unbondingEndsAt: Date }> {
  return withTransaction(async (c) => {
    const p = await lockStakingPosition(c, input.positionId);
    if (!p) throw new DomainError('POSITION_NOT_FOUND', 'Staking position not found');
    if (p.status !== 'staked') return { unbondingEndsAt: p.unbondingEndsAt! };
    const product = (await getStakingProduct(p.environment, p.productId, c))!;
    // Never before the stake (clocks of the API and of Temporal may differ a little).
    const requested = new Date(Math.max(input.asOf.getTime(), p.stakedAt.getTime()));
    const ends = new Date(requested.getTime() + product.unbondingSeconds * 1000);
    const rewardEpochs = Math.max(p.harvestedEpochs, rewardEpochsAtUnstake(p.stakedAt.getTime(), requested.getTime(), product.epochSeconds));
    await c.query(
      `UPDATE defi_staking_positions SET status = 'unbonding', unbond_requested_at = $2, unbonding_ends_at = $3, reward_epochs = $4, workflow_id = $5, updated_at = now()
        WHERE id = $1`,
      [p.id, requested, ends, rewardEpochs, input.workflowId],
    );
    return { unbondingEndsAt: ends };
  });
}

export interface UnbondResult {
  positionId: string;
  /** Principal + rewards credited to the chain book. */
  amount: string;
  principal: string;
  rewards: string;
  entryId: string;
}

/**
 * Activity step 2, after the timer: principal (debit the staking pool) and the unpaid rewards of
 * the earning epochs (debit staking rewards) back to the chain book in one entry keyed by the
 * workflow step; `withdrawn`; position.closed. Idempotent: a withdrawn position answers its entry.
 */
export async function completeUnbond(input: { positionId: string; workflowId: string; asOf: Date }): Promise<UnbondResult> {
  return withTransaction(async (c) => {
    const p = await lockStakingPosition(c, input.positionId);
    if (!p) throw new DomainError('POSITION_NOT_FOUND', 'Staking position not found');
    if (p.status === 'withdrawn') return unbondResult(p);
    if (p.status !== 'unbonding') throw new DomainError('POSITION_NOT_UNBONDING', 'The position is not unbonding');
    if (input.asOf < p.unbondingEndsAt!) throw new DomainError('UNBONDING_NOT_OVER', `The unbonding period ends at ${p.unbondingEndsAt!.toISOString()}`);
    const product = (await getStakingProduct(p.environment, p.productId, c))!;
    const rewards = rewardForEpochs(p.principal, p.rewardEpochs! - p.harvestedEpochs, product);
    const amount = new D(p.principal).plus(rewards).toFixed(product.precision);
    const lines: LineInput[] = [{ accountId: await stakingPoolAccount(p.environment, p.chain, p.protocol, p.assetCode, c), direction: 'debit', amount: p.principal }];
    if (!new D(rewards).isZero()) lines.push({ accountId: await stakingRewardsAccount(p.environment, p.chain, p.protocol, p.assetCode, c), direction: 'debit', amount: rewards });
    lines.push({ accountId: await ensureChainLedgerAccount(c, p.accountId, p.assetCode, p.chain), direction: 'credit', amount });
    const entry = await postEntry(
      {
        environment: p.environment,
        idempotencyKey: workflowIdempotencyKey(input.workflowId, 'complete-unbond'),
        type: 'staking_withdrawal',
        description: `Unstaked ${p.principal} ${p.assetCode} from ${p.protocol} on ${p.chain}, with ${rewards} unpaid rewards`,
        lines,
        userId: p.userId,
        metadata: { position_id: p.id, product_id: p.productId, principal: p.principal, rewards, from_epoch: p.harvestedEpochs, to_epoch: p.rewardEpochs },
      },
      c,
    );
    await c.query(
      `UPDATE defi_staking_positions SET status = 'withdrawn', withdrawn_at = $2, final_rewards = $3, withdraw_entry_id = $4, harvested_epochs = reward_epochs, updated_at = now()
        WHERE id = $1`,
      [p.id, input.asOf, rewards, entry.id],
    );
    const closed = (await lockStakingPosition(c, p.id))!;
    await writeOutboxEvent(c, {
      type: 'position.closed',
      environment: p.environment,
      userId: p.userId,
      aggregateType: 'defi_position',
      aggregateId: p.id,
      data: stakingClosedData(closed),
    });
    return unbondResult(closed);
  });
}

function unbondResult(p: StakingPosition): UnbondResult {
  const rewards = p.finalRewards!;
  return { positionId: p.id, amount: new D(p.principal).plus(rewards).toFixed(p.precision), principal: p.principal, rewards, entryId: p.withdrawEntryId! };
}

export function stakingClosedData(p: StakingPosition) {
  const precision = p.precision;
  return {
    ...stakingEventBase(p),
    amount: new D(p.principal).plus(p.finalRewards!).toFixed(precision),
    principal: p.principal,
    rewards: p.finalRewards!,
    staked_amount: p.stakedAmount,
    total_rewards: new D(p.rewardsHarvested).plus(p.finalRewards!).toFixed(precision),
    reward_epochs: p.rewardEpochs!,
    entry_id: p.withdrawEntryId!,
    unbond_requested_at: p.unbondRequestedAt!.toISOString(),
    closed_at: p.withdrawnAt!.toISOString(),
  };
}
