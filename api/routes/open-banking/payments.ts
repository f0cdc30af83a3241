/**
 * Berlin Group payment initiation routes for TPPs (under /api/v1/open-banking): initiate (JSON, or a
 * pain.001 document for the SEPA products), read, status, cancel, and the payment's SCA
 * authorisation sub-resources. The TPP is identified by its certificate and needs the PSP_PI role;
 * X-Request-ID makes initiation replay-safe, so the platform's Idempotency-Key is not used.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { getConfig } from '../../../iso20022/config';
import { authorisationBody } from '../../../domain/openbanking/authorisations';
import type { BgPaymentInitiation } from '../../../domain/openbanking/payment-body';
import {
  cancelPayment,
  getPayment,
  initiatePayment,
  paymentAuthorisation,
  paymentAuthorisationIds,
  startPaymentAuthorisation,
  type PaymentBody,
} from '../../../domain/openbanking/payments';
import { envelope, errorResponses } from '../../schemas';
import { baseUrlOf } from '../caller';
import { requestIdOf, tppCall, tppOf } from './context';
import {
  authorisationParams,
  authorisationPath,
  initiationResponse,
  paymentBodyByType,
  paymentInitiationWithProduct,
  paymentParams,
  paymentResponse,
  presentInitiation,
  presentPayment,
  presentStatus,
  productParams,
  statusResponse,
  XML_TYPES,
} from './payment-schemas';
import { TAGS, authorisationIdsSchema, headersSchema, scaStatusSchema, startAuthorisationSchema } from './schemas';

type PaymentParams = { paymentProduct: string; paymentId: string };

const header = (request: FastifyRequest, name: string): string | null => {
  const v = request.headers[name];
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : null;
};

const bodyOf = (b: unknown): PaymentBody => (typeof b === 'string' ? { kind: 'xml', xml: b } : { kind: 'json', body: b as BgPaymentInitiation });

const INITIATION_DOC =
  'Received as RCVD; the customer then authorises it (start an authorisation: _links.startAuthorisation) within OPEN_BANKING_SCA_TIMEOUT_SECONDS ' +
  '(15 minutes; else RJCT with reason AB05). Once authorised (ACTC) it goes out on the product\'s rail (sepa-credit-transfers: SEPA CT, ' +
  'instant-sepa-credit-transfers: SEPA Instant, cross-border-credit-transfers: SWIFT), which reserves the funds: ACSP while the rail has it, ' +
  'ACSC when settled, RJCT with the ISO reason in tppMessages otherwise (AM04 insufficient funds). A debtor IBAN that is not an account here is ' +
  'accepted now and rejected at SCA (AC02). An X-Request-ID this TPP used before returns that payment (200) and creates nothing.';

/** Payment initiation routes; mounted by index.ts under /api/v1/open-banking. */
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
  const initiationHeaders = headersSchema(['psu-ip-address']);

  const initiate = async (request: FastifyRequest, product: string, body: PaymentBody) => {
    const { payment, created } = await initiatePayment(tppOf(request), { product, requestId: requestIdOf(request), body });
    return { code: created ? 201 : 200, data: presentInitiation(payment, baseUrlOf(request)) };
  };

  app.post<{ Body: BgPaymentInitiation & { paymentProduct: string } }>(
    '/payments',
    {
      ...pi,
      schema: {
        tags: TAGS,
        summary: 'Initiate a payment, product named in the body',
        description: `The product (paymentProduct) in the JSON body; otherwise as POST /payments/{paymentProduct}. ${INITIATION_DOC}`,
        headers: initiationHeaders,
        body: paymentInitiationWithProduct,
        response: { 201: envelope(initiationResponse), 200: envelope(initiationResponse), ...errorResponses },
      },
    },
    async (request, reply) => {
      const { paymentProduct, ...body } = request.body;
      const r = await initiate(request, paymentProduct, { kind: 'json', body });
      return reply.code(r.code).send({ data: r.data });
    },
  );

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
        response: { 201: envelope(initiationResponse), 200: envelope(initiationResponse), ...errorResponses },
      },
    },
    async (request, reply) => {
      const r = await initiate(request, request.params.paymentProduct, bodyOf(request.body));
      return reply.code(r.code).send({ data: r.data });
    },
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
        response: { 200: envelope(paymentResponse), ...errorResponses },
      },
    },
    async (request) => ({ data: presentPayment(await getPayment(tppOf(request), request.params.paymentProduct, request.params.paymentId)) }),
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
        response: { 200: envelope(statusResponse), ...errorResponses },
      },
    },
    async (request) => ({ data: presentStatus(await getPayment(tppOf(request), request.params.paymentProduct, request.params.paymentId)) }),
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
        response: { 201: envelope(startAuthorisationSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const { payment, authorisation } = await startPaymentAuthorisation(tppOf(request), request.params.paymentProduct, request.params.paymentId, {
        decoupledPreferred: header(request, 'tpp-decoupled-preferred') === 'true',
        psuId: header(request, 'psu-id'),
      });
      reply.code(201);
      return { data: authorisationBody(authorisation, baseUrlOf(request), authorisationPath(payment, authorisation.id)) };
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
        response: { 200: envelope(authorisationIdsSchema), ...errorResponses },
      },
    },
    async (request) => ({ data: { authorisationIds: await paymentAuthorisationIds(tppOf(request), request.params.paymentProduct, request.params.paymentId) } }),
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
        response: { 200: envelope(scaStatusSchema), ...errorResponses },
      },
    },
    async (request) => {
      const p = request.params;
      const a = await paymentAuthorisation(tppOf(request), p.paymentProduct, p.paymentId, p.authorisationId);
      return { data: { scaStatus: a.scaStatus } };
    },
  );
}
