/**
 * Staking reward math, pure (docs/defi.md "Staking"). Rewards accrue per COMPLETED epoch, counted
 * from the stake: epoch k covers [staked_at + k·E, staked_at + (k+1)·E). One epoch's reward is
 *
 *   principal × annual_rate × E / 31,536,000   (a 365-day year, in seconds)
 *
 * in decimal, rounded DOWN to the asset's ledger precision: the customer never gets dust the
 * network did not pay. Each epoch is rounded on its own (n epochs pay n × the rounded reward, not
 * the rounded product), so splitting a harvest differently never pays more. Compounding happens at
 * a harvest: the harvested reward joins the principal, so only later epochs earn on it.
 * Times are milliseconds (not money); money is decimal strings.
 */
import { DecimalMoney as D } from '../../money/amount';

export const SECONDS_PER_YEAR = 31_536_000;

export interface RewardTerms {
  /** Fraction a year, e.g. "0.031". */
  annualRate: string;
  epochSeconds: number;
  /** The asset's ledger precision (decimal places). */
  precision: number;
}

/** One completed epoch's reward on `principal`, rounded down to the ledger precision. */
export function rewardPerEpoch(principal: string, t: RewardTerms): string {
  return new D(principal).times(t.annualRate).times(t.epochSeconds).div(SECONDS_PER_YEAR).toDecimalPlaces(t.precision, D.ROUND_DOWN).toFixed(t.precision);
}

/** The reward of `epochs` completed epochs at a constant principal (each epoch rounded down). */
export function rewardForEpochs(principal: string, epochs: number, t: RewardTerms): string {
  if (epochs <= 0) return new D(0).toFixed(t.precision);
  return new D(rewardPerEpoch(principal, t)).times(epochs).toFixed(t.precision);
}

/** Epochs completed between the stake and `asOfMs` (0 before the first one ends). */
export function completedEpochs(stakedAtMs: number, asOfMs: number, epochSeconds: number): number {
  if (asOfMs <= stakedAtMs) return 0;
  return Math.floor((asOfMs - stakedAtMs) / (epochSeconds * 1000));
}

/**
 * The epochs that earn at all once an unstake is requested at `requestedAtMs`: those completed by
 * then plus the one in progress (it still completes during the unbonding period, which is at least
 * an epoch long); none after it.
 */
export function rewardEpochsAtUnstake(stakedAtMs: number, requestedAtMs: number, epochSeconds: number): number {
  const elapsed = Math.max(0, requestedAtMs - stakedAtMs);
  return Math.ceil(elapsed / (epochSeconds * 1000));
}

/** Epochs payable now: completed (capped by the unstake's reward_epochs) and not yet paid. */
export function payableEpochs(p: { stakedAtMs: number; harvestedEpochs: number; rewardEpochs: number | null }, asOfMs: number, epochSeconds: number): { from: number; to: number } {
  let to = completedEpochs(p.stakedAtMs, asOfMs, epochSeconds);
  if (p.rewardEpochs !== null) to = Math.min(to, p.rewardEpochs);
  return { from: p.harvestedEpochs, to: Math.max(to, p.harvestedEpochs) };
}

/** When epoch `index` ends (ms). */
export const epochEndMs = (stakedAtMs: number, index: number, epochSeconds: number): number => stakedAtMs + (index + 1) * epochSeconds * 1000;
