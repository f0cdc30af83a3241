// `npm run soak -- [--base URL] [--clients 16] [--seconds 60] [--pool-check]`: a running platform
// (npm start) driven the way issue 39's new user froze it: register, open an account, deposit
// 10,000 USD, send three ach_standard payments, read the three at once; each client repeats it for
// the given time. Every request has a deadline; one that passes it is a stuck request and the run
// fails. Loopback only: the base URL must be 127.0.0.1 / localhost.
import { randomBytes } from 'node:crypto';

const args = process.argv.slice(2);
const opt = (name: string, fallback: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const base = opt('base', 'http://127.0.0.1:8080');
const clients = Number(opt('clients', '16'));
const seconds = Number(opt('seconds', '60'));
const REQUEST_DEADLINE_MS = 30_000;
if (!['127.0.0.1', 'localhost', '[::1]'].includes(new URL(base).hostname)) throw new Error('the soak sends traffic to this machine only');

const statuses = new Map<string, number>();
const latencies: number[] = [];
let stuck = 0;
let sequences = 0;

async function call(method: string, path: string, body?: unknown, token?: string): Promise<{ status: number; json: any }> {
  const started = Date.now();
  try {
    const r = await fetch(`${base}${path}`, {
      method,
      headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}), ...(method === 'POST' ? { 'idempotency-key': randomBytes(8).toString('hex') } : {}) },
      body: body ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(REQUEST_DEADLINE_MS),
    });
    const json = await r.json().catch(() => null);
    // Rate limited (RATE_LIMIT_PER_MINUTE is per credential): wait as told, as a real client would.
    if (r.status === 429) await new Promise((w) => setTimeout(w, Math.min(Number(r.headers.get('retry-after') ?? 1), 10) * 1000));
    const key = `${method} ${path.replace(/[a-z]+_[0-9a-f]{32}|[0-9a-f-]{36}/g, ':id')} ${r.status}`;
    statuses.set(key, (statuses.get(key) ?? 0) + 1);
    return { status: r.status, json };
  } catch (err) {
    if ((err as Error).name === 'TimeoutError') stuck++;
    const key = `${method} ${path.replace(/[a-z]+_[0-9a-f]{32}|[0-9a-f-]{36}/g, ':id')} ${(err as Error).name}`;
    statuses.set(key, (statuses.get(key) ?? 0) + 1);
    return { status: 0, json: null };
  } finally {
    latencies.push(Date.now() - started);
  }
}

async function client(n: number, until: number): Promise<void> {
  const email = `soak-${n}-${randomBytes(4).toString('hex')}@example.test`;
  const password = 'a-long-soak-password';
  await call('POST', '/api/auth/register', { name: `Soak ${n}`, email, password, password_confirmation: password });
  const login = await call('POST', '/api/auth/login', { email, password });
  const token = login.json?.access_token as string | undefined;
  if (!token) throw new Error(`login failed for client ${n} (${login.status})`);
  while (Date.now() < until) {
    const acct = (await call('POST', '/api/v2/accounts', { name: 'soak' }, token)).json?.data?.uuid;
    if (!acct) continue;
    await call('POST', `/api/v2/accounts/${acct}/deposit`, { amount: '10000.00', asset_code: 'USD' }, token);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await call('POST', '/api/v1/payment-rails/payments', { account_id: acct, amount: '25.00', currency: 'USD', rail: 'ach_standard', creditor_account: { name: 'Bob Payee', account_number: '123456789', routing_number: '021000021' }, memo: 'soak' }, token);
      if (r.json?.data?.id) ids.push(r.json.data.id);
    }
    await Promise.all(ids.map((id) => call('GET', `/api/v1/payment-rails/payments/${id}`, undefined, token)));
    sequences++;
  }
}

const started = Date.now();
const until = started + seconds * 1000;
await Promise.all(Array.from({ length: clients }, (_, i) => client(i, until)));
const ready = await call('GET', '/api/ready');
latencies.sort((a, b) => a - b);
const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0;
console.log(`${clients} clients, ${((Date.now() - started) / 1000).toFixed(0)} s: ${sequences} sequences, ${latencies.length} requests, p50 ${pct(50)} ms, p99 ${pct(99)} ms, max ${latencies.at(-1)} ms, stuck ${stuck}, /api/ready ${ready.status}`);
for (const [k, v] of [...statuses].sort()) console.log(`  ${k}: ${v}`);
process.exit(stuck === 0 && ready.status === 200 ? 0 : 1);
