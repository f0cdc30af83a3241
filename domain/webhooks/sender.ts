import http from 'node:http';
import https from 'node:https';
import type { LookupAddress } from 'node:dns';
import { webhookConfig } from './config';
import { type AddressPolicy, bareHost, parseWebhookUrl, pinnedLookup, resolveCheckedAddress } from './url-safety';

export interface WebhookRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs?: number;
}

export interface WebhookResponse {
  /** HTTP status, or null when no response came (refused, timeout, connection error). */
  statusCode: number | null;
  ok: boolean;
  durationMs: number;
  error: string | null;
}

/**
 * The network edge of webhook deliveries. Both environments use HttpWebhookSender: the customer's
 * own endpoint is the "network", and a sandbox that did not really POST would not let anyone test
 * a receiver. The interface is the seam for other transports.
 */
export interface WebhookSender {
  send(req: WebhookRequest): Promise<WebhookResponse>;
}

const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * POST over node's http(s) with a hard timeout (connect to last byte), no redirects followed (a
 * 3xx is a failure), and the SSRF check pinned to the connection: the host is resolved once, every
 * answer is checked, and the socket connects to the checked address only (pinnedLookup), with
 * Host and TLS SNI still the URL's name. `policy` is the seam for another resolver (tests).
 */
export class HttpWebhookSender implements WebhookSender {
  constructor(private readonly policy: AddressPolicy = {}) {}

  async send(req: WebhookRequest): Promise<WebhookResponse> {
    const started = process.hrtime.bigint();
    const elapsed = () => Math.round(Number(process.hrtime.bigint() - started) / 1e6);
    const fail = (error: string, statusCode: number | null = null): WebhookResponse => ({ statusCode, ok: false, durationMs: elapsed(), error });
    let url: URL;
    try {
      url = parseWebhookUrl(req.url);
    } catch (e) {
      return fail((e as Error).message);
    }
    const timeoutMs = req.timeoutMs ?? webhookConfig().timeoutMs;
    let pinned: LookupAddress;
    try {
      pinned = await withTimeout(resolveCheckedAddress(url, this.policy), timeoutMs, `timeout after ${timeoutMs} ms resolving ${bareHost(url)}`);
    } catch (e) {
      const message = (e as Error).message;
      return fail(/does not resolve|timeout/.test(message) ? message : `refused: ${message}`);
    }
    const remainingMs = Math.max(1, timeoutMs - elapsed());
    const mod = url.protocol === 'https:' ? https : http;
    return new Promise<WebhookResponse>((resolve) => {
      let settled = false;
      const finish = (r: WebhookResponse) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(r);
      };
      const request = mod.request(
        url,
        {
          method: 'POST',
          lookup: pinnedLookup(pinned) as never,
          agent: false,
          headers: {
            'content-type': 'application/json',
            'content-length': String(Buffer.byteLength(req.body)),
            'user-agent': 'MultiAssetBanking-Webhooks/1.0',
            ...req.headers,
          },
        },
        (res) => {
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            // Only the status matters; a huge answer is not read to the end.
            if (size > MAX_RESPONSE_BYTES) res.destroy();
          });
          const done = () => {
            const code = res.statusCode ?? 0;
            const ok = code >= 200 && code < 300;
            finish({ statusCode: code, ok, durationMs: elapsed(), error: ok ? null : `HTTP ${code}` });
          };
          res.on('end', done);
          res.on('close', done);
          res.on('error', done);
        },
      );
      const timer = setTimeout(() => {
        request.destroy();
        finish(fail(`timeout after ${timeoutMs} ms`));
      }, remainingMs);
      request.on('error', (err: NodeJS.ErrnoException) => finish(fail(`${err.code ?? 'ERROR'}: ${err.message}`)));
      request.end(req.body);
    });
  }
}

function withTimeout<T>(p: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const t = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([p, t]).finally(() => clearTimeout(timer));
}

const httpSender = new HttpWebhookSender();

/**
 * The sender for an environment. Sandbox and production both POST for real (the receiver is the
 * customer's own system); production additionally never gets the development allowances, which
 * come only from process settings (WEBHOOK_ALLOW_PRIVATE_URLS / WEBHOOK_ALLOW_HTTP).
 */
export function senderFor(_environment: 'sandbox' | 'production'): WebhookSender {
  return httpSender;
}
