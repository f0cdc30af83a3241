/**
 * The x402 facilitator: who checks an authorization against the chain and submits it. Production
 * talks to a real facilitator's /verify and /settle (X402_FACILITATOR_URL, optional bearer
 * X402_FACILITATOR_TOKEN) through @x402/core's HTTP client; it is configured, not run here. The
 * sandbox facilitator is this platform's ledger: settlement is the balanced entry that
 * domain/x402/payments.ts posts, and its HTTP face is /x402/facilitator (api/routes/x402).
 */
import { HTTPFacilitatorClient } from '@x402/core/http';
import { loadConfig } from '../platform/config';
import type { Environment } from '../platform/environment';
import type { PaymentTerms, SignedAuthorization } from './authorization';
import { networksFor } from './networks';
import { payloadOf, requirementOf, X402_VERSION } from './requirements';

export type SettleOutcome = { success: true; transaction: string } | { success: false; code: string; reason: string };

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

const SANDBOX_PATH = '/x402/facilitator';

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
    if (!this.client) return { success: false, code: 'X402_NOT_CONFIGURED', reason: 'Production payments need X402_FACILITATOR_URL' };
    const payload = payloadOf(signed, terms);
    const requirements = requirementOf(terms);
    try {
      const v = await this.client.verify(payload, requirements);
      if (!v.isValid) return { success: false, code: 'PAYMENT_VERIFICATION_FAILED', reason: `The facilitator refused the payment: ${v.invalidReason ?? 'invalid'}` };
      const s = await this.client.settle(payload, requirements);
      if (!s.success) return { success: false, code: 'PAYMENT_SETTLEMENT_FAILED', reason: `The facilitator could not settle: ${s.errorReason ?? 'failed'}` };
      return { success: true, transaction: s.transaction };
    } catch (err) {
      return { success: false, code: 'PAYMENT_FACILITATOR_UNAVAILABLE', reason: `The facilitator did not answer: ${(err as Error).message}` };
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

/** GET /x402/status: whether the facilitator answers its /supported, and how fast (measured, not assumed). */
export async function facilitatorReachability(environment: Environment): Promise<{ reachable: boolean; latency_ms: number | null; error: string | null; kinds: SupportedKind[] }> {
  const started = process.hrtime.bigint();
  try {
    const kinds = await facilitatorFor(environment).supported();
    return { reachable: true, latency_ms: Number((process.hrtime.bigint() - started) / 1000n) / 1000, error: null, kinds };
  } catch (err) {
    return { reachable: false, latency_ms: null, error: (err as Error).message, kinds: [] };
  }
}
