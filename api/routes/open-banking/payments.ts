/**
 * Berlin Group payment initiation routes for TPPs (mounted under BG_PREFIX: the 1.3.12 paths
 * /v1/payments/{payment-product}…, payment-service "payments"): initiate (JSON, or a pain.001
 * document for the SEPA products), read, status, cancel, and the payment's SCA authorisation
 * sub-resources, answering the standard's bodies unwrapped. The TPP is identified by its
 * certificate and needs the PSP_PI role; X-Request-ID makes initiation replay-safe, so the
 * platform's Idempotency-Key is not used. `initiate` also serves the platform's enveloped
 * POST /payments with the product in the body (platform.ts).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { getConfig } from '../../../iso20022/config';
import { authorisationBody } from '../../../domain/open-banking/authorisations';
import type { BgPaymentInitiation } from '../../../domain/open-banking/payment-body';
import {
  cancelPayment,
  getPayment,
  initiatePayment,
  paymentAuthorisation,
  paymentAuthorisationIds,
  startPaymentAuthorisation,
  type PaymentBody,
} from '../../../domain/open-banking/payments';
import { errorResponses } from '../../schemas';
import { baseUrlOf } from '../../operations/caller';
import { headerOf, requestIdOf, scaApproachOf, tppCall, tppOf } from './context';
import {
  authorisationParams,
  authorisationPath,
  initiationResponse,
  paymentBodyByType,
  paymentParams,
  paymentResponse,
  presentInitiation,
  presentPayment,
  presentStatus,
  productParams,
  selfPath,
  statusResponse,
  XML_TYPES,
} from '../../operations/open-banking/payment-schemas';
import { TAGS, authorisationIdsSchema, createdHeaders, headersSchema, scaStatusSchema, startAuthorisationSchema, startedHeaders } from '../../operations/open-banking/schemas';

type PaymentParams = { paymentProduct: string; paymentId: string };

const bodyOf = (b: unknown): PaymentBody => (typeof b === 'string' ? { kind: 'xml', xml: b } : { kind: 'json', body: b as BgPaymentInitiation });

export const INITIATION_DOC =
  'Received as RCVD; the customer then authorises it (start an authorisation: _links.startAuthorisation) within OPEN_BANKING_SCA_TIMEOUT_SECONDS ' +
  '(15 minutes; else RJCT with reason AB05). Once authorised (ACTC) it goes out on the product\'s rail (sepa-credit-transfers: SEPA CT, ' +
  'instant-sepa-credit-transfers: SEPA Instant, cross-border-credit-transfers: SWIFT), which reserves the funds: ACSP while the rail has it, ' +
  'ACSC when settled, RJCT with the ISO reason in tppMessages otherwise (AM04 insufficient funds). A debtor IBAN that is not an account here is ' +
  'accepted now and rejected at SCA (AC02). An X-Request-ID this TPP used before answers that payment again (201, the same body) and creates nothing.';

/**
 * initiatePayment: the payment (a replayed X-Request-ID finds the one it created). Sets the 201 and
 * its headers, answered alike on a replay: the standard's initiation has no other success status.
 */
export async function initiate(request: FastifyRequest, reply: FastifyReply, product: string, body: PaymentBody) {
  const { payment } = await initiatePayment(tppOf(request), { product, requestId: requestIdOf(request), body });
  const base = baseUrlOf(request);
  reply.code(201).header('location', `${base}${selfPath(payment)}`).header('aspsp-sca-approach', scaApproachOf(request));
  return presentInitiation(payment, base);
}

export const initiationRequestHeaders = headersSchema(['psu-ip-address', 'psu-id', 'tpp-redirect-preferred', 'tpp-decoupled-preferred']);

/** Payment initiation routes; mounted by index.ts under BG_PREFIX. */
export function paymentRoutes(app: FastifyInstance): void {
  // Its own scope, so the XML parser applies to these routes only.
  app.register(async (scoped) => {
    const { maxBytes } = getConfig();
    scoped.addContentTypeParser(XML_TYPES, { parseAs: 'string', bodyLimit: maxBytes }, (_req, body, done) => done(null, body));
    routes(scoped, maxBytes);
  });
}

function routes(app: FastifyInstance, maxBytes: number): void {
  const pi = { config: { public: true, idempotency: false as const }, preValidation: tppCall('PSP_PI') };
  const initiationHeaders = initiationRequestHeaders;

  app.post<{ Params: { paymentProduct: string }; Body: unknown }>(
    '/payments/:paymentProduct',
    {
      ...pi,
      bodyLimit: maxBytes,
      schema: {
        tags: TAGS,
        summary: 'Initiate a payment (Berlin Group initiatePayment)',
        description: `A Berlin Group JSON body, or for the SEPA products a pain.001 document (application/xml). ${INITIATION_DOC}`,
        headers: initiationHeaders,
        params: productParams,
        body: paymentBodyByType,
        response: { 201: { ...initiationResponse, description: 'Created (also for a replayed X-Request-ID)', headers: createdHeaders }, ...errorResponses },
      },
    },
    async (request, reply) => initiate(request, reply, request.params.paymentProduct, bodyOf(request.body)),
  );

  app.get<{ Params: PaymentParams }>(
    '/payments/:paymentProduct/:paymentId',
    {
      ...pi,
      schema: {
        tags: TAGS,
        summary: 'Read a payment (Berlin Group getPaymentInformation)',
        description: 'The payment as initiated (JSON, also for a pain.001 initiation) with its transactionStatus. Another TPP\'s payment is 404 RESOURCE_UNKNOWN.',
        headers: headersSchema([]),
        params: paymentParams,
        response: { 200: paymentResponse, ...errorResponses },
      },
    },
    async (request) => presentPayment(await getPayment(tppOf(request), request.params.paymentProduct, request.params.paymentId)),
  );

  app.get<{ Params: PaymentParams }>(
    '/payments/:paymentProduct/:paymentId/status',
    {
      ...pi,
      schema: {
        tags: TAGS,
        summary: 'A payment\'s transaction status (Berlin Group getPaymentInitiationStatus)',
        description: 'ISO 20022 status: RCVD, ACTC, ACSP, ACSC, RJCT (reason in tppMessages) or CANC.',
        headers: headersSchema([]),
        params: paymentParams,
        response: { 200: statusResponse, ...errorResponses },
      },
    },
    async (request) => presentStatus(await getPayment(tppOf(request), request.params.paymentProduct, request.params.paymentId)),
  );

  app.delete<{ Params: PaymentParams }>(
    '/payments/:paymentProduct/:paymentId',
    {
      ...pi,
      config: { ...pi.config, permission: 'delete' },
      schema: {
        tags: TAGS,
        summary: 'Cancel a payment (Berlin Group cancelPayment)',
        description:
          'Only before the customer has authorised it: CANC (reason DS02), no authorisation of the cancellation needed, 204 (also when already cancelled). ' +
          'Authorised, executing or ended payments: 405 CANCELLATION_INVALID.',
        headers: headersSchema([]),
        params: paymentParams,
        response: { 204: { type: 'null', description: 'Cancelled' }, ...errorResponses },
      },
    },
    async (request, reply) => {
      await cancelPayment(tppOf(request), request.params.paymentProduct, request.params.paymentId);
      reply.code(204);
      return null;
    },
  );

  app.post<{ Params: PaymentParams }>(
    '/payments/:paymentProduct/:paymentId/authorisations',
    {
      ...pi,
      schema: {
        tags: TAGS,
        summary: 'Start the customer\'s SCA of a payment (Berlin Group startPaymentAuthorisation)',
        description:
          'REDIRECT by default: send the customer to _links.scaRedirect, where they sign in and approve or deny. DECOUPLED when TPP-Decoupled-Preferred is true and PSU-ID names the customer (their sign-in email): they approve in the mobile app. ' +
          'Only a payment awaiting SCA (RCVD) takes one (409 STATUS_INVALID otherwise). Poll _links.scaStatus.',
        headers: headersSchema(['psu-id', 'tpp-decoupled-preferred', 'psu-ip-address']),
        params: paymentParams,
        response: { 201: { ...startAuthorisationSchema, description: 'Started', headers: startedHeaders }, ...errorResponses },
      },
    },
    async (request, reply) => {
      const { payment, authorisation } = await startPaymentAuthorisation(tppOf(request), request.params.paymentProduct, request.params.paymentId, {
        decoupledPreferred: headerOf(request, 'tpp-decoupled-preferred') === 'true',
        psuId: headerOf(request, 'psu-id'),
      });
      reply.code(201).header('aspsp-sca-approach', authorisation.scaApproach);
      return authorisationBody(authorisation, baseUrlOf(request), authorisationPath(payment, authorisation.id));
    },
  );

  app.get<{ Params: PaymentParams }>(
    '/payments/:paymentProduct/:paymentId/authorisations',
    {
      ...pi,
      schema: {
        tags: TAGS,
        summary: 'The payment\'s authorisations (Berlin Group getPaymentInitiationAuthorisation)',
        headers: headersSchema([]),
        params: paymentParams,
        response: { 200: authorisationIdsSchema, ...errorResponses },
      },
    },
    async (request) => ({ authorisationIds: await paymentAuthorisationIds(tppOf(request), request.params.paymentProduct, request.params.paymentId) }),
  );

  app.get<{ Params: PaymentParams & { authorisationId: string } }>(
    '/payments/:paymentProduct/:paymentId/authorisations/:authorisationId',
    {
      ...pi,
      schema: {
        tags: TAGS,
        summary: 'SCA status of a payment authorisation (Berlin Group getPaymentInitiationScaStatus)',
        headers: headersSchema([]),
        params: authorisationParams,
        response: { 200: scaStatusSchema, ...errorResponses },
      },
    },
    async (request) => {
      const p = request.params;
      const a = await paymentAuthorisation(tppOf(request), p.paymentProduct, p.paymentId, p.authorisationId);
      return { scaStatus: a.scaStatus };
    },
  );
}
