/**
 * The paid MCP tool send_sms, on the x402 MCP convention (docs/mcp.md):
 *
 * - a call without a payment answers isError with the x402 v2 PaymentRequired object (resource
 *   mcp://tool/send_sms, one requirement per network open to the credential's environment) as
 *   structuredContent and as JSON text;
 * - the client calls again with the x402 PaymentPayload in params._meta["x402/payment"]; the payment
 *   core verifies and settles it (domain/sms/send.ts → domain/x402/payments.ts, as for REST SMS) and the
 *   result carries the message as structuredContent and the x402 SettleResponse in
 *   result._meta["x402/payment-response"];
 * - a payment that is refused (nothing settled: a PAYMENT_* code or SPENDING_LIMIT_EXCEEDED, REST's
 *   402s) answers isError with a fresh PaymentRequired whose `error` is the refusal's code and message.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { PaymentRequired, SettleResponse } from '@x402/core/types';
import { getAddress } from 'viem';
import { z } from 'zod';
import { authorize } from '../../domain/auth/gate';
import type { Principal } from '../../domain/auth/principal';
import { HTTP_STATUS_BY_CODE } from '../error-status';
import { DomainError } from '../../domain/platform/errors';
import { quoteSms, sendPaidSms, smsOffers, type SmsQuote } from '../../domain/sms/send';
import { atomicToUsdc } from '../../domain/x402/amounts';
import { parseSignedAuthorization } from '../../domain/x402/authorization';
import { paymentRequired, type Resource } from '../../domain/x402/http';
import type { X402Payment } from '../../domain/x402/payments';
import { acceptedTerms, X402_VERSION } from '../../domain/x402/requirements';
import { guarded, refusalOf, toolError, toolResult, type McpToolContext } from './results';

/** What POST /api/v1/sms/send needs (domain/auth/gate.ts): write, and the SMS routes' module (payments) for a partner key or tenant. */
const SEND_SMS = { permission: 'write', tags: ['SMS'] } as const;

/** Where the client puts the payment (request params._meta) and finds the settlement (result._meta). */
export const PAYMENT_META_KEY = 'x402/payment';
export const PAYMENT_RESPONSE_META_KEY = 'x402/payment-response';
export const SEND_SMS_RESOURCE_URL = 'mcp://tool/send_sms';

/**
 * Refusals that mean "not paid, nothing settled, pay again": the codes REST answers with 402, read
 * from the one table (api/error-status.ts), so the two transports cannot drift. Any other refusal (a
 * bad number, a dependency down) is an ordinary isError result with its code.
 */
export const PAYMENT_REFUSALS: ReadonlySet<string> = new Set(Object.entries(HTTP_STATUS_BY_CODE).filter(([, status]) => status === 402).map(([code]) => code));

function resourceOf(q: SmsQuote): Resource {
  const parts = q.parts === 1 ? '1 part' : `${q.parts} parts`;
  return {
    url: SEND_SMS_RESOURCE_URL,
    description: `SMS to ${q.destination} (${q.countryCode}), ${parts} ${q.encoding}: ${atomicToUsdc(q.priceUsdc)} USDC`,
    mimeType: 'application/json',
  };
}

/** The x402 v2 SettleResponse of a settled payment (the object PAYMENT-RESPONSE encodes over HTTP). */
export function settleResponseOf(p: X402Payment): SettleResponse {
  return {
    success: true,
    payer: getAddress(p.payer),
    transaction: p.transactionHash ?? '',
    network: p.network as SettleResponse['network'],
    amount: p.amount,
  };
}

/** The payment the call carries in _meta, as the payment core's terms and authorization. */
function paymentOf(raw: unknown, environment: Principal['environment'], offers: ReturnType<typeof smsOffers>) {
  const payload = raw as { x402Version?: unknown; accepted?: unknown; payload?: unknown } | null;
  if (!payload || typeof payload !== 'object' || payload.x402Version !== X402_VERSION) {
    throw new DomainError('PAYMENT_MALFORMED', `_meta["${PAYMENT_META_KEY}"] must be an x402 version ${X402_VERSION} PaymentPayload`);
  }
  return { terms: acceptedTerms(environment, payload.accepted, offers), signed: parseSignedAuthorization(payload.payload) };
}

const challenge = (pr: PaymentRequired) => toolError({ ...pr });

export function registerSmsTools(server: McpServer, p: Principal, ctx: McpToolContext): void {
  server.registerTool(
    'send_sms',
    {
      title: 'Send an SMS (paid in USDC, x402)',
      description:
        'Sends an SMS, paid per part in USDC by an EIP-3009 authorization (x402 v2, scheme exact). Called without a payment it sends nothing and ' +
        'answers isError with the x402 PaymentRequired (the price on each network in `accepts`); call it again with the same arguments and the ' +
        `x402 PaymentPayload in _meta["${PAYMENT_META_KEY}"]. The answer is the message (status pending, sent, delivered or failed) with the ` +
        `settlement in _meta["${PAYMENT_RESPONSE_META_KEY}"]. Needs an API key with the write permission.`,
      inputSchema: {
        to: z.string().min(1).max(32).describe('Destination mobile number in international E.164 form, e.g. +14155552671'),
        from: z.string().min(1).max(16).describe('Sender: an alphanumeric sender id (up to 11 letters and digits), or a number'),
        message: z.string().min(1).max(10_000).describe('The text; long texts are sent in several parts, each paid'),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    (args, extra) =>
      guarded(ctx, async () => {
        // The one gate, as the REST route asks it: write, a partner's modules, a maintenance window.
        await authorize(p, SEND_SMS);
        const req = { to: args.to, from: args.from, message: args.message };
        const quote = await quoteSms(req);
        const offers = smsOffers(p.environment, quote);
        const resource = resourceOf(quote);
        const raw = extra._meta?.[PAYMENT_META_KEY];
        if (raw === undefined) return challenge(paymentRequired(offers, resource));
        try {
          const paid = paymentOf(raw, p.environment, offers);
          const { message, payment } = await sendPaidSms(req, quote, paid, {
            environment: p.environment,
            agentKeyId: p.agent && p.kind === 'api_key' ? p.credentialId : null,
            ownerUserId: p.userId,
          });
          return toolResult({ ...message }, payment ? { [PAYMENT_RESPONSE_META_KEY]: settleResponseOf(payment) } : undefined);
        } catch (err) {
          const r = refusalOf(err);
          if (r && PAYMENT_REFUSALS.has(r.code)) return challenge(paymentRequired(offers, resource, `${r.code}: ${r.message}`));
          throw err;
        }
      }),
  );
}
