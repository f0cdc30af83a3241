import { effectiveStatus, type Consent } from '../../../domain/open-banking/consents';
import { timestamp } from '../../schemas';

export const idParams = (name: string) => ({ type: 'object', required: [name], properties: { [name]: { type: 'string', maxLength: 64 } } });
const nstr = { type: ['string', 'null'] };

export const requestSchema = {
  type: 'object',
  properties: {
    authorisation_id: { type: 'string' },
    sca_status: { type: 'string' },
    sca_approach: { type: 'string' },
    environment: { type: 'string' },
    subject: { type: 'string', enum: ['consent', 'payment'] },
    tpp: { type: 'object', properties: { name: { type: 'string' }, authorisation_number: { type: 'string' } } },
    consent: { type: ['object', 'null'], additionalProperties: true },
    expires_at: timestamp,
  },
};
export const decisionSchema = {
  type: 'object',
  properties: { sca_status: { type: 'string', enum: ['finalised', 'failed'] }, reason: { type: 'string' }, redirect_uri: nstr },
};
export const consentSchema = {
  type: 'object',
  properties: {
    consent_id: { type: 'string' },
    tpp_name: { type: 'string' },
    status: { type: 'string' },
    access: { type: 'object', additionalProperties: true },
    recurring: { type: 'boolean' },
    valid_until: { type: 'string' },
    frequency_per_day: { type: 'integer' },
    authorised_at: { type: ['string', 'null'], format: 'date-time' },
    created_at: timestamp,
  },
};

/** A consent as its customer sees it (status: expired once past its last day); GraphQL shows the same (api/graphql/areas/open-banking.ts). */
export function presentConsent(c: Consent & { tppName?: string }) {
  return {
    consent_id: c.id,
    ...(c.tppName ? { tpp_name: c.tppName } : {}),
    status: effectiveStatus(c),
    access: c.access,
    recurring: c.recurring,
    valid_until: c.validUntil,
    frequency_per_day: c.frequencyPerDay,
    authorised_at: c.authorisedAt?.toISOString() ?? null,
    created_at: c.createdAt.toISOString(),
  };
}
