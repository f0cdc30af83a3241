/** Data schemas of travel_rule.check.completed and compliance.violation.detected (domain/events/catalog.ts uses them). */
type Schema = Record<string, unknown>;
const str: Schema = { type: 'string' };
const obj = (properties: Record<string, Schema>): Schema => ({ type: 'object', required: Object.keys(properties), properties, additionalProperties: false });

export const TRAVEL_RULE_CHECK_COMPLETED: Schema = obj({
  check_id: { type: 'string', pattern: '^trc_' },
  transfer_id: str,
  jurisdiction: str,
  is_compliant: { type: 'boolean' },
  risk_level: { type: 'string', enum: ['low', 'medium', 'high'] },
  amount_usd: { type: 'string', pattern: '^[0-9]+(\\.[0-9]+)?$' },
  exceeds_threshold: { type: 'boolean' },
  issue_codes: { type: 'array', items: str },
  checked_at: { type: 'string', format: 'date-time' },
  valid_until: { type: 'string', format: 'date-time' },
});

/**
 * compliance.violation.detected, for every framework: framework, code, description and
 * detected_at always; the rest names what the violation concerns (a Travel Rule check and its
 * transfer, a payment held for sanctions review, a late MiFID II report) and is present when it
 * applies.
 */
export const COMPLIANCE_VIOLATION_DETECTED: Schema = {
  type: 'object',
  required: ['framework', 'code', 'description', 'detected_at'],
  additionalProperties: false,
  properties: {
    framework: { type: 'string', enum: ['travel_rule', 'sanctions', 'mifid_ii'] },
    code: str,
    description: str,
    detected_at: { type: 'string', format: 'date-time' },
    check_id: str,
    transfer_id: str,
    // A payment held for review (domain/regtech/holds): the hold and what it holds.
    hold_id: { type: 'string', pattern: '^hold_' },
    subject_kind: str,
    subject_id: str,
    report_id: str,
    // The screened party and the listed entries it matched.
    party: { type: 'string', enum: ['originator', 'beneficiary', 'creditor', 'receiver', 'recipient'] },
    // A bridge's recipient: the digital-currency address screened (exact match against the list).
    address: str,
    matches: { type: 'array', items: obj({ entry_id: { type: 'integer' }, name: str, score: { type: 'number' } }) },
    list_version: { type: ['string', 'null'] },
  },
};
