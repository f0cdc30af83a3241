// The load generator's HTTP side: a keep-alive client whose writes carry an Idempotency-Key and
// are retried with the same key until the API gives an answer (it may be down or restarting),
// and the loopback webhook receiver that counts deliveries by event id.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sleep } from './infra';

export interface Answer {
  status: number;
  body: any;
  text: string;
}

export interface WriteResult extends Answer {
  attempts: number;
}

export interface ClientStats {
  requests: number;
  /** Attempts that got no HTTP answer (refused, reset, timed out). */
  networkErrors: number;
  /** 5xx answers (the key is released; retried). */
  serverErrors: number;
  /** 409 IDEMPOTENCY_REQUEST_IN_PROGRESS: the first attempt's process died holding the key. */
  inProgress: number;
  /** Answers replayed from the idempotency store (Idempotent-Replayed: true). */
  replayed: number;
  /** Writes given up on (no answer within the write deadline). */
  unanswered: number;
}

export class ApiClient {
  readonly stats: ClientStats = { requests: 0, networkErrors: 0, serverErrors: 0, inProgress: 0, replayed: 0, unanswered: 0 };
  private agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  headers: Record<string, string> = {};

  constructor(readonly base: string) {}

  /** One attempt; rejects on a network error or timeout. */
  request(method: string, path: string, body?: unknown, extra: Record<string, string> = {}, timeoutMs = 60_000): Promise<Answer & { replayed: boolean }> {
    this.stats.requests++;
    return new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const headers: Record<string, string | number> = { ...this.headers, ...extra };
      if (payload !== undefined) {
        headers['content-type'] = 'application/json';
        headers['content-length'] = Buffer.byteLength(payload);
      }
      const req = http.request(`${this.base}${path}`, { method, agent: this.agent, headers, timeout: timeoutMs }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = null;
          try {
            parsed = text ? JSON.parse(text) : null;
          } catch {
            parsed = null;
          }
          resolve({ status: res.statusCode ?? 0, body: parsed, text, replayed: res.headers['idempotent-replayed'] === 'true' });
        });
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`timeout after ${timeoutMs} ms`)));
      req.on('error', reject);
      req.end(payload);
    });
  }

  /**
   * A write with an Idempotency-Key, retried with the same key while there is no final answer:
   * no HTTP answer, a 5xx, 429, or 409 IDEMPOTENCY_REQUEST_IN_PROGRESS (an attempt whose API
   * process was killed holds the key until its lock expires). Other answers are final.
   */
  async write(path: string, body: unknown, key: string, deadlineMs = 5 * 60_000): Promise<WriteResult | null> {
    const until = Date.now() + deadlineMs;
    let pause = 100;
    for (let attempts = 1; ; attempts++) {
      let retry = false;
      try {
        const r = await this.request('POST', path, body, { 'idempotency-key': key });
        if (r.replayed) this.stats.replayed++;
        const code = r.body?.errors?.[0]?.code;
        if (r.status >= 500 || r.status === 429) {
          this.stats.serverErrors++;
          retry = true;
        } else if (r.status === 409 && code === 'IDEMPOTENCY_REQUEST_IN_PROGRESS') {
          this.stats.inProgress++;
          retry = true;
          pause = Math.max(pause, 1000);
        } else {
          return { ...r, attempts };
        }
      } catch {
        this.stats.networkErrors++;
        retry = true;
      }
      if (retry && Date.now() > until) {
        this.stats.unanswered++;
        return null;
      }
      await sleep(pause);
      pause = Math.min(pause * 2, 2000);
    }
  }

  /** A read or set-up call, retried on network errors and 5xx until it answers (60 s). */
  async call(method: string, path: string, body?: unknown, extra: Record<string, string> = {}): Promise<Answer> {
    const until = Date.now() + 60_000;
    for (;;) {
      try {
        const r = await this.request(method, path, body, extra);
        if (r.status < 500 || Date.now() > until) return r;
      } catch (err) {
        if (Date.now() > until) throw err;
      }
      await sleep(250);
    }
  }

  close(): void {
    this.agent.destroy();
  }
}

/** Expects a status, else throws with the body. */
export function expectStatus(r: Answer, status: number, what: string): any {
  if (r.status !== status) throw new Error(`${what}: expected ${status}, got ${r.status} ${r.text.slice(0, 500)}`);
  return r.body;
}

export interface Receiver {
  url: string;
  /** Deliveries received per event id. */
  counts: Map<string, number>;
  total: number;
  close(): Promise<void>;
}

/** A webhook endpoint on 127.0.0.1 that answers 200 and counts deliveries by the body's event id. */
export async function startReceiver(): Promise<Receiver> {
  const counts = new Map<string, number>();
  const rx = { total: 0 };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        const id = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id?: string }).id;
        if (typeof id === 'string') {
          counts.set(id, (counts.get(id) ?? 0) + 1);
          rx.total++;
        }
      } catch {
        /* not a delivery */
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hooks/chaos`,
    counts,
    get total() {
      return rx.total;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
