import { decodePaymentResponseHeader } from '@x402/core/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPool } from '../../domain/db/pool';
import { systemBalance } from '../../domain/ledger';
import { createTestApp, createTestUser, type TestApp, type TestUser } from '../helpers/app';
import { fundUsdc, paymentHeader, payWithClient, registerPayer, requiredFrom, signAuthorization, specHeaders, testPayer } from './helpers';

let t: TestApp;
let operator: TestUser;
let acct: string;
const payer = testPayer();
let payerAccount: string;
const PATH = '/api/v2/accounts/{uuid}/transactions';

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers: { ...t.headers, ...headers } });
const revenue = () => systemBalance('sandbox', 'USDC', 'fee_revenue');
const settledCount = async () => (await getPool().query<{ n: number }>(`SELECT count(*)::int AS n FROM x402_payments WHERE status = 'settled'`)).rows[0].n;

beforeAll(async () => {
  t = await createTestApp();
  operator = await createTestUser({ admin: true });
  acct = (await t.app.inject({ method: 'POST', url: '/api/v2/accounts', headers: t.headers, payload: { name: 'main' } })).json().data.uuid;
  payerAccount = await registerPayer(t, t.headers, payer);
  await fundUsdc(payerAccount, 'base', '5.00');
  const r = await t.app.inject({
    method: 'POST',
    url: '/api/v2/x402/endpoints',
    headers: operator.headers,
    payload: { path: PATH, price_usd_cents: 1, network: 'eip155:84532', asset: 'USDC', description: 'Transaction history' },
  });
  expect(r.statusCode, r.body).toBe(201);
  expect(r.json().data).toMatchObject({ path: '/api/v2/accounts/:uuid/transactions', price_atomic: '10000', network: 'eip155:84532', asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e' });
}, 60_000);

afterAll(async () => t?.close());

describe('monetized endpoints', () => {
  it('answer 402 with the six X-Payment-* headers and x402 v2 PAYMENT-REQUIRED; a paid retry is served and settled once on the ledger', async () => {
    const unpaid = await get(`/api/v2/accounts/${acct}/transactions`);
    expect(unpaid.statusCode).toBe(402);
    expect(unpaid.json().errors[0].code).toBe('PAYMENT_REQUIRED');
    expect(unpaid.headers).toMatchObject({
      'x-payment-required': 'true',
      'x-payment-network': 'eip155:84532',
      'x-payment-asset': '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
      // The spec's decimal string (USDC, six decimals); PAYMENT-REQUIRED keeps x402's atomic units.
      'x-payment-amount': '0.010000',
      'x-payment-receiver': '0x5A4db0B7c9E3ac3f1e8Fa8D8b3e1a4A9c2B7E402',
      'x-payment-facilitator': 'http://localhost:80/api/v2/x402/facilitator',
    });
    const required = requiredFrom(unpaid.headers);
    expect(required).toMatchObject({ x402Version: 2, resource: { url: `http://localhost:80/api/v2/accounts/${acct}/transactions` }, accepts: [{ scheme: 'exact', amount: '10000', extra: { name: 'USDC', version: '2' } }] });

    const before = await revenue();
    const paid = await get(`/api/v2/accounts/${acct}/transactions`, paymentHeader(await payWithClient(payer, required)));
    expect(paid.statusCode, paid.body).toBe(200);
    expect(paid.json().data).toEqual([]);
    const receipt = decodePaymentResponseHeader(String(paid.headers['payment-response']));
    expect(receipt).toMatchObject({ success: true, payer: payer.address, network: 'eip155:84532', amount: '10000' });
    expect(receipt.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect(Number(await revenue()) - Number(before)).toBeCloseTo(0.01, 6);
    const history = (await get('/api/v2/x402/payments')).json();
    expect(history.data[0]).toMatchObject({ payer: payer.address, amount: '10000', purpose: 'endpoint', status: 'settled', settlement_status: 'settled', transaction_hash: receipt.transaction });
    expect(history.meta).toMatchObject({ current_page: 1, total: 1 });
    const book = (await get(`/api/v2/accounts/${payerAccount}/balances`)).json().data.balances;
    expect(book.find((b: { asset_code: string }) => b.asset_code === 'USDC')).toMatchObject({ total_balance: '4.990000' });
  });

  it('a sandbox payer funded the documented way (docs/x402.md, "Sandbox in one minute") pays at once', async () => {
    // 1. An account, 2. USDC deposited on Base (the network's chain: its book is what the wallet pays from),
    // 3. the wallet registered to the account by its own signature, 4. the 402, 5. the paid retry.
    const wallet = testPayer();
    const account = await registerPayer(t, t.headers, wallet);
    const deposit = await t.app.inject({ method: 'POST', url: `/api/v2/accounts/${account}/deposit`, headers: t.headers, payload: { amount: '1.00', asset_code: 'USDC', chain: 'base' } });
    expect(deposit.statusCode, deposit.body).toBe(201);
    const unpaid = await get(`/api/v2/accounts/${acct}/transactions`);
    expect(unpaid.statusCode).toBe(402);
    const paid = await get(`/api/v2/accounts/${acct}/transactions`, paymentHeader(await payWithClient(wallet, requiredFrom(unpaid.headers))));
    expect(paid.statusCode, paid.body).toBe(200);
    const book = await getPool().query<{ balance: string }>(
      `SELECT (credits_posted - debits_posted)::text AS balance FROM ledger_accounts WHERE account_id = $1 AND asset_code = 'USDC' AND chain = 'base'`,
      [account],
    );
    expect(Number(book.rows[0].balance)).toBeCloseTo(0.99, 6);
    // A chain that does not carry the asset, or an off-chain asset on a chain, is refused with its pointer.
    const wrong = await t.app.inject({ method: 'POST', url: `/api/v2/accounts/${account}/deposit`, headers: t.headers, payload: { amount: '1.00', asset_code: 'USD', chain: 'base' } });
    expect(wrong.statusCode).toBe(422);
    expect(wrong.json().errors[0]).toMatchObject({ code: 'UNKNOWN_TOKEN', source: { pointer: '/chain' } });
  });

  it("takes the spec's X-Payment-Signature + X-Payment-Payload form too", async () => {
    const required = requiredFrom((await get(`/api/v2/accounts/${acct}/transactions`)).headers);
    const r = await get(`/api/v2/accounts/${acct}/transactions`, specHeaders(await payWithClient(payer, required)));
    expect(r.statusCode, r.body).toBe(200);
    expect(r.headers['x-payment-response']).toBe(r.headers['payment-response']);
  });

  it('refuses tampered payments with 402 and settles nothing', async () => {
    const required = requiredFrom((await get(`/api/v2/accounts/${acct}/transactions`)).headers);
    const req = required.accepts[0];
    const now = BigInt(Math.floor(Date.now() / 1000));
    const cases: [string, Parameters<typeof signAuthorization>[3], string][] = [
      ['other payee', { to: payer.address }, 'PAYMENT_WRONG_PAYEE'],
      ['other amount', { value: '9999' }, 'PAYMENT_AMOUNT_MISMATCH'],
      ['other chain id', { chainId: 8453 }, 'PAYMENT_INVALID_SIGNATURE'],
      ['mainnet domain name', { name: 'USD Coin' }, 'PAYMENT_INVALID_SIGNATURE'],
      ['other verifying contract', { verifyingContract: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913' }, 'PAYMENT_INVALID_SIGNATURE'],
      ['expired window', { validBefore: now - 1n }, 'PAYMENT_EXPIRED'],
      ['not yet valid', { validAfter: now + 600n }, 'PAYMENT_NOT_YET_VALID'],
    ];
    const before = [await revenue(), await settledCount()];
    for (const [name, tamper, code] of cases) {
      const r = await get(`/api/v2/accounts/${acct}/transactions`, paymentHeader(await signAuthorization(payer, req, 84532, tamper)));
      expect(r.statusCode, name).toBe(402);
      expect(r.json().errors[0].code, name).toBe(code);
      expect(r.headers['payment-required'], name).toBeDefined();
    }
    // A payment for another requirement than offered, and a signature by someone else.
    const stranger = testPayer();
    const forged = await signAuthorization(stranger, req, 84532);
    (forged.payload as { authorization: { from: string } }).authorization.from = payer.address;
    expect((await get(`/api/v2/accounts/${acct}/transactions`, paymentHeader(forged))).json().errors[0].code).toBe('PAYMENT_INVALID_SIGNATURE');
    const otherNetwork = await signAuthorization(payer, { ...req, network: 'eip155:8453' }, 8453);
    expect((await get(`/api/v2/accounts/${acct}/transactions`, paymentHeader(otherNetwork))).json().errors[0].code).toBe('PAYMENT_TERMS_MISMATCH');
    expect((await get(`/api/v2/accounts/${acct}/transactions`, { 'payment-signature': 'not base64!' })).json().errors[0].code).toBe('PAYMENT_MALFORMED');
    // The same signature in its high-s twin (s' = n - s, v flipped) recovers the same key, but USDC's ECRecover refuses it.
    const good = await signAuthorization(payer, req, 84532);
    const sig = (good.payload as { signature: string }).signature;
    const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
    const highS = (n - BigInt(`0x${sig.slice(66, 130)}`)).toString(16).padStart(64, '0');
    const v = Number.parseInt(sig.slice(130), 16) === 27 ? '1c' : '1b';
    const twin = { ...good, payload: { ...(good.payload as object), signature: `${sig.slice(0, 66)}${highS}${v}` } };
    const refused = await get(`/api/v2/accounts/${acct}/transactions`, paymentHeader(twin));
    expect(refused.json().errors[0].code).toBe('PAYMENT_INVALID_SIGNATURE');
    expect(refused.json().errors[0].detail).toMatch(/low s/);
    expect([await revenue(), await settledCount()]).toEqual(before);
  });

  it('a replayed or concurrently double-submitted payment settles once', async () => {
    const required = requiredFrom((await get(`/api/v2/accounts/${acct}/transactions`)).headers);
    const payment = paymentHeader(await payWithClient(payer, required));
    const before = [Number(await revenue()), await settledCount()];
    const all = await Promise.all(Array.from({ length: 8 }, () => get(`/api/v2/accounts/${acct}/transactions`, payment)));
    expect(all.filter((r) => r.statusCode === 200)).toHaveLength(1);
    for (const r of all.filter((x) => x.statusCode !== 200)) {
      expect(r.statusCode).toBe(402);
      expect(r.json().errors[0].code).toBe('PAYMENT_NONCE_USED');
    }
    const replay = await get(`/api/v2/accounts/${acct}/transactions`, payment);
    expect(replay.json().errors[0].code).toBe('PAYMENT_NONCE_USED');
    expect(Number(await revenue()) - before[0]).toBeCloseTo(0.01, 6);
    expect(await settledCount()).toBe(before[1] + 1);
  });

  it('a request the handler refuses is not charged', async () => {
    const required = requiredFrom((await get(`/api/v2/accounts/${acct}/transactions`)).headers);
    const before = await settledCount();
    const r = await get('/api/v2/accounts/acc_doesnotexist/transactions', paymentHeader(await payWithClient(payer, { ...required, resource: { url: 'x' } })));
    expect(r.statusCode).toBe(404);
    expect(r.headers['payment-response']).toBeUndefined();
    expect(await settledCount()).toBe(before);
  });

  it('an unregistered payer or one without funds is refused', async () => {
    const required = requiredFrom((await get(`/api/v2/accounts/${acct}/transactions`)).headers);
    expect((await get(`/api/v2/accounts/${acct}/transactions`, paymentHeader(await payWithClient(testPayer(), required)))).json().errors[0].code).toBe('PAYMENT_PAYER_UNKNOWN');
    const poor = testPayer();
    await registerPayer(t, t.headers, poor);
    const r = await get(`/api/v2/accounts/${acct}/transactions`, paymentHeader(await payWithClient(poor, required)));
    expect(r.statusCode).toBe(402);
    expect(r.json().errors[0].code).toBe('PAYMENT_INSUFFICIENT_FUNDS');
  });

  it('registration is for operators, of GET routes that exist; status and supported describe the networks', async () => {
    const body = { path: '/api/v2/accounts', price_usd_cents: 5, network: 'eip155:84532', asset: 'USDC', description: 'x' };
    expect((await t.app.inject({ method: 'POST', url: '/api/v2/x402/endpoints', headers: t.headers, payload: body })).statusCode).toBe(403);
    const missing = await t.app.inject({ method: 'POST', url: '/api/v2/x402/endpoints', headers: operator.headers, payload: { ...body, path: '/api/v2/nothing-here' } });
    expect(missing.statusCode).toBe(422);
    expect(missing.json().errors[0].code).toBe('ROUTE_NOT_FOUND');
    const self = await t.app.inject({ method: 'POST', url: '/api/v2/x402/endpoints', headers: operator.headers, payload: { ...body, path: '/api/v2/x402/status' } });
    expect(self.json().errors[0].code).toBe('ENDPOINT_NOT_MONETIZABLE');
    const dai = await t.app.inject({ method: 'POST', url: '/api/v2/x402/endpoints', headers: operator.headers, payload: { ...body, asset: 'DAI' } });
    expect(dai.json().errors[0].code).toBe('PAYMENT_ASSET_NOT_SUPPORTED');
    const status = (await get('/api/v2/x402/status')).json().data;
    expect(status.networks.map((n: { network: string }) => n.network)).toEqual(['eip155:84532']);
    expect(status.facilitator).toMatchObject({ name: 'sandbox-ledger', reachable: true });
    expect(typeof status.facilitator.latency_ms).toBe('number');
    const live = await createTestUser({ environment: 'production' });
    const supported = (await t.app.inject({ method: 'GET', url: '/api/v2/x402/supported', headers: live.headers })).json().data;
    expect(supported.kinds.map((k: { network: string }) => k.network)).toEqual(['eip155:8453', 'eip155:1']);
    // Production has no testnet.
    const sepolia = await t.app.inject({ method: 'POST', url: '/api/v2/x402/endpoints', headers: (await createTestUser({ admin: true, environment: 'production' })).headers, payload: body });
    expect(sepolia.json().errors[0].code).toBe('PAYMENT_NETWORK_NOT_SUPPORTED');
  });
});

describe('a paid resource has no side door', () => {
  it('its unversioned twin, HEAD, the GraphQL field and the MCP tool that serve the same data are paid or refused too', async () => {
    const r = await t.app.inject({
      method: 'POST',
      url: '/api/v2/x402/endpoints',
      headers: operator.headers,
      payload: { path: '/api/v2/accounts/{uuid}/balances', price_usd_cents: 2, network: 'eip155:84532', asset: 'USDC', description: 'Balances' },
    });
    expect(r.statusCode, r.body).toBe(201);
    try {
      for (const [method, url] of [
        ['GET', `/api/v2/accounts/${acct}/balances`],
        ['GET', `/api/accounts/${acct}/balances`],
        ['HEAD', `/api/v2/accounts/${acct}/balances`],
        ['HEAD', `/api/accounts/${acct}/balances`],
      ] as const) {
        const res = await t.app.inject({ method, url, headers: t.headers });
        expect({ method, url, status: res.statusCode }).toEqual({ method, url, status: 402 });
        expect(res.headers['x-payment-amount']).toBe('0.020000');
      }
      // A paid request on the twin is served and settled like on the registered path.
      const required = requiredFrom((await get(`/api/accounts/${acct}/balances`)).headers);
      const paid = await get(`/api/accounts/${acct}/balances`, paymentHeader(await payWithClient(payer, required)));
      expect(paid.statusCode, paid.body).toBe(200);

      const gql = await t.app.inject({ method: 'POST', url: '/api/graphql', headers: t.headers, payload: { query: `{ account(id: "${acct}") { id balances { total } } }` } });
      expect(gql.json().errors?.[0]?.extensions).toMatchObject({ code: 'PAYMENT_REQUIRED', status: 402 });
      expect(JSON.stringify(gql.json().data ?? null)).not.toContain('"total"');
      const mcp = await t.app.inject({
        method: 'POST',
        url: '/mcp',
        headers: { ...t.headers, accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
        payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_balances', arguments: {} } },
      });
      expect(mcp.statusCode, mcp.body).toBe(200);
      expect(mcp.json().result).toMatchObject({ isError: true, structuredContent: { error: { code: 'PAYMENT_REQUIRED' } } });
      // Registering the twin path re-prices the one resource: one active registration.
      const twin = await t.app.inject({
        method: 'POST',
        url: '/api/v2/x402/endpoints',
        headers: operator.headers,
        payload: { path: '/api/accounts/{uuid}/balances', price_usd_cents: 3, network: 'eip155:84532', asset: 'USDC', description: 'Balances' },
      });
      expect(twin.statusCode, twin.body).toBe(201);
      const { rows } = await getPool().query(`SELECT count(*)::int AS n FROM x402_endpoints WHERE active AND path LIKE '%/balances'`);
      expect(rows[0].n).toBe(1);
      expect((await get(`/api/v2/accounts/${acct}/balances`)).headers['x-payment-amount']).toBe('0.030000');
    } finally {
      await getPool().query(`UPDATE x402_endpoints SET active = false WHERE path LIKE '%/balances'`);
    }
  });
});
