import { continueAsNew, log, proxyActivities, sleep, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { HarvestSummary, StakingActivities } from '../activities/defi/staking';
import type { UnbondResult } from '../domain/defi/staking/unbond';
import { SA } from '../domain/temporal/search-attributes';

// Money comes back at the end of the unbonding: its steps retry until done (refusals are
// non-retryable and end the workflow with their code).
const unbondActs = proxyActivities<StakingActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 minutes' },
});

const harvestActs = proxyActivities<StakingActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 20 },
});

/**
 * Unstaking one position (id staking-unbond-<position id>, started by POST
 * /api/v2/defi/staking/unstake): the position turns `unbonding` at the workflow's clock, a durable
 * timer waits the product's unbonding period, then principal + unpaid rewards come back to the
 * chain book in one entry and the position is `withdrawn`. Deterministic: times from the workflow.
 */
export async function stakingUnbondWorkflow(input: { positionId: string }): Promise<UnbondResult> {
  const workflowId = workflowInfo().workflowId;
  const step = { positionId: input.positionId, workflowId };
  const { unbondingEndsAtMs } = await unbondActs.startUnbond({ ...step, asOfMs: Date.now() });
  upsertSearchAttributes([{ key: SA.businessStatus, value: 'unbonding' }] as never);
  const left = unbondingEndsAtMs - Date.now();
  if (left > 0) await sleep(left);
  const done = await unbondActs.completeUnbond({ ...step, asOfMs: Math.max(Date.now(), unbondingEndsAtMs) });
  upsertSearchAttributes([{ key: SA.businessStatus, value: 'withdrawn' }] as never);
  return done;
}

const PAGE = 100;
// Pages per run before continuing as new (keeps the history short on a large book).
const PAGES_PER_RUN = 10;

export interface StakingHarvestInput {
  /** The harvest's time; default the workflow's clock at the first run (kept across continue-as-new). */
  asOfMs?: number;
  after?: string | null;
  harvested?: number;
  failed?: number;
}

/**
 * The daily harvest (schedule 'defi-staking-harvest-daily', domain/defi/staking/schedule.ts):
 * every staked position with a completed unpaid epoch at the run's time is harvested by its own
 * activity (auto_compound positions compound, the others are paid out; keyed by workflow id and
 * position). One position's refusal (e.g. a production chain not configured) is logged and
 * counted; the others go on.
 */
export async function stakingHarvestWorkflow(input: StakingHarvestInput = {}): Promise<{ asOfMs: number; harvested: number; failed: number; payouts: HarvestSummary[] }> {
  const workflowId = workflowInfo().workflowId;
  const asOfMs = input.asOfMs ?? Date.now();
  let after = input.after ?? null;
  let harvested = input.harvested ?? 0;
  let failed = input.failed ?? 0;
  const payouts: HarvestSummary[] = [];
  upsertSearchAttributes([{ key: SA.businessStatus, value: 'harvesting' }] as never);
  for (let page = 0; page < PAGES_PER_RUN; page++) {
    const due = await harvestActs.dueStakingPositions({ asOfMs, after, limit: PAGE });
    for (const positionId of due) {
      try {
        const r = await harvestActs.harvestStakingPosition({ positionId, workflowId, asOfMs });
        if (r) {
          harvested++;
          payouts.push(r);
        }
      } catch (err) {
        failed++;
        log.warn('staking harvest failed', { positionId, error: (err as Error).message });
      }
    }
    if (due.length < PAGE) {
      upsertSearchAttributes([{ key: SA.businessStatus, value: 'harvested' }] as never);
      return { asOfMs, harvested, failed, payouts };
    }
    after = due[due.length - 1];
  }
  return continueAsNew<typeof stakingHarvestWorkflow>({ asOfMs, after, harvested, failed });
}
