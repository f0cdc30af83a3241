/** The staking routes' wire shapes (snake_case, money as decimal strings). */
import type { StakingPosition, StakingProduct, ValuedStakingPosition } from '../../../domain/defi/staking';
import { harvestFields, type StakingHarvest } from '../../../domain/defi/staking/harvest';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function presentStakingProduct(p: StakingProduct) {
  return {
    id: p.id,
    chain: p.chain,
    protocol: p.protocol,
    asset: p.assetCode,
    name: p.name,
    annual_rate: p.annualRate,
    epoch_seconds: p.epochSeconds,
    unbonding_seconds: p.unbondingSeconds,
    minimum_stake: p.minimumStake,
    active: p.active,
  };
}

export function presentStakingPosition(p: StakingPosition | ValuedStakingPosition) {
  const v = 'valuation' in p ? p.valuation : null;
  return {
    position_id: p.id,
    position_type: 'staking' as const,
    status: p.status,
    account_id: p.accountId,
    product_id: p.productId,
    chain: p.chain,
    protocol: p.protocol,
    asset: p.assetCode,
    staked_amount: p.stakedAmount,
    principal: p.principal,
    auto_compound: p.autoCompound,
    annual_rate: 'annualRate' in p ? p.annualRate : null,
    rewards_harvested: p.rewardsHarvested,
    harvested_epochs: p.harvestedEpochs,
    last_harvested_at: iso(p.lastHarvestedAt),
    reward_epochs: p.rewardEpochs,
    pending_epochs: v ? v.pendingEpochs : null,
    pending_rewards: v ? v.pendingRewards : null,
    usd_value: v ? v.usdValue : null,
    next_epoch_ends_at: v ? iso(v.nextEpochEndsAt) : null,
    staked_at: p.stakedAt.toISOString(),
    unbond_requested_at: iso(p.unbondRequestedAt),
    unbonding_ends_at: iso(p.unbondingEndsAt),
    withdrawn_at: iso(p.withdrawnAt),
    final_rewards: p.finalRewards,
    stake_entry_id: p.stakeEntryId,
    withdraw_entry_id: p.withdrawEntryId,
    workflow_id: p.workflowId,
    created_at: p.createdAt.toISOString(),
  };
}

export function presentStakingHarvest(r: { harvest: StakingHarvest; position: StakingPosition }) {
  const h = r.harvest;
  return {
    position: presentStakingPosition(r.position),
    harvest: harvestFields(h),
  };
}
