import {
  condition,
  defineSignal,
  ParentClosePolicy,
  proxyActivities,
  setHandler,
  startChild,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
// The error startChild rejects with when the id runs already (@temporalio/workflow throws common's class).
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { GovernanceActivities } from '../activities/governance';
import { proposalSearchAttributes } from '../domain/governance/search';
import { SA } from '../domain/temporal/search-attributes';

// Business refusals are not retried; a database outage is, with back-off, for as long as it lasts.
const acts = proxyActivities<GovernanceActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 50 },
});

/** An operator canceled the proposal (domain/governance cancelProposal): stop waiting. */
export const cancelProposalSignal = defineSignal('cancel');

type FinalStatus = 'pending' | 'active' | 'defeated' | 'succeeded' | 'executed' | 'canceled';

/**
 * One proposal on the clock (workflow id governance-proposal-<id>): sleep until voting opens →
 * open (snapshot of eligible power) → sleep until voting closes → close (tally) → if succeeded,
 * execute (rebalance, exactly once). A cancel signal ends a wait at once; without it the next
 * step finds the proposal canceled and the workflow ends. Times come from the proposal record,
 * decisions take the workflow's clock, so the time-skipping test server runs a month in seconds.
 */
export async function governanceProposalWorkflow(input: { proposalId: string }): Promise<{ status: FinalStatus; version?: number | null }> {
  let canceled = false;
  setHandler(cancelProposalSignal, () => {
    canceled = true;
  });
  const setStatus = (status: string) => upsertSearchAttributes([{ key: SA.businessStatus, value: status }] as never);
  /** Sleeps until the instant (workflow time); true when a cancel signal came first. */
  const waitUntil = async (ms: number) => {
    const left = ms - Date.now();
    if (left > 0) await condition(() => canceled, left);
    return canceled;
  };
  const step = { proposalId: input.proposalId };

  const times = await acts.governanceProposalTimes(step);
  let status: FinalStatus = times.status;
  if (status === 'pending') {
    if (await waitUntil(times.startsAtMs)) return { status: 'canceled' };
    status = (await acts.activateGovernanceProposal({ ...step, nowMs: Date.now() })).status;
    setStatus(status);
  }
  if (status === 'active') {
    if (await waitUntil(times.endsAtMs)) return { status: 'canceled' };
    status = (await acts.closeGovernanceProposal({ ...step, nowMs: Date.now() })).status;
    setStatus(status);
  }
  if (status !== 'succeeded') return { status };
  const done = await acts.executeGovernanceProposal({ ...step, workflowId: workflowInfo().workflowId });
  setStatus(done.status);
  return { status: done.status, version: done.version };
}

/**
 * Started by the 'governance-monthly' schedule (00:00 UTC on the 1st): opens the month's poll for
 * the primary basket in each environment (idempotent: one per environment and month), then starts
 * the workflow of every pending proposal that has none confirmed (the new polls, and operators'
 * proposals whose creator could not start theirs) as abandoned children, so they outlive this run.
 */
export async function monthlyGovernanceWorkflow(): Promise<{ polls: Array<{ proposalId: string; environment: string; period: string | null; created: boolean }>; started: string[] }> {
  const polls = await acts.openMonthlyGovernancePolls({ nowMs: Date.now() });
  const waiting = await acts.governanceProposalsAwaitingWorkflow();
  const started: string[] = [];
  for (const p of waiting) {
    try {
      await startChild(governanceProposalWorkflow, {
        workflowId: p.workflowId,
        args: [{ proposalId: p.proposalId }],
        parentClosePolicy: ParentClosePolicy.ABANDON,
        typedSearchAttributes: proposalSearchAttributes(p),
      });
    } catch (err) {
      // Started meanwhile by its creator (or an earlier run): it runs, which is all we want.
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    }
    started.push(p.proposalId);
  }
  if (started.length > 0) await acts.markGovernanceWorkflowsStarted({ proposalIds: started });
  return { polls, started };
}
