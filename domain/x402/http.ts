/**
 * The HTTP faces of a payment requirement and of a paid retry, transport-neutral (plain header
 * maps), shared by monetized endpoints, SMS and the MCP tool convention:
 *
 * - 402: the spec's six X-Payment-* headers (the first offered network; X-Payment-Amount a decimal
 *   string of USDC at its six decimals, as the spec says: "0.010000" for one cent) and the standard
 *   x402 v2 PAYMENT-REQUIRED (every offered network), whose `amount` x402 v2 defines in atomic units
 *   ("10000"): each header in its own standard's unit.
 * - Paid retry: the spec's X-Payment-Signature (65-byte hex) + X-Payment-Payload (base64 JSON: the
 *   EIP-3009 authorization, alone or as x402's PaymentPayload), or the standard PAYMENT-SIGNATURE.
 * - Success: PAYMENT-RESPONSE (x402 v2 settlement response) and its twin X-Payment-Response.
 *
 * Encoding of the standard headers is @x402/core's.
 */
import {
  decodePaymentSignatureHeader,
  encodePaymentRequiredHeader,
  encodePaymentResponseHeader,
} from '@x402/core/http';
import type { PaymentRequired } from '@x402/core/types';
import { getAddress } from 'viem';
import type { Environment } from '../platform/environment';
import { DomainError } from '../platform/errors';
import { parseSignedAuthorization, type PaymentTerms, type SignedAuthorization } from './authorization';
import type { X402Payment } from './payments';
import { atomicToUsdc } from './amounts';
import { acceptedTerms, requirementOf, X402_VERSION } from './requirements';

export interface Resource {
  url: string;
  description?: string;
  mimeType?: string;
}

export function paymentRequired(offered: PaymentTerms[], resource: Resource, error?: string): PaymentRequired {
  return { x402Version: X402_VERSION, ...(error ? { error } : {}), resource, accepts: offered.map(requirementOf) };
}

export function paymentRequiredHeaders(offered: PaymentTerms[], resource: Resource, facilitatorUrl: string | null, error?: string): Record<string, string> {
  const first = offered[0];
  return {
    'x-payment-required': 'true',
    'x-payment-network': first.network.network,
    'x-payment-asset': first.asset.address,
    'x-payment-amount': atomicToUsdc(first.amount),
    'x-payment-receiver': first.payTo,
    ...(facilitatorUrl ? { 'x-payment-facilitator': facilitatorUrl } : {}),
    'payment-required': encodePaymentRequiredHeader(paymentRequired(offered, resource, error)),
  };
}

export const PAYMENT_HEADER_NAMES = ['payment-signature', 'x-payment-signature', 'x-payment-payload'] as const;

type Headers = Record<string, string | string[] | undefined>;
const one = (h: Headers, name: string): string | undefined => {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
};

function decodeJson(value: string, header: string): unknown {
  try {
    const text = Buffer.from(value.trim(), /[-_]/.test(value) ? 'base64url' : 'base64').toString('utf8');
    return JSON.parse(text);
  } catch {
    throw new DomainError('PAYMENT_MALFORMED', `${header} is not base64-encoded JSON`);
  }
}

/** Whether the request carries a payment in any of the header forms. */
export function hasPaymentHeaders(h: Headers): boolean {
  return PAYMENT_HEADER_NAMES.some((n) => one(h, n) !== undefined);
}

/**
 * The payment a request carries and the offered terms it pays, or null when it carries none.
 * A payment naming terms that were not offered is PAYMENT_TERMS_MISMATCH. With environment null
 * (an anonymous payer) the accepted network decides it (test networks: sandbox).
 */
export function readPaymentHeaders(h: Headers, environment: Environment | null, offered: PaymentTerms[]): { signed: SignedAuthorization; terms: PaymentTerms } | null {
  const standard = one(h, 'payment-signature');
  if (standard !== undefined) {
    let payload: { x402Version?: number; accepted?: unknown; payload?: unknown };
    try {
      payload = decodePaymentSignatureHeader(standard.trim());
    } catch {
      throw new DomainError('PAYMENT_MALFORMED', 'PAYMENT-SIGNATURE is not a base64-encoded x402 payment payload');
    }
    if (payload?.x402Version !== X402_VERSION) throw new DomainError('PAYMENT_MALFORMED', `x402Version must be ${X402_VERSION}`);
    return { signed: parseSignedAuthorization(payload.payload), terms: acceptedTerms(environment, payload.accepted, offered) };
  }
  const signature = one(h, 'x-payment-signature');
  const body = one(h, 'x-payment-payload');
  if (signature === undefined && body === undefined) return null;
  if (signature === undefined || body === undefined) throw new DomainError('PAYMENT_MALFORMED', 'A paid retry carries both X-Payment-Signature and X-Payment-Payload');
  const decoded = decodeJson(body, 'X-Payment-Payload') as Record<string, unknown> | null;
  if (!decoded || typeof decoded !== 'object') throw new DomainError('PAYMENT_MALFORMED', 'X-Payment-Payload must be a JSON object');
  // The authorization alone, {authorization}, or x402's PaymentPayload {accepted, payload: {authorization}}.
  const inner = (decoded.payload && typeof decoded.payload === 'object' ? decoded.payload : decoded) as Record<string, unknown>;
  const authorization = inner.authorization ?? inner;
  return {
    signed: parseSignedAuthorization({ authorization, signature: signature.trim() }),
    terms: acceptedTerms(environment, decoded.accepted ?? (decoded.network ? { network: decoded.network, asset: decoded.asset ?? 'USDC' } : undefined), offered),
  };
}

export function paymentResponseHeaders(p: X402Payment): Record<string, string> {
  const encoded = encodePaymentResponseHeader({
    success: true,
    payer: getAddress(p.payer),
    transaction: p.transactionHash ?? '',
    network: p.network as `${string}:${string}`,
    amount: p.amount,
  });
  return { 'payment-response': encoded, 'x-payment-response': encoded, 'x-payment-id': p.id };
}
