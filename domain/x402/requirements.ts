/**
 * x402 version 2 requirement objects for our terms, and the payment payloads clients send back.
 * Header encoding and decoding is @x402/core's (PAYMENT-REQUIRED, PAYMENT-SIGNATURE, PAYMENT-RESPONSE).
 */
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { getAddress } from 'viem';
import { loadConfig } from '../platform/config';
import type { Environment } from '../platform/environment';
import { DomainError } from '../platform/errors';
import type { PaymentTerms, SignedAuthorization } from './authorization';
import { environmentOfNetwork, paymentAsset, paymentNetwork, usdcAsset, type PaymentNetwork } from './networks';

export const X402_VERSION = 2;

/** Where USDC payments go: X402_PAY_TO_ADDRESS, else in the sandbox a fixed address of the platform's. */
const SANDBOX_PAY_TO = '0x5A4db0B7c9E3ac3f1e8Fa8D8b3e1a4A9c2B7E402';

export function payToAddress(environment: Environment): string {
  const configured = loadConfig().x402PayTo;
  if (configured) return getAddress(configured);
  if (environment === 'sandbox') return SANDBOX_PAY_TO;
  throw new DomainError('X402_NOT_CONFIGURED', 'Production payments need X402_PAY_TO_ADDRESS and X402_FACILITATOR_URL');
}

export function termsFor(environment: Environment, network: PaymentNetwork, amount: string): PaymentTerms {
  return { network, asset: usdcAsset(network), amount, payTo: payToAddress(environment) };
}

export function requirementOf(terms: PaymentTerms): PaymentRequirements {
  return {
    scheme: 'exact',
    network: terms.network.network,
    amount: terms.amount,
    asset: terms.asset.address,
    payTo: terms.payTo,
    maxTimeoutSeconds: loadConfig().x402MaxTimeoutSeconds,
    extra: { name: terms.asset.eip712.name, version: terms.asset.eip712.version },
  };
}

export function payloadOf(signed: SignedAuthorization, terms: PaymentTerms): PaymentPayload {
  return { x402Version: X402_VERSION, accepted: requirementOf(terms), payload: { signature: signed.signature, authorization: { ...signed.authorization } } };
}

/**
 * The terms a client's `accepted` requirement names, checked against what we offered: same network,
 * asset, payee and amount. Anything else (a changed amount, another chain) is PAYMENT_TERMS_MISMATCH.
 */
export function acceptedTerms(environment: Environment | null, accepted: unknown, offered: PaymentTerms[]): PaymentTerms {
  const a = accepted as Partial<PaymentRequirements> | undefined;
  if (!a || typeof a !== 'object') {
    if (offered.length === 1) return offered[0];
    throw new DomainError('PAYMENT_MALFORMED', 'The payment does not say which requirement it accepts (accepted)');
  }
  let network: PaymentNetwork;
  try {
    network = paymentNetwork(a.network, environment ?? environmentOfNetwork(a.network));
    paymentAsset(network, a.asset);
  } catch {
    throw new DomainError('PAYMENT_TERMS_MISMATCH', `The payment names network ${String(a.network)} and asset ${String(a.asset)}, which were not offered`);
  }
  const match = offered.find((t) => t.network.network === network.network);
  if (!match) throw new DomainError('PAYMENT_TERMS_MISMATCH', `Network ${network.network} was not offered for this resource`);
  if (a.scheme !== undefined && a.scheme !== 'exact') throw new DomainError('PAYMENT_TERMS_MISMATCH', `Scheme ${String(a.scheme)} is not offered; use exact`);
  return match;
}
