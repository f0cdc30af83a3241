/**
 * Proposals: operators creating and canceling them, the public reads (list by active / upcoming /
 * past, one proposal with its tallies and the caller's vote and power), and starting a proposal's
 * workflow (workflows/governance.ts), which opens, closes and executes it on time.
 */
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { getAsset } from '../assets';
import type { Principal } from '../auth/principal';
import { getBasket, PRIMARY_BASKET, type Basket } from '../baskets';
import { getPool, withTransaction, type Queryable } from '../db/pool';
import { writeOutboxEvent } from '../events/outbox';
import { DecimalMoney as D } from '../money/amount';
import { loadConfig } from '../platform/config';
import type { Environment } from '../platform/environment';
import { DomainError } from '../platform/errors';
import { newId } from '../platform/ids';
import { latestRates } from '../rates';
import { getTemporalClient } from '../temporal/client';
import { executeProposal } from './execute';
import { votingPowerAt } from './power';
import {
  createdEventData,
  getProposal,
  lockProposal,
  PROPOSAL_COLUMNS,
  proposalEvent,
  proposalWorkflowId,
  toProposal,
  updateProposal,
  type Proposal,
  type ProposalRow,
  type ProposalSource,
  type ProposedComponent,
  type VoteChoice,
} from './records';
import { proposalSearchAttributes } from './search';
import { approvalOf, decide, participationOf } from './tally';

const DAY_MS = 24 * 3600 * 1000;
/** An operator's proposal may open at most this far ahead, and vote for at most this long. */
const MAX_LEAD_DAYS = 366;
const MAX_VOTING_DAYS = 90;
/** Clock skew tolerated on an operator's voting_starts_at ("now" sent by a client is a little late). */
const START_SKEW_MS = 60_000;

/**
 * Checks a proposed composition: 2 to 20 distinct, active, non-basket assets with a USD rate,
 * positive weights summing exactly to 1. Returns it with canonical codes and weights.
 */
export async function checkComposition(components: ReadonlyArray<{ asset_code: unknown; weight: unknown }>, c: Queryable = getPool()): Promise<ProposedComponent[]> {
  if (!Array.isArray(components) || components.length < 2 || components.length > 20) {
    throw new DomainError('BASKET_TOO_SMALL', 'A composition needs 2 to 20 components', '/components');
  }
  const rates = await latestRates(c);
  const seen = new Set<string>();
  const out: ProposedComponent[] = [];
  for (const [i, x] of components.entries()) {
    const asset = typeof x.asset_code === 'string' ? await getAsset(x.asset_code, c) : null;
    if (!asset) throw new DomainError('UNKNOWN_ASSET', `Asset ${String(x.asset_code).slice(0, 12)} is not supported`, `/components/${i}/asset_code`);
    if (asset.type === 'basket') throw new DomainError('INVALID_COMPONENT', 'A basket cannot hold another basket', `/components/${i}/asset_code`);
    if (seen.has(asset.code)) throw new DomainError('DUPLICATE_COMPONENT', `${asset.code} is listed twice`, `/components/${i}/asset_code`);
    if (!rates.has(asset.code)) throw new DomainError('RATE_UNAVAILABLE', `No USD rate for ${asset.code}`, `/components/${i}/asset_code`);
    if (typeof x.weight !== 'string' || !/^(0(\.\d{1,10})?|1(\.0{1,10})?)$/.test(x.weight) || new D(x.weight).lte(0)) {
      throw new DomainError('WEIGHTS_INVALID', 'A weight is a fraction above 0 and at most 1, with at most 10 decimals', `/components/${i}/weight`);
    }
    seen.add(asset.code);
    out.push({ assetCode: asset.code, weight: new D(x.weight).toFixed() });
  }
  const total = out.reduce((s, x) => s.plus(x.weight), new D(0));
  if (!total.eq(1)) throw new DomainError('WEIGHTS_INVALID', `Target weights must sum to 1 (they sum to ${total.toFixed()})`, '/components');
  return out.sort((a, b) => a.assetCode.localeCompare(b.assetCode));
}

export interface NewProposal {
  environment: Environment;
  basket: Basket;
  source: ProposalSource;
  period: string | null;
  title: string;
  description: string | null;
  components: ProposedComponent[];
  votingStartsAt: Date;
  votingEndsAt: Date;
  createdBy: string | null;
}

/**
 * Inserts a proposal with the governance settings of now and its created event (caller's
 * transaction). A monthly poll that already exists for its period is returned as it is (inserted
 * false): the unique index makes a second run of the month a no-op.
 */
export async function insertProposal(c: Queryable, n: NewProposal): Promise<{ proposal: Proposal; inserted: boolean }> {
  const cfg = loadConfig();
  const id = newId('gprop');
  const { rows } = await c.query<ProposalRow>(
    `INSERT INTO governance_proposals (id, environment, basket_code, source, period, title, description, components, voting_starts_at, voting_ends_at,
       snapshot_at, quorum, threshold, workflow_id, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $9, $11, $12, $13, $14)
     ON CONFLICT (environment, basket_code, period) WHERE source = 'monthly' DO NOTHING
     RETURNING ${PROPOSAL_COLUMNS}`,
    [id, n.environment, n.basket.code, n.source, n.period, n.title, n.description,
      JSON.stringify(n.components.map((x) => ({ asset_code: x.assetCode, weight: x.weight }))),
      n.votingStartsAt, n.votingEndsAt, cfg.governanceQuorum, cfg.governanceThreshold, proposalWorkflowId(id), n.createdBy],
  );
  if (!rows[0]) {
    const existing = await c.query<ProposalRow>(
      `SELECT ${PROPOSAL_COLUMNS} FROM governance_proposals WHERE environment = $1 AND basket_code = $2 AND period = $3 AND source = 'monthly'`,
      [n.environment, n.basket.code, n.period],
    );
    return { proposal: toProposal(existing.rows[0]), inserted: false };
  }
  const proposal = toProposal(rows[0]);
  await writeOutboxEvent(c, proposalEvent(proposal, 'governance.proposal.created', createdEventData(proposal)));
  return { proposal, inserted: true };
}

export interface CreateProposalRequest {
  basket_code?: string;
  title: string;
  description?: string | null;
  components: Array<{ asset_code: string; weight: string }>;
  voting_starts_at?: string;
  voting_ends_at?: string;
}

function parseTime(value: string | undefined, pointer: string): Date | undefined {
  if (value === undefined) return undefined;
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) throw new DomainError('INVALID_TIMESTAMP', `${pointer.slice(1)} must be an ISO 8601 timestamp`, pointer);
  return d;
}

/**
 * An operator proposes a composition for a basket in their key's environment: voting opens at
 * voting_starts_at (default now; not in the past) and lasts GOVERNANCE_VOTING_DAYS unless
 * voting_ends_at is given. The proposal's workflow is started at once (it sleeps until the start);
 * when Temporal refuses, the proposal is canceled and the caller gets WORKFLOW_UNAVAILABLE.
 */
export async function proposeComposition(p: Principal, body: CreateProposalRequest): Promise<ProposalView> {
  if (!p.isAdmin) throw new DomainError('ADMIN_REQUIRED', 'Only platform operators create proposals');
  const basket = await getBasket(body.basket_code ?? PRIMARY_BASKET, p.environment, getPool(), '/basket_code');
  if (basket.rebalanceFrequency === 'never') throw new DomainError('BASKET_NOT_GOVERNED', `${basket.code} is not changed by votes`, '/basket_code');
  const components = await checkComposition(body.components);
  const now = Date.now();
  const startsAt = parseTime(body.voting_starts_at, '/voting_starts_at') ?? new Date(now);
  if (startsAt.getTime() < now - START_SKEW_MS) throw new DomainError('VOTING_START_IN_PAST', 'voting_starts_at must not be in the past (the snapshot is taken when voting opens)', '/voting_starts_at');
  if (startsAt.getTime() > now + MAX_LEAD_DAYS * DAY_MS) throw new DomainError('VOTING_START_TOO_FAR', `voting_starts_at is at most ${MAX_LEAD_DAYS} days ahead`, '/voting_starts_at');
  const endsAt = parseTime(body.voting_ends_at, '/voting_ends_at') ?? new Date(startsAt.getTime() + votingDays() * DAY_MS);
  if (endsAt.getTime() <= startsAt.getTime() || endsAt.getTime() > startsAt.getTime() + MAX_VOTING_DAYS * DAY_MS) {
    throw new DomainError('VOTING_WINDOW_INVALID', `voting_ends_at must be after voting_starts_at and at most ${MAX_VOTING_DAYS} days later`, '/voting_ends_at');
  }
  const { proposal } = await withTransaction((c) =>
    insertProposal(c, {
      environment: p.environment, basket, source: 'operator', period: null, title: body.title, description: body.description ?? null,
      components, votingStartsAt: startsAt, votingEndsAt: endsAt, createdBy: p.userId,
    }),
  );
  try {
    await startProposalWorkflow(proposal);
  } catch (err) {
    await cancelLocked(proposal.id, { userId: null, reason: 'workflow_unavailable' });
    throw new DomainError('WORKFLOW_UNAVAILABLE', `The proposal's workflow could not be started: ${(err as Error).message}`);
  }
  return proposalView(proposal.id, p.environment, p.userId);
}

export function votingDays(): number {
  const days = loadConfig().governanceVotingDays;
  if (days < 1 || days > MAX_VOTING_DAYS) throw new Error(`Setting GOVERNANCE_VOTING_DAYS must be 1 to ${MAX_VOTING_DAYS}, got ${days}`);
  return days;
}

/** Starts the proposal's workflow on the platform's task queue (already running is success) and records that it runs. */
export async function startProposalWorkflow(p: Proposal): Promise<void> {
  const client = await getTemporalClient();
  try {
    await client.workflow.start('governanceProposalWorkflow', {
      taskQueue: loadConfig().taskQueue,
      workflowId: p.workflowId,
      args: [{ proposalId: p.id }],
      typedSearchAttributes: proposalSearchAttributes({ proposalId: p.id, basketCode: p.basketCode, environment: p.environment, createdBy: p.createdBy, status: p.status }),
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
  await markWorkflowsStarted([p.id]);
}

export async function markWorkflowsStarted(ids: string[], c: Queryable = getPool()): Promise<void> {
  await c.query('UPDATE governance_proposals SET workflow_started_at = now(), updated_at = now() WHERE id = ANY($1::text[]) AND workflow_started_at IS NULL', [ids]);
}

/** Cancels a pending or active proposal (row locked); anything else is PROPOSAL_NOT_CANCELABLE. */
async function cancelLocked(id: string, by: { userId: string | null; reason: string | null; environment?: Environment }): Promise<Proposal> {
  return withTransaction(async (c) => {
    const p = await lockProposal(id, c, by.environment);
    if (p.status !== 'pending' && p.status !== 'active') {
      throw new DomainError('PROPOSAL_NOT_CANCELABLE', `A ${p.status} proposal cannot be canceled`, undefined, { status: p.status });
    }
    const done = await updateProposal(c, p.id, `status = 'canceled', canceled_at = now(), canceled_by = $2, cancel_reason = $3`, [by.userId, by.reason]);
    await writeOutboxEvent(c, proposalEvent(done, 'governance.proposal.canceled', {
      proposal_id: done.id, basket_code: done.basketCode, status: 'canceled', previous_status: p.status, reason: done.cancelReason,
      canceled_by: done.canceledBy, canceled_at: done.canceledAt!.toISOString(),
    }));
    return done;
  });
}

/**
 * An operator cancels a pending or active proposal in their environment: nothing it proposed
 * happens. The workflow is told at once (signal); if that fails its next step sees the status.
 */
export async function cancelProposal(p: Principal, id: string, reason: string | null): Promise<ProposalView> {
  if (!p.isAdmin) throw new DomainError('ADMIN_REQUIRED', 'Only platform operators cancel proposals');
  const done = await cancelLocked(id, { userId: p.userId, reason, environment: p.environment });
  try {
    await (await getTemporalClient()).workflow.getHandle(done.workflowId).signal('cancel');
  } catch {
    // Not running (never started, or already over) or Temporal unreachable: the activities re-check the status.
  }
  return proposalView(done.id, p.environment, p.userId);
}

/**
 * An operator executes a succeeded proposal whose workflow could not (e.g. a component had no rate
 * at the time, and the rate is back). Keyed per proposal, so repeating the call returns the first
 * execution; a proposal executed by its workflow is PROPOSAL_ALREADY_EXECUTED, one not succeeded
 * PROPOSAL_NOT_SUCCEEDED (executeProposal).
 */
export async function executeProposalByOperator(p: Principal, id: string): Promise<ProposalView> {
  if (!p.isAdmin) throw new DomainError('ADMIN_REQUIRED', 'Only platform operators execute proposals');
  const proposal = await getProposal(id, p.environment);
  await executeProposal(proposal.id, { idempotencyKey: `governance-operator-execute:${proposal.id}` });
  return proposalView(proposal.id, p.environment, p.userId);
}

export interface CallerVote {
  vote: VoteChoice;
  power: string;
  castAt: Date;
  updatedAt: Date;
}

export interface ProposalView {
  proposal: Proposal;
  participation: string | null;
  approval: string | null;
  /** Whether the votes cast reach the quorum (exactly, not the rounded participation); null before voting opens. */
  quorumReached: boolean | null;
  /** The authenticated caller's vote and power (power null before the snapshot); undefined without credentials. */
  caller?: { vote: CallerVote | null; power: string | null };
}

function view(proposal: Proposal): ProposalView {
  const quorumReached = proposal.eligiblePower === null ? null : decide(proposal.tallies, proposal.eligiblePower, proposal.quorum, proposal.threshold).quorumReached;
  return { proposal, participation: participationOf(proposal.tallies, proposal.eligiblePower), approval: approvalOf(proposal.tallies), quorumReached };
}

/** One proposal of the environment, with the caller's vote and snapshot power when a user is given. */
export async function proposalView(id: unknown, environment: Environment, userId?: string): Promise<ProposalView> {
  const proposal = await getProposal(id, environment);
  const v = view(proposal);
  if (!userId) return v;
  const { rows } = await getPool().query<{ vote: VoteChoice; power: string; cast_at: Date; updated_at: Date }>(
    'SELECT vote, power::text AS power, cast_at, updated_at FROM governance_votes WHERE proposal_id = $1 AND user_id = $2',
    [proposal.id, userId],
  );
  const mine = rows[0] ? { vote: rows[0].vote, power: new D(rows[0].power).toFixed(), castAt: rows[0].cast_at, updatedAt: rows[0].updated_at } : null;
  const power = mine?.power ?? (proposal.status === 'pending' ? null : await votingPowerAt(userId, environment, proposal.basketCode, proposal.snapshotAt));
  return { ...v, caller: { vote: mine, power } };
}

export const PROPOSAL_FILTERS = ['active', 'upcoming', 'past'] as const;
export type ProposalFilter = (typeof PROPOSAL_FILTERS)[number];

const FILTER_SQL: Record<ProposalFilter, { where: string; order: string }> = {
  active: { where: `status = 'active'`, order: 'voting_ends_at ASC, id' },
  upcoming: { where: `status = 'pending'`, order: 'voting_starts_at ASC, id' },
  past: { where: `status IN ('defeated', 'succeeded', 'executed', 'canceled')`, order: 'voting_starts_at DESC, id' },
};

/** Proposals of the environment: active (voting now), upcoming (not open yet), past (closed or canceled), or all. */
export async function listProposals(environment: Environment, filter: string | undefined, page: { perPage: number; offset: number }): Promise<{ items: ProposalView[]; total: number }> {
  if (filter !== undefined && !(PROPOSAL_FILTERS as readonly string[]).includes(filter)) {
    throw new DomainError('INVALID_STATUS_FILTER', `status must be one of ${PROPOSAL_FILTERS.join(', ')}`);
  }
  const f = filter ? FILTER_SQL[filter as ProposalFilter] : { where: 'true', order: 'voting_starts_at DESC, id' };
  const { rows } = await getPool().query<ProposalRow & { total: string }>(
    `SELECT ${PROPOSAL_COLUMNS}, count(*) OVER ()::text AS total FROM governance_proposals
      WHERE environment = $1 AND ${f.where} ORDER BY ${f.order} LIMIT $2 OFFSET $3`,
    [environment, page.perPage, page.offset],
  );
  let total = rows[0] ? Number(rows[0].total) : 0;
  if (!rows[0] && page.offset > 0) {
    const n = await getPool().query<{ n: string }>(`SELECT count(*)::text AS n FROM governance_proposals WHERE environment = $1 AND ${f.where}`, [environment]);
    total = Number(n.rows[0].n);
  }
  return { items: rows.map((r) => view(toProposal(r))), total };
}
