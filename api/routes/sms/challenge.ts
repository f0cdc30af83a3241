/**
 * The 402 answer of SMS send: the price, every payment rail offered for it (the IETF 'Payment'
 * scheme's challenges in WWW-Authenticate and x402 v2's PAYMENT-REQUIRED, with the spec's X-Payment-*
 * for the first), and the reason when a payment was refused.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SmsQuote } from '../../../domain/sms/send';
import type { PaymentTerms } from '../../../domain/x402/authorization';
import { challengeHeader, createChallenge } from '../../../domain/x402/challenge';
import { facilitatorFor } from '../../../domain/x402/facilitator';
import { paymentRequiredHeaders } from '../../../domain/x402/http';
import { environmentOfNetwork } from '../../../domain/x402/networks';
import { errorEnvelope, errorObject } from '../../plugins/errors';
import { baseUrlOf } from '../../operations/caller';

export function sendPaymentRequired(
  request: FastifyRequest,
  reply: FastifyReply,
  quote: SmsQuote,
  offers: PaymentTerms[],
  digest: string,
  refusal: { code: string; detail: string },
) {
  const base = baseUrlOf(request);
  const description = `SMS to ${quote.destination}: ${quote.parts} part(s) at ${quote.rateUsdc} atomic USDC each`;
  const challenges = offers.map((t) => ({ terms: t, challenge: createChallenge(t, digest, description) }));
  const rails = challenges.flatMap(({ terms, challenge }) => {
    const environment = environmentOfNetwork(terms.network.network);
    const common = { network: terms.network.network, environment, asset: terms.asset.address, amount: terms.amount, pay_to: terms.payTo };
    return [
      { rail: 'payment-auth', scheme: 'Payment', method: challenge.method, intent: challenge.intent, challenge_id: challenge.id, expires: challenge.expires, ...common },
      { rail: 'x402', scheme: 'exact', facilitator: facilitatorFor(environment).url(base), ...common },
    ];
  });
  const headers =
    offers.length > 0
      ? paymentRequiredHeaders(offers, { url: `${base}${request.url}`, description, mimeType: 'application/json' }, facilitatorFor(environmentOfNetwork(offers[0].network.network)).url(base), refusal.detail)
      : {};
  return reply
    .code(402)
    .headers(headers)
    .header('www-authenticate', challenges.map((c) => challengeHeader(c.challenge)))
    .type('application/json; charset=utf-8')
    .send(
      JSON.stringify({
        success: false,
        ...errorEnvelope(request.id, [errorObject(402, refusal.code, refusal.detail)]),
        data: {
          destination: quote.destination,
          country_code: quote.countryCode,
          parts: quote.parts,
          encoding: quote.encoding,
          rate_usdc: quote.rateUsdc,
          price_usdc: quote.priceUsdc,
          payment_rails: rails,
        },
      }),
    );
}
