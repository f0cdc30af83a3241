/** Shapes shared by the open-banking routes (Berlin Group names). */
import { TPP_CERTIFICATE_HEADER } from '../../../domain/open-banking/certificates';
import { SCA_STATUSES } from '../../../domain/open-banking/authorisations';

export const TAGS = ['Open banking'];

/**
 * The Berlin Group API's server URL is {host}{BG_SERVER} (the 1.3.12 document's example server is
 * https://api.testbank.com/psd2), so every path of the official document (/v1/consents,
 * /v1/accounts, /v1/payments/{payment-product} …) is served as is under it, with the standard's
 * bodies unwrapped. The platform's own rows (docs/open-banking.md) stay under /api/v1/open-banking.
 */
export const BG_SERVER = '/api/v1/open-banking/psd2';
/** Where index.ts mounts the Berlin Group routes: the server URL plus the document's /v1. */
export const BG_PREFIX = `${BG_SERVER}/v1`;

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
/**
 * The 201 response headers the standard defines on creations (createConsent, initiatePayment):
 * the created resource's absolute URL and the SCA approach the platform will run.
 */
export const createdHeaders = {
  Location: { type: 'string', description: 'The created resource (absolute URL)' },
  'ASPSP-SCA-Approach': { type: 'string', enum: ['REDIRECT', 'DECOUPLED'], description: 'REDIRECT unless the request asked for DECOUPLED (TPP-Decoupled-Preferred: true with PSU-ID)' },
};
/** startConsentAuthorisation / startPaymentAuthorisation: the approach this authorisation runs. */
export const startedHeaders = { 'ASPSP-SCA-Approach': createdHeaders['ASPSP-SCA-Approach'] };

export const authorisationIdsSchema = { type: 'object', properties: { authorisationIds: { type: 'array', items: { type: 'string' } } } };
export const scaStatusSchema = { type: 'object', properties: { scaStatus: { type: 'string', enum: [...SCA_STATUSES] } } };
