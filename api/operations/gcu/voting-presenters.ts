/** Wire shapes of proposals and votes (snake_case; power and tallies as decimal strings). */
import type { MyVote, ProposalView, VoteRecord } from '../../../domain/governance';
import { DecimalMoney as D } from '../../../domain/money/amount';

const iso = (d: Date | null) => d?.toISOString() ?? null;

function tallies(t: ProposalView['proposal']['tallies'], voters: number) {
  return { for: t.for, against: t.against, abstain: t.abstain, total: new D(t.for).plus(t.against).plus(t.abstain).toFixed(), voters };
}

export function presentProposal(v: ProposalView) {
  const p = v.proposal;
  return {
    id: p.id,
    basket_code: p.basketCode,
    environment: p.environment,
    source: p.source,
    period: p.period,
    title: p.title,
    description: p.description,
    status: p.status,
    proposed_components: p.components.map((c) => ({ asset_code: c.assetCode, weight: c.weight })),
    voting_starts_at: p.votingStartsAt.toISOString(),
    voting_ends_at: p.votingEndsAt.toISOString(),
    snapshot_at: p.snapshotAt.toISOString(),
    eligible_power: p.eligiblePower,
    quorum: p.quorum,
    threshold: p.threshold,
    tallies: tallies(p.tallies, p.voterCount),
    participation: v.participation,
    approval: v.approval,
    quorum_reached: v.quorumReached,
    my_vote: v.caller?.vote ? { vote: v.caller.vote.vote, power: v.caller.vote.power, cast_at: v.caller.vote.castAt.toISOString(), updated_at: v.caller.vote.updatedAt.toISOString() } : null,
    my_power: v.caller?.power ?? null,
    workflow_id: p.workflowId,
    executed_at: iso(p.executedAt),
    revision_version: p.revisionVersion,
    execution_entry_id: p.executionEntryId,
    created_by: p.createdBy,
    created_at: p.createdAt.toISOString(),
    opened_at: iso(p.openedAt),
    closed_at: iso(p.closedAt),
    canceled_at: iso(p.canceledAt),
    cancel_reason: p.cancelReason,
  };
}

export function presentVote(r: VoteRecord) {
  return {
    proposal_id: r.proposalId,
    basket_code: r.basketCode,
    vote: r.vote,
    previous_vote: r.previousVote,
    power: r.power,
    cast_at: r.castAt.toISOString(),
    updated_at: r.updatedAt.toISOString(),
    proposal_status: r.proposal.status,
    tallies: tallies(r.proposal.tallies, r.proposal.voterCount),
  };
}

export function presentMyVote(v: MyVote) {
  return {
    proposal_id: v.proposalId,
    basket_code: v.basketCode,
    title: v.title,
    proposal_status: v.proposalStatus,
    vote: v.vote,
    power: v.power,
    cast_at: v.castAt.toISOString(),
    updated_at: v.updatedAt.toISOString(),
    voting_ends_at: v.votingEndsAt.toISOString(),
  };
}
