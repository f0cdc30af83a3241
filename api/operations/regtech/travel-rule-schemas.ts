/** Wire schemas of the Travel Rule routes. */
import { decimalString, envelope, errorResponses, timestamp } from '../../schemas';

const TAG = 'Regtech';
const str = (max = 200) => ({ type: 'string', minLength: 1, maxLength: max });

const party = {
  type: 'object',
  required: ['name'],
  additionalProperties: false,
  properties: {
    name: str(),
    account_number: str(100),
    institution_name: str(),
    institution_country: { type: 'string', pattern: '^[A-Za-z]{2}$' },
    type: { type: 'string', enum: ['natural', 'legal'], default: 'natural' },
  },
};

export const checkRecordSchema = {
  type: 'object',
  properties: {
    check_id: { type: 'string' },
    transfer_id: { type: 'string' },
    is_compliant: { type: 'boolean' },
    risk_level: { type: 'string', enum: ['low', 'medium', 'high'] },
    applicable_jurisdiction: { type: 'string' },
    applicable_regulations: { type: 'array', items: { type: 'string' } },
    originator_verified: { type: 'boolean' },
    beneficiary_verified: { type: 'boolean' },
    threshold_analysis: {
      type: 'object',
      properties: {
        amount_usd: { type: 'string' },
        exceeds_threshold: { type: 'boolean' },
        threshold_amount: { type: 'string', description: 'The threshold in USD' },
        full_identification_required: { type: 'boolean' },
        threshold_currency: { type: 'string' },
        threshold_in_currency: { type: 'string' },
        usd_rate: { type: 'string', description: 'USD per unit of the transfer currency used' },
        usd_rate_as_of: timestamp,
        source: { type: 'string' },
        as_of: { type: 'string' },
      },
    },
    sanctions_screening: {
      type: 'object',
      properties: {
        originator_cleared: { type: 'boolean' },
        beneficiary_cleared: { type: 'boolean' },
        screening_provider: { type: 'string' },
        screened_at: timestamp,
        list_version: { type: ['string', 'null'] },
      },
    },
    compliance_issues: { type: 'array', items: { type: 'object', properties: { code: { type: 'string' }, description: { type: 'string' } } } },
    recommendations: { type: 'array', items: { type: 'string' } },
    checked_at: timestamp,
    valid_until: timestamp,
    ivms101: { type: 'object', additionalProperties: true, description: 'The parties as IVMS101 (2023), as stored' },
  },
};

export const checkSchema = {
  tags: [TAG],
  summary: 'Travel Rule check of a transfer',
  description:
    'The parties become IVMS101 (2023) data (validated with the ivms101 library); the amount is converted to USD at the platform’s rates; the ' +
    'jurisdiction’s threshold (FATF 1,000 USD, EU 0 EUR with self-hosted wallet proof above 1,000 EUR, US 3,000 USD, CA 1,000 CAD, SG 1,500 SGD, ' +
    'CH 0 CHF, GB 1,000 EUR; dated with sources in docs/regtech.md) decides whether full identification is required (at or above it); both ' +
    'parties are screened against the OFAC SDN list. A failing check is 201 with is_compliant false and compliance_issues (codes: ' +
    'ORIGINATOR_INFO_INCOMPLETE, BENEFICIARY_INFO_INCOMPLETE, BENEFICIARY_VASP_MISSING, BENEFICIARY_VASP_COUNTRY_MISSING, ' +
    'SELF_HOSTED_WALLET_OWNERSHIP_UNVERIFIED, SANCTIONS_HIT, SANCTIONS_SCREENING_UNAVAILABLE). transfer_id is one of your transfers or bridge ' +
    'transfers (else 404). Unsupported jurisdiction: 422 UNSUPPORTED_JURISDICTION.',
  body: {
    type: 'object',
    required: ['transfer_id', 'originator', 'beneficiary', 'transfer_details', 'jurisdiction'],
    additionalProperties: false,
    properties: {
      transfer_id: str(100),
      originator: party,
      beneficiary: party,
      transfer_details: {
        type: 'object',
        required: ['amount', 'currency'],
        additionalProperties: false,
        properties: { amount: decimalString, currency: str(12), asset_type: str(40), purpose: str(200) },
      },
      jurisdiction: str(8),
    },
  },
  response: { 201: envelope(checkRecordSchema), ...errorResponses },
};

export const transfersSchema = {
  tags: [TAG],
  summary: 'Record a transfer’s Travel Rule parties and check them',
  description:
    'Body: transfer_id, originator {name, account}, beneficiary {name, vasp_id, account?}, amount, currency, jurisdiction (default FATF). The same ' +
    'check as POST /api/v1/regtech/travel-rule/check; the beneficiary’s account is needed for beneficiary_verified.',
  body: {
    type: 'object',
    required: ['transfer_id', 'originator', 'beneficiary', 'amount', 'currency'],
    additionalProperties: false,
    properties: {
      transfer_id: str(100),
      originator: { type: 'object', required: ['name'], additionalProperties: false, properties: { name: str(), account: str(100) } },
      beneficiary: { type: 'object', required: ['name'], additionalProperties: false, properties: { name: str(), vasp_id: str(), account: str(100) } },
      amount: decimalString,
      currency: str(12),
      jurisdiction: str(8),
    },
  },
  response: { 201: envelope(checkRecordSchema), ...errorResponses },
};

export const getCheckSchema = {
  tags: [TAG],
  summary: 'A stored Travel Rule check',
  params: { type: 'object', required: ['id'], properties: { id: str(100) } },
  response: { 200: envelope(checkRecordSchema), ...errorResponses },
};
