import { REPORT_STATUSES, type MifidInstrument, type MifidReport } from '../../../domain/regtech/mifid';
import { timestamp } from '../../schemas';

export const TAG = 'Regtech';
export const REPORTS = '/api/v2/regtech/mifid/reports';

/** POST /mifid/instruments body (GraphQL checks its input against it too). */
export const instrumentBody = {
  type: 'object',
  required: ['asset_code', 'isin', 'cfi', 'full_name'],
  additionalProperties: false,
  properties: {
    asset_code: { type: 'string', minLength: 1, maxLength: 12 },
    isin: { type: 'string', minLength: 1, maxLength: 20 },
    cfi: { type: 'string', minLength: 1, maxLength: 10 },
    full_name: { type: 'string', minLength: 1, maxLength: 350 },
    notes: { type: ['string', 'null'], maxLength: 1000 },
  },
};

export function presentReport(r: MifidReport) {
  return {
    id: r.id,
    report_type: r.reportType,
    status: r.status,
    transaction_id: r.transactionId,
    transaction_kind: r.transactionKind,
    transaction_reference_number: r.transactionReferenceNumber,
    isin: r.isin,
    jurisdiction: r.jurisdiction,
    competent_authority: r.competentAuthority,
    xsd_validated: r.xsdValidated,
    xsd_reason: r.xsdReason,
    validation_issues: r.validationIssues,
    trade_executed_at: r.tradeExecutedAt.toISOString(),
    deadline_at: r.deadlineAt?.toISOString() ?? null,
    overdue: r.overdue,
    flagged_at: r.flaggedAt?.toISOString() ?? null,
    cancels_report_id: r.cancelsReportId,
    cancelled_by_report_id: r.cancelledByReportId,
    authority_feedback: r.authorityFeedback
      ? { authority: r.authorityFeedback.authority, status: r.authorityFeedback.status, feedback_id: r.authorityFeedback.feedbackId, received_at: r.authorityFeedback.receivedAt, errors: r.authorityFeedback.errors }
      : null,
    created_at: r.createdAt.toISOString(),
    updated_at: r.updatedAt.toISOString(),
    submitted_at: r.submittedAt?.toISOString() ?? null,
    decided_at: r.decidedAt?.toISOString() ?? null,
    links: { xml: `${REPORTS}/${r.id}/xml` },
  };
}

export const presentInstrument = (i: MifidInstrument) => ({ asset_code: i.assetCode, isin: i.isin, cfi: i.cfi, full_name: i.fullName, notes: i.notes, updated_at: i.updatedAt.toISOString() });

const nullableTs = { type: ['string', 'null'], format: 'date-time' };
export const reportSchema = {
  type: 'object',
  additionalProperties: true,
  properties: {
    id: { type: 'string' },
    report_type: { type: 'string', enum: ['NEWT', 'CANC'] },
    status: { type: 'string', enum: [...REPORT_STATUSES] },
    transaction_id: { type: 'string' },
    transaction_kind: { type: 'string', enum: ['basket_buy', 'defi_swap'] },
    transaction_reference_number: { type: 'string' },
    isin: { type: ['string', 'null'] },
    jurisdiction: { type: 'string' },
    competent_authority: { type: 'object', properties: { country: { type: 'string' }, name: { type: 'string' } } },
    xsd_validated: { type: 'boolean', description: 'True only when the file was validated against the schemas and passed' },
    xsd_reason: { type: ['string', 'null'], description: 'Why xsd_validated is false (schemas absent, or the first failure)' },
    validation_issues: { type: 'array', items: { type: 'object', additionalProperties: true } },
    trade_executed_at: timestamp,
    deadline_at: nullableTs,
    overdue: { type: 'boolean' },
    flagged_at: nullableTs,
    cancels_report_id: { type: ['string', 'null'] },
    cancelled_by_report_id: { type: ['string', 'null'] },
    authority_feedback: { type: ['object', 'null'], additionalProperties: true },
    created_at: timestamp,
    updated_at: timestamp,
    submitted_at: nullableTs,
    decided_at: nullableTs,
    links: { type: 'object', properties: { xml: { type: 'string' } } },
  },
};
export const instrumentSchema = { type: 'object', additionalProperties: true, properties: { asset_code: { type: 'string' }, isin: { type: 'string' }, cfi: { type: 'string' }, full_name: { type: 'string' } } };
export const idParams = { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1, maxLength: 100 } } };
export const name = { type: ['string', 'null'], maxLength: 140 };

export type IdParams = { Params: { id: string } };
