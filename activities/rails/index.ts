import { ApplicationFailure } from '@temporalio/activity';
import { accountFacts, ensureCustomerLedgerAccount } from '../../domain/accounts';
import { buildAchFile } from '../../domain/ach/files';
import { parseNachaFile } from '../../domain/ach/nacha';
import { isBankingDay, zoned } from '../../domain/rails/calendar';
import { withTransaction, type Queryable } from '../../domain/db/pool';
import { internalLedgerAccountId, LedgerError, postEntry, postPending, workflowIdempotencyKey } from '../../domain/ledger';
import { DomainError } from '../../domain/platform/errors';
import { RailAdapterNotConfigured, railAdapter, RailGatewayRefused, RETURN_REASONS, type RailSubmission } from '../../domain/rails/adapters';
import { addBankingDays, instantAt, planExecution, RAILS, type RailName } from '../../domain/rails/calendar';
import {
  lockRailPayment,
  nextAchTraceSequence,
  odfiRouting,
  railEventSeen,
  recordRailEvent,
  updateRailPayment,
  type RailPayment,
  type RailPaymentStatus,
} from '../../domain/rails';
import { compensateRailPayment } from '../../domain/rails/compensation';
import { holdOf, screenOutgoingParty, type OutgoingScreening } from '../../domain/regtech/holds';
import { buildAchEntryRecord, buildPacs008, readPacs002, traceNumber } from '../../domain/rails/messages';
import type { Environment } from '../../domain/platform/environment';

export interface RailStepInput {
  paymentId: string;
  workflowId: string;
}

// Longer than any settlement plus return window, so only a stuck workflow lets one expire.
const RESERVATION_TIMEOUT_SECONDS = 30 * 24 * 3600;

function businessFailure(err: unknown): never {
  if (err instanceof LedgerError || err instanceof DomainError || err instanceof RailAdapterNotConfigured || err instanceof RailGatewayRefused) {
    throw ApplicationFailure.nonRetryable(err.message, err.code);
  }
  throw err;
}

/** The rail's own settlement (nostro) account for a currency: debit-normal, an asset of the platform. */
export function railSettlementAccount(environment: Environment, rail: RailName, currency: string, c: Queryable): Promise<string> {
  return internalLedgerAccountId(
    { environment, assetCode: currency, code: `rail_settlement:${rail}`, name: `${RAILS[rail].display_name} settlement ${currency}`, normalBalance: 'debit' },
    c,
  );
}

export function submissionOf(p: RailPayment, nowMs: number): RailSubmission {
  return {
    paymentId: p.id,
    rail: p.rail,
    amount: p.amount,
    currency: p.currency,
    creditor: p.creditor,
    memo: p.memo,
    message: p.railMessage ?? '',
    messageId: null,
    endToEndId: p.endToEndId,
    traceNumber: p.traceNumber,
    settleAtMs: p.expectedSettlementAt ? p.expectedSettlementAt.getTime() : nowMs,
    achFileTransmitted: p.achFileTransmittedAt !== null,
    nowMs,
  };
}

/** pacs.008 MsgId is kept in the message itself; read it back rather than store it twice. */
function withMessageId(s: RailSubmission): RailSubmission {
  if (s.rail.startsWith('ach') || !s.message) return s;
  const m = /<MsgId>([^<]+)<\/MsgId>/.exec(s.message);
  return { ...s, messageId: m ? m[1] : null };
}

/** A message the ISO module refuses is a business failure (no retry), named by the module's error. */
function buildPacsOrFail(input: Parameters<typeof buildPacs008>[0]) {
  try {
    return buildPacs008(input);
  } catch (err) {
    const e = err as { code?: string; message?: string };
    throw ApplicationFailure.nonRetryable(e.message ?? 'pacs.008 could not be built', e.code ?? 'MESSAGE_INVALID');
  }
}

export interface RailPlan {
  submitAtMs: number;
  settleAtMs: number;
  instant: boolean;
  ach: boolean;
  returnWindowEndMs: number | null;
}

export function createRailActivities() {
  return {
    async validateRailPayment({ paymentId }: RailStepInput): Promise<void> {
      await withTransaction(async (c) => {
        const p = await lockRailPayment(c, paymentId);
        if (p.status !== 'pending') return;
        const status = (await accountFacts(c, [p.accountId])).get(p.accountId)?.status;
        if (status !== 'active') businessFailure(new DomainError(`ACCOUNT_${String(status).toUpperCase()}`, `The account is ${status}`));
        await recordRailEvent(c, p, 'validated');
      });
    },

    /** Pending entry: debit the customer, credit the rail's settlement account. */
    async reserveRailPayment({ paymentId, workflowId }: RailStepInput): Promise<void> {
      await withTransaction(async (c) => {
        const p = await lockRailPayment(c, paymentId);
        if (p.reservationEntryId) return;
        const customer = await ensureCustomerLedgerAccount(p.accountId, p.currency, c);
        const rail = await railSettlementAccount(p.environment, p.rail, p.currency, c);
        const entry = await postEntry(
          {
            environment: p.environment,
            idempotencyKey: workflowIdempotencyKey(workflowId, 'reserve'),
            type: 'withdrawal',
            description: `${RAILS[p.rail].display_name} payment to ${p.creditor.name}`,
            reference: p.memo ?? undefined,
            lines: [
              { accountId: customer, direction: 'debit', amount: p.amount, transactionType: 'withdrawal' },
              { accountId: rail, direction: 'credit', amount: p.amount },
            ],
            pending: true,
            pendingTimeoutSeconds: RESERVATION_TIMEOUT_SECONDS,
            userId: p.userId,
            metadata: { rail_payment_id: p.id, workflow_id: workflowId, rail: p.rail },
          },
          c,
        ).catch(businessFailure);
        const u = await updateRailPayment(c, p.id, { status: 'reserved', reservation_entry_id: entry.id });
        await recordRailEvent(c, u, 'reserved', { entry_id: entry.id });
      });
    },

    /**
     * Screens the creditor against the loaded sanctions list. A hit (or no list to screen with)
     * opens a compliance hold: the payment waits, reserved, for an operator's decision.
     */
    async screenRailPayment({ paymentId, workflowId }: RailStepInput): Promise<OutgoingScreening> {
      return withTransaction(async (c) => {
        const p = await lockRailPayment(c, paymentId);
        const before = await holdOf('rail_payment', p.id, c);
        const r = await screenOutgoingParty(c, { environment: p.environment, userId: p.userId, subjectKind: 'rail_payment', subjectId: p.id, workflowId, party: 'creditor', name: p.creditor.name });
        if (before) return r;
        await recordRailEvent(c, p, 'screened', {
          sanctions_hit: r.held,
          score: r.score,
          list_version: r.listVersion,
          ...(r.matchedName ? { matched_name: r.matchedName } : {}),
        });
        if (r.held) await recordRailEvent(c, p, 'held', { hold_id: r.holdId!, reason_code: r.reasonCode! });
        return r;
      });
    },

    /** A released hold: the payment goes on (recorded once). */
    async recordRailHoldReleased({ paymentId, holdId }: RailStepInput & { holdId: string }): Promise<void> {
      await withTransaction(async (c) => {
        const p = await lockRailPayment(c, paymentId);
        if (await railEventSeen(c, p.id, 'released')) return;
        const h = await holdOf('rail_payment', p.id, c);
        await recordRailEvent(c, p, 'released', { hold_id: holdId, decided_by: h?.decidedBy ?? null });
      });
    },

    /** Builds the rail's message and the timetable (from the workflow's clock). */
    async prepareRailPayment({ paymentId, nowMs }: RailStepInput & { nowMs: number }): Promise<RailPlan> {
      return withTransaction(async (c) => {
        const p = await lockRailPayment(c, paymentId);
        const plan = planExecution(p.rail, new Date(nowMs), p.currency);
        const def = RAILS[p.rail];
        const ach = def.message_format === 'nacha';
        const odfi = odfiRouting();
        let fields: Parameters<typeof updateRailPayment>[2];
        if (ach) {
          let trace = p.traceNumber;
          if (!trace) {
            trace = traceNumber(odfi, await nextAchTraceSequence(c));
          }
          const record = buildAchEntryRecord({ creditor: p.creditor, amount: p.amount, traceNumber: trace, individualId: p.id.slice(5, 20), odfiRouting: odfi, effectiveDate: plan.settlementDate });
          fields = { trace_number: trace, rail_message: record };
        } else {
          const debtor = (await accountFacts(c, [p.accountId])).get(p.accountId);
          const built = buildPacsOrFail({
            rail: p.rail,
            paymentId: p.id,
            amount: p.amount,
            currency: p.currency,
            debtorName: debtor?.name || 'Account holder',
            debtorAccountId: p.accountId,
            odfiRouting: odfi,
            creditor: p.creditor,
            memo: p.memo,
            settlementDate: plan.settlementDate,
          });
          fields = { rail_message: built.message, end_to_end_id: built.endToEndId };
        }
        const u = await updateRailPayment(c, p.id, { ...fields, settlement_date: plan.settlementDate, expected_settlement_at: plan.settleAt });
        await recordRailEvent(c, u, 'message_built', {
          format: def.message_format,
          submit_at: plan.submitAt.toISOString(),
          expected_settlement_at: plan.settleAt.toISOString(),
          settlement_date: plan.settlementDate,
          ...(u.traceNumber ? { trace_number: u.traceNumber } : { end_to_end_id: u.endToEndId }),
        });
        const returnDays = def.return_window_banking_days;
        return {
          submitAtMs: plan.submitAt.getTime(),
          settleAtMs: plan.settleAt.getTime(),
          instant: def.instant_seconds !== undefined,
          ach,
          // Returns may arrive until the end of the 2nd banking day after settlement.
          returnWindowEndMs: returnDays ? instantAt(def.time_zone, addBankingDays(def.calendar, plan.settlementDate, returnDays), '23:59').getTime() : null,
        };
      });
    },

    async submitRailPayment({ paymentId, nowMs }: RailStepInput & { nowMs: number }): Promise<{ accepted: boolean; settled: boolean; reasonCode: string | null; reason: string | null }> {
      const p = await withTransaction((c) => lockRailPayment(c, paymentId));
      if (p.status === 'submitted' || p.status === 'settled') return { accepted: true, settled: false, reasonCode: null, reason: null };
      const sub = withMessageId(submissionOf(p, nowMs));
      const r = await railAdapter(p.environment, p.rail).submit(sub).catch(businessFailure);
      let reasonCode = r.reasonCode;
      if (r.statusReport) {
        // The rail's answer is read from its pacs.002, not from the adapter's summary.
        const st = readPacs002(r.statusReport);
        reasonCode = st.reasonCode;
        r.accepted = st.status !== 'RJCT';
        r.settled = st.status === 'ACSC';
      }
      await withTransaction(async (c) => {
        const fields: Parameters<typeof updateRailPayment>[2] = { network_reference: r.networkReference };
        if (r.statusReport) fields.status_report = r.statusReport;
        if (r.accepted) fields.status = 'submitted';
        const u = await updateRailPayment(c, p.id, fields);
        await recordRailEvent(c, u, r.accepted ? 'submitted' : 'rail_rejected', { network_reference: r.networkReference, reason_code: reasonCode, reason: r.reason, adapter: railAdapter(p.environment, p.rail).name });
      });
      return { accepted: r.accepted, settled: r.settled, reasonCode, reason: r.reason };
    },

    async checkRailSettlement({ paymentId, nowMs }: RailStepInput & { nowMs: number }): Promise<{ status: 'settled' | 'pending' | 'rejected'; reasonCode: string | null }> {
      const p = await withTransaction((c) => lockRailPayment(c, paymentId));
      const s = await railAdapter(p.environment, p.rail).settlementStatus(withMessageId(submissionOf(p, nowMs))).catch(businessFailure);
      if (s.statusReport) {
        const st = readPacs002(s.statusReport);
        await withTransaction((c) => updateRailPayment(c, p.id, { status_report: s.statusReport! }));
        return { status: st.status === 'ACSC' ? 'settled' : st.status === 'RJCT' ? 'rejected' : 'pending', reasonCode: st.reasonCode };
      }
      return { status: s.status, reasonCode: s.reasonCode };
    },

    /** Posts the reservation. ACH stays `settled` while returns may come; others complete. */
    async postRailPayment({ paymentId, workflowId, final }: RailStepInput & { final: boolean }): Promise<void> {
      await withTransaction(async (c) => {
        const p = await lockRailPayment(c, paymentId);
        if (p.status === 'settled' || p.status === 'completed') return;
        await postPending(p.reservationEntryId!, { idempotencyKey: workflowIdempotencyKey(workflowId, 'post') }, c).catch(businessFailure);
        const status: RailPaymentStatus = final ? 'completed' : 'settled';
        const u = await updateRailPayment(c, p.id, final ? { status, completed_at: 'now' } : { status });
        await recordRailEvent(c, u, 'settled', { entry_id: p.reservationEntryId });
        if (final) await recordRailEvent(c, u, 'completed');
      });
    },

    /** Asks the ACH operator for returns and reads them from the NACHA return file (addenda 99). */
    async pollAchReturns({ paymentId, nowMs }: RailStepInput & { nowMs: number }): Promise<{ code: string; reason: string } | null> {
      const p = await withTransaction((c) => lockRailPayment(c, paymentId));
      const file = await railAdapter(p.environment, p.rail).returns(submissionOf(p, nowMs)).catch(businessFailure);
      if (!file) return null;
      for (const b of parseNachaFile(file).batches) {
        for (const e of b.entries) {
          const a = e.addenda.find((x) => x.type === '99' && x.original_trace_number === p.traceNumber);
          if (a) return { code: a.return_reason_code!, reason: RETURN_REASONS[a.return_reason_code!] ?? a.information ?? 'returned' };
        }
      }
      return null;
    },

    /** Schedule run: on FedACH banking days, one transmitted file per environment with pending ACH entries. */
    async buildScheduledAchFiles({ window, nowMs }: { window: string; nowMs: number }): Promise<Array<{ environment: string; file_id: string | null }>> {
      const now = new Date(nowMs);
      if (!isBankingDay('us_fed', zoned(now, 'America/New_York').date)) return [];
      const out: Array<{ environment: string; file_id: string | null }> = [];
      for (const environment of ['sandbox', 'production'] as const) {
        try {
          const f = await buildAchFile({ environment, userId: null, transmit: true, now });
          out.push({ environment, file_id: f.id });
        } catch (err) {
          if (err instanceof DomainError && err.code === 'NO_PENDING_ACH_PAYMENTS') out.push({ environment, file_id: null });
          else throw err;
        }
      }
      void window;
      return out;
    },

    async completeRailPayment({ paymentId }: RailStepInput): Promise<void> {
      await withTransaction(async (c) => {
        const p = await lockRailPayment(c, paymentId);
        if (p.status !== 'settled') return;
        const u = await updateRailPayment(c, p.id, { status: 'completed', completed_at: 'now' });
        await recordRailEvent(c, u, 'completed', { return_window_closed: true });
      });
    },

    /** Compensation: voids the reservation or reverses the posted entry, with the rail's reason (domain/rails/compensation.ts). */
    async compensateRailPayment(input: RailStepInput & { status: 'rejected' | 'failed' | 'returned'; code: string; reason: string }): Promise<{ compensated: boolean }> {
      return compensateRailPayment(input);
    },
  };
}

export type RailActivities = ReturnType<typeof createRailActivities>;
