/**
 * A proposal's life on the clock, as its workflow drives it: open (pending → active, snapshot of
 * the eligible power), close (active → succeeded | defeated, tallied), and the monthly poll.
 * Each step locks the proposal, is idempotent (a retried step finds the work done and returns
 * the proposal as it is), and takes the time from the workflow (`nowMs`), so a late or replayed
 * step decides by the workflow's clock, not by when the database happened to be reached.
 */
import { getBasket, PRIMARY_BASKET } from '../baskets';
import { getPool, withTransaction, type Queryable } from '../db/pool';
import { writeOutboxEvent } from '../events/outbox';
import { ENVIRONMENTS } from '../platform/environment';
import { DomainError } from '../platform/errors';
import { eligiblePowerAt } from './power';
import { insertProposal, votingDays } from './proposals';
import { lockProposal, PROPOSAL_COLUMNS, proposalEvent, toProposal, updateProposal, type Proposal, type ProposalRow, type ProposalStatus } from './records';
import { decide, type Tallies } from './tally';

/** When voting opens and closes, and the status now (the workflow's first step). */
export async function proposalTimes(id: string): Promise<{ status: ProposalStatus; startsAtMs: number; endsAtMs: number }> {
  const { rows } = await getPool().query<{ status: ProposalStatus; voting_starts_at: Date; voting_ends_at: Date }>(
    'SELECT status, voting_starts_at, voting_ends_at FROM governance_proposals WHERE id = $1',
    [id],
  );
  if (!rows[0]) throw new DomainError('PROPOSAL_NOT_FOUND', `No proposal ${id}`);
  return { status: rows[0].status, startsAtMs: rows[0].voting_starts_at.getTime(), endsAtMs: rows[0].voting_ends_at.getTime() };
}

/** pending → active at voting_starts_at: records the eligible power at the snapshot. Other statuses are returned unchanged. */
export async function activateProposal(id: string, nowMs: number): Promise<Proposal> {
  return withTransaction(async (c) => {
    const p = await lockProposal(id, c);
    if (p.status !== 'pending') return p;
    if (nowMs < p.votingStartsAt.getTime()) throw new DomainError('PROPOSAL_NOT_OPEN_YET', `Voting opens at ${p.votingStartsAt.toISOString()}`);
    const eligible = await eligiblePowerAt(p.environment, p.basketCode, p.snapshotAt, c);
    const done = await updateProposal(c, p.id, `status = 'active', opened_at = now(), eligible_power = $2`, [eligible]);
    await writeOutboxEvent(c, proposalEvent(done, 'governance.proposal.opened', {
      proposal_id: done.id, basket_code: done.basketCode, status: 'active', snapshot_at: done.snapshotAt.toISOString(),
      eligible_power: eligible, voting_ends_at: done.votingEndsAt.toISOString(), opened_at: done.openedAt!.toISOString(),
    }));
    return done;
  });
}

/** The tallies as the votes have them (the running totals on the proposal are checked against these). */
async function talliesOf(c: Queryable, id: string): Promise<Tallies & { voters: number }> {
  const { rows } = await c.query<{ vote: keyof Tallies; power: string; n: number }>(
    'SELECT vote, sum(power)::text AS power, count(*)::int AS n FROM governance_votes WHERE proposal_id = $1 GROUP BY vote',
    [id],
  );
  const t = { for: '0', against: '0', abstain: '0', voters: 0 };
  for (const r of rows) {
    t[r.vote] = r.power;
    t.voters += r.n;
  }
  return t;
}

/**
 * active → succeeded | defeated at voting_ends_at (tally.ts decides). The eligible power is read
 * again from the ledger: a posting in flight at the snapshot instant commits a moment later with
 * an earlier completed_at. Other statuses are returned unchanged.
 */
export async function closeProposal(id: string, nowMs: number): Promise<Proposal> {
  return withTransaction(async (c) => {
    const p = await lockProposal(id, c);
    if (p.status !== 'active') return p;
    if (nowMs < p.votingEndsAt.getTime()) throw new DomainError('PROPOSAL_STILL_OPEN', `Voting closes at ${p.votingEndsAt.toISOString()}`);
    const eligible = await eligiblePowerAt(p.environment, p.basketCode, p.snapshotAt, c);
    const t = await talliesOf(c, p.id);
    const d = decide(t, eligible, p.quorum, p.threshold);
    const done = await updateProposal(
      c, p.id,
      `status = $2, closed_at = now(), eligible_power = $3, votes_for = $4, votes_against = $5, votes_abstain = $6, voter_count = $7`,
      [d.status, eligible, t.for, t.against, t.abstain, t.voters],
    );
    await writeOutboxEvent(c, proposalEvent(done, 'governance.proposal.closed', {
      proposal_id: done.id, basket_code: done.basketCode, status: d.status, outcome: d.outcome, eligible_power: eligible, tallies: done.tallies,
      voter_count: done.voterCount, participation: d.participation, approval: d.approval, quorum: done.quorum, threshold: done.threshold,
      closed_at: done.closedAt!.toISOString(),
    }));
    return done;
  });
}

/** 'YYYY-MM' of an instant, in UTC (the schedule fires at 00:00 UTC on the 1st). */
export function periodOf(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
}

/**
 * The month's poll for the primary basket in each environment: "Rebalance GCU to its target
 * weights" (the proposed weights are the current target weights, so a successful vote resets the
 * drift of the live weights). Voting opens at `nowMs` (the 1st, 00:00 UTC when the schedule fires)
 * and lasts GOVERNANCE_VOTING_DAYS. At most one per environment, basket and month: a second run
 * returns the existing polls.
 */
export async function openMonthlyPolls(nowMs: number): Promise<Array<{ proposal: Proposal; created: boolean }>> {
  const period = periodOf(nowMs);
  const out: Array<{ proposal: Proposal; created: boolean }> = [];
  for (const environment of ENVIRONMENTS) {
    const r = await withTransaction(async (c) => {
      const basket = await getBasket(PRIMARY_BASKET, environment, c);
      if (basket.rebalanceFrequency !== 'monthly') return null;
      return insertProposal(c, {
        environment, basket, source: 'monthly', period,
        title: `Rebalance ${basket.code} to its target weights (${period})`,
        description: `Monthly poll: reset ${basket.code}'s amounts so that its target weights hold again at the rates of execution, keeping its value unchanged.`,
        components: basket.components.map((x) => ({ assetCode: x.assetCode, weight: x.targetWeight })),
        votingStartsAt: new Date(nowMs),
        votingEndsAt: new Date(nowMs + votingDays() * 24 * 3600 * 1000),
        createdBy: null,
      });
    });
    if (r) out.push({ proposal: r.proposal, created: r.inserted });
  }
  return out;
}

/** Pending proposals whose workflow was never confirmed started (the monthly run starts them). */
export async function proposalsAwaitingWorkflow(): Promise<Proposal[]> {
  const { rows } = await getPool().query<ProposalRow>(
    `SELECT ${PROPOSAL_COLUMNS} FROM governance_proposals WHERE status = 'pending' AND workflow_started_at IS NULL ORDER BY voting_starts_at, id LIMIT 500`,
  );
  return rows.map(toProposal);
}
