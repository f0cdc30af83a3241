import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** Decides each answer's status from the request count so far (1-based). */
  respond: (n: number, req: Received) => number;
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

/** A real HTTP endpoint on 127.0.0.1 that records every request. */
export async function startReceiver(respond: Receiver['respond'] = () => 200, path = '/hooks'): Promise<Receiver> {
  const received: Received[] = [];
  const r = { received, respond } as Receiver;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rec = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      received.push(rec);
      res.statusCode = r.respond(received.length, rec);
      res.end(res.statusCode < 300 ? 'ok' : 'nope');
    });
  });
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
  const port = (server.address() as AddressInfo).port;
  r.port = port;
  r.url = `http://127.0.0.1:${port}${path}`;
  r.waitFor = async (count, timeoutMs = 20_000) => {
    const deadline = Date.now() + timeoutMs;
    while (received.length < count) {
      if (Date.now() > deadline) throw new Error(`receiver got ${received.length} of ${count} requests`);
      await new Promise((res) => setTimeout(res, 25));
    }
    return received;
  };
  r.close = () => new Promise<void>((res) => server.close(() => res()));
  return r;
}
