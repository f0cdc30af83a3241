/**
 * The platform spec's own open-banking rows ({api_root}/v1/open-banking/consents, /accounts and
 * /payments): the same operations as the Berlin Group createConsent, getAccountList and
 * initiatePayment (same checks, same records, same X-Request-ID replay), answered in the platform's
 * envelope `{ data: <Berlin Group body> }`. POST /payments names the product in the body, a
 * platform extension: the standard's form is /v1/payments/{payment-product} under BG_PREFIX.
 * Links in the bodies point to the Berlin Group routes, where everything after creation lives.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { BgPaymentInitiation } from '../../../domain/open-banking/payment-body';
import type { ConsentRequest } from '../../../domain/open-banking/consents';
import { envelope, errorResponses } from '../../schemas';
import { aisErrorResponses, aisHeaders, accountListBody, withBalanceQuery } from '../../operations/open-banking/account-presenters';
import { ACCOUNT_LIST_DOC, accountList, retryAfterOn429 } from './accounts';
import { CREATE_CONSENT_DOC, consentBody, consentCreated, consentRequestHeaders, establishConsent } from './consents';
import { tppCall } from './context';
import { initiationResponse, paymentInitiationWithProduct } from '../../operations/open-banking/payment-schemas';
import { INITIATION_DOC, initiate, initiationRequestHeaders } from './payments';
import { BG_SERVER, TAGS, createdHeaders } from '../../operations/open-banking/schemas';

const ENVELOPED = `The platform's envelope around the Berlin Group body; the standard's own route (server URL ${BG_SERVER}) answers the body unwrapped.`;

export function platformRoutes(app: FastifyInstance): void {
  app.post<{ Body: ConsentRequest }>(
    '/consents',
    {
      config: { public: true, idempotency: false },
      preValidation: tppCall('PSP_AI'),
      schema: {
        tags: TAGS,
        summary: 'Establish an account-information consent (platform envelope; Berlin Group POST /v1/consents)',
        description: `${ENVELOPED} ${CREATE_CONSENT_DOC}`,
        headers: consentRequestHeaders,
        body: consentBody,
        response: { 201: { ...envelope(consentCreated), description: 'Created (also for a replayed X-Request-ID)', headers: createdHeaders }, ...errorResponses },
      },
    },
    async (request, reply) => ({ data: await establishConsent(request, reply) }),
  );

  app.get<{ Querystring: { withBalance?: boolean } }>(
    '/accounts',
    {
      config: { public: true },
      preValidation: tppCall('PSP_AI'),
      onSend: retryAfterOn429,
      schema: {
        tags: TAGS,
        summary: 'Read account list (platform envelope; Berlin Group GET /v1/accounts)',
        description: `${ENVELOPED} ${ACCOUNT_LIST_DOC}`,
        security: [],
        headers: aisHeaders,
        querystring: withBalanceQuery,
        response: { 200: envelope(accountListBody), ...aisErrorResponses(false, true) },
      },
    },
    async (request) => ({ data: await accountList(request) }),
  );

  app.post<{ Body: BgPaymentInitiation & { paymentProduct: string } }>(
    '/payments',
    {
      config: { public: true, idempotency: false },
      preValidation: tppCall('PSP_PI'),
      schema: {
        tags: TAGS,
        summary: 'Initiate a payment, product named in the body (platform extension; Berlin Group POST /v1/payments/{payment-product})',
        description: `${ENVELOPED} The product (paymentProduct) is in the JSON body; otherwise as the standard's initiation. ${INITIATION_DOC}`,
        headers: initiationRequestHeaders,
        body: paymentInitiationWithProduct,
        response: { 201: { ...envelope(initiationResponse), description: 'Created (also for a replayed X-Request-ID)', headers: createdHeaders }, ...errorResponses },
      },
    },
    async (request: FastifyRequest<{ Body: BgPaymentInitiation & { paymentProduct: string } }>, reply) => {
      const { paymentProduct, ...body } = request.body;
      return { data: await initiate(request, reply, paymentProduct, { kind: 'json', body }) };
    },
  );
}
