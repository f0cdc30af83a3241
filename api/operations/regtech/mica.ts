import { type MicaCheck } from '../../../domain/regtech/mica';

/** POST /mica/issuers and /mica/whitepapers bodies (GraphQL checks its input against them too). */
export const issuerBody = {
  type: 'object',
  required: ['name', 'authorisation'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 200 },
    lei: { type: ['string', 'null'], pattern: '^[A-Z0-9]{20}$' },
    authorisation: { type: 'string', enum: ['credit_institution', 'e_money_institution', 'art_issuer', 'casp', 'none'] },
    home_member_state: { type: ['string', 'null'], pattern: '^[A-Za-z]{2}$' },
    authorised_at: { type: ['string', 'null'], format: 'date' },
    notes: { type: ['string', 'null'], maxLength: 1000 },
  },
};

export const whitepaperBody = {
  type: 'object',
  required: ['asset_code', 'issuer_id', 'sha256', 'version', 'published_at'],
  additionalProperties: false,
  properties: {
    asset_code: { type: 'string', minLength: 1, maxLength: 12 },
    issuer_id: { type: 'string', minLength: 1, maxLength: 100 },
    sha256: { type: 'string', minLength: 64, maxLength: 64 },
    version: { type: 'string', minLength: 1, maxLength: 20 },
    published_at: { type: 'string', format: 'date' },
    status: { type: 'string', enum: ['registered', 'withdrawn'], default: 'registered' },
  },
};

export function presentMicaCheck(c: MicaCheck) {
  return {
    check_id: c.id,
    asset_type: c.assetType,
    is_compliant: c.isCompliant,
    classification: c.classification,
    classification_basis: c.classificationBasis,
    issuer: { id: c.issuer.id, name: c.issuer.name, authorisation: c.issuer.authorisation, home_member_state: c.issuer.homeMemberState },
    whitepaper: c.whitepaper ? { id: c.whitepaper.id, asset_code: c.whitepaper.assetCode, version: c.whitepaper.version, status: c.whitepaper.status, published_at: c.whitepaper.publishedAt } : null,
    compliance_issues: c.complianceIssues,
    recommendations: c.recommendations,
    checked_at: c.checkedAt.toISOString(),
  };
}
