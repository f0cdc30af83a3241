/**
 * EIP-3009 `transferWithAuthorization` payments: the one verifier behind x402 (PAYMENT-SIGNATURE and
 * the spec's X-Payment-* headers), the IETF 'Payment' scheme and the MCP tool convention. The payer's
 * address is recovered from the EIP-712 signature over the token's own domain (name, version,
 * chainId, verifying contract), so a signature made for another chain, token or domain name recovers
 * another address and is refused. Plain accounts (EOA) only: smart-contract wallets (ERC-1271/6492)
 * need a chain node to check, which the production facilitator has and the sandbox has not.
 *
 * Every refusal is a DomainError whose code starts with PAYMENT_ and maps to 402 (api/error-status.ts):
 * the client may pay again with a fresh authorization.
 */
import { authorizationTypes } from '@x402/evm';
import { getAddress, isAddress, isHex, recoverTypedDataAddress } from 'viem';
import { DomainError } from '../platform/errors';
import type { PaymentAsset, PaymentNetwork } from './networks';

export interface Eip3009Authorization {
  from: string;
  to: string;
  /** Atomic units, decimal integer string. */
  value: string;
  /** Unix seconds, decimal strings. */
  validAfter: string;
  validBefore: string;
  /** 32 bytes, 0x-hex. */
  nonce: string;
}

export interface SignedAuthorization {
  authorization: Eip3009Authorization;
  signature: string;
}

/** What the payment must pay: the requirement a challenge stated. */
export interface PaymentTerms {
  network: PaymentNetwork;
  asset: PaymentAsset;
  /** Atomic units. */
  amount: string;
  payTo: string;
}

/** Seconds a payment must still be valid for when it is checked: settling on a chain takes a few blocks. */
export const VALIDITY_MARGIN_SECONDS = 6;

const UINT = /^(0|[1-9][0-9]{0,77})$/;

function refuse(code: string, message: string): never {
  throw new DomainError(code, message);
}

/** Shape check of an authorization taken from a header or body: anything off is PAYMENT_MALFORMED. */
export function parseSignedAuthorization(raw: unknown): SignedAuthorization {
  const r = raw as { signature?: unknown; authorization?: Record<string, unknown> } | null;
  const a = r?.authorization;
  if (!r || typeof r !== 'object' || !a || typeof a !== 'object') refuse('PAYMENT_MALFORMED', 'The payment has no EIP-3009 authorization');
  const str = (k: string): string => {
    const v = a[k];
    if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return String(v);
    if (typeof v !== 'string') refuse('PAYMENT_MALFORMED', `authorization.${k} is missing`);
    return v;
  };
  const authorization: Eip3009Authorization = {
    from: str('from'),
    to: str('to'),
    value: str('value'),
    validAfter: str('validAfter'),
    validBefore: str('validBefore'),
    nonce: str('nonce'),
  };
  if (!isAddress(authorization.from, { strict: false }) || !isAddress(authorization.to, { strict: false })) refuse('PAYMENT_MALFORMED', 'authorization.from and .to must be addresses');
  for (const k of ['value', 'validAfter', 'validBefore'] as const) if (!UINT.test(authorization[k])) refuse('PAYMENT_MALFORMED', `authorization.${k} must be an unsigned integer`);
  if (!isHex(authorization.nonce, { strict: true }) || authorization.nonce.length !== 66) refuse('PAYMENT_MALFORMED', 'authorization.nonce must be 32 bytes of hex');
  if (typeof r.signature !== 'string' || !isHex(r.signature, { strict: true }) || r.signature.length !== 132) refuse('PAYMENT_MALFORMED', 'signature must be a 65-byte hex signature');
  return { authorization, signature: r.signature };
}

/** The EIP-712 typed data a payer signs for these terms' token. */
export function typedDataFor(terms: Pick<PaymentTerms, 'network' | 'asset'>, a: Eip3009Authorization) {
  return {
    domain: { name: terms.asset.eip712.name, version: terms.asset.eip712.version, chainId: terms.network.chainId, verifyingContract: terms.asset.address },
    types: authorizationTypes,
    primaryType: 'TransferWithAuthorization' as const,
    message: {
      from: getAddress(a.from),
      to: getAddress(a.to),
      value: BigInt(a.value),
      validAfter: BigInt(a.validAfter),
      validBefore: BigInt(a.validBefore),
      nonce: a.nonce as `0x${string}`,
    },
  };
}

/**
 * Checks a signed authorization against the terms at `now` and returns the payer (checksummed).
 * Payee, amount, window and signature are all checked here; whether the nonce is unused and the
 * payer can pay is the settlement's business (domain/x402/payments.ts), which holds the locks.
 */
export async function verifyAuthorization(signed: SignedAuthorization, terms: PaymentTerms, now: Date = new Date()): Promise<string> {
  const a = signed.authorization;
  if (getAddress(a.to) !== getAddress(terms.payTo)) refuse('PAYMENT_WRONG_PAYEE', `The authorization pays ${a.to}, not ${terms.payTo}`);
  if (a.value !== terms.amount) refuse('PAYMENT_AMOUNT_MISMATCH', `The authorization is for ${a.value} atomic units; the price is ${terms.amount}`);
  const nowSeconds = BigInt(Math.floor(now.getTime() / 1000));
  if (BigInt(a.validAfter) > nowSeconds) refuse('PAYMENT_NOT_YET_VALID', 'The authorization is not valid yet (validAfter is in the future)');
  if (BigInt(a.validBefore) < nowSeconds + BigInt(VALIDITY_MARGIN_SECONDS)) refuse('PAYMENT_EXPIRED', 'The authorization has expired or expires within seconds (validBefore)');
  let signer: string;
  try {
    signer = await recoverTypedDataAddress({ ...typedDataFor(terms, a), signature: signed.signature as `0x${string}` });
  } catch {
    refuse('PAYMENT_INVALID_SIGNATURE', 'The signature cannot be recovered');
  }
  if (signer !== getAddress(a.from)) {
    refuse('PAYMENT_INVALID_SIGNATURE', `The signature is not ${a.from}'s over this token's EIP-712 domain (${terms.asset.eip712.name}, chain ${terms.network.chainId})`);
  }
  return signer;
}
