/**
 * Votes. One per holder per proposal, weighted by the holder's basket balance at the proposal's
 * snapshot (power.ts). A holder may change their vote while the proposal is active: the latest
 * choice counts, with the power fixed at the first vote (it is a balance at a past instant, so it
 * could only change if the ledger's past changed). Both the spec's forms
 * (POST /gcu/voting/proposals/{id}/vote and POST /api/voting/polls/{id}/vote) call castVote.
 */
import { getPool, withTransaction, type Queryable } from '../db/pool';
import { writeOutboxEvent } from '../events/outbox';
import { DecimalMoney as D } from '../money/amount';
import type { Environment } from '../platform/environment';
import { DomainError } from '../platform/errors';
import { votingPowerAt } from './power';
import { lockProposal, updateProposal, VOTES, type Proposal, type ProposalStatus, type VoteChoice } from './records';

export interface VoteRecord {
  proposalId: string;
  basketCode: string;
  vote: VoteChoice;
  previousVote: VoteChoice | null;
  power: string;
  castAt: Date;
  updatedAt: Date;
  proposal: Proposal;
}

export interface CastVoteInput {
  userId: string;
  environment: Environment;
  proposalId: unknown;
  vote: unknown;
}

const column: Record<VoteChoice, string> = { for: 'votes_for', against: 'votes_against', abstain: 'votes_abstain' };

/**
 * Casts or changes the caller's vote on an active proposal of their environment. Refusals write
 * nothing: unknown or another environment's proposal PROPOSAL_NOT_FOUND; not active (pending,
 * closed, canceled, or past voting_ends_at) PROPOSAL_NOT_ACTIVE; a vote other than for, against
 * or abstain INVALID_VOTE; no basket units at the snapshot NO_VOTING_POWER.
 */
export async function castVote(input: CastVoteInput): Promise<VoteRecord> {
  if (typeof input.vote !== 'string' || !(VOTES as readonly string[]).includes(input.vote)) {
    throw new DomainError('INVALID_VOTE', `vote must be one of ${VOTES.join(', ')}`, '/vote');
  }
  const vote = input.vote as VoteChoice;
  return withTransaction(async (c) => {
    // The proposal's lock orders this vote against other votes and against closing.
    const p = await lockProposal(input.proposalId, c, input.environment);
    const { rows: clock } = await c.query<{ now: Date }>('SELECT now() AS now');
    if (p.status !== 'active' || clock[0].now >= p.votingEndsAt) {
      const status: ProposalStatus = p.status;
      throw new DomainError('PROPOSAL_NOT_ACTIVE', p.status === 'active' ? `Voting closed at ${p.votingEndsAt.toISOString()}` : `The proposal is ${status}; only an active proposal takes votes`, undefined, {
        status,
        voting_starts_at: p.votingStartsAt.toISOString(),
        voting_ends_at: p.votingEndsAt.toISOString(),
      });
    }
    const { rows: existing } = await c.query<{ vote: VoteChoice; power: string }>(
      'SELECT vote, power::text AS power FROM governance_votes WHERE proposal_id = $1 AND user_id = $2',
      [p.id, input.userId],
    );
    const prior = existing[0];
    let power: string;
    let proposal: Proposal;
    if (prior) {
      power = new D(prior.power).toFixed();
      if (prior.vote === vote) return voteRecord(p, input.userId, vote, null, c);
      await c.query('UPDATE governance_votes SET vote = $3, updated_at = now() WHERE proposal_id = $1 AND user_id = $2', [p.id, input.userId, vote]);
      proposal = await updateProposal(c, p.id, `${column[prior.vote]} = ${column[prior.vote]} - $2::numeric, ${column[vote]} = ${column[vote]} + $2::numeric`, [power]);
    } else {
      power = await votingPowerAt(input.userId, p.environment, p.basketCode, p.snapshotAt, c);
      if (new D(power).lte(0)) {
        throw new DomainError('NO_VOTING_POWER', `You held no ${p.basketCode} at the proposal's snapshot (${p.snapshotAt.toISOString()})`, undefined, {
          snapshot_at: p.snapshotAt.toISOString(),
          basket_code: p.basketCode,
        });
      }
      await c.query('INSERT INTO governance_votes (proposal_id, environment, user_id, vote, power) VALUES ($1, $2, $3, $4, $5)', [p.id, p.environment, input.userId, vote, power]);
      proposal = await updateProposal(c, p.id, `${column[vote]} = ${column[vote]} + $2::numeric, voter_count = voter_count + 1`, [power]);
    }
    const record = await voteRecord(proposal, input.userId, vote, prior?.vote ?? null, c);
    await writeOutboxEvent(c, {
      type: 'governance.vote.cast',
      environment: p.environment,
      userId: input.userId,
      aggregateType: 'governance_proposal',
      aggregateId: p.id,
      data: {
        proposal_id: p.id, basket_code: p.basketCode, vote, previous_vote: record.previousVote, power, snapshot_at: p.snapshotAt.toISOString(),
        tallies: proposal.tallies, cast_at: record.updatedAt.toISOString(),
      },
    });
    return record;
  });
}

async function voteRecord(p: Proposal, userId: string, vote: VoteChoice, previousVote: VoteChoice | null, c: Queryable): Promise<VoteRecord> {
  const { rows } = await c.query<{ power: string; cast_at: Date; updated_at: Date }>(
    'SELECT power::text AS power, cast_at, updated_at FROM governance_votes WHERE proposal_id = $1 AND user_id = $2',
    [p.id, userId],
  );
  const r = rows[0];
  return { proposalId: p.id, basketCode: p.basketCode, vote, previousVote, power: new D(r.power).toFixed(), castAt: r.cast_at, updatedAt: r.updated_at, proposal: p };
}

export interface MyVote {
  proposalId: string;
  basketCode: string;
  title: string;
  proposalStatus: ProposalStatus;
  vote: VoteChoice;
  power: string;
  castAt: Date;
  updatedAt: Date;
  votingEndsAt: Date;
}

/** The caller's votes in their environment across proposals, newest first. */
export async function listMyVotes(userId: string, environment: Environment, page: { perPage: number; offset: number }): Promise<{ items: MyVote[]; total: number }> {
  const { rows } = await getPool().query<{
    proposal_id: string; basket_code: string; title: string; status: ProposalStatus; vote: VoteChoice; power: string; cast_at: Date; updated_at: Date; voting_ends_at: Date; total: string;
  }>(
    `SELECT v.proposal_id, p.basket_code, p.title, p.status, v.vote, v.power::text AS power, v.cast_at, v.updated_at, p.voting_ends_at,
            count(*) OVER ()::text AS total
       FROM governance_votes v JOIN governance_proposals p ON p.id = v.proposal_id
      WHERE v.user_id = $1 AND v.environment = $2
      ORDER BY v.cast_at DESC, v.proposal_id LIMIT $3 OFFSET $4`,
    [userId, environment, page.perPage, page.offset],
  );
  let total = rows[0] ? Number(rows[0].total) : 0;
  if (!rows[0] && page.offset > 0) {
    const n = await getPool().query<{ n: string }>('SELECT count(*)::text AS n FROM governance_votes WHERE user_id = $1 AND environment = $2', [userId, environment]);
    total = Number(n.rows[0].n);
  }
  return {
    items: rows.map((r) => ({
      proposalId: r.proposal_id, basketCode: r.basket_code, title: r.title, proposalStatus: r.status, vote: r.vote, power: new D(r.power).toFixed(),
      castAt: r.cast_at, updatedAt: r.updated_at, votingEndsAt: r.voting_ends_at,
    })),
    total,
  };
}
