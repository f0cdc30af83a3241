/** Shapes shared by the open-banking routes (Berlin Group names). */
import { TPP_CERTIFICATE_HEADER } from '../../../domain/openbanking/certificates';
import { SCA_STATUSES } from '../../../domain/openbanking/authorisations';

export const TAGS = ['Open banking'];

const HEADER_DOCS: Record<string, string> = {
  'x-request-id': 'Required on every call: a UUID chosen by the TPP, echoed on the response (400 FORMAT_ERROR without it).',
  [TPP_CERTIFICATE_HEADER]:
    "The TPP's eIDAS certificate (URL-encoded PEM) as the TLS-terminating proxy forwards the mutual-TLS client certificate; the proxy must overwrite any value a client sends.",
  'consent-id': 'The account-information consent the read is made under.',
  'psu-id': "The customer as the TPP knows them: their sign-in email (needed for the decoupled approach).",
  'psu-ip-address': 'The customer\'s IP address when the customer is present: such reads are not counted against frequencyPerDay.',
  'tpp-redirect-uri': 'Where the customer returns after approving on the platform page: an https URL on one of the domains of the TPP certificate (subjectAltName dNSName), else 400 FORMAT_ERROR.',
  'tpp-nok-redirect-uri': 'Where the customer returns after denying or failing: an https URL on one of the TPP certificate domains, else 400 FORMAT_ERROR.',
  'tpp-redirect-preferred': 'true: the redirect approach (the default).',
  'tpp-decoupled-preferred': 'true with PSU-ID: the customer approves in the mobile app.',
};

/** The request headers of a Berlin Group call: X-Request-ID and the certificate always, plus `extra`. */
export function headersSchema(extra: string[]) {
  const names = ['x-request-id', TPP_CERTIFICATE_HEADER, ...extra];
  return { type: 'object', properties: Object.fromEntries(names.map((n) => [n, { type: 'string', description: HEADER_DOCS[n] ?? '' }])) };
}

const href = { type: 'object', properties: { href: { type: 'string' } } };
export const startAuthorisationSchema = {
  type: 'object',
  properties: {
    scaStatus: { type: 'string', enum: [...SCA_STATUSES] },
    authorisationId: { type: 'string' },
    scaApproach: { type: 'string', enum: ['REDIRECT', 'DECOUPLED'] },
    psuMessage: { type: 'string' },
    _links: { type: 'object', properties: { scaRedirect: href, scaStatus: href } },
  },
};
export const authorisationIdsSchema = { type: 'object', properties: { authorisationIds: { type: 'array', items: { type: 'string' } } } };
export const scaStatusSchema = { type: 'object', properties: { scaStatus: { type: 'string', enum: [...SCA_STATUSES] } } };
