/**
 * The data of compliance.report.generated (domain/events/catalog.ts uses it), written with a
 * MiFID II report in the same transaction. A late report's compliance.violation.detected uses the
 * shared schema of that event (domain/regtech/travel-rule/events.ts): framework mifid_ii, code
 * REPORT_OVERDUE, report_id, subject_kind and subject_id (the trade).
 */
type Schema = Record<string, unknown>;
const str: Schema = { type: 'string' };
const ts: Schema = { type: 'string', format: 'date-time' };

export const COMPLIANCE_REPORT_GENERATED: Schema = {
  type: 'object',
  additionalProperties: false,
  required: [
    'framework', 'report_id', 'report_type', 'transaction_id', 'transaction_kind', 'jurisdiction', 'transaction_reference_number',
    'status', 'xsd_validated', 'deadline_at', 'cancels_report_id', 'generated_at',
  ],
  properties: {
    framework: { type: 'string', enum: ['mifid_ii'] },
    report_id: { type: 'string', pattern: '^mfr_' },
    report_type: { type: 'string', enum: ['NEWT', 'CANC'] },
    transaction_id: str,
    transaction_kind: { type: 'string', enum: ['basket_buy', 'defi_swap'] },
    jurisdiction: { type: 'string', pattern: '^[A-Z]{2}$' },
    transaction_reference_number: { type: 'string', pattern: '^[A-Z0-9]{1,52}$' },
    isin: { type: ['string', 'null'] },
    status: { type: 'string', enum: ['draft', 'validated'] },
    xsd_validated: { type: 'boolean' },
    deadline_at: { type: ['string', 'null'], format: 'date-time' },
    cancels_report_id: { type: ['string', 'null'] },
    generated_at: ts,
  },
};
