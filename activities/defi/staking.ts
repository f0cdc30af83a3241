/**
 * Activities of the staking workflows (workflows/defi-staking.ts). Each is one database
 * transaction keyed by the workflow id and step (and the position), so a retried activity moves
 * nothing twice: the unbond steps by the position's state and the entry's key, a harvest by the
 * (position, first epoch) row and the step's key. Refusals reach the workflow as non-retryable
 * failures with their code (businessFailure).
 */
import { chainAdapterOrUnavailable } from '../../domain/defi/gas';
import { readStakingPosition } from '../../domain/defi/staking';
import { dueStakingPositions, harvestStakingPosition } from '../../domain/defi/staking/harvest';
import { completeUnbond, startUnbond, type UnbondResult } from '../../domain/defi/staking/unbond';
import { workflowIdempotencyKey } from '../../domain/ledger';
import { businessFailure } from '../failures';

export interface UnbondStepInput {
  positionId: string;
  workflowId: string;
  /** The workflow's clock. */
  asOfMs: number;
}

/** What a harvest paid, as it crosses the workflow boundary (null: nothing was due). */
export interface HarvestSummary {
  positionId: string;
  mode: 'compounded' | 'paid_out';
  amount: string;
  epochs: number;
  entryId: string;
}

export function createStakingActivities() {
  return {
    async startUnbond(input: UnbondStepInput): Promise<{ unbondingEndsAtMs: number }> {
      try {
        const r = await startUnbond({ positionId: input.positionId, workflowId: input.workflowId, asOf: new Date(input.asOfMs) });
        return { unbondingEndsAtMs: r.unbondingEndsAt.getTime() };
      } catch (err) {
        businessFailure(err);
      }
    },

    async completeUnbond(input: UnbondStepInput): Promise<UnbondResult> {
      try {
        return await completeUnbond({ positionId: input.positionId, workflowId: input.workflowId, asOf: new Date(input.asOfMs) });
      } catch (err) {
        businessFailure(err);
      }
    },

    /** A page of staked positions with an unpaid completed epoch at the run's time. */
    async dueStakingPositions(input: { asOfMs: number; after: string | null; limit: number }): Promise<string[]> {
      return dueStakingPositions(new Date(input.asOfMs), input.after, input.limit);
    },

    /** One position's harvest at the run's time, in the position's own mode (auto_compound: compounded). */
    async harvestStakingPosition(input: { positionId: string; workflowId: string; asOfMs: number }): Promise<HarvestSummary | null> {
      try {
        const p = await readStakingPosition(input.positionId);
        if (p) chainAdapterOrUnavailable(p.environment);
        const r = await harvestStakingPosition({
          positionId: input.positionId,
          asOf: new Date(input.asOfMs),
          idempotencyKey: workflowIdempotencyKey(input.workflowId, `harvest:${input.positionId}`),
        });
        if (!r) return null;
        const h = r.harvest;
        return { positionId: h.positionId, mode: h.mode, amount: h.amount, epochs: h.toEpoch - h.fromEpoch, entryId: h.entryId };
      } catch (err) {
        businessFailure(err);
      }
    },
  };
}

export type StakingActivities = ReturnType<typeof createStakingActivities>;
