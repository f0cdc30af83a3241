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
import { createRequire } from 'node:module';
import { getAddress, hashTypedData, hexToBytes, isAddress, isHex, keccak256, recoverTypedDataAddress, toHex } from 'viem';
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
 * Signers already recovered, per parsed authorization and terms object: a request checks its payment
 * before serving and again when settling it, and recovery is the costly part (about 2 ms).
 */
const recovered = new WeakMap<SignedAuthorization, { terms: PaymentTerms; signer: string }>();

/**
 * libsecp256k1 (Bitcoin Core's library, through the `secp256k1` addon) recovers a key about 30 times
 * faster than JavaScript; where the addon was not built, viem's recovery (noble) gives the same answer.
 */
const native = ((): { ecdsaRecover(sig: Uint8Array, recid: number, msg32: Uint8Array, compressed: boolean): Uint8Array } | null => {
  try {
    return createRequire(import.meta.url)('secp256k1/bindings');
  } catch {
    return null;
  }
})();

/** Half the secp256k1 group order: token contracts (USDC's ECRecover) refuse signatures with a larger s. */
const HALF_N = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;

async function recoverSigner(signed: SignedAuthorization, terms: PaymentTerms): Promise<string> {
  const hit = recovered.get(signed);
  if (hit && hit.terms === terms) return hit.signer;
  const sig = signed.signature;
  const v = Number.parseInt(sig.slice(130, 132), 16);
  if (BigInt(`0x${sig.slice(66, 130)}`) > HALF_N || ![0, 1, 27, 28].includes(v)) refuse('PAYMENT_INVALID_SIGNATURE', 'The signature is not in the form the token accepts (low s, v 27 or 28)');
  const typedData = typedDataFor(terms, signed.authorization);
  let signer: string;
  try {
    if (native) {
      const key = native.ecdsaRecover(hexToBytes(`0x${sig.slice(2, 130)}`), v >= 27 ? v - 27 : v, hexToBytes(hashTypedData(typedData)), false);
      signer = getAddress(`0x${keccak256(toHex(key.subarray(1))).slice(26)}`);
    } else {
      signer = await recoverTypedDataAddress({ ...typedData, signature: sig as `0x${string}` });
    }
  } catch {
    refuse('PAYMENT_INVALID_SIGNATURE', 'The signature cannot be recovered');
  }
  recovered.set(signed, { terms, signer });
  return signer;
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
  const signer = await recoverSigner(signed, terms);
  if (signer !== getAddress(a.from)) {
    refuse('PAYMENT_INVALID_SIGNATURE', `The signature is not ${a.from}'s over this token's EIP-712 domain (${terms.asset.eip712.name}, chain ${terms.network.chainId})`);
  }
  return signer;
}
