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

export const COMPLIANCE_VIOLATION_DETECTED: Schema = obj({
  framework: { type: 'string', enum: ['travel_rule'] },
  check_id: str,
  transfer_id: str,
  code: str,
  description: str,
  // The screened party and the listed entries it matched.
  party: { type: 'string', enum: ['originator', 'beneficiary'] },
  matches: { type: 'array', items: obj({ entry_id: { type: 'integer' }, name: str, score: { type: 'number' } }) },
  list_version: str,
  detected_at: { type: 'string', format: 'date-time' },
});
