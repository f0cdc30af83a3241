/**
 * Interledger connector adapter. The sandbox is a simulated STREAM receiver reached through a
 * simulated SPSP lookup: real ILP packets (ilp-packet, OER encoding), a real SHA-256
 * condition/fulfillment pair derived from the shared secret (HMAC-SHA256 over the packet data,
 * as STREAM does), and ILP error codes on rejection.
 *
 * Sandbox receivers: a wallet path containing `reject` answers F99 (application error),
 * `unreachable` F02, `slow` lets the packet expire (R00).
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { deserializeIlpPrepare, deserializeIlpReply, isFulfill, serializeIlpFulfill, serializeIlpPrepare, serializeIlpReject } from 'ilp-packet';
import type { Environment } from '../platform/environment';

export interface SpspDetails {
  destinationAccount: string;
  sharedSecret: Buffer;
}

export interface IlpSendResult {
  fulfilled: boolean;
  fulfillment: string | null;
  condition: string;
  rejectCode: string | null;
  rejectMessage: string | null;
  destination: string;
  packets: Array<{ type: 'prepare' | 'fulfill' | 'reject'; base64: string }>;
}

export interface ConnectorAdapter {
  readonly name: string;
  resolve(walletAddress: string): Promise<SpspDetails>;
  /** The receiver's published name (Open Payments wallet address `publicName`), screened before sending; null when none is published. */
  receiverName(walletAddress: string): Promise<string | null>;
  send(input: { walletAddress: string; amount: string; data: Buffer; nowMs: number }): Promise<IlpSendResult>;
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest();
export const fulfillmentFor = (sharedSecret: Buffer, data: Buffer) => createHmac('sha256', sharedSecret).update(data).digest();

/** Resolves `$host/path` to its HTTPS wallet address (SPSP: `$host` alone is /.well-known/pay). */
export function walletAddressOf(receiver: string): string | null {
  let url: URL;
  try {
    url = new URL(receiver.startsWith('$') ? `https://${receiver.slice(1)}` : receiver);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' || !url.hostname.includes('.') || url.username || url.password || url.search || url.hash) return null;
  const path = url.pathname === '/' ? '/.well-known/pay' : url.pathname.replace(/\/$/, '');
  return `https://${url.host}${path}`;
}

export class SandboxStreamConnector implements ConnectorAdapter {
  readonly name = 'sandbox-stream';
  private readonly serverSecret = Buffer.from(process.env.ILP_SANDBOX_SECRET ?? 'sandbox-stream-receiver-secret');

  /**
   * The sandbox's wallet addresses publish their last path segment as a name, words split at
   * - _ . and capitalised ($wallet.example/manuel-antonio-noriega → "Manuel Antonio Noriega"), as a
   * wallet provider publishes its account holder's name; the well-known SPSP path publishes none.
   */
  async receiverName(walletAddress: string): Promise<string | null> {
    const last = new URL(walletAddress).pathname.split('/').filter(Boolean).at(-1);
    if (!last || last === 'pay') return null;
    const words = last.split(/[-_.]+/).filter(Boolean);
    return words.length ? words.map((w) => w[0].toUpperCase() + w.slice(1)).join(' ') : null;
  }

  /** What an SPSP server answers: a per-receiver ILP address and shared secret. */
  async resolve(walletAddress: string): Promise<SpspDetails> {
    const u = new URL(walletAddress);
    const segs = [...u.hostname.split('.').reverse(), ...u.pathname.split('/').filter(Boolean)].map((s) => s.replace(/[^A-Za-z0-9_~-]/g, '_'));
    const token = createHmac('sha256', this.serverSecret).update(walletAddress).digest('base64url').slice(0, 22);
    return { destinationAccount: `test.${segs.join('.')}.${token}`, sharedSecret: createHmac('sha256', this.serverSecret).update(`secret:${walletAddress}`).digest() };
  }

  /** The receiver side: checks the prepare and answers fulfill or reject, as serialized packets. */
  private receive(prepareBytes: Buffer, walletAddress: string, sharedSecret: Buffer, nowMs: number): Buffer {
    const prepare = deserializeIlpPrepare(prepareBytes);
    const reject = (code: string, message: string) => serializeIlpReject({ code, triggeredBy: prepare.destination, message, data: Buffer.alloc(0) });
    if (/slow/i.test(walletAddress) || prepare.expiresAt.getTime() <= nowMs) return reject('R00', 'packet expired before the receiver could fulfil it');
    if (/unreachable/i.test(walletAddress)) return reject('F02', 'no route to the receiver');
    if (/reject/i.test(walletAddress)) return reject('F99', 'receiver declined the payment');
    const fulfillment = fulfillmentFor(sharedSecret, prepare.data);
    if (!sha256(fulfillment).equals(prepare.executionCondition)) return reject('F05', 'wrong condition');
    return serializeIlpFulfill({ fulfillment, data: Buffer.alloc(0) });
  }

  async send(input: { walletAddress: string; amount: string; data: Buffer; nowMs: number }): Promise<IlpSendResult> {
    const spsp = await this.resolve(input.walletAddress);
    const fulfillment = fulfillmentFor(spsp.sharedSecret, input.data);
    const condition = sha256(fulfillment);
    const prepare = serializeIlpPrepare({
      amount: input.amount,
      executionCondition: condition,
      expiresAt: new Date(input.nowMs + 30_000),
      destination: spsp.destinationAccount,
      data: input.data,
    });
    const replyBytes = this.receive(prepare, input.walletAddress, spsp.sharedSecret, input.nowMs);
    const reply = deserializeIlpReply(replyBytes);
    const packets: IlpSendResult['packets'] = [{ type: 'prepare', base64: prepare.toString('base64') }];
    if (isFulfill(reply)) {
      packets.push({ type: 'fulfill', base64: replyBytes.toString('base64') });
      // The sender accepts only a fulfillment that hashes to its condition.
      const ok = sha256(reply.fulfillment).equals(condition);
      return {
        fulfilled: ok,
        fulfillment: ok ? reply.fulfillment.toString('base64') : null,
        condition: condition.toString('base64'),
        rejectCode: ok ? null : 'F05',
        rejectMessage: ok ? null : 'fulfillment does not match the condition',
        destination: spsp.destinationAccount,
        packets,
      };
    }
    packets.push({ type: 'reject', base64: replyBytes.toString('base64') });
    return { fulfilled: false, fulfillment: null, condition: condition.toString('base64'), rejectCode: reply.code, rejectMessage: reply.message, destination: spsp.destinationAccount, packets };
  }
}

/** No Interledger connector configured for the environment: a business failure (no retries). */
export class IlpNotConfigured extends Error {
  readonly code = 'ILP_NOT_CONFIGURED';
}

/**
 * Production: an ILP connector reached by ILP-over-HTTP (RFC 0035: the OER ILP Prepare POSTed as
 * application/octet-stream with a bearer token, the Fulfill/Reject in the answer), after an SPSP
 * lookup of the receiver (RFC 0009: GET with Accept application/spsp4+json → destination_account,
 * shared_secret). Configured by ILP_CONNECTOR_URL and ILP_CONNECTOR_TOKEN; without them it throws
 * ILP_NOT_CONFIGURED.
 *
 * Known gap: the Prepare's data is the payment's JSON, not an encrypted STREAM packet (RFC 0029),
 * and the condition is HMAC-SHA256(shared_secret, data) hashed, not STREAM's fulfillment key. A
 * standard STREAM receiver (Rafiki, Interledger.js) would reject it; interoperating needs a real
 * STREAM sender (e.g. ilp-protocol-stream over an ILP-over-HTTP plugin).
 */
export class HttpConnector implements ConnectorAdapter {
  readonly name = 'ilp-over-http';
  constructor(
    private readonly url = process.env.ILP_CONNECTOR_URL,
    private readonly token = process.env.ILP_CONNECTOR_TOKEN,
  ) {}

  private configured(): { url: string; token: string } {
    if (!this.url || !this.token) throw new IlpNotConfigured('Production Interledger is not configured: set ILP_CONNECTOR_URL and ILP_CONNECTOR_TOKEN (see docs/rails.md)');
    return { url: this.url, token: this.token };
  }

  async resolve(walletAddress: string): Promise<SpspDetails> {
    this.configured();
    const r = await fetch(walletAddress, { headers: { accept: 'application/spsp4+json' } });
    if (!r.ok) throw new Error(`SPSP lookup answered ${r.status}`);
    const j = (await r.json()) as { destination_account: string; shared_secret: string };
    return { destinationAccount: j.destination_account, sharedSecret: Buffer.from(j.shared_secret, 'base64') };
  }

  /** Open Payments: the wallet address document (GET, application/json) carries an optional publicName. */
  async receiverName(walletAddress: string): Promise<string | null> {
    this.configured();
    const r = await fetch(walletAddress, { headers: { accept: 'application/json' } });
    if (!r.ok) throw new Error(`wallet address lookup answered ${r.status}`);
    const j = (await r.json()) as { publicName?: unknown };
    return typeof j.publicName === 'string' && j.publicName.trim() !== '' ? j.publicName : null;
  }

  async send(input: { walletAddress: string; amount: string; data: Buffer; nowMs: number }): Promise<IlpSendResult> {
    const { url, token } = this.configured();
    const spsp = await this.resolve(input.walletAddress);
    const fulfillment = fulfillmentFor(spsp.sharedSecret, input.data);
    const condition = sha256(fulfillment);
    const prepare = serializeIlpPrepare({ amount: input.amount, executionCondition: condition, expiresAt: new Date(input.nowMs + 30_000), destination: spsp.destinationAccount, data: input.data });
    const r = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' }, body: prepare });
    const replyBytes = Buffer.from(await r.arrayBuffer());
    const reply = deserializeIlpReply(replyBytes);
    const packets: IlpSendResult['packets'] = [{ type: 'prepare', base64: prepare.toString('base64') }];
    if (isFulfill(reply) && sha256(reply.fulfillment).equals(condition)) {
      packets.push({ type: 'fulfill', base64: replyBytes.toString('base64') });
      return { fulfilled: true, fulfillment: reply.fulfillment.toString('base64'), condition: condition.toString('base64'), rejectCode: null, rejectMessage: null, destination: spsp.destinationAccount, packets };
    }
    packets.push({ type: 'reject', base64: replyBytes.toString('base64') });
    const code = isFulfill(reply) ? 'F05' : reply.code;
    return { fulfilled: false, fulfillment: null, condition: condition.toString('base64'), rejectCode: code, rejectMessage: isFulfill(reply) ? 'bad fulfillment' : reply.message, destination: spsp.destinationAccount, packets };
  }
}

export function connectorAdapter(environment: Environment): ConnectorAdapter {
  return environment === 'production' ? new HttpConnector() : new SandboxStreamConnector();
}

export { randomBytes };
