/**
 * Monetized endpoints (domain/x402/endpoints.ts): a registered GET route answers 402 with the
 * payment requirements until the request carries a payment. The payment is verified before the
 * handler runs and settled only once the handler has served the request (status below 400),
 * as x402 resource servers do: a request that fails is not charged, and a payment that cannot
 * settle (a replayed nonce, funds, a spending limit) replaces the response with a 402, so nothing
 * is served unpaid; one whose settlement outcome was lost replaces it with a 503
 * PAYMENT_SETTLEMENT_PENDING carrying the payment's X-Payment-Id (no new challenge: paying again
 * could pay twice).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { DomainError } from '../../domain/platform/errors';
import type { Environment } from '../../domain/platform/environment';
import { verifyAuthorization, type PaymentTerms, type SignedAuthorization } from '../../domain/x402/authorization';
import { endpointTerms, monetizable, monetizedEndpoint, type MonetizedEndpoint } from '../../domain/x402/endpoints';
import { facilitatorFor } from '../../domain/x402/facilitator';
import { paymentRequiredHeaders, paymentResponseHeaders, readPaymentHeaders, type Resource } from '../../domain/x402/http';
import { settlePayment } from '../../domain/x402/payments';
import { statusForCode } from '../error-status';
import { errorEnvelope, errorObject } from './errors';
import { baseUrlOf } from '../operations/caller';

interface PendingPayment {
  environment: Environment;
  endpoint: MonetizedEndpoint;
  terms: PaymentTerms;
  resource: Resource;
  paid: { signed: SignedAuthorization; terms: PaymentTerms };
}

declare module 'fastify' {
  interface FastifyRequest {
    x402Payment?: PendingPayment;
  }
}

function refusal(request: FastifyRequest, code: string, detail: string) {
  const status = statusForCode(code);
  return { status, body: JSON.stringify(errorEnvelope(request.id, [errorObject(status, code, detail)])) };
}

export function registerX402(app: FastifyInstance): void {
  app.decorateRequest('x402Payment', undefined);

  app.addHook('preHandler', async (request, reply) => {
    // HEAD is GET without the body (Fastify serves it from the GET route): paid alike.
    if ((request.method !== 'GET' && request.method !== 'HEAD') || request.is404 || !request.routeOptions.url || !monetizable(request.routeOptions.url)) return;
    const environment = request.principal?.environment ?? 'production';
    const endpoint = await monetizedEndpoint(environment, request.routeOptions.url);
    if (!endpoint) return;
    const terms = endpointTerms(endpoint);
    const resource: Resource = { url: `${baseUrlOf(request)}${request.url}`, description: endpoint.description, mimeType: 'application/json' };
    const challenge = (code: string, detail: string) => {
      const r = refusal(request, code, detail);
      return reply
        .code(402)
        .headers(paymentRequiredHeaders([terms], resource, facilitatorFor(environment).url(baseUrlOf(request)), detail))
        .type('application/json; charset=utf-8')
        .send(r.body);
    };
    try {
      const paid = readPaymentHeaders(request.headers, environment, [terms]);
      if (!paid) return challenge('PAYMENT_REQUIRED', `${endpoint.path} costs ${terms.amount} atomic USDC units on ${terms.network.network}: ${endpoint.description}`);
      await verifyAuthorization(paid.signed, paid.terms);
      request.x402Payment = { environment, endpoint, terms, resource, paid };
    } catch (err) {
      if (err instanceof DomainError && statusForCode(err.code) === 402) return challenge(err.code, err.message);
      throw err;
    }
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const pending = request.x402Payment;
    if (!pending) return payload;
    request.x402Payment = undefined;
    if (reply.statusCode >= 400) return payload;
    const p = request.principal;
    try {
      const payment = await settlePayment(pending.paid.signed, pending.paid.terms, {
        environment: pending.environment,
        purpose: 'endpoint',
        resource: request.url.split('?')[0],
        endpointId: pending.endpoint.id,
        agentKeyId: p?.agent && p.kind === 'api_key' ? p.credentialId : null,
      });
      reply.headers(paymentResponseHeaders(payment));
      return payload;
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      const r = refusal(request, err.code, err.message);
      reply.code(r.status).type('application/json; charset=utf-8');
      // A payment whose outcome is pending: its id, as a settled one's (X-Payment-Id), to follow it by.
      if (typeof err.details?.payment_id === 'string') reply.header('x-payment-id', err.details.payment_id);
      if (r.status === 402) reply.headers(paymentRequiredHeaders([pending.terms], pending.resource, facilitatorFor(pending.environment).url(baseUrlOf(request)), err.message));
      return r.body;
    }
  });
}
