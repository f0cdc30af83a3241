/**
 * Compliance holds on outgoing payments. Before a payment leaves the platform its workflow screens
 * the receiving party against the loaded sanctions list (screenOutgoingParty): a name (rail
 * creditor, Interledger receiver) by fuzzy score, a bridge's outside recipient address by exact
 * match against the list's digital-currency addresses. A hit, or a list
 * that cannot be read, opens a hold instead of sending: the amount stays reserved, a
 * compliance.violation.detected event goes out, and the workflow waits for a platform operator
 * (compliance officer) to release or reject it. Rejection (or no decision within
 * COMPLIANCE_REVIEW_TIMEOUT_HOURS) runs the payment's compensation: the reservation is voided.
 * docs/regtech.md.
 */
import type { Principal } from '../../auth/principal';
import { getPool, withTransaction, type Queryable } from '../../db/pool';
import { writeOutboxEvent } from '../../events/outbox';
import type { Environment } from '../../platform/environment';
import { DomainError } from '../../platform/errors';
import { newId } from '../../platform/ids';
import { signalWorkflow } from '../../temporal/signals';
import { screenAddress, screenNames, type AddressScreeningResult, type ScreeningResult } from '../sanctions';

export type HoldStatus = 'open' | 'released' | 'rejected' | 'expired';
export type HoldSubjectKind = 'rail_payment' | 'ilp_payment' | 'bridge';

export interface ComplianceHold {
  id: string;
  environment: Environment;
  userId: string;
  subjectKind: HoldSubjectKind;
  subjectId: string;
  workflowId: string;
  framework: 'sanctions';
  reasonCode: 'SANCTIONS_HIT' | 'SANCTIONS_SCREENING_UNAVAILABLE';
  party: string;
  screenedName: string;
  screening: ScreeningResult | null;
  status: HoldStatus;
  decidedBy: string | null;
  decisionNote: string | null;
  decidedAt: Date | null;
  createdAt: Date;
}

/** What the workflow learns from its screening step. */
export interface OutgoingScreening {
  held: boolean;
  holdId: string | null;
  reasonCode: string | null;
  /** The best-scoring listed name, for the payment's history. */
  matchedName: string | null;
  score: number;
  listVersion: string | null;
}

/** The signal a held payment's workflow waits for (sent on a decision; the workflow also polls). */
export const HOLD_DECISION_SIGNAL = 'complianceDecision';

type Row = Record<string, any>;

function toHold(r: Row): ComplianceHold {
  return {
    id: r.id,
    environment: r.environment,
    userId: r.user_id,
    subjectKind: r.subject_kind,
    subjectId: r.subject_id,
    workflowId: r.workflow_id,
    framework: r.framework,
    reasonCode: r.reason_code,
    party: r.party,
    screenedName: r.screened_name,
    screening: r.screening,
    status: r.status,
    decidedBy: r.decided_by,
    decisionNote: r.decision_note,
    decidedAt: r.decided_at,
    createdAt: r.created_at,
  };
}

export interface ScreenSubject {
  environment: Environment;
  userId: string;
  subjectKind: HoldSubjectKind;
  subjectId: string;
  workflowId: string;
  party: 'creditor' | 'receiver' | 'recipient';
  /** The party's name, or (a bridge's recipient) the address: screened_name either way. */
  name: string;
  /** Screen `name` as a digital-currency address: exact match, no name scoring. */
  byAddress?: boolean;
}

/** An address screening in the shape holds store (an exact match scores 1). */
function addressScreening(r: AddressScreeningResult): ScreeningResult {
  return {
    name: r.address,
    hit: r.hit,
    score: r.hit ? 1 : 0,
    threshold: 1,
    matches: r.matches.map((m) => ({
      entryId: m.entryId,
      name: m.name ?? `SDN entry ${m.entryId}`,
      matchedName: `${m.currency} ${m.listedAs}`,
      sdnType: m.sdnType ?? 'unknown',
      programs: m.programs,
      score: 1,
    })),
    listVersion: r.listVersion,
  };
}

/**
 * Screens the receiving party of an outgoing payment, inside the caller's transaction (the
 * payment row is locked by it). Idempotent: a payment screened before finds its hold again.
 */
export async function screenOutgoingParty(c: Queryable, s: ScreenSubject): Promise<OutgoingScreening> {
  const existing = await c.query<Row>('SELECT * FROM compliance_holds WHERE subject_kind = $1 AND subject_id = $2', [s.subjectKind, s.subjectId]);
  if (existing.rows[0]) {
    const h = toHold(existing.rows[0]);
    return { held: true, holdId: h.id, reasonCode: h.reasonCode, matchedName: h.screening?.matches[0]?.name ?? null, score: h.screening?.score ?? 0, listVersion: h.screening?.listVersion ?? null };
  }
  let result: ScreeningResult | null = null;
  try {
    if (s.byAddress) result = addressScreening(await screenAddress(s.name, c));
    else [result] = await screenNames([s.name], {}, c);
  } catch (err) {
    // Fail closed: a payment is not sent unscreened.
    if (!(err instanceof DomainError && err.code === 'SANCTIONS_LIST_UNAVAILABLE')) throw err;
  }
  if (result && !result.hit) {
    return { held: false, holdId: null, reasonCode: null, matchedName: null, score: result.score, listVersion: result.listVersion };
  }
  const reasonCode = result ? 'SANCTIONS_HIT' : 'SANCTIONS_SCREENING_UNAVAILABLE';
  const id = newId('hold');
  await c.query(
    `INSERT INTO compliance_holds (id, environment, user_id, subject_kind, subject_id, workflow_id, framework, reason_code, party, screened_name, screening, status)
     VALUES ($1, $2, $3, $4, $5, $6, 'sanctions', $7, $8, $9, $10, 'open')`,
    [id, s.environment, s.userId, s.subjectKind, s.subjectId, s.workflowId, reasonCode, s.party, s.name, result ? JSON.stringify(result) : null],
  );
  const top = result?.matches[0];
  const what = s.subjectKind === 'bridge' ? 'bridge' : 'payment';
  const listed = !top ? '' : s.byAddress ? `(${s.name}) is listed on the OFAC SDN list as ${top.matchedName}, an address of ${top.name}` : `matches ${top.name} on the OFAC SDN list (score ${top.score})`;
  await writeOutboxEvent(c, {
    type: 'compliance.violation.detected',
    environment: s.environment,
    userId: s.userId,
    aggregateType: 'compliance_hold',
    aggregateId: id,
    data: {
      framework: 'sanctions',
      code: reasonCode,
      description: top
        ? `The ${s.party} of ${s.subjectId} ${listed}; the ${what} is held for review.`
        : `The ${s.party} of ${s.subjectId} could not be screened (no sanctions list loaded); the ${what} is held for review.`,
      detected_at: new Date().toISOString(),
      hold_id: id,
      subject_kind: s.subjectKind,
      subject_id: s.subjectId,
      party: s.party,
      ...(s.byAddress ? { address: s.name } : {}),
      matches: (result?.matches ?? []).map((m) => ({ entry_id: m.entryId, name: m.name, score: m.score })),
      list_version: result?.listVersion ?? null,
    },
  });
  return { held: true, holdId: id, reasonCode, matchedName: top?.name ?? null, score: result?.score ?? 0, listVersion: result?.listVersion ?? null };
}

export async function getHold(id: string, c: Queryable = getPool()): Promise<ComplianceHold | null> {
  const { rows } = await c.query<Row>('SELECT * FROM compliance_holds WHERE id = $1', [id]);
  return rows[0] ? toHold(rows[0]) : null;
}

/** The hold of a payment, if it has one. */
export async function holdOf(subjectKind: HoldSubjectKind, subjectId: string, c: Queryable = getPool()): Promise<ComplianceHold | null> {
  const { rows } = await c.query<Row>('SELECT * FROM compliance_holds WHERE subject_kind = $1 AND subject_id = $2', [subjectKind, subjectId]);
  return rows[0] ? toHold(rows[0]) : null;
}

function requireOperator(p: Principal): void {
  if (!p.isAdmin) throw new DomainError('ADMIN_REQUIRED', 'Only platform operators review compliance holds');
}

/** Operators: holds of the caller's environment, newest first, optionally by status. */
export async function listHolds(p: Principal, q: { status?: HoldStatus; limit: number; offset: number }): Promise<{ items: ComplianceHold[]; total: number }> {
  requireOperator(p);
  const { rows } = await getPool().query<Row>(
    `SELECT *, count(*) OVER () AS total FROM compliance_holds WHERE environment = $1 AND ($2::text IS NULL OR status = $2)
     ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4`,
    [p.environment, q.status ?? null, q.limit, q.offset],
  );
  return { items: rows.map(toHold), total: rows[0] ? Number(rows[0].total) : 0 };
}

export async function getHoldForOperator(p: Principal, id: string): Promise<ComplianceHold> {
  requireOperator(p);
  const h = await getHold(id);
  if (!h || h.environment !== p.environment) throw new DomainError('HOLD_NOT_FOUND', 'Compliance hold not found');
  return h;
}

/**
 * An operator releases (the payment goes on) or rejects (it is compensated) an open hold. The
 * decision is stored first, then the waiting workflow is signalled; a lost signal is caught by the
 * workflow's own polling of the hold.
 */
export async function decideHold(p: Principal, id: string, decision: 'release' | 'reject', note?: string): Promise<ComplianceHold> {
  requireOperator(p);
  const h = await withTransaction(async (c) => {
    const { rows } = await c.query<Row>('SELECT * FROM compliance_holds WHERE id = $1 AND environment = $2 FOR UPDATE', [id, p.environment]);
    if (!rows[0]) throw new DomainError('HOLD_NOT_FOUND', 'Compliance hold not found');
    if (rows[0].status !== 'open') throw new DomainError('HOLD_ALREADY_DECIDED', `The hold is already ${rows[0].status}`);
    const u = await c.query<Row>(
      `UPDATE compliance_holds SET status = $2, decided_by = $3, decision_note = $4, decided_at = now(), updated_at = now() WHERE id = $1 RETURNING *`,
      [id, decision === 'release' ? 'released' : 'rejected', p.userId, note ?? null],
    );
    return toHold(u.rows[0]);
  });
  await signalWorkflow(h.workflowId, HOLD_DECISION_SIGNAL, { holdId: h.id, status: h.status });
  return h;
}

/** The workflow's view of its hold: still open, released, or ended (rejected / expired). */
export async function holdDecision(id: string): Promise<HoldStatus> {
  const h = await getHold(id);
  if (!h) throw new DomainError('HOLD_NOT_FOUND', `Compliance hold ${id} not found`);
  return h.status;
}

/** No decision within the review window: the hold expires (the workflow then compensates). */
export async function expireHold(id: string): Promise<HoldStatus> {
  const { rows } = await getPool().query<Row>(
    `UPDATE compliance_holds SET status = CASE WHEN status = 'open' THEN 'expired' ELSE status END,
       decided_at = COALESCE(decided_at, now()), updated_at = now() WHERE id = $1 RETURNING status`,
    [id],
  );
  if (!rows[0]) throw new DomainError('HOLD_NOT_FOUND', `Compliance hold ${id} not found`);
  return rows[0].status;
}
