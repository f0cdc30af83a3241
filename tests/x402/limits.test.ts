import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPool } from '../../domain/db/pool';
import { createTestApp, createTestUser, type TestApp, type TestUser } from '../helpers/app';
import { fundUsdc, paymentHeader, payWithClient, registerPayer, requiredFrom, testPayer } from './helpers';
import { refusalsOf, tenantCustomers, type Probe } from '../helpers/tenants';

let t: TestApp;
let operator: TestUser;
let acct: string;
const url = () => `/api/v2/accounts/${acct}/transactions`;

const call = (method: 'GET' | 'PUT' | 'DELETE' | 'POST', path: string, headers = t.headers, payload?: object) => t.app.inject({ method, url: path, headers, ...(payload ? { payload } : {}) });

async function pay(payer: ReturnType<typeof testPayer>, headers = t.headers) {
  const required = requiredFrom((await call('GET', url(), headers)).headers);
  return call('GET', url(), { ...headers, ...paymentHeader(await payWithClient(payer, required)) });
}

beforeAll(async () => {
  t = await createTestApp();
  operator = await createTestUser({ admin: true });
  acct = (await call('POST', '/api/v2/accounts', t.headers, { name: 'main' })).json().data.uuid;
  const r = await call('POST', '/api/v2/x402/endpoints', operator.headers, { path: '/api/v2/accounts/{uuid}/transactions', price_usd_cents: 1, network: 'eip155:84532', asset: 'USDC', description: 'History' });
  expect(r.statusCode, r.body).toBe(201);
}, 60_000);

afterAll(async () => t?.close());

describe('spending limits', () => {
  it('per payer wallet: per request and per UTC day, refused before anything settles; shown with today\'s spending', async () => {
    const payer = testPayer();
    await fundUsdc(await registerPayer(t, t.headers, payer), 'base', '1.00');
    const set = await call('PUT', `/api/v2/x402/spending-limits/payers/${payer.address}`, t.headers, { per_request_max: '0.005', daily_max: '0.02' });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json().data).toMatchObject({ subject_type: 'payer', address: payer.address, per_request_max: '0.005000', daily_max: '0.020000', custom: true, spent_today: '0.000000' });
    const over = await pay(payer);
    expect(over.statusCode).toBe(402);
    expect(over.json().errors[0]).toMatchObject({ code: 'SPENDING_LIMIT_EXCEEDED' });
    await call('PUT', `/api/v2/x402/spending-limits/payers/${payer.address}`, t.headers, { per_request_max: '0.01', daily_max: '0.02' });
    expect((await pay(payer)).statusCode).toBe(200);
    expect((await pay(payer)).statusCode).toBe(200);
    const third = await pay(payer);
    expect(third.statusCode).toBe(402);
    expect(third.json().errors[0].detail).toMatch(/daily limit of 0.020000 USDC/);
    const view = (await call('GET', '/api/v2/x402/spending-limits')).json().data;
    expect(view.payers.find((p: { address: string }) => p.address === payer.address)).toMatchObject({ spent_today: '0.020000', remaining_today: '0.000000' });
    expect(view.defaults).toMatchObject({ payer: { per_request_max: '25', daily_max: '250' }, agent: { per_request_max: '1', daily_max: '20' } });
    const back = await call('DELETE', `/api/v2/x402/spending-limits/payers/${payer.address}`);
    expect(back.json().data).toMatchObject({ custom: false, per_request_max: '25', daily_max: '250' });
    expect((await pay(payer)).statusCode).toBe(200);
  });

  it('concurrent payments cannot pass a daily budget together', async () => {
    const payer = testPayer();
    await fundUsdc(await registerPayer(t, t.headers, payer), 'base', '1.00');
    const limit = await call('PUT', `/api/v2/x402/spending-limits/payers/${payer.address}`, t.headers, { per_request_max: null, daily_max: '0.03' });
    expect(limit.json().data, limit.body).toMatchObject({ per_request_max: '25', daily_max: '0.030000', custom: true });
    const required = requiredFrom((await call('GET', url())).headers);
    const payments = await Promise.all(Array.from({ length: 8 }, () => payWithClient(payer, required)));
    const all = await Promise.all(payments.map((p) => call('GET', url(), { ...t.headers, ...paymentHeader(p) })));
    expect(all.filter((r) => r.statusCode === 200)).toHaveLength(3);
    expect(all.filter((r) => r.statusCode === 402).every((r) => r.json().errors[0].code === 'SPENDING_LIMIT_EXCEEDED')).toBe(true);
    const { rows } = await getPool().query(`SELECT count(*)::int AS n FROM x402_payments WHERE payer = $1 AND status = 'settled'`, [payer.address.toLowerCase()]);
    expect(rows[0].n).toBe(3);
  });

  it('per agent key: an API key tagged as an agent spends within its own budget, whoever\'s wallet pays', async () => {
    const created = await call('POST', '/api/v2/api-keys', t.headers, { name: 'shopping agent', agent: true });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().data.agent).toBe(true);
    const agent = { authorization: `Bearer ${created.json().data.key}` };
    const payer = testPayer();
    await fundUsdc(await registerPayer(t, t.headers, payer), 'base', '1.00');
    const keyId = created.json().data.id;
    const set = await call('PUT', `/api/v2/x402/spending-limits/agents/${keyId}`, t.headers, { per_request_max: '0.01', daily_max: '0.01' });
    expect(set.json().data).toMatchObject({ subject_type: 'agent', api_key_id: keyId, label: 'shopping agent', daily_max: '0.010000' });
    expect((await pay(payer, agent)).statusCode).toBe(200);
    const refused = await pay(payer, agent);
    expect(refused.statusCode).toBe(402);
    expect(refused.json().errors[0].detail).toMatch(/agent key/);
    // The same wallet paying without the agent is within the payer's own limit.
    expect((await pay(payer)).statusCode).toBe(200);
    const history = (await call('GET', '/api/v2/x402/payments')).json().data;
    expect(history.filter((p: { agent_key_id: string | null }) => p.agent_key_id === keyId)).toHaveLength(1);
    const listed = (await call('GET', '/api/v2/x402/spending-limits')).json().data.agents;
    expect(listed).toEqual([expect.objectContaining({ api_key_id: keyId, spent_today: '0.010000' })]);
  });

  it('an agent key cannot lift or escape its budget: no limit changes, no new or rotated keys; the owner still can', async () => {
    // Every permission, so what refuses is the agent rule and not a missing scope.
    const created = await call('POST', '/api/v2/api-keys', t.headers, { name: 'greedy agent', agent: true, permissions: ['read', 'write', 'delete'] });
    expect(created.statusCode, created.body).toBe(201);
    const agent = { authorization: `Bearer ${created.json().data.key}` };
    const keyId = created.json().data.id;
    const payer = testPayer();
    await registerPayer(t, t.headers, payer);
    // Its own budget, another agent's, a wallet's, or back to the default: all the owner's to decide.
    for (const [method, url] of [
      ['PUT', `/api/v2/x402/spending-limits/agents/${keyId}`],
      ['DELETE', `/api/v2/x402/spending-limits/agents/${keyId}`],
      ['PUT', `/api/v2/x402/spending-limits/payers/${payer.address}`],
    ] as const) {
      const r = await call(method, url, agent, method === 'PUT' ? { per_request_max: '1000', daily_max: '100000' } : undefined);
      expect(r.statusCode, `${method} ${url}: ${r.body}`).toBe(403);
      expect(r.json().errors[0].code).toBe('AGENT_NOT_PERMITTED');
    }
    // A key of its own: neither an unflagged one (which would pay without any agent budget), nor an
    // agent one (a fresh budget), nor a rotation (a new key id starts a new day's budget).
    for (const body of [{ name: 'escape' }, { name: 'escape', agent: false }, { name: 'twin', agent: true }]) {
      const r = await call('POST', '/api/v2/api-keys', agent, body);
      expect(r.statusCode, r.body).toBe(403);
      expect(r.json().errors[0].code).toBe('AGENT_NOT_PERMITTED');
    }
    const rotated = await call('POST', `/api/v2/api-keys/${keyId}/rotate`, agent, {});
    expect(rotated.statusCode, rotated.body).toBe(403);
    expect(rotated.json().errors[0].code).toBe('AGENT_NOT_PERMITTED');
    const { rows } = await getPool().query(`SELECT count(*)::int AS n FROM x402_spending_limits WHERE subject = $1`, [keyId]);
    expect(rows[0].n).toBe(0);
    // The owner sets the agent's budget.
    expect((await call('PUT', `/api/v2/x402/spending-limits/agents/${keyId}`, t.headers, { per_request_max: '0.5', daily_max: '2' })).statusCode).toBe(200);
  });

  it("limits and wallets are their owner's: others get 404, proof of control is required, bad values are 422", async () => {
    const payer = testPayer();
    await registerPayer(t, t.headers, payer);
    const other = await createTestUser();
    expect((await call('PUT', `/api/v2/x402/spending-limits/payers/${payer.address}`, other.headers, { per_request_max: '1', daily_max: '2' })).statusCode).toBe(404);
    expect((await call('PUT', '/api/v2/x402/spending-limits/agents/key_nope', t.headers, { per_request_max: '1', daily_max: '2' })).statusCode).toBe(404);
    const inverted = await call('PUT', `/api/v2/x402/spending-limits/payers/${payer.address}`, t.headers, { per_request_max: '5', daily_max: '2' });
    expect(inverted.statusCode).toBe(422);
    const precise = await call('PUT', `/api/v2/x402/spending-limits/payers/${payer.address}`, t.headers, { per_request_max: '0.0000001', daily_max: '2' });
    expect(precise.statusCode).toBe(422);
    // Registering someone else's wallet (a signature by another key) or another user's account.
    const otherAcct = (await call('POST', '/api/v2/accounts', other.headers, { name: 'x' })).json().data.uuid;
    const stranger = testPayer();
    const forged = await call('POST', '/api/v2/x402/wallets', other.headers, { address: stranger.address, account_id: otherAcct, signature: await testPayer().signMessage({ message: 'anything' }) });
    expect(forged.json().errors[0].code).toBe('WALLET_SIGNATURE_INVALID');
    const msg = (await call('GET', `/api/v2/x402/wallets?address=${payer.address}&account_id=${otherAcct}`, other.headers)).json().meta.registration_message;
    const taken = await call('POST', '/api/v2/x402/wallets', other.headers, { address: payer.address, account_id: otherAcct, signature: await payer.signMessage({ message: msg }) });
    expect(taken.statusCode).toBe(409);
    expect((await call('POST', '/api/v2/x402/wallets', other.headers, { address: stranger.address, account_id: acct, signature: '0x00' })).statusCode).toBe(404);
    expect((await call('GET', '/api/v2/x402/wallets', other.headers)).json().data).toEqual([]);
    expect((await call('DELETE', `/api/v2/x402/wallets/${payer.address}`, other.headers)).statusCode).toBe(404);
  });
});

describe('tenant isolation (issue 41)', () => {
  it("A's wallet, limits, agent key and payments: another customer of the tenant and a customer of another tenant get 404, find none in their lists, and paying for A's priced resource serves and charges nothing", async () => {
    const { a, b, c } = await tenantCustomers(t.user.userId);
    const aAcct = (await call('POST', '/api/v2/accounts', a.headers, { name: 'tenant A' })).json().data.uuid as string;
    const payer = testPayer();
    await fundUsdc(await registerPayer(t, a.headers, payer), 'base', '1.00');
    expect((await call('PUT', `/api/v2/x402/spending-limits/payers/${payer.address}`, a.headers, { per_request_max: '0.5', daily_max: '1' })).statusCode).toBe(200);
    const agent = (await call('POST', '/api/v2/api-keys', a.headers, { name: 'agent', agent: true })).json().data.id as string;
    // A pays for A's own priced resource (the transactions of A's account).
    const priced = `/api/v2/accounts/${aAcct}/transactions`;
    const required = requiredFrom((await call('GET', priced, a.headers)).headers);
    expect((await call('GET', priced, { ...a.headers, ...paymentHeader(await payWithClient(payer, required)) })).statusCode).toBe(200);
    const { rows: paid } = await getPool().query<{ id: string }>('SELECT id FROM x402_payments WHERE payer = $1', [payer.address.toLowerCase()]);
    const snapshot = async () => ({
      wallets: (await getPool().query('SELECT address, user_id, account_id FROM x402_wallets WHERE user_id = $1 ORDER BY address', [a.userId])).rows,
      limits: (await call('GET', '/api/v2/x402/spending-limits', a.headers)).json().data,
      payments: (await getPool().query('SELECT id, status FROM x402_payments ORDER BY id')).rows,
    });
    const before = await snapshot();
    const secrets = [payer.address, payer.address.toLowerCase(), agent, aAcct, ...paid.map((r) => r.id)];
    const limits = { per_request_max: '25', daily_max: '250' };
    const wrong: string[] = [];
    for (const [who, u] of [['B (same tenant)', b], ['C (other tenant)', c]] as const) {
      const probes: Probe[] = [
        { method: 'PUT', url: `/api/v2/x402/spending-limits/payers/${payer.address}`, payload: limits },
        { method: 'DELETE', url: `/api/v2/x402/spending-limits/payers/${payer.address}` },
        { method: 'PUT', url: `/api/v2/x402/spending-limits/agents/${agent}`, payload: limits, expect: { status: 404, code: 'API_KEY_NOT_FOUND' } },
        { method: 'DELETE', url: `/api/v2/x402/spending-limits/agents/${agent}`, expect: { status: 404, code: 'API_KEY_NOT_FOUND' } },
        { method: 'DELETE', url: `/api/v2/x402/wallets/${payer.address}` },
      ];
      wrong.push(...(await refusalsOf(t.app, probes, [[who, u.headers]], { status: 404, code: 'WALLET_NOT_FOUND' }, secrets)));
      // Prices are the environment's, set by operators: a customer changes none (403), and sees them.
      const price = (await call('GET', '/api/v2/x402/endpoints', u.headers)).json().data.find((e: { path: string }) => e.path === '/api/v2/accounts/:uuid/transactions');
      const del = await call('DELETE', `/api/v2/x402/endpoints/${price.id}`, u.headers);
      if (del.statusCode !== 403 || del.json().errors[0].code !== 'ADMIN_REQUIRED') wrong.push(`${who} DELETE price -> ${del.statusCode}`);
      for (const url of ['/api/v2/x402/wallets', '/api/v2/x402/spending-limits', '/api/v2/x402/payments']) {
        const list = await call('GET', url, u.headers);
        const leaked = secrets.filter((x) => list.body.includes(x));
        if (list.statusCode !== 200 || leaked.length) wrong.push(`${who} GET ${url} -> ${list.statusCode} ${leaked.join(',')}`);
      }
      // Their own funded wallet pays for A's resource: A's data stays A's (404) and nothing is charged.
      const own = testPayer();
      await fundUsdc(await registerPayer(t, u.headers, own), 'base', '1.00');
      const ask = await call('GET', priced, u.headers);
      const r = await call('GET', priced, { ...u.headers, ...paymentHeader(await payWithClient(own, requiredFrom(ask.headers))) });
      if (r.statusCode !== 404 || secrets.some((x) => r.body.includes(x) && x !== aAcct)) wrong.push(`${who} paid GET ${priced} -> ${r.statusCode} ${r.body.slice(0, 120)}`);
      const charged = await getPool().query('SELECT id FROM x402_payments WHERE payer = $1', [own.address.toLowerCase()]);
      if (charged.rowCount !== 0) wrong.push(`${who} was charged for A's resource`);
    }
    // An operator of the other environment does not see this environment's price.
    const price = (await call('GET', '/api/v2/x402/endpoints', a.headers)).json().data.find((e: { path: string }) => e.path === '/api/v2/accounts/:uuid/transactions');
    const prodOperator = await createTestUser({ environment: 'production', admin: true });
    const gone = await call('DELETE', `/api/v2/x402/endpoints/${price.id}`, prodOperator.headers);
    if (gone.statusCode !== 404 || gone.json().errors[0].code !== 'ENDPOINT_NOT_FOUND') wrong.push(`production operator DELETE sandbox price -> ${gone.statusCode}`);
    expect(wrong).toEqual([]);
    expect(await snapshot()).toEqual(before);
    expect((await call('GET', '/api/v2/x402/endpoints', a.headers)).json().data.map((e: { id: string }) => e.id)).toContain(price.id);
  });
});
