/**
 * The customer's side of open banking (under /api/v1/open-banking, platform credentials): what an
 * SCA authorisation asks and the customer's decision (the platform page and the mobile app call
 * these), and the consents the customer gave, which they can revoke.
 */
import type { FastifyInstance } from 'fastify';
import { revokeConsentByPsu } from '../../../domain/open-banking/consent-lifecycle';
import { customerConsents } from '../../../domain/open-banking/consents';
import { decideSca, scaRequest } from '../../../domain/open-banking/sca';
import { envelope, errorResponses } from '../../schemas';
import { principalOf } from '../../types';
import { TAGS } from '../../operations/open-banking/schemas';
import { presentConsent, idParams, requestSchema, decisionSchema, consentSchema } from '../../operations/open-banking/customer';

export function customerRoutes(app: FastifyInstance): void {
  app.get<{ Params: { authorisationId: string } }>(
    '/sca/:authorisationId',
    {
      // The authorisation id is an unguessable capability (it is only in the TPP's redirect link or the customer's push).
      config: { public: true },
      schema: {
        tags: TAGS,
        summary: 'What an SCA authorisation asks the customer to approve',
        security: [],
        params: idParams('authorisationId'),
        response: { 200: envelope(requestSchema), ...errorResponses },
      },
    },
    async (request) => {
      const r = await scaRequest(request.params.authorisationId);
      return {
        data: {
          authorisation_id: r.authorisation.id,
          sca_status: r.authorisation.scaStatus,
          sca_approach: r.authorisation.scaApproach,
          environment: r.authorisation.environment,
          subject: r.authorisation.subject.kind,
          tpp: { name: r.tpp.name, authorisation_number: r.tpp.authorisationNumber },
          consent: r.consent,
          expires_at: r.authorisation.expiresAt.toISOString(),
        },
      };
    },
  );

  app.post<{ Params: { authorisationId: string }; Body: { decision: 'approve' | 'deny'; account_ids?: string[] } }>(
    '/sca/:authorisationId',
    {
      config: { idempotency: false },
      schema: {
        tags: TAGS,
        summary: 'The customer approves or denies an SCA authorisation',
        description:
          'Needs the customer\'s login session (a bearer access token from password or passkey sign-in; an API key is refused with 403 LOGIN_SESSION_REQUIRED). For a consent naming all accounts (allPsd2, availableAccounts) the customer may pick account_ids among their open accounts. ' +
          'A consent naming an account that is not the customer\'s fails (sca_status failed, consent rejected). Another customer\'s decoupled authorisation is 404; a finished one 409 STATUS_INVALID.',
        params: idParams('authorisationId'),
        body: {
          type: 'object',
          required: ['decision'],
          additionalProperties: false,
          properties: { decision: { type: 'string', enum: ['approve', 'deny'] }, account_ids: { type: 'array', maxItems: 100, items: { type: 'string', maxLength: 64 } } },
        },
        response: { 200: envelope(decisionSchema), ...errorResponses },
      },
    },
    async (request) => {
      const r = await decideSca(principalOf(request), request.params.authorisationId, request.body.decision, { accountIds: request.body.account_ids });
      return { data: { sca_status: r.scaStatus, ...(r.reason ? { reason: r.reason } : {}), redirect_uri: r.redirectUri } };
    },
  );

  app.get(
    '/my/consents',
    {
      schema: {
        tags: TAGS,
        summary: 'Consents you gave to third parties',
        response: { 200: envelope({ type: 'array', items: consentSchema }), ...errorResponses },
      },
    },
    async (request) => {
      const p = principalOf(request);
      return { data: (await customerConsents(p.userId, p.environment)).map(presentConsent) };
    },
  );

  app.delete<{ Params: { consentId: string } }>(
    '/my/consents/:consentId',
    {
      schema: {
        tags: TAGS,
        summary: 'Revoke a consent you gave (revokedByPsu): the third party can no longer read',
        params: idParams('consentId'),
        response: { 200: envelope(consentSchema), ...errorResponses },
      },
    },
    async (request) => {
      const p = principalOf(request);
      return { data: presentConsent(await revokeConsentByPsu(p.userId, p.environment, request.params.consentId)) };
    },
  );
}
