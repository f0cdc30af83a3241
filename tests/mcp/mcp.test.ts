/**
 * The MCP server at POST /mcp, driven by the SDK's own client over HTTP (Streamable HTTP) against a
 * real instance on 127.0.0.1: the tools, the credential's isolation, and send_sms paid on the x402
 * MCP convention with a payload made by @x402/evm's client, settled by the payment core and sent
 * by the SMS workflow on a real worker.
 */
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { PaymentRequired } from '@x402/core/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HTTP_STATUS_BY_CODE } from '../../api/error-status';
import { PAYMENT_REFUSALS } from '../../api/mcp/server';
import { createTestApp, createTestUser, type TestApp, type TestUser } from '../helpers/app';
import { startTestWorker, type TestWorker } from '../helpers/worker';
import { fundUsdc, payWithClient, registerPayer, testPayer } from '../x402/helpers';

let t: TestApp;
let w: TestWorker;
let base: URL;
let account: string;
let other: TestUser;
const clients: Client[] = [];

/** A connected SDK client authenticated with these headers. */
async function connect(headers: Record<string, string> = t.headers): Promise<Client> {
  const client = new Client({ name: 'mcp-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', base), { requestInit: { headers } }));
  clients.push(client);
  return client;
}

const call = async (client: Client, name: string, args: Record<string, unknown> = {}, meta?: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) })) as CallToolResult;

const textOf = (r: CallToolResult) => JSON.parse((r.content[0] as { text: string }).text);

beforeAll(async () => {
  t = await createTestApp();
  w = await startTestWorker();
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  base = new URL(`http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`);
  account = (await t.app.inject({ method: 'POST', url: '/api/v2/accounts', headers: t.headers, payload: { name: 'mcp main' } })).json().data.uuid;
  const dep = await t.app.inject({ method: 'POST', url: `/api/v2/accounts/${account}/deposit`, headers: t.headers, payload: { amount: '250.00', asset_code: 'USD' } });
  expect(dep.statusCode, dep.body).toBe(201);
  other = await createTestUser();
}, 120_000);

afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  await w?.stop();
  await t?.close();
});

describe('MCP server at /mcp', () => {
  it('lists the tools with their inputs', async () => {
    const { tools } = await (await connect()).listTools();
    expect(tools.map((x) => x.name).sort()).toEqual(['get_balances', 'get_sms_rate', 'list_transactions', 'send_sms']);
    const send = tools.find((x) => x.name === 'send_sms')!;
    expect(Object.keys(send.inputSchema.properties ?? {}).sort()).toEqual(['from', 'message', 'to']);
    expect([...(send.inputSchema.required ?? [])].sort()).toEqual(['from', 'message', 'to']);
    expect(tools.find((x) => x.name === 'get_balances')!.annotations?.readOnlyHint).toBe(true);
  });

  it('get_balances and list_transactions show the funded account', async () => {
    const client = await connect();
    const all = await call(client, 'get_balances');
    expect(all.isError).toBeFalsy();
    const mine = (all.structuredContent as { accounts: { uuid: string; balances: { asset_code: string; total_balance: string }[] }[] }).accounts.find((a) => a.uuid === account);
    expect(mine?.balances).toContainEqual(expect.objectContaining({ asset_code: 'USD', available_balance: '250.00', total_balance: '250.00' }));
    expect(textOf(all)).toEqual(all.structuredContent);

    const one = await call(client, 'get_balances', { account_id: account });
    expect(one.structuredContent).toMatchObject({ environment: 'sandbox', total_accounts: 1, accounts: [{ uuid: account, summary: { total_assets: 1 } }] });

    const txns = await call(client, 'list_transactions', { account_id: account, limit: 5 });
    expect(txns.structuredContent).toMatchObject({ total: 1, transactions: [{ account_uuid: account, type: 'deposit', direction: 'credit', amount: '250.00', asset_code: 'USD', status: 'completed' }] });
    const rate = await call(client, 'get_sms_rate', { country: 'de' });
    expect(rate.structuredContent).toMatchObject({ country_code: 'DE', rate_usdc: expect.stringMatching(/^[1-9][0-9]*$/) });
  });

  it("refuses another user's account with NOT_FOUND and no data; another environment sees none of it", async () => {
    const client = await connect(other.headers);
    for (const [tool, args] of [
      ['get_balances', { account_id: account }],
      ['list_transactions', { account_id: account }],
    ] as const) {
      const r = await call(client, tool, args);
      expect(r.isError, tool).toBe(true);
      expect(r.structuredContent).toEqual({ error: { code: 'NOT_FOUND', message: 'Account not found' } });
    }
    expect((await call(client, 'get_balances')).structuredContent).toMatchObject({ total_accounts: 0, accounts: [] });
    expect((await call(client, 'list_transactions')).structuredContent).toMatchObject({ total: 0, transactions: [] });

    const production = await createTestUser({ environment: 'production' });
    const prod = await call(await connect(production.headers), 'get_balances', { account_id: account });
    expect(prod.structuredContent).toMatchObject({ error: { code: 'NOT_FOUND' } });
  });

  it('needs credentials: 401 without, and the SDK client cannot connect', async () => {
    const r = await fetch(new URL('/mcp', base), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(r.status).toBe(401);
    expect(((await r.json()) as { errors: { code: string }[] }).errors[0].code).toBe('UNAUTHENTICATED');
    const bad = { authorization: 'Bearer sk_sandbox_not-a-real-key-0000000000000000' };
    await expect(connect(bad)).rejects.toThrow(/401/);
  });

  it('answers the platform envelope for what is not MCP (GET 405, a wrong Accept 406, a non-JSON-RPC body 422), JSON-RPC with 200 or 202', async () => {
    const get = await fetch(new URL('/mcp', base), { headers: t.headers });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    expect(((await get.json()) as { errors: { code: string }[] }).errors[0].code).toBe('METHOD_NOT_ALLOWED');
    const post = (accept: string, body: unknown) =>
      fetch(new URL('/mcp', base), { method: 'POST', headers: { ...t.headers, 'content-type': 'application/json', accept }, body: JSON.stringify(body) });
    const notAcceptable = await post('application/json', { jsonrpc: '2.0', id: 1, method: 'ping' });
    expect(notAcceptable.status).toBe(406);
    expect(notAcceptable.headers.get('x-request-id')).toBeTruthy();
    expect(((await notAcceptable.json()) as { errors: unknown[] }).errors[0]).toMatchObject({ code: 'NOT_ACCEPTABLE', source: { header: 'accept' } });
    const invalid = await post('application/json, text/event-stream', { jsonrpc: '2.0', id: 1, method: 'ping', params: { _meta: { progressToken: {} } } });
    expect(invalid.status).toBe(422);
    const version = await fetch(new URL('/mcp', base), {
      method: 'POST',
      headers: { ...t.headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '1999-01-01' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(version.status).toBe(422);
    expect(((await version.json()) as { errors: unknown[] }).errors[0]).toMatchObject({ code: 'VALIDATION_ERROR', source: { header: 'mcp-protocol-version' } });
    const ping = await post('application/json, text/event-stream', { jsonrpc: '2.0', id: 7, method: 'ping' });
    expect(ping.status).toBe(200);
    expect(ping.headers.get('x-request-id')).toBeTruthy();
    expect(ping.headers.get('x-ratelimit-limit')).toBeTruthy();
    expect(await ping.json()).toEqual({ jsonrpc: '2.0', id: 7, result: {} });
    const notification = await post('application/json, text/event-stream', { jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(notification.status).toBe(202);
  });

  it('a read-only key reads but may not send', async () => {
    const reader = await createTestUser({ permissions: ['read'] });
    const client = await connect(reader.headers);
    expect((await call(client, 'get_balances')).isError).toBeFalsy();
    const send = await call(client, 'send_sms', { to: '+4915123456789', from: 'Platform', message: 'hello' });
    expect(send.isError).toBe(true);
    expect(send.structuredContent).toMatchObject({ error: { code: 'INSUFFICIENT_PERMISSIONS' } });
  });

  it('send_sms: PaymentRequired unpaid, sent once paid with the x402 client (settlement in _meta), the same payment again refused', async () => {
    const client = await connect();
    const sms = { to: '+4915123456789', from: 'Platform', message: 'Your code is 123456' };
    const unpaid = await call(client, 'send_sms', sms);
    expect(unpaid.isError).toBe(true);
    const required = unpaid.structuredContent as unknown as PaymentRequired;
    expect(textOf(unpaid)).toEqual(required);
    expect(required).toMatchObject({ x402Version: 2, resource: { url: 'mcp://tool/send_sms' } });
    expect(required.error).toBeUndefined();
    // A sandbox key pays on test networks only (an authorization for a main network could be submitted on it).
    expect(required.accepts.map((a) => a.network)).toEqual(['eip155:84532']);
    const price = required.accepts[0].amount;
    expect(price).toMatch(/^[1-9][0-9]*$/);
    for (const a of required.accepts) expect(a).toMatchObject({ scheme: 'exact', amount: price, payTo: '0x5A4db0B7c9E3ac3f1e8Fa8D8b3e1a4A9c2B7E402' });

    const payer = testPayer();
    await fundUsdc(await registerPayer(t, t.headers, payer), 'base', '5.00');
    const payload = await payWithClient(payer, required);
    const paid = await call(client, 'send_sms', sms, { 'x402/payment': payload });
    expect(paid.isError, JSON.stringify(paid)).toBeFalsy();
    expect(paid.structuredContent).toMatchObject({ destination: '+4915123456789', country_code: 'DE', parts: 1, price_usdc: price, payment_status: 'settled' });
    expect(['sent', 'pending']).toContain((paid.structuredContent as { status: string }).status);
    expect(paid._meta?.['x402/payment-response']).toMatchObject({ success: true, payer: payer.address, network: payload.accepted.network, amount: price });

    const again = await call(client, 'send_sms', sms, { 'x402/payment': payload });
    expect(again.isError).toBe(true);
    expect(again.structuredContent).toMatchObject({ x402Version: 2, accepts: required.accepts });
    expect((again.structuredContent as unknown as PaymentRequired).error).toMatch(/^PAYMENT_NONCE_USED: /);
    expect(again._meta?.['x402/payment-response']).toBeUndefined();

    const garbage = await call(client, 'send_sms', sms, { 'x402/payment': { x402Version: 2, payload: {} } });
    expect((garbage.structuredContent as unknown as PaymentRequired).error).toMatch(/^PAYMENT_MALFORMED: /);
  }, 90_000);

  it('treats as "pay again" exactly the refusals REST answers with 402', () => {
    const rest402 = Object.entries(HTTP_STATUS_BY_CODE).filter(([, s]) => s === 402).map(([c]) => c).sort();
    expect([...PAYMENT_REFUSALS].sort()).toEqual(rest402);
  });
});
