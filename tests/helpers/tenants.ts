/**
 * Tenant isolation fixtures (issue 41): customers A and B of one partner tenant (T1) and customer C
 * of another (T2), and a table-driven probe asserting that every request B or C makes about A's
 * resources is the area's 404 (or, for a body naming A's resource, the area's *_NOT_FOUND), with
 * none of A's ids in the answer beyond those the request carried.
 */
import type { FastifyInstance } from 'fastify';
import { getPool } from '../../domain/db/pool';
import { newId } from '../../domain/platform/ids';
import { createTestUser, type TestUser } from './app';

export interface Tenants {
  t1: string;
  t2: string;
  /** Customer A of T1: owns the resources under test. */
  a: TestUser;
  /** Customer B of T1. */
  b: TestUser;
  /** Customer C of T2. */
  c: TestUser;
}

/**
 * Two tenants of one partner (no module switched off) and three customers; accounts they open carry
 * their tenant. `partnerOwner`: a user to own the partner row (any user; it saves registering one).
 */
export async function tenantCustomers(partnerOwner?: string): Promise<Tenants> {
  const pool = getPool();
  const owner = partnerOwner ?? (await createTestUser()).userId;
  const partner = newId('ptn');
  await pool.query(
    `INSERT INTO partners (id, organization_name, contact_email, tier, status, modules, requests_per_minute, burst_limit, user_id, partner_key_hash, partner_key_prefix, created_by)
     VALUES ($1, 'Isolation Partner', 'iso@example.test', 'starter', 'active', '{accounts,payments,crosschain,defi,gcu,regtech,mobile,webhooks,iso20022,open_banking,microfinance}', 100, 10, $2, $1, 'fpk_', 'test')`,
    [partner, owner],
  );
  const [t1, t2] = [newId('ten'), newId('ten')];
  for (const id of [t1, t2]) {
    await pool.query(`INSERT INTO partner_tenants (id, partner_id, name, plan, domain, status) VALUES ($1, $2, $1, 'standard', $3, 'active')`, [id, partner, `${id}.example`]);
  }
  const [a, b, c] = await Promise.all([createTestUser(), createTestUser(), createTestUser()]);
  await pool.query('UPDATE users SET tenant_id = $2 WHERE id = ANY($1::text[])', [[a.userId, b.userId], t1]);
  await pool.query('UPDATE users SET tenant_id = $2 WHERE id = $1', [c.userId, t2]);
  return { t1, t2, a, b, c };
}

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export interface Probe {
  method: Method;
  url: string;
  payload?: unknown;
  /** The refusal expected (default: the table's): status and code. */
  expect?: { status: number; code: string };
  /** Extra headers (an Idempotency-Key, a certificate). */
  headers?: Record<string, string>;
}

/**
 * Sends every probe as each caller and returns what was not the expected refusal, or answered with
 * one of `secrets` that the request did not itself carry. An empty list is the pass.
 */
export async function refusalsOf(
  app: FastifyInstance,
  probes: Probe[],
  callers: Array<[string, Record<string, string>]>,
  expected: { status: number; code: string },
  secrets: string[] = [],
): Promise<string[]> {
  const wrong: string[] = [];
  for (const p of probes) {
    for (const [who, headers] of callers) {
      const r = await app.inject({ method: p.method, url: p.url, headers: { ...headers, ...p.headers }, ...(p.payload !== undefined ? { payload: p.payload as object } : {}) });
      const want = p.expect ?? expected;
      let code: string | undefined;
      try {
        code = r.json().errors?.[0]?.code;
      } catch {
        code = undefined;
      }
      const sent = p.url + JSON.stringify(p.payload ?? '');
      const leaked = secrets.filter((s) => r.body.includes(s) && !sent.includes(s));
      if (r.statusCode !== want.status || code !== want.code || leaked.length > 0) {
        wrong.push(`${who} ${p.method} ${p.url} -> ${r.statusCode} ${code ?? ''}${leaked.length ? ` leaks ${leaked.join(',')}` : ''} ${r.body.slice(0, 160)}`);
      }
    }
  }
  return wrong;
}
