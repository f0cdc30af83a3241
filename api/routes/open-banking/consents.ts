/**
 * Berlin Group consent routes for TPPs (mounted under BG_PREFIX, the 1.3.12 paths as they are):
 * establish, read, status, delete, and the consent's SCA authorisation sub-resources, answering the
 * standard's bodies unwrapped. The TPP is identified by its certificate and needs the PSP_AI role
 * (context.ts). `establishConsent` also serves the platform's enveloped POST /consents (platform.ts).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { authorisationBody, getAuthorisation, listAuthorisationIds, startAuthorisation } from '../../../domain/open-banking/authorisations';
import { createConsent, terminateConsentByTpp } from '../../../domain/open-banking/consent-lifecycle';
import { effectiveStatus, tppConsent, type Consent, type ConsentRequest } from '../../../domain/open-banking/consents';
import { DomainError } from '../../../domain/platform/errors';
import { errorResponses } from '../../schemas';
import { baseUrlOf } from '../../operations/caller';
import { headerOf, requestIdOf, scaApproachOf, tppCall, tppOf } from './context';
import { BG_PREFIX, TAGS, authorisationIdsSchema, createdHeaders, headersSchema, scaStatusSchema, startAuthorisationSchema, startedHeaders } from '../../operations/open-banking/schemas';

const accountRef = { type: 'object', required: ['iban'], additionalProperties: false, properties: { iban: { type: 'string', maxLength: 34 }, currency: { type: 'string', pattern: '^[A-Z]{3}$' } } };
const refs = { type: 'array', maxItems: 100, items: accountRef };
const wide = { type: 'string', enum: ['allAccounts', 'allAccountsWithOwnerName'] };
const accessSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { accounts: refs, balances: refs, transactions: refs, availableAccounts: wide, availableAccountsWithBalance: wide, allPsd2: wide },
};
export const consentBody = {
  type: 'object',
  required: ['access', 'recurringIndicator', 'validUntil', 'frequencyPerDay'],
  additionalProperties: false,
  properties: {
    access: accessSchema,
    recurringIndicator: { type: 'boolean' },
    validUntil: { type: 'string', format: 'date', description: 'Last day of validity; 9999-12-31 asks for the longest the platform grants.' },
    frequencyPerDay: { type: 'integer', minimum: 1, maximum: 100 },
    combinedServiceIndicator: { type: 'boolean' },
  },
};
const href = { type: 'object', properties: { href: { type: 'string' } } };
const links = { type: 'object', additionalProperties: href };
/** consentsResponse-201, plus the granted validUntil and frequencyPerDay (the platform may grant less than asked). */
export const consentCreated = {
  type: 'object',
  required: ['consentStatus', 'consentId', '_links'],
  properties: { consentStatus: { type: 'string' }, consentId: { type: 'string' }, validUntil: { type: 'string' }, frequencyPerDay: { type: 'integer' }, _links: links },
};
const consentInformation = {
  type: 'object',
  required: ['access', 'recurringIndicator', 'validUntil', 'frequencyPerDay', 'lastActionDate', 'consentStatus'],
  properties: {
    access: { type: 'object', additionalProperties: true },
    recurringIndicator: { type: 'boolean' },
    validUntil: { type: 'string' },
    frequencyPerDay: { type: 'integer' },
    lastActionDate: { type: 'string' },
    consentStatus: { type: 'string' },
    _links: links,
  },
};
const consentParams = { type: 'object', required: ['consentId'], properties: { consentId: { type: 'string', maxLength: 64 } } };
const authorisationParams = {
  type: 'object',
  required: ['consentId', 'authorisationId'],
  properties: { consentId: { type: 'string', maxLength: 64 }, authorisationId: { type: 'string', maxLength: 64 } },
};

export const CREATE_CONSENT_DOC =
  'Status received until the customer authorises it (start an authorisation: _links.startAuthorisation). validUntil is capped at 180 days from today (the re-authentication period of RTS 2018/389 Art. 10); frequencyPerDay at 4 (Art. 36(5)); a one-off consent (recurringIndicator false) must ask for frequencyPerDay 1. ' +
  'An X-Request-ID this TPP used before answers that consent again (201, the same body) and records nothing. A new recurring consent, once valid, ends the TPP\'s older recurring consent for the same customer.';
export const consentRequestHeaders = headersSchema(['psu-id', 'tpp-redirect-uri', 'tpp-nok-redirect-uri', 'tpp-redirect-preferred', 'tpp-decoupled-preferred', 'psu-ip-address']);

const selfOf = (base: string, c: Consent) => `${base}${BG_PREFIX}/consents/${c.id}`;

function consentLinks(base: string, c: Consent) {
  const self = selfOf(base, c);
  return { self: { href: self }, status: { href: `${self}/status` }, ...(c.status === 'received' ? { startAuthorisation: { href: `${self}/authorisations` } } : {}) };
}

/**
 * createConsent: the consent (a replayed X-Request-ID finds the one it created). Sets the 201 and
 * its headers, answered alike on a replay: POST /v1/consents has no other success status.
 */
export async function establishConsent(request: FastifyRequest<{ Body: ConsentRequest }>, reply: FastifyReply) {
  const { consent } = await createConsent(tppOf(request), request.body, {
    requestId: requestIdOf(request),
    psuId: headerOf(request, 'psu-id'),
    redirectUri: headerOf(request, 'tpp-redirect-uri'),
    nokRedirectUri: headerOf(request, 'tpp-nok-redirect-uri'),
  });
  const base = baseUrlOf(request);
  reply.code(201).header('location', selfOf(base, consent)).header('aspsp-sca-approach', scaApproachOf(request));
  return { consentStatus: effectiveStatus(consent), consentId: consent.id, validUntil: consent.validUntil, frequencyPerDay: consent.frequencyPerDay, _links: consentLinks(base, consent) };
}

export function consentRoutes(app: FastifyInstance): void {
  const ai = { config: { public: true, idempotency: false as const }, preValidation: tppCall('PSP_AI') };

  app.post<{ Body: ConsentRequest }>(
    '/consents',
    {
      ...ai,
      schema: {
        tags: TAGS,
        summary: 'Establish an account-information consent (Berlin Group createConsent)',
        description: CREATE_CONSENT_DOC,
        headers: consentRequestHeaders,
        body: consentBody,
        response: { 201: { ...consentCreated, description: 'Created (also for a replayed X-Request-ID)', headers: createdHeaders }, ...errorResponses },
      },
    },
    establishConsent,
  );

  app.get<{ Params: { consentId: string } }>(
    '/consents/:consentId',
    {
      ...ai,
      schema: { tags: TAGS, summary: 'Read a consent (Berlin Group getConsentInformation)', headers: headersSchema([]), params: consentParams, response: { 200: consentInformation, ...errorResponses } },
    },
    async (request) => {
      const c = await tppConsent(tppOf(request), request.params.consentId);
      return {
        access: c.access,
        recurringIndicator: c.recurring,
        validUntil: c.validUntil,
        frequencyPerDay: c.frequencyPerDay,
        lastActionDate: c.statusChangedAt.toISOString().slice(0, 10),
        consentStatus: effectiveStatus(c),
        _links: consentLinks(baseUrlOf(request), c),
      };
    },
  );

  app.get<{ Params: { consentId: string } }>(
    '/consents/:consentId/status',
    {
      ...ai,
      schema: {
        tags: TAGS,
        summary: 'A consent\'s status (Berlin Group getConsentStatus)',
        headers: headersSchema([]),
        params: consentParams,
        response: { 200: { type: 'object', required: ['consentStatus'], properties: { consentStatus: { type: 'string' } } }, ...errorResponses },
      },
    },
    async (request) => ({ consentStatus: effectiveStatus(await tppConsent(tppOf(request), request.params.consentId)) }),
  );

  app.delete<{ Params: { consentId: string } }>(
    '/consents/:consentId',
    {
      ...ai,
      schema: {
        tags: TAGS,
        summary: 'End a consent (Berlin Group deleteConsent): terminatedByTpp',
        description: 'A consent already in a final status keeps it (final statuses never change); the answer is 204 either way.',
        headers: headersSchema([]),
        params: consentParams,
        response: { 204: { type: 'null', description: 'Ended (or already final)' }, ...errorResponses },
      },
    },
    async (request, reply) => {
      await terminateConsentByTpp(tppOf(request), request.params.consentId);
      reply.code(204);
      return null;
    },
  );

  app.post<{ Params: { consentId: string } }>(
    '/consents/:consentId/authorisations',
    {
      ...ai,
      schema: {
        tags: TAGS,
        summary: 'Start the customer\'s SCA of a consent (Berlin Group startConsentAuthorisation)',
        description:
          'REDIRECT by default: send the customer to _links.scaRedirect, a platform page where they sign in (password or passkey) and approve or deny. DECOUPLED when TPP-Decoupled-Preferred is true and PSU-ID names the customer (their sign-in email): the customer approves in the mobile app after a push. Poll _links.scaStatus.',
        headers: headersSchema(['psu-id', 'tpp-decoupled-preferred', 'psu-ip-address']),
        params: consentParams,
        response: { 201: { ...startAuthorisationSchema, description: 'Started', headers: startedHeaders }, ...errorResponses },
      },
    },
    async (request, reply) => {
      const tpp = tppOf(request);
      const consent = await tppConsent(tpp, request.params.consentId);
      if (consent.status !== 'received') throw new DomainError('STATUS_INVALID', `The consent is ${consent.status}; only a received consent can be authorised`);
      const a = await startAuthorisation(tpp, { kind: 'consent', id: consent.id }, {
        decoupledPreferred: headerOf(request, 'tpp-decoupled-preferred') === 'true',
        psuId: headerOf(request, 'psu-id') ?? consent.psuId,
        description: `${tpp.name} asks to see your account information until ${consent.validUntil}`,
      });
      reply.code(201).header('aspsp-sca-approach', a.scaApproach);
      return authorisationBody(a, baseUrlOf(request), `${BG_PREFIX}/consents/${consent.id}/authorisations/${a.id}`);
    },
  );

  app.get<{ Params: { consentId: string } }>(
    '/consents/:consentId/authorisations',
    {
      ...ai,
      schema: { tags: TAGS, summary: 'The consent\'s authorisations (Berlin Group getConsentAuthorisation)', headers: headersSchema([]), params: consentParams, response: { 200: authorisationIdsSchema, ...errorResponses } },
    },
    async (request) => {
      const tpp = tppOf(request);
      const consent = await tppConsent(tpp, request.params.consentId);
      return { authorisationIds: await listAuthorisationIds(tpp, { kind: 'consent', id: consent.id }) };
    },
  );

  app.get<{ Params: { consentId: string; authorisationId: string } }>(
    '/consents/:consentId/authorisations/:authorisationId',
    {
      ...ai,
      schema: { tags: TAGS, summary: 'SCA status of a consent authorisation (Berlin Group getConsentScaStatus)', headers: headersSchema([]), params: authorisationParams, response: { 200: scaStatusSchema, ...errorResponses } },
    },
    async (request) => {
      const tpp = tppOf(request);
      const consent = await tppConsent(tpp, request.params.consentId);
      const a = await getAuthorisation(tpp, { kind: 'consent', id: consent.id }, request.params.authorisationId);
      return { scaStatus: a.scaStatus };
    },
  );
}
