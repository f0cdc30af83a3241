import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPool } from '../../domain/db/pool';
import { createTestApp, createTestUser, type TestApp, type TestUser } from '../helpers/app';
import { fundUsdc, paymentHeader, payWithClient, registerPayer, requiredFrom, testPayer } from './helpers';

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
