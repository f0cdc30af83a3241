/**
 * ACH files: the day's outgoing file from submitted ACH payments (or from entries given by an
 * operator), and ingestion of return files. Return entries compensate their payments.
 */
import type { Principal } from '../auth/principal';
import { withTransaction, getPool, type Queryable } from '../db/pool';
import type { Environment } from '../platform/environment';
import { DomainError } from '../platform/errors';
import { newId } from '../platform/ids';
import { railAdapter } from '../rails/adapters';
import { findRailPaymentByTrace, lockRailPayment, odfiRouting, recordRailEvent, updateRailPayment } from '../rails';
import { RETURN_REASONS } from '../rails/adapters/sandbox';
import { buildNachaFile, parseNachaFile, type NachaBatchInput, type NachaEntryInput, type NachaSummary, type SecCode } from './nacha';

export interface AchFile {
  id: string | null;
  environment: Environment;
  /** preview: a customer's read-only view of their queued payments as a file (not stored, id null). */
  status: 'preview' | 'built' | 'transmitted';
  fileIdModifier: string;
  content: string;
  summary: NachaSummary;
  paymentIds: string[];
  transmittedAt: Date | null;
  acknowledgement: string | null;
  createdAt: Date;
}

export interface RequestEntry extends Omit<NachaEntryInput, 'trace_number'> {
  sec_code?: SecCode;
  effective_date: string;
}

const ORIGIN_NAME = () => process.env.ACH_ORIGIN_NAME ?? 'SANDBOX BANK PLATFORM';
const OPERATOR_ROUTING = () => process.env.ACH_OPERATOR_ROUTING ?? '011000015';

/** Batches by SEC code and effective date, in a stable order. */
function batchesOf(entries: Array<NachaEntryInput & { sec_code: SecCode; effective_date: string }>, companyName: string, companyId: string): NachaBatchInput[] {
  const groups = new Map<string, NachaBatchInput>();
  for (const e of entries) {
    const key = `${e.sec_code}|${e.effective_date}`;
    let b = groups.get(key);
    if (!b) {
      b = { sec_code: e.sec_code, company_name: companyName, company_id: companyId, entry_description: e.sec_code === 'PPD' ? 'PAYMENT' : 'VENDORPAY', effective_date: e.effective_date, entries: [] };
      groups.set(key, b);
    }
    const { sec_code: _s, effective_date: _d, ...entry } = e;
    b.entries.push(entry);
  }
  return [...groups.values()].sort((a, b) => (a.effective_date + a.sec_code).localeCompare(b.effective_date + b.sec_code));
}

/** File id modifier: A-Z then 0-9 per environment and UTC day (NACHA's duplicate-file guard). */
async function nextModifier(c: Queryable, environment: Environment, now: Date): Promise<string> {
  const { rows } = await c.query<{ n: string }>(
    `SELECT count(*)::text AS n FROM ach_files WHERE environment = $1
       AND created_at >= date_trunc('day', $2::timestamptz AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
       AND created_at < (date_trunc('day', $2::timestamptz AT TIME ZONE 'UTC') + interval '1 day') AT TIME ZONE 'UTC'`,
    [environment, now],
  );
  return 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'[parseInt(rows[0].n, 10) % 36];
}

export interface AchFileRequest {
  entries?: RequestEntry[];
  companyName?: string;
  companyId?: string;
  transmit?: boolean;
}

/**
 * POST /ach/files. Building a file from arbitrary entries, and transmitting any file, are operator
 * actions: nothing is debited for such entries, so a customer's money reaches an ACH file only
 * through a debited payment (POST /payments with an ACH rail), which the scheduled file workflow
 * (or an operator) transmits. A customer may preview their own queued payments as a file: read-only,
 * nothing stored or claimed. An operator's file takes the environment's whole queue, as the
 * schedule's does, and records who built it.
 */
export async function requestAchFile(p: Principal, req: AchFileRequest, now: Date): Promise<AchFile> {
  if (!p.isAdmin && (req.entries !== undefined || req.transmit)) {
    throw new DomainError('ADMIN_REQUIRED',
      'Building ACH files from entries and transmitting files are platform operator actions; ACH payments (POST /api/v1/payment-rails/payments) ' +
        'go out in the scheduled file. Without entries and transmit you get a preview of your own queued payments.',
      req.entries !== undefined ? '/entries' : '/transmit',
    );
  }
  if (!p.isAdmin) return previewAchFile({ environment: p.environment, userId: p.userId, companyName: req.companyName, companyId: req.companyId, now });
  return buildAchFile({ environment: p.environment, userId: null, builtBy: p.userId, ...req, now });
}

type FileEntry = NachaEntryInput & { sec_code: SecCode; effective_date: string };
type QueuedRow = { id: string; rail_message: string; settlement_date: string };

/** The submitted ACH payments not yet in a file (of `userId` when given), locked when `lock`. */
async function queuedPayments(c: Queryable, environment: Environment, userId: string | null, lock: boolean): Promise<QueuedRow[]> {
  const { rows } = await c.query<QueuedRow>(
    `SELECT id, rail_message, settlement_date FROM rail_payments
     WHERE environment = $1 AND rail IN ('ach_standard', 'ach_same_day') AND status IN ('submitted', 'settled') AND ach_file_id IS NULL
       AND ($2::text IS NULL OR user_id = $2) ORDER BY created_at, id${lock ? ' FOR UPDATE SKIP LOCKED' : ''}`,
    [environment, userId],
  );
  if (rows.length === 0) throw new DomainError('NO_PENDING_ACH_PAYMENTS', 'There are no submitted ACH payments waiting for a file', '');
  return rows;
}

/** Each payment's entry record was built at submission; re-read its fields so the file carries exactly that entry. */
function entriesOfPayments(rows: QueuedRow[]): FileEntry[] {
  return rows.map((r) => {
    const l = r.rail_message;
    return {
      sec_code: 'PPD' as SecCode,
      effective_date: r.settlement_date,
      transaction_code: l.slice(1, 3) as NachaEntryInput['transaction_code'],
      routing_number: l.slice(3, 12),
      account_number: l.slice(12, 29).trim(),
      amount: `${BigInt(l.slice(29, 39)) / 100n}.${l.slice(37, 39)}`,
      individual_id: l.slice(39, 54).trim(),
      name: l.slice(54, 76).trim(),
      trace_number: l.slice(79, 94),
    };
  });
}

function composeFile(entries: FileEntry[], modifier: string, input: { companyName?: string; companyId?: string; now: Date }) {
  const odfi = odfiRouting();
  return buildNachaFile({
    immediate_destination: OPERATOR_ROUTING(),
    immediate_destination_name: 'FEDERAL RESERVE BANK',
    immediate_origin: odfi,
    immediate_origin_name: ORIGIN_NAME(),
    odfi_id: odfi.slice(0, 8),
    file_id_modifier: modifier,
    created_at: input.now,
    batches: batchesOf(entries, input.companyName ?? ORIGIN_NAME().slice(0, 16), input.companyId ?? `1${odfi}`),
  });
}

/** A customer's queued ACH payments shown as the file they would go out in; nothing written. */
async function previewAchFile(input: { environment: Environment; userId: string; companyName?: string; companyId?: string; now: Date }): Promise<AchFile> {
  const pool = getPool();
  const rows = await queuedPayments(pool, input.environment, input.userId, false);
  const modifier = await nextModifier(pool, input.environment, input.now);
  const { content, summary } = composeFile(entriesOfPayments(rows), modifier, input);
  return {
    id: null,
    environment: input.environment,
    status: 'preview',
    fileIdModifier: modifier,
    content,
    summary,
    paymentIds: rows.map((r) => r.id),
    transmittedAt: null,
    acknowledgement: null,
    createdAt: input.now,
  };
}

/**
 * Builds (and stores) a file. With `entries`, from those; otherwise from the submitted ACH
 * payments not yet in a file (of `userId` when given, else all originators of the environment).
 * `transmit` hands it to the ACH operator adapter.
 */
export async function buildAchFile(input: {
  environment: Environment;
  userId: string | null;
  /** The operator who asked for it (recorded in the stored summary); the schedule has none. */
  builtBy?: string;
  entries?: RequestEntry[];
  companyName?: string;
  companyId?: string;
  transmit?: boolean;
  now: Date;
}): Promise<AchFile> {
  const built = await withTransaction(async (c) => {
    let rows: QueuedRow[] = [];
    let entries: FileEntry[];
    if (input.entries) {
      entries = input.entries.map((e) => ({ ...e, sec_code: e.sec_code ?? 'PPD' }));
    } else {
      rows = await queuedPayments(c, input.environment, input.userId, true);
      entries = entriesOfPayments(rows);
    }
    const modifier = await nextModifier(c, input.environment, input.now);
    const { content, summary } = composeFile(entries, modifier, input);
    const id = newId('achf');
    await c.query(
      // created_at is the header's File Creation Date/Time (the caller's clock: a workflow's on a schedule run).
      `INSERT INTO ach_files (id, environment, user_id, status, file_id_modifier, content, entry_count, total_debit, total_credit, entry_hash, summary, created_at)
       VALUES ($1, $2, $3, 'built', $4, $5, $6, $7, $8, $9, $10, $11)`,
      [id, input.environment, input.userId, modifier, content, summary.entry_count, summary.total_debit, summary.total_credit, summary.entry_hash, JSON.stringify({ ...summary, payment_ids: rows.map((r) => r.id), ...(input.builtBy ? { built_by: input.builtBy } : {}) }), input.now],
    );
    // Only a file that goes to the operator claims its payments; an untransmitted one is a preview
    // (the operator settles transmitted entries only, so a claimed-but-unsent entry would never settle).
    if (rows.length && input.transmit) await c.query('UPDATE rail_payments SET ach_file_id = $1, updated_at = now() WHERE id = ANY($2::text[])', [id, rows.map((r) => r.id)]);
    return { id, modifier, content, summary, paymentIds: rows.map((r) => r.id) };
  });
  let transmittedAt: Date | null = null;
  let ack: string | null = null;
  if (input.transmit) {
    try {
      ack = await railAdapter(input.environment, 'ach').transmitFile(built.content);
    } catch (err) {
      // Not sent: release the payments for the next file (the file row stays as built).
      await getPool().query('UPDATE rail_payments SET ach_file_id = NULL, updated_at = now() WHERE ach_file_id = $1', [built.id]);
      throw err;
    }
    const { rows } = await getPool().query<{ transmitted_at: Date }>(
      `UPDATE ach_files SET status = 'transmitted', transmitted_at = now(), summary = summary || jsonb_build_object('acknowledgement', $2::text) WHERE id = $1 RETURNING transmitted_at`,
      [built.id, ack],
    );
    transmittedAt = rows[0].transmitted_at;
  }
  return {
    id: built.id,
    environment: input.environment,
    status: transmittedAt ? 'transmitted' : 'built',
    fileIdModifier: built.modifier,
    content: built.content,
    summary: built.summary,
    paymentIds: built.paymentIds,
    transmittedAt,
    acknowledgement: ack,
    createdAt: input.now,
  };
}

export interface ReturnOutcome {
  trace_number: string;
  return_reason_code: string;
  reason: string;
  payment_id: string | null;
  action: 'signalled' | 'reversed' | 'already_compensated' | 'unmatched';
}

/**
 * Ingests a NACHA return file: each addenda 99 names the original trace number and reason. A
 * payment whose workflow is still running gets the return as a signal; a completed one is
 * reversed here (one transaction each). `scope.userId` null: every payment of the environment
 * (operators, production).
 */
export async function ingestReturnFile(
  text: string,
  scope: { environment: Environment; userId: string | null },
  signal: (workflowId: string, r: { code: string; reason: string }) => Promise<boolean>,
  reverse: (paymentId: string, code: string, reason: string) => Promise<void>,
): Promise<ReturnOutcome[]> {
  const file = parseNachaFile(text);
  const out: ReturnOutcome[] = [];
  for (const b of file.batches) {
    for (const e of b.entries) {
      for (const a of e.addenda.filter((x) => x.type === '99')) {
        const code = a.return_reason_code!;
        const reason = RETURN_REASONS[code] ?? a.information ?? 'returned';
        let p = await findRailPaymentByTrace(a.original_trace_number!);
        if (!p || p.environment !== scope.environment || (scope.userId !== null && p.userId !== scope.userId)) {
          out.push({ trace_number: a.original_trace_number!, return_reason_code: code, reason, payment_id: null, action: 'unmatched' });
          continue;
        }
        if (['returned', 'rejected', 'failed'].includes(p.status)) {
          out.push({ trace_number: p.traceNumber!, return_reason_code: code, reason, payment_id: p.id, action: 'already_compensated' });
        } else if (p.status === 'completed') {
          await reverse(p.id, code, reason);
          out.push({ trace_number: p.traceNumber!, return_reason_code: code, reason, payment_id: p.id, action: 'reversed' });
        } else if (await signal(p.workflowId, { code, reason })) {
          out.push({ trace_number: p.traceNumber!, return_reason_code: code, reason, payment_id: p.id, action: 'signalled' });
        } else {
          // The workflow ended between the read and the signal (its return window just closed): reverse here.
          p = (await findRailPaymentByTrace(a.original_trace_number!))!;
          if (p.status === 'completed') await reverse(p.id, code, reason);
          out.push({ trace_number: p.traceNumber!, return_reason_code: code, reason, payment_id: p.id, action: p.status === 'completed' ? 'reversed' : 'already_compensated' });
        }
      }
    }
  }
  return out;
}
