/**
 * Rail payments: persistence, history and the checks made before a payment's workflow starts.
 * Money moves only in the workflow's activities (activities/rails) and in the compensation they share
 * with ACH returns (compensation.ts), through the ledger.
 */
import type pg from 'pg';
import { getAsset } from '../assets';
import { updateAssignments } from '../db/update';
import { getPool, withTransaction, type Queryable } from '../db/pool';
import { writeOutboxEvent } from '../events/outbox';
import { formatAmount, parseRequestAmount } from '../money/amount';
import type { Environment } from '../platform/environment';
import { DomainError } from '../platform/errors';
import { newId } from '../platform/ids';
import { RAIL_NAMES, RAILS, type RailName } from './calendar';
import { checkExplicitRail, chooseRail, validateCreditor, type CreditorAccount, type RoutingDecision, type Urgency } from './routing';
import { outcomeOf, type Outcome, type OutcomeRow } from '../platform/outcome';

export type RailPaymentStatus = 'pending' | 'reserved' | 'submitted' | 'settled' | 'completed' | 'rejected' | 'failed' | 'returned';

export interface RailPayment extends Outcome {
  id: string;
  environment: Environment;
  userId: string;
  accountId: string;
  rail: RailName;
  requestedRail: string;
  amount: string;
  currency: string;
  status: RailPaymentStatus;
  creditor: CreditorAccount;
  memo: string | null;
  urgency: Urgency;
  routing: RoutingDecision;
  workflowId: string;
  reservationEntryId: string | null;
  reversalEntryId: string | null;
  networkReference: string | null;
  traceNumber: string | null;
  endToEndId: string | null;
  railMessage: string | null;
  statusReport: string | null;
  settlementDate: string | null;
  expectedSettlementAt: Date | null;
  achFileId: string | null;
  /** When the ACH file carrying this entry went to the operator (null: not yet). */
  achFileTransmittedAt: Date | null;
}

export interface RailPaymentEvent {
  status: string;
  detail: Record<string, unknown>;
  occurredAt: Date;
}

interface Row extends OutcomeRow {
  id: string;
  environment: Environment;
  user_id: string;
  account_id: string;
  rail: RailName;
  requested_rail: string;
  amount: string;
  currency: string;
  status: RailPaymentStatus;
  creditor: CreditorAccount;
  memo: string | null;
  urgency: Urgency;
  routing: RoutingDecision;
  workflow_id: string;
  reservation_entry_id: string | null;
  reversal_entry_id: string | null;
  network_reference: string | null;
  trace_number: string | null;
  end_to_end_id: string | null;
  rail_message: string | null;
  status_report: string | null;
  settlement_date: string | null;
  expected_settlement_at: Date | null;
  ach_file_id: string | null;
  ach_file_transmitted_at?: Date | null;
  precision: number;
}

// The ACH file's transmission is part of the payment's state: the operator settles only transmitted entries.
const SELECT = `SELECT p.*, a.precision, f.transmitted_at AS ach_file_transmitted_at FROM rail_payments p
  JOIN assets a ON a.code = p.currency LEFT JOIN ach_files f ON f.id = p.ach_file_id`;


function toPayment(r: Row): RailPayment {
  return {
    id: r.id,
    environment: r.environment,
    userId: r.user_id,
    accountId: r.account_id,
    rail: r.rail,
    requestedRail: r.requested_rail,
    amount: formatAmount(r.amount, r.precision),
    currency: r.currency,
    status: r.status,
    creditor: r.creditor,
    memo: r.memo,
    urgency: r.urgency,
    routing: r.routing,
    workflowId: r.workflow_id,
    reservationEntryId: r.reservation_entry_id,
    reversalEntryId: r.reversal_entry_id,
    networkReference: r.network_reference,
    traceNumber: r.trace_number,
    endToEndId: r.end_to_end_id,
    railMessage: r.rail_message,
    statusReport: r.status_report,
    settlementDate: r.settlement_date,
    expectedSettlementAt: r.expected_settlement_at,
    achFileId: r.ach_file_id,
    achFileTransmittedAt: r.ach_file_transmitted_at ?? null,
    ...outcomeOf(r),
  };
}

export const railPaymentWorkflowId = (id: string) => `rail-payment-${id}`;

export interface CreateRailPaymentInput {
  userId: string;
  environment: Environment;
  accountId: string;
  amount: string;
  currency: string;
  rail: string;
  creditor: CreditorAccount;
  memo?: string | null;
  urgency?: Urgency;
  now: Date;
  /** The request's Idempotency-Key as its credential scoped it (operationRequestKey); unique among rail payments. */
  requestKey?: string | null;
}

/** Appends a history row and the matching outbox event, in the caller's transaction. */
/** Whether a rail payment's history already holds `status` (a retried step finds what its first run wrote). */
export async function railEventSeen(c: Queryable, paymentId: string, status: string): Promise<boolean> {
  const { rows } = await c.query('SELECT 1 FROM rail_payment_events WHERE payment_id = $1 AND status = $2 LIMIT 1', [paymentId, status]);
  return rows.length > 0;
}

/** The next ACH trace sequence number (the database sequence: unique across processes). */
export async function nextAchTraceSequence(c: Queryable): Promise<string> {
  const { rows } = await c.query<{ n: string }>(`SELECT nextval('ach_trace_seq')::text AS n`);
  return rows[0].n;
}

export async function recordRailEvent(c: Queryable, p: RailPayment, status: string, detail: Record<string, unknown> = {}): Promise<void> {
  await c.query('INSERT INTO rail_payment_events (id, payment_id, status, detail) VALUES ($1, $2, $3, $4)', [newId('rpe'), p.id, status, JSON.stringify(detail)]);
  await writeOutboxEvent(c, {
    type: `payment_rail.${status}`,
    environment: p.environment,
    userId: p.userId,
    aggregateType: 'rail_payment',
    aggregateId: p.id,
    data: { payment_id: p.id, rail: p.rail, amount: p.amount, currency: p.currency, status: p.status, ...detail },
  });
}

/**
 * Validates the request (account is the caller's, amount at the currency's precision, creditor
 * identifiers, rail eligibility or auto routing) and records the payment as pending with its
 * first history row. The caller starts the workflow.
 */
/** Records a rail payment (status pending). In `client`'s transaction when given (a caller linking it atomically), else its own. */
export async function createRailPayment(input: CreateRailPaymentInput, client?: Queryable): Promise<RailPayment & { replayed?: true }> {
  const asset = await getAsset(input.currency, client);
  if (!asset || asset.type !== 'fiat') throw new DomainError('UNSUPPORTED_CURRENCY', `${input.currency} is not a fiat currency the rails carry`, '/currency');
  const amount = parseRequestAmount(input.amount, asset);
  validateCreditor(input.creditor);
  const urgency = input.urgency ?? 'standard';
  let routing: RoutingDecision;
  if (input.rail === 'auto') {
    routing = chooseRail({ amount, currency: asset.code, creditor: input.creditor, urgency, now: input.now });
  } else {
    if (!RAIL_NAMES.includes(input.rail as RailName)) throw new DomainError('UNKNOWN_RAIL', `rail must be auto or one of ${RAIL_NAMES.join(', ')}`, '/rail');
    const rail = input.rail as RailName;
    checkExplicitRail(rail, amount, asset.code, input.creditor);
    routing = { rail, reason: `requested explicitly (${RAILS[rail].display_name})`, alternatives: [] };
  }
  const write = async (c: Queryable): Promise<RailPayment & { replayed?: true }> => {
    // A request run again (its key taken over after a crash): the payment its first run made.
    const known = input.requestKey ? await railPaymentByRequestKey(c, input.requestKey) : null;
    if (known) return { ...known, replayed: true };
    const { rows: acct } = await c.query<{ user_id: string; environment: string; status: string }>('SELECT user_id, environment, status FROM accounts WHERE id = $1', [input.accountId]);
    if (!acct[0] || acct[0].user_id !== input.userId || acct[0].environment !== input.environment) {
      throw new DomainError('ACCOUNT_NOT_FOUND', `Account ${input.accountId} not found`, '/account_id');
    }
    if (acct[0].status !== 'active') throw new DomainError(`ACCOUNT_${acct[0].status.toUpperCase()}`, `The account is ${acct[0].status}`, '/account_id');
    const id = newId('rpay');
    const { rows } = await c.query<Row>(
      `WITH p AS (
         INSERT INTO rail_payments (id, environment, user_id, account_id, rail, requested_rail, amount, currency, status, creditor, memo, urgency, routing, workflow_id, request_key)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'pending', $9, $10, $11, $12, $13, $14)
         ON CONFLICT (request_key) WHERE request_key IS NOT NULL DO NOTHING RETURNING *)
       SELECT p.*, a.precision FROM p JOIN assets a ON a.code = p.currency`,
      [id, input.environment, input.userId, input.accountId, routing.rail, input.rail, amount, asset.code, JSON.stringify(input.creditor), input.memo ?? null, urgency, JSON.stringify(routing), railPaymentWorkflowId(id), input.requestKey ?? null],
    );
    // Another run of the same request committed the key's payment meanwhile.
    if (!rows[0]) return { ...(await railPaymentByRequestKey(c, input.requestKey!))!, replayed: true };
    const p = toPayment(rows[0]);
    await recordRailEvent(c, p, 'pending', { routing: { rail: routing.rail, reason: routing.reason } });
    return p;
  };
  return client ? write(client) : withTransaction(write);
}

async function railPaymentByRequestKey(c: Queryable, requestKey: string): Promise<RailPayment | null> {
  const { rows } = await c.query<Row>(`${SELECT} WHERE p.request_key = $1`, [requestKey]);
  return rows[0] ? toPayment(rows[0]) : null;
}

export async function getRailPayment(id: string, scope: { userId?: string; environment?: Environment } = {}, client: Queryable = getPool()): Promise<RailPayment | null> {
  const { rows } = await client.query<Row>(`${SELECT} WHERE p.id = $1`, [id]);
  const r = rows[0];
  if (!r) return null;
  if (scope.userId && r.user_id !== scope.userId) return null;
  if (scope.environment && r.environment !== scope.environment) return null;
  return toPayment(r);
}

export interface RailPaymentFilter {
  userId: string;
  environment: Environment;
  status?: RailPaymentStatus;
  rail?: RailName;
  accountId?: string;
  currency?: string;
  /** created_at >= startDate */
  startDate?: Date;
  /** created_at < endDate */
  endDate?: Date;
  offset: number;
  limit: number;
}

/** The caller's payments, newest first, with the total for pagination. */
export async function listRailPayments(f: RailPaymentFilter, client: Queryable = getPool()): Promise<{ items: RailPayment[]; total: number }> {
  const where = `p.user_id = $1 AND p.environment = $2 AND ($3::text IS NULL OR p.status = $3) AND ($4::text IS NULL OR p.rail = $4)
    AND ($5::text IS NULL OR p.account_id = $5) AND ($6::text IS NULL OR p.currency = $6)
    AND ($7::timestamptz IS NULL OR p.created_at >= $7) AND ($8::timestamptz IS NULL OR p.created_at < $8)`;
  const params = [f.userId, f.environment, f.status ?? null, f.rail ?? null, f.accountId ?? null, f.currency ?? null, f.startDate ?? null, f.endDate ?? null];
  const [items, count] = await Promise.all([
    client.query<Row>(`${SELECT} WHERE ${where} ORDER BY p.created_at DESC, p.id DESC OFFSET $9 LIMIT $10`, [...params, f.offset, f.limit]),
    client.query<{ n: number }>(`SELECT count(*)::int AS n FROM rail_payments p WHERE ${where}`, params),
  ]);
  return { items: items.rows.map(toPayment), total: count.rows[0].n };
}

export async function railPaymentHistory(id: string, client: Queryable = getPool()): Promise<RailPaymentEvent[]> {
  const { rows } = await client.query<{ status: string; detail: Record<string, unknown>; occurred_at: Date }>(
    'SELECT status, detail, occurred_at FROM rail_payment_events WHERE payment_id = $1 ORDER BY seq',
    [id],
  );
  return rows.map((r) => ({ status: r.status, detail: r.detail, occurredAt: r.occurred_at }));
}

export async function lockRailPayment(c: pg.PoolClient, id: string): Promise<RailPayment> {
  const { rows } = await c.query<Row>(`${SELECT} WHERE p.id = $1 FOR UPDATE OF p`, [id]);
  if (!rows[0]) throw new DomainError('PAYMENT_NOT_FOUND', `payment ${id} not found`);
  return toPayment(rows[0]);
}

export async function findRailPaymentByTrace(trace: string, client: Queryable = getPool()): Promise<RailPayment | null> {
  const { rows } = await client.query<Row>(`${SELECT} WHERE p.trace_number = $1`, [trace]);
  return rows[0] ? toPayment(rows[0]) : null;
}

export async function findRailPaymentByEndToEndId(e2e: string, client: Queryable = getPool()): Promise<RailPayment | null> {
  const { rows } = await client.query<Row>(`${SELECT} WHERE p.end_to_end_id = $1`, [e2e]);
  return rows[0] ? toPayment(rows[0]) : null;
}

type Fields = Partial<{
  status: RailPaymentStatus;
  reservation_entry_id: string;
  reversal_entry_id: string;
  network_reference: string;
  trace_number: string;
  end_to_end_id: string;
  rail_message: string;
  status_report: string;
  settlement_date: string;
  expected_settlement_at: Date;
  ach_file_id: string;
  failure_code: string;
  failure_reason: string;
  compensation_executed: boolean;
  completed_at: 'now';
  failed_at: 'now';
}>;

export async function updateRailPayment(c: Queryable, id: string, fields: Fields): Promise<RailPayment> {
  const { sets, values } = updateAssignments(id, fields);
  const { rows } = await c.query<Row>(
    `WITH p AS (UPDATE rail_payments SET ${sets} WHERE id = $1 RETURNING *)
     SELECT p.*, a.precision, f.transmitted_at AS ach_file_transmitted_at FROM p JOIN assets a ON a.code = p.currency LEFT JOIN ach_files f ON f.id = p.ach_file_id`,
    values,
  );
  return toPayment(rows[0]);
}

/** The platform's sandbox ODFI (originating bank) routing number; ACH trace numbers start with its first 8 digits. */
export function odfiRouting(): string {
  return process.env.ACH_ODFI_ROUTING ?? '123456780';
}
