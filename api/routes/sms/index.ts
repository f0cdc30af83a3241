/**
 * Payment-gated SMS (docs/x402.md). Send is public until paid: the first call answers 402
 * with the price and the payment rails; the paid call carries `Authorization: Payment <credential>`
 * (IETF 'Payment' scheme) or x402's PAYMENT-SIGNATURE / X-Payment-* headers. Rates and info are
 * public; status is the message owner's. These endpoints answer with `success` beside `data`.
 */
import type { FastifyInstance } from 'fastify';
import { DomainError } from '../../../domain/platform/errors';
import { findSmsMessageFor } from '../../../domain/sms/messages';
import { smsProviderFor } from '../../../domain/sms/provider';
import { getSmsRate } from '../../../domain/sms/rates';
import { maxMessageChars } from '../../../domain/sms/segments';
import { presentSms, publicSmsOffers, quoteSms, sendPaidSms, type SmsRequest } from '../../../domain/sms/send';
import { bodyDigest, readCredential } from '../../../domain/x402/challenge';
import { hasPaymentHeaders, paymentResponseHeaders, readPaymentHeaders } from '../../../domain/x402/http';
import { environmentOfNetwork, networksFor, PAYMENT_NETWORKS } from '../../../domain/x402/networks';
import { statusForCode } from '../../error-status';
import { envelope, errorResponses, errorResponsesFor, optionalAuthSecurity } from '../../schemas';
import { principalOf } from '../../types';
import { readerEnvironment } from '../../operations/caller';
import { sendPaymentRequired } from './challenge';
import smsCallbackRoutes from './callbacks';
import { TAGS, messageSchema, success, smsErrors, canonicalBody } from '../../operations/sms/schemas';

export default async function smsRoutes(app: FastifyInstance) {
  // The SMS variant of the envelope: `success` beside `data`, on refusals too.
  app.addHook('onSend', async (_request, reply, payload) => {
    if (typeof payload !== 'string' || !payload.startsWith('{')) return payload;
    const body = JSON.parse(payload) as Record<string, unknown>;
    if (typeof body.success === 'boolean') return payload;
    return JSON.stringify({ success: reply.statusCode < 400, ...body });
  });
  await app.register(smsCallbackRoutes);

  app.post<{ Body: SmsRequest }>(
    '/api/v1/sms/send',
    {
      // Paid per message, no account needed; a Bearer credential, when sent, is checked (a partner's
      // key reaches SMS only with the payments module, as on MCP's send_sms).
      config: { public: true, optionalAuth: true, otherAuthSchemes: true, idempotency: false },
      schema: {
        tags: TAGS,
        summary: 'Send an SMS, paid per message: 402 with the price and payment rails, then the paid call',
        description:
          'Without payment: 402 with the price (parts × the destination country\'s rate, USDC atomic units) and the rails: a WWW-Authenticate "Payment" challenge per network (IETF draft-ryan-httpauth-payment, intent charge, bound to this body) and x402 v2 PAYMENT-REQUIRED. Paid call: the same body with Authorization: Payment <base64url credential echoing the challenge, payload {signature, authorization}> or x402 PAYMENT-SIGNATURE / X-Payment-Signature + X-Payment-Payload. The payment settles once per authorization, then the message is submitted; a provider failure refunds it. Test networks (Base Sepolia) pay with sandbox money, main networks with production money. Idempotency: an authorization pays for one message only (a retry with it is 402 PAYMENT_NONCE_USED).',
        security: optionalAuthSecurity,
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['to', 'from', 'message'],
          properties: {
            to: { type: 'string', minLength: 1, maxLength: 32, description: 'Destination, E.164 (+4915123456789)' },
            from: { type: 'string', minLength: 1, maxLength: 32, description: 'Sender: up to 11 letters/digits, or a number' },
            message: { type: 'string', minLength: 1, maxLength: 10_000 },
          },
        },
        response: { 200: envelope(messageSchema, success), ...smsErrors },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const quote = await quoteSms(body);
      const digest = bodyDigest(canonicalBody(body));
      const offers = publicSmsOffers(quote);
      const auth = request.headers.authorization;
      const scheme = typeof auth === 'string' && /^Payment\s/i.test(auth);
      if (!scheme && !hasPaymentHeaders(request.headers)) {
        return sendPaymentRequired(request, reply, quote, offers, digest, { code: 'PAYMENT_REQUIRED', detail: `This message costs ${quote.priceUsdc} atomic USDC units; pay with one of the offered rails` });
      }
      try {
        let payment;
        if (scheme) {
          const cred = readCredential(String(auth).replace(/^payment/i, 'Payment'), digest);
          payment = { signed: cred.signed, terms: cred.terms };
        } else {
          payment = readPaymentHeaders(request.headers, null, offers)!;
        }
        const environment = environmentOfNetwork(payment.terms.network.network);
        const sent = await sendPaidSms(body, quote, payment, { environment, agentKeyId: null, ownerUserId: null });
        if (sent.payment) {
          const receipt = paymentResponseHeaders(sent.payment);
          reply.headers({ ...receipt, 'payment-receipt': receipt['payment-response'] });
        }
        return { success: true, data: sent.message };
      } catch (err) {
        if (err instanceof DomainError && statusForCode(err.code) === 402) return sendPaymentRequired(request, reply, quote, offers, digest, { code: err.code, detail: err.message });
        throw err;
      }
    },
  );

  app.get<{ Querystring: { country: string } }>(
    '/api/v1/sms/rates',
    {
      config: { public: true },
      schema: {
        tags: TAGS,
        summary: "A country's SMS rate per part: EUR as published, and USDC atomic units at the platform's rates",
        security: [],
        querystring: { type: 'object', additionalProperties: false, required: ['country'], properties: { country: { type: 'string', minLength: 1, maxLength: 8, description: 'ISO 3166-1 alpha-2' } } },
        response: {
          200: envelope({ type: 'object', properties: { country: { type: 'string' }, country_code: { type: 'string' }, rate_eur: { type: 'string' }, rate_usdc: { type: 'string' } } }, success),
          ...errorResponsesFor([400, 405, 414, 422, 429, 500, 503]),
        },
      },
    },
    async (request) => ({ success: true, data: await getSmsRate(request.query.country) }),
  );

  app.get(
    '/api/v1/sms/info',
    {
      config: { public: true, optionalAuth: true },
      schema: {
        tags: TAGS,
        summary: 'The SMS service: provider, whether it sends, test mode and the payment networks',
        description: 'With a credential: its environment (sandbox = test_mode). Without: every network a payment is accepted on (Base Sepolia pays in the sandbox).',
        security: optionalAuthSecurity,
        response: {
          200: envelope(
            {
              type: 'object',
              properties: {
                provider: { type: 'string' },
                enabled: { type: 'boolean' },
                test_mode: { type: 'boolean' },
                networks: { type: 'array', items: { type: 'string' } },
                max_message_chars: { type: 'integer' },
                price_unit: { type: 'string' },
              },
            },
            success,
          ),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const environment = readerEnvironment(request);
      const provider = smsProviderFor(environment);
      const networks = request.principal ? networksFor(environment).map((n) => n.network) : PAYMENT_NETWORKS.map((n) => n.network);
      return {
        success: true,
        data: {
          provider: provider.name,
          enabled: !provider.name.startsWith('unconfigured'),
          test_mode: environment === 'sandbox',
          networks,
          max_message_chars: maxMessageChars(),
          price_unit: 'USDC atomic units (6 decimals)',
        },
      };
    },
  );

  app.get<{ Params: { messageId: string } }>(
    '/api/v1/sms/status/:messageId',
    {
      schema: {
        tags: TAGS,
        summary: "A message's status, delivery and payment (its owner: the payer wallet's customer)",
        params: { type: 'object', required: ['messageId'], properties: { messageId: { type: 'string', minLength: 1, maxLength: 100 } } },
        response: { 200: envelope(messageSchema, success), ...errorResponses },
      },
    },
    async (request) => {
      const p = principalOf(request);
      return { success: true, data: await presentSms(await findSmsMessageFor({ userId: p.userId, environment: p.environment, operator: p.isAdmin }, request.params.messageId)) };
    },
  );
}
