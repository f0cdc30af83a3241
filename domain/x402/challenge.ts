/**
 * The IETF 'Payment' HTTP authentication scheme (draft-ryan-httpauth-payment), intent "charge",
 * with an EVM method whose credential payload is the same EIP-3009 authorization x402 uses.
 *
 * A challenge is `WWW-Authenticate: Payment id=…, realm=…, method="evm", intent="charge",
 * request=<base64url of canonical JSON>, expires=<RFC 3339>, digest=<RFC 9530 sha-256 of the body>`.
 * Its id is an HMAC-SHA256 over every other parameter with a server key, so a client cannot alter
 * the price, payee, expiry or the request it was issued for, and a challenge for one body cannot
 * pay for another. Nothing is stored: the id is checked by recomputing it.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { loadConfig } from '../platform/config';
import type { Environment } from '../platform/environment';
import { DomainError } from '../platform/errors';
import { serverSecret } from '../platform/server-secret';
import { parseSignedAuthorization, type PaymentTerms, type SignedAuthorization } from './authorization';
import { environmentOfNetwork, paymentNetwork, usdcAsset } from './networks';

export const PAYMENT_REALM = 'payments';
const METHOD = 'evm';
const INTENT = 'charge';

export interface ChallengeParams {
  id: string;
  realm: string;
  method: string;
  intent: string;
  request: string;
  expires: string;
  digest: string;
  description?: string;
}

interface ChargeRequest {
  amount: string;
  currency: string;
  recipient: string;
  methodDetails: { network: string; chainId: number; name: string; version: string };
}

const key = () => serverSecret('x402-challenge-secret', loadConfig().x402ChallengeSecret);

/** RFC 9530 Content-Digest style value of a request body. */
export function bodyDigest(body: Buffer | string): string {
  return `sha-256=:${createHash('sha256').update(body).digest('base64')}:`;
}

/** JSON with keys sorted at every level (RFC 8785 for the strings and integers used here). */
function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

const mac = (p: Omit<ChallengeParams, 'id' | 'description'>) =>
  createHmac('sha256', key()).update([p.realm, p.method, p.intent, p.request, p.expires, p.digest].join('\n')).digest('base64url');

/** One challenge for these terms, bound to this request body, valid for X402_MAX_TIMEOUT_SECONDS. */
export function createChallenge(terms: PaymentTerms, digest: string, description?: string, now = new Date()): ChallengeParams {
  const request: ChargeRequest = {
    amount: terms.amount,
    currency: terms.asset.address,
    recipient: terms.payTo,
    methodDetails: { network: terms.network.network, chainId: terms.network.chainId, name: terms.asset.eip712.name, version: terms.asset.eip712.version },
  };
  const base = {
    realm: PAYMENT_REALM,
    method: METHOD,
    intent: INTENT,
    request: Buffer.from(canonicalJson(request)).toString('base64url'),
    expires: new Date(now.getTime() + loadConfig().x402MaxTimeoutSeconds * 1000).toISOString(),
    digest,
  };
  return { id: mac(base), ...base, ...(description ? { description } : {}) };
}

const quote = (s: string) => `"${s.replace(/["\\]/g, (c) => `\\${c}`)}"`;

export function challengeHeader(c: ChallengeParams): string {
  const params: [string, string][] = [
    ['id', c.id],
    ['realm', c.realm],
    ['method', c.method],
    ['intent', c.intent],
    ['request', c.request],
    ['expires', c.expires],
    ['digest', c.digest],
  ];
  if (c.description) params.push(['description', c.description]);
  return `Payment ${params.map(([k, v]) => `${k}=${quote(v)}`).join(', ')}`;
}

export interface PaymentCredential {
  challenge: ChallengeParams;
  signed: SignedAuthorization;
  terms: PaymentTerms;
}

/**
 * Parses `Authorization: Payment <base64url JSON>` and checks its echoed challenge: ours (HMAC),
 * unexpired, for this very body. Returns the terms the challenge stated and the authorization.
 */
export function readCredential(header: string, digest: string, now = new Date()): PaymentCredential & { environment: Environment } {
  const m = /^Payment\s+([A-Za-z0-9_-]+={0,2})\s*$/.exec(header);
  if (!m) throw new DomainError('PAYMENT_MALFORMED', 'Authorization must be "Payment <base64url credential>"');
  let cred: { challenge?: Partial<ChallengeParams>; payload?: unknown };
  try {
    cred = JSON.parse(Buffer.from(m[1], 'base64url').toString('utf8'));
  } catch {
    throw new DomainError('PAYMENT_MALFORMED', 'The payment credential is not base64url-encoded JSON');
  }
  const ch = cred?.challenge;
  const fields = ['id', 'realm', 'method', 'intent', 'request', 'expires', 'digest'] as const;
  if (!ch || typeof ch !== 'object' || fields.some((f) => typeof ch[f] !== 'string')) {
    throw new DomainError('PAYMENT_INVALID_CHALLENGE', 'The credential does not echo a complete challenge');
  }
  const c = ch as ChallengeParams;
  const expected = Buffer.from(mac(c));
  const given = Buffer.from(c.id);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
    throw new DomainError('PAYMENT_INVALID_CHALLENGE', 'The challenge was not issued by this server or was altered');
  }
  if (!(Date.parse(c.expires) > now.getTime())) throw new DomainError('PAYMENT_CHALLENGE_EXPIRED', 'The challenge has expired; request a new one');
  if (c.digest !== digest) throw new DomainError('PAYMENT_INVALID_CHALLENGE', 'The challenge was issued for another request body');
  const request = JSON.parse(Buffer.from(c.request, 'base64url').toString('utf8')) as ChargeRequest;
  const environment = environmentOfNetwork(request.methodDetails?.network);
  const network = paymentNetwork(request.methodDetails?.network, environment);
  const terms: PaymentTerms = { network, asset: usdcAsset(network), amount: request.amount, payTo: request.recipient };
  return { challenge: c, signed: parseSignedAuthorization(cred.payload), terms, environment };
}
