/**
 * Proposal records: the type, reading and locking rows, and the event payloads built from them.
 * Every change to a proposal locks its row first (lockProposal), so votes, closing, canceling and
 * execution of one proposal never interleave.
 */
import { getPool, type Queryable } from '../db/pool';
import { DecimalMoney as D } from '../money/amount';
import type { Environment } from '../platform/environment';
import { DomainError } from '../platform/errors';
import type { Tallies } from './tally';

export const PROPOSAL_STATUSES = ['pending', 'active', 'defeated', 'succeeded', 'executed', 'canceled'] as const;
export type ProposalStatus = (typeof PROPOSAL_STATUSES)[number];
export type ProposalSource = 'monthly' | 'operator';
export const VOTES = ['for', 'against', 'abstain'] as const;
export type VoteChoice = (typeof VOTES)[number];

export interface ProposedComponent {
  assetCode: string;
  weight: string;
}

export interface Proposal {
  id: string;
  environment: Environment;
  basketCode: string;
  source: ProposalSource;
  period: string | null;
  title: string;
  description: string | null;
  components: ProposedComponent[];
  status: ProposalStatus;
  votingStartsAt: Date;
  votingEndsAt: Date;
  snapshotAt: Date;
  /** Units outstanding at the snapshot; null until voting opens. */
  eligiblePower: string | null;
  quorum: string;
  threshold: string;
  tallies: Tallies;
  voterCount: number;
  workflowId: string;
  workflowStartedAt: Date | null;
  executedAt: Date | null;
  revisionVersion: number | null;
  executionEntryId: string | null;
  executionKey: string | null;
  createdBy: string | null;
  createdAt: Date;
  openedAt: Date | null;
  closedAt: Date | null;
  canceledAt: Date | null;
  canceledBy: string | null;
  cancelReason: string | null;
}

export type ProposalRow = {
  id: string; environment: Environment; basket_code: string; source: ProposalSource; period: string | null; title: string; description: string | null;
  components: Array<{ asset_code: string; weight: string }>; status: ProposalStatus; voting_starts_at: Date; voting_ends_at: Date; snapshot_at: Date;
  eligible_power: string | null; quorum: string; threshold: string; votes_for: string; votes_against: string; votes_abstain: string; voter_count: number;
  workflow_id: string; workflow_started_at: Date | null; executed_at: Date | null; revision_version: number | null; execution_entry_id: string | null;
  execution_key: string | null; created_by: string | null; created_at: Date; opened_at: Date | null; closed_at: Date | null; canceled_at: Date | null;
  canceled_by: string | null; cancel_reason: string | null;
};

export const PROPOSAL_COLUMNS = `id, environment, basket_code, source, period, title, description, components, status, voting_starts_at, voting_ends_at,
  snapshot_at, eligible_power::text AS eligible_power, quorum::text AS quorum, threshold::text AS threshold, votes_for::text AS votes_for,
  votes_against::text AS votes_against, votes_abstain::text AS votes_abstain, voter_count, workflow_id, workflow_started_at, executed_at,
  revision_version, execution_entry_id, execution_key, created_by, created_at, opened_at, closed_at, canceled_at, canceled_by, cancel_reason`;

const dec = (s: string) => new D(s).toFixed();

export function toProposal(r: ProposalRow): Proposal {
  return {
    id: r.id,
    environment: r.environment,
    basketCode: r.basket_code,
    source: r.source,
    period: r.period,
    title: r.title,
    description: r.description,
    components: r.components.map((c) => ({ assetCode: c.asset_code, weight: dec(c.weight) })),
    status: r.status,
    votingStartsAt: r.voting_starts_at,
    votingEndsAt: r.voting_ends_at,
    snapshotAt: r.snapshot_at,
    eligiblePower: r.eligible_power === null ? null : dec(r.eligible_power),
    quorum: dec(r.quorum),
    threshold: dec(r.threshold),
    tallies: { for: dec(r.votes_for), against: dec(r.votes_against), abstain: dec(r.votes_abstain) },
    voterCount: r.voter_count,
    workflowId: r.workflow_id,
    workflowStartedAt: r.workflow_started_at,
    executedAt: r.executed_at,
    revisionVersion: r.revision_version,
    executionEntryId: r.execution_entry_id,
    executionKey: r.execution_key,
    createdBy: r.created_by,
    createdAt: r.created_at,
    openedAt: r.opened_at,
    closedAt: r.closed_at,
    canceledAt: r.canceled_at,
    canceledBy: r.canceled_by,
    cancelReason: r.cancel_reason,
  };
}

export function proposalWorkflowId(id: string): string {
  return `governance-proposal-${id}`;
}

const notFound = (id: unknown) => new DomainError('PROPOSAL_NOT_FOUND', `No proposal ${String(id).slice(0, 64)}`);

/** Ids are gprop_ + 32 hex digits; anything else cannot exist (and is not sent to the database). */
function plausibleId(id: unknown): id is string {
  return typeof id === 'string' && /^gprop_[0-9a-f]{32}$/.test(id);
}

/** The proposal in the environment, or PROPOSAL_NOT_FOUND (another environment's is not found). */
export async function getProposal(id: unknown, environment: Environment, c: Queryable = getPool()): Promise<Proposal> {
  if (!plausibleId(id)) throw notFound(id);
  const { rows } = await c.query<ProposalRow>(`SELECT ${PROPOSAL_COLUMNS} FROM governance_proposals WHERE id = $1 AND environment = $2`, [id, environment]);
  if (!rows[0]) throw notFound(id);
  return toProposal(rows[0]);
}

/** Locks the proposal row (inside the caller's transaction); environment optional for workflow steps. */
export async function lockProposal(id: unknown, c: Queryable, environment?: Environment): Promise<Proposal> {
  if (!plausibleId(id)) throw notFound(id);
  const { rows } = await c.query<ProposalRow>(
    `SELECT ${PROPOSAL_COLUMNS} FROM governance_proposals WHERE id = $1 AND ($2::text IS NULL OR environment = $2) FOR UPDATE`,
    [id, environment ?? null],
  );
  if (!rows[0]) throw notFound(id);
  return toProposal(rows[0]);
}

/** Updates columns of a locked proposal and returns it as it now is. */
export async function updateProposal(c: Queryable, id: string, set: string, params: unknown[]): Promise<Proposal> {
  const { rows } = await c.query<ProposalRow>(
    `UPDATE governance_proposals SET ${set}, updated_at = now() WHERE id = $1 RETURNING ${PROPOSAL_COLUMNS}`,
    [id, ...params],
  );
  return toProposal(rows[0]);
}

const iso = (d: Date) => d.toISOString();

export function createdEventData(p: Proposal) {
  return {
    proposal_id: p.id,
    basket_code: p.basketCode,
    source: p.source,
    period: p.period,
    title: p.title,
    status: 'pending' as const,
    components: p.components.map((c) => ({ asset_code: c.assetCode, weight: c.weight })),
    voting_starts_at: iso(p.votingStartsAt),
    voting_ends_at: iso(p.votingEndsAt),
    snapshot_at: iso(p.snapshotAt),
    quorum: p.quorum,
    threshold: p.threshold,
    created_by: p.createdBy,
    created_at: iso(p.createdAt),
  };
}

/** The outbox fields every proposal event shares: environment-wide, no single user. */
export function proposalEvent(p: Proposal, type: string, data: Record<string, unknown>) {
  return { type, environment: p.environment, userId: null, aggregateType: 'governance_proposal', aggregateId: p.id, data };
}
