/**
 * The x402 facilitator: who checks an authorization against the chain and submits it. Production
 * talks to a real facilitator's /verify and /settle (X402_FACILITATOR_URL, optional bearer
 * X402_FACILITATOR_TOKEN) through @x402/core's HTTP client; it is configured, not run here. The
 * sandbox facilitator is this platform's ledger: settlement is the balanced entry that
 * domain/x402/payments.ts posts, and its HTTP face is /api/v2/x402/facilitator (api/routes/x402).
 */
import { HTTPFacilitatorClient } from '@x402/core/http';
import { SettleError } from '@x402/core/types';
import { loadConfig } from '../platform/config';
import type { Environment } from '../platform/environment';
import type { PaymentTerms, SignedAuthorization } from './authorization';
import { networksFor } from './networks';
import { payloadOf, requirementOf, X402_VERSION } from './requirements';

/**
 * What a settlement came to. `unknown`: /settle was called and gave no answer to go by (a timeout,
 * a dropped connection, a 5xx, a response that does not parse, or x402's "settlement_pending"): the
 * facilitator may have submitted the authorization, so the payment is neither settled nor failed
 * until the chain says (domain/x402/reconcile.ts). `failed` is an answer: nothing was settled.
 */
export type SettleOutcome =
  | { status: 'settled'; transaction: string; attemptedAt: Date }
  | { status: 'failed'; code: string; reason: string; attemptedAt: Date | null }
  | { status: 'unknown'; reason: string; transaction: string | null; attemptedAt: Date };

/** x402's settle answer for a submitted transaction not yet confirmed (@x402/core's SETTLEMENT_PENDING_REASON). */
const SETTLEMENT_PENDING = 'settlement_pending';

export interface SupportedKind {
  x402Version: number;
  scheme: 'exact';
  network: string;
}

export interface Facilitator {
  readonly name: string;
  /** The facilitator URL clients are told (X-Payment-Facilitator); null when production has none configured. */
  url(baseUrl: string): string | null;
  supported(): Promise<SupportedKind[]>;
  settle(signed: SignedAuthorization, terms: PaymentTerms): Promise<SettleOutcome>;
}

const SANDBOX_PATH = '/api/v2/x402/facilitator';

class SandboxFacilitator implements Facilitator {
  readonly name = 'sandbox-ledger';
  url(baseUrl: string): string {
    return `${baseUrl}${SANDBOX_PATH}`;
  }
  async supported(): Promise<SupportedKind[]> {
    return networksFor('sandbox').map((n) => ({ x402Version: X402_VERSION, scheme: 'exact', network: n.network }));
  }
  async settle(): Promise<SettleOutcome> {
    // The sandbox settles in the ledger transaction of domain/x402/payments.ts.
    throw new Error('sandbox payments settle on the ledger, not through the facilitator adapter');
  }
}

class HttpFacilitator implements Facilitator {
  readonly name = 'x402-facilitator';
  private client: HTTPFacilitatorClient | null;
  constructor(
    private readonly baseUrl: string,
    token: string,
  ) {
    const auth: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
    this.client = baseUrl
      ? new HTTPFacilitatorClient({ url: baseUrl, timeoutMs: 30_000, createAuthHeaders: async () => ({ verify: auth, settle: auth, supported: auth }) })
      : null;
  }
  url(): string | null {
    return this.baseUrl || null;
  }
  async supported(): Promise<SupportedKind[]> {
    if (!this.client) throw new Error('X402_FACILITATOR_URL is not set');
    const r = await this.client.getSupported();
    return r.kinds.filter((k) => k.scheme === 'exact').map((k) => ({ x402Version: k.x402Version, scheme: 'exact', network: k.network }));
  }
  async settle(signed: SignedAuthorization, terms: PaymentTerms): Promise<SettleOutcome> {
    if (!this.client) return { status: 'failed', code: 'X402_NOT_CONFIGURED', reason: 'Production payments need X402_FACILITATOR_URL', attemptedAt: null };
    const payload = payloadOf(signed, terms);
    const requirements = requirementOf(terms);
    // /verify submits nothing: whatever goes wrong there, the payment has not moved.
    try {
      const v = await this.client.verify(payload, requirements);
      if (!v.isValid) return { status: 'failed', code: 'PAYMENT_VERIFICATION_FAILED', reason: `The facilitator refused the payment: ${v.invalidReason ?? 'invalid'}`, attemptedAt: null };
    } catch (err) {
      return { status: 'failed', code: 'PAYMENT_FACILITATOR_UNAVAILABLE', reason: `The facilitator did not answer: ${(err as Error).message}`, attemptedAt: null };
    }
    const attemptedAt = new Date();
    try {
      const s = await this.client.settle(payload, requirements);
      if (s.success) return { status: 'settled', transaction: s.transaction, attemptedAt };
      if (s.errorReason === SETTLEMENT_PENDING) return { status: 'unknown', reason: 'The facilitator reports the settlement pending', transaction: s.transaction || null, attemptedAt };
      return { status: 'failed', code: 'PAYMENT_SETTLEMENT_FAILED', reason: `The facilitator could not settle: ${s.errorReason ?? 'failed'}`, attemptedAt };
    } catch (err) {
      // A 4xx with x402's settle body is the facilitator's refusal; anything else leaves the outcome open.
      if (err instanceof SettleError && err.statusCode < 500 && err.errorReason !== SETTLEMENT_PENDING) {
        return { status: 'failed', code: 'PAYMENT_SETTLEMENT_FAILED', reason: `The facilitator could not settle: ${err.errorReason ?? err.message}`, attemptedAt };
      }
      const transaction = err instanceof SettleError && err.transaction ? err.transaction : null;
      return { status: 'unknown', reason: `The facilitator's /settle gave no answer: ${(err as Error).message}`, transaction, attemptedAt };
    }
  }
}

let production: HttpFacilitator | null = null;
const sandbox = new SandboxFacilitator();

export function facilitatorFor(environment: Environment): Facilitator {
  if (environment === 'sandbox') return sandbox;
  const cfg = loadConfig();
  if (!production || production.url() !== (cfg.x402FacilitatorUrl || null)) production = new HttpFacilitator(cfg.x402FacilitatorUrl, cfg.x402FacilitatorToken);
  return production;
}

/** GET /api/v2/x402/status: whether the facilitator answers its /supported, and how fast (measured, not assumed). */
export async function facilitatorReachability(environment: Environment): Promise<{ reachable: boolean; latency_ms: number | null; error: string | null; kinds: SupportedKind[] }> {
  const started = process.hrtime.bigint();
  try {
    const kinds = await facilitatorFor(environment).supported();
    return { reachable: true, latency_ms: Number((process.hrtime.bigint() - started) / 1000n) / 1000, error: null, kinds };
  } catch (err) {
    return { reachable: false, latency_ms: null, error: (err as Error).message, kinds: [] };
  }
}
