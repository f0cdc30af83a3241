import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { webhookConfig } from './config';
import { bareHost, isForbiddenAddress, parseWebhookUrl, safeLookup } from './url-safety';

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
 * 3xx is a failure), and the SSRF check at connect time (safeLookup; IP literals checked here).
 */
export class HttpWebhookSender implements WebhookSender {
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
    const host = bareHost(url);
    if (isIP(host) && isForbiddenAddress(host) && !webhookConfig().allowPrivateUrls) {
      return fail(`refused: ${host} is a private, loopback or link-local address`);
    }
    const timeoutMs = req.timeoutMs ?? webhookConfig().timeoutMs;
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
          lookup: safeLookup as never,
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
      }, timeoutMs);
      request.on('error', (err: NodeJS.ErrnoException) => finish(fail(err.code === 'EWEBHOOKADDR' ? err.message : `${err.code ?? 'ERROR'}: ${err.message}`)));
      request.end(req.body);
    });
  }
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
