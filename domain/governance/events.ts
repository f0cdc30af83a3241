/**
 * The governance.* events (outbox, webhooks), written in the same transaction as the change they
 * report. Included in domain/events/catalog.ts; tests validate the real events against these
 * schemas. Proposal events concern every holder of the basket in the environment, so they carry no
 * user (outbox user_id null); governance.vote.cast belongs to the voter.
 */
import type { EventTypeInfo } from '../events/types';

type Schema = Record<string, unknown>;
const str: Schema = { type: 'string' };
const strOrNull: Schema = { type: ['string', 'null'] };
const decimal: Schema = { type: 'string', pattern: '^[0-9]+(\\.[0-9]+)?$' };
const decimalOrNull: Schema = { type: ['string', 'null'], pattern: '^[0-9]+(\\.[0-9]+)?$' };
const ts: Schema = { type: 'string', format: 'date-time' };
const obj = (properties: Record<string, Schema>, required = Object.keys(properties)): Schema => ({ type: 'object', required, properties, additionalProperties: false });

const proposalId: Schema = { type: 'string', pattern: '^gprop_' };
const tallies = obj({ for: decimal, against: decimal, abstain: decimal });

const created = obj({
  proposal_id: proposalId,
  basket_code: str,
  source: { type: 'string', enum: ['monthly', 'operator'] },
  period: { type: ['string', 'null'], pattern: '^[0-9]{4}-[0-9]{2}$' },
  title: str,
  status: { type: 'string', enum: ['pending'] },
  components: { type: 'array', items: obj({ asset_code: str, weight: decimal }) },
  voting_starts_at: ts,
  voting_ends_at: ts,
  snapshot_at: ts,
  quorum: decimal,
  threshold: decimal,
  created_by: strOrNull,
  created_at: ts,
});

const opened = obj({
  proposal_id: proposalId,
  basket_code: str,
  status: { type: 'string', enum: ['active'] },
  snapshot_at: ts,
  eligible_power: decimal,
  voting_ends_at: ts,
  opened_at: ts,
});

const closed = obj({
  proposal_id: proposalId,
  basket_code: str,
  status: { type: 'string', enum: ['succeeded', 'defeated'] },
  outcome: { type: 'string', enum: ['passed', 'quorum_not_met', 'threshold_not_met', 'no_eligible_power'] },
  eligible_power: decimal,
  tallies,
  voter_count: { type: 'integer', minimum: 0 },
  participation: decimalOrNull,
  approval: decimalOrNull,
  quorum: decimal,
  threshold: decimal,
  closed_at: ts,
});

const executed = obj({
  proposal_id: proposalId,
  basket_code: str,
  status: { type: 'string', enum: ['executed'] },
  version: { type: 'integer', minimum: 2 },
  value_usd: decimal,
  entry_id: strOrNull,
  executed_at: ts,
});

const canceled = obj({
  proposal_id: proposalId,
  basket_code: str,
  status: { type: 'string', enum: ['canceled'] },
  previous_status: { type: 'string', enum: ['pending', 'active'] },
  reason: strOrNull,
  canceled_by: strOrNull,
  canceled_at: ts,
});

const voteCast = obj({
  proposal_id: proposalId,
  basket_code: str,
  vote: { type: 'string', enum: ['for', 'against', 'abstain'] },
  previous_vote: { type: ['string', 'null'], enum: ['for', 'against', 'abstain', null] },
  power: decimal,
  snapshot_at: ts,
  tallies,
  cast_at: ts,
});

const PRODUCER = 'domain/governance (proposal workflow, votes, operators)';
// Proposal events concern every holder in the environment; a vote is the voter's own.
const ev = (type: string, description: string, data_schema: Schema): EventTypeInfo => ({
  type, group: 'Governance', description, produced: true, producer: PRODUCER, environmentWide: type.startsWith('governance.proposal.'), data_schema,
});

export const GOVERNANCE_EVENT_CATALOG: readonly EventTypeInfo[] = [
  ev('governance.proposal.created', 'A proposal to change a basket composition was created (monthly poll or operator); voting has not started.', created),
  ev('governance.proposal.opened', 'Voting opened: the snapshot was taken and the eligible power (units outstanding at the snapshot) recorded.', opened),
  ev('governance.proposal.closed', 'Voting closed and was tallied: succeeded, or defeated (below quorum, or not more than the threshold in favour).', closed),
  ev('governance.proposal.executed', 'A succeeded proposal was executed: the basket was rebalanced to the proposed weights (see basket.rebalanced).', executed),
  ev('governance.proposal.canceled', 'An operator canceled a pending or active proposal; nothing it proposed happens.', canceled),
  ev('governance.vote.cast', "A holder voted, or changed their vote; the power is their basket balance at the snapshot.", voteCast),
];
