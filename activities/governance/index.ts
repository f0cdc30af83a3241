/**
 * The steps of the governance workflows (workflows/governance.ts). Each calls one domain function
 * and is idempotent: opening, closing and executing lock the proposal and return it unchanged when
 * the step was already done; execution is keyed by the workflow id and step.
 */
import {
  activateProposal,
  closeProposal,
  executeProposal,
  markWorkflowsStarted,
  openMonthlyPolls,
  proposalsAwaitingWorkflow,
  proposalTimes,
  type Proposal,
  type ProposalStatus,
} from '../../domain/governance';
import type { ProposalWorkflowSubject } from '../../domain/governance/search';
import { workflowIdempotencyKey } from '../../domain/ledger';
import { businessFailure } from '../failures';

export interface ProposalStep {
  proposalId: string;
}

export interface ProposalToStart extends ProposalWorkflowSubject {
  workflowId: string;
}

const toStart = (p: Proposal): ProposalToStart => ({
  proposalId: p.id, workflowId: p.workflowId, basketCode: p.basketCode, environment: p.environment, createdBy: p.createdBy, status: p.status,
});

export function createGovernanceActivities() {
  return {
    async governanceProposalTimes({ proposalId }: ProposalStep): Promise<{ status: ProposalStatus; startsAtMs: number; endsAtMs: number }> {
      return proposalTimes(proposalId).catch(businessFailure);
    },

    /** Opens voting (the workflow's clock has reached voting_starts_at); a canceled proposal comes back canceled. */
    async activateGovernanceProposal({ proposalId, nowMs }: ProposalStep & { nowMs: number }): Promise<{ status: ProposalStatus }> {
      const p = await activateProposal(proposalId, nowMs).catch(businessFailure);
      return { status: p.status };
    },

    async closeGovernanceProposal({ proposalId, nowMs }: ProposalStep & { nowMs: number }): Promise<{ status: ProposalStatus }> {
      const p = await closeProposal(proposalId, nowMs).catch(businessFailure);
      return { status: p.status };
    },

    async executeGovernanceProposal({ proposalId, workflowId }: ProposalStep & { workflowId: string }): Promise<{ status: ProposalStatus; version: number | null; entryId: string | null }> {
      const p = await executeProposal(proposalId, { idempotencyKey: workflowIdempotencyKey(workflowId, 'execute') }).catch(businessFailure);
      return { status: p.status, version: p.revisionVersion, entryId: p.executionEntryId };
    },

    /** The month's polls (one per environment), created if missing. */
    async openMonthlyGovernancePolls({ nowMs }: { nowMs: number }): Promise<Array<{ proposalId: string; environment: string; period: string | null; created: boolean }>> {
      const polls = await openMonthlyPolls(nowMs).catch(businessFailure);
      return polls.map((x) => ({ proposalId: x.proposal.id, environment: x.proposal.environment, period: x.proposal.period, created: x.created }));
    },

    /** Pending proposals (this month's polls, operators' proposals) whose workflow was never confirmed started. */
    async governanceProposalsAwaitingWorkflow(): Promise<ProposalToStart[]> {
      return (await proposalsAwaitingWorkflow()).map(toStart);
    },

    async markGovernanceWorkflowsStarted({ proposalIds }: { proposalIds: string[] }): Promise<void> {
      await markWorkflowsStarted(proposalIds);
    },
  };
}

export type GovernanceActivities = ReturnType<typeof createGovernanceActivities>;
