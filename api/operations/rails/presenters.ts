/** Wire shapes of the payment-rails area. */
import type { AchFile } from '../../../domain/ach/files';
import type { RailPayment, RailPaymentEvent } from '../../../domain/rails';
import type { RailCatalogEntry } from '../../../domain/rails/catalog';
import type { RailPaymentView } from '../../../domain/rails/start';

function presentFields(p: RailPayment, history: RailPaymentEvent[]) {
  return {
    id: p.id,
    status: p.status,
    rail: p.rail,
    requested_rail: p.requestedRail,
    account_id: p.accountId,
    amount: p.amount,
    currency: p.currency,
    creditor_account: p.creditor,
    memo: p.memo,
    urgency: p.urgency,
    routing: p.routing,
    workflow_id: p.workflowId,
    trace_number: p.traceNumber,
    end_to_end_id: p.endToEndId,
    network_reference: p.networkReference,
    settlement_date: p.settlementDate,
    expected_settlement_at: p.expectedSettlementAt?.toISOString() ?? null,
    ach_file_id: p.achFileId,
    failure: p.failureCode ? { code: p.failureCode, reason: p.failureReason ?? '' } : null,
    compensation_executed: p.compensationExecuted,
    rail_message: p.railMessage,
    status_report: p.statusReport,
    history: history.map((h) => ({ status: h.status, at: h.occurredAt.toISOString(), detail: h.detail })),
    created_at: p.createdAt.toISOString(),
    updated_at: p.updatedAt.toISOString(),
    completed_at: p.completedAt?.toISOString() ?? null,
    failed_at: p.failedAt?.toISOString() ?? null,
  };
}

/** A rail payment with its messages and status history. */
export function presentRailPayment(v: RailPaymentView) {
  return presentFields(v.payment, v.history);
}

/** A list item: the payment without its messages and history (GET /payments/{id} has them). */
export function presentRailPaymentSummary(p: RailPayment) {
  const { rail_message: _m, status_report: _s, history: _h, ...rest } = presentFields(p, []);
  return rest;
}

export function presentAchFile(f: AchFile) {
  return {
    id: f.id,
    status: f.status,
    file_id_modifier: f.fileIdModifier,
    content: f.content,
    summary: f.summary,
    payment_ids: f.paymentIds,
    acknowledgement: f.acknowledgement,
    transmitted_at: f.transmittedAt?.toISOString() ?? null,
  };
}

/** One rail of the catalog: definition, limits, settlement, cut-offs, calendars and availability now. */
export function presentRail({ rail: r, businessDays, holidays, settlementCalendars, availability }: RailCatalogEntry) {
  return {
    rail: r.name,
    name: r.display_name,
    network: r.network,
    currencies: r.currencies,
    limits: { min_amount: r.min_amount, max_amount: r.max_amount, currency: r.currencies[0] },
    settlement_speed: r.settlement_speed,
    settlement: r.settlement_description,
    message_format: r.message_format,
    addressing: r.addressing,
    cost: r.cost,
    time_zone: r.time_zone,
    business_days: businessDays,
    opens: r.opens ? `${r.opens}${r.opens_previous_evening ? ' (previous evening)' : ''}` : null,
    cut_off_times: (r.windows ?? []).map((w) => ({ cutoff: w.cutoff, settles: w.settles, settlement_day_offset: w.settlementDayOffset })),
    return_window_banking_days: r.return_window_banking_days ?? null,
    holidays,
    // SWIFT: each currency's value dates follow its home market's calendar.
    ...(settlementCalendars
      ? { settlement_calendars: settlementCalendars.map((c) => ({ currency: c.currency, business_days: c.businessDays, holidays: c.holidays })) }
      : {}),
    ...availability,
  };
}
