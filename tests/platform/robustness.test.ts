/**
 * Bad input is a clear 4xx in the envelope, never a 500 (issue 13 item 10): null bytes in any
 * string (PostgreSQL refuses U+0000 in text), pages beyond range, 20+ digit amounts where no
 * amount parser stands in the way, over-long ids (414 with the envelope and rate-limit headers)
 * and known paths called with a method they do not have (405 with Allow).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app';

let t: TestApp;
let from = '';
let to = '';
let txn = '';
let webhook = '';

const HUGE_PAGE = '1152921504606846977';
const DIGITS_25 = '1234567890123456789012345';

beforeAll(async () => {
  // The webhook fixture points at loopback (discard port): nothing here is ever delivered.
  process.env.WEBHOOK_ALLOW_PRIVATE_URLS = 'true';
  process.env.WEBHOOK_ALLOW_HTTP = 'true';
  t = await createTestApp();
  const open = async (name: string) => {
    const r = await t.app.inject({ method: 'POST', url: '/api/v2/accounts', headers: t.headers, payload: { name } });
    expect(r.statusCode).toBe(201);
    return r.json().data.uuid as string;
  };
  from = await open('robust from');
  to = await open('robust to');
  const d = await t.app.inject({ method: 'POST', url: `/api/v2/accounts/${from}/deposit`, headers: t.headers, payload: { amount: '100.00', asset_code: 'USD' } });
  expect(d.statusCode).toBe(201);
  const txns = await t.app.inject({ method: 'GET', url: `/api/v2/accounts/${from}/transactions`, headers: t.headers });
  txn = String(txns.json().data[0].id);
  const hook = await t.app.inject({ method: 'POST', url: '/api/v2/webhooks', headers: t.headers, payload: { url: 'http://127.0.0.1:9/robust', events: ['*'] } });
  expect(hook.statusCode).toBe(201);
  webhook = String(hook.json().data.id);
});

afterAll(async () => {
  await t.close();
});

interface Case {
  name: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: () => string;
  body?: () => Record<string, unknown>;
  status: number;
  code?: string;
  source?: Record<string, string>;
  public?: boolean;
}

const NUL = '\u0000';
const email = () => `robust.${Math.random().toString(36).slice(2)}@example.test`;

const cases: Case[] = [
  // Null bytes in body strings, one per area.
  { name: 'register: name', method: 'POST', url: () => '/api/auth/register', public: true, body: () => ({ name: `Ada${NUL}`, email: email(), password: 'a-long-password', password_confirmation: 'a-long-password' }), status: 422, code: 'VALIDATION_ERROR', source: { pointer: '/name' } },
  { name: 'login: email', method: 'POST', url: () => '/api/auth/login', public: true, body: () => ({ email: `a${NUL}@example.test`, password: 'a-long-password' }), status: 422, code: 'VALIDATION_ERROR', source: { pointer: '/email' } },
  { name: 'accounts: name', method: 'POST', url: () => '/api/v2/accounts', body: () => ({ name: `x${NUL}y` }), status: 422, code: 'VALIDATION_ERROR', source: { pointer: '/name' } },
  { name: 'deposit: reference', method: 'POST', url: () => `/api/v2/accounts/${from}/deposit`, body: () => ({ amount: '1.00', asset_code: 'USD', reference: `r${NUL}` }), status: 422, code: 'VALIDATION_ERROR', source: { pointer: '/reference' } },
  { name: 'webhooks: url', method: 'POST', url: () => '/api/v2/webhooks', body: () => ({ url: `http://127.0.0.1:9/h${NUL}`, events: ['*'] }), status: 422, code: 'VALIDATION_ERROR', source: { pointer: '/url' } },
  { name: 'api keys: name', method: 'POST', url: () => '/api/v2/api-keys', body: () => ({ name: `k${NUL}` }), status: 422, code: 'VALIDATION_ERROR', source: { pointer: '/name' } },
  { name: 'transfers: description', method: 'POST', url: () => '/api/v2/transfers', body: () => ({ from_account: from, to_account: to, amount: '1.00', asset_code: 'USD', description: `d${NUL}`, workflow_enabled: false }), status: 422, code: 'VALIDATION_ERROR', source: { pointer: '/description' } },
  { name: 'reversals: transaction_id', method: 'POST', url: () => '/api/transactions/reverse', body: () => ({ transaction_id: `${txn}${NUL}`, reason: 'mistake' }), status: 422, code: 'VALIDATION_ERROR', source: { pointer: '/transaction_id' } },
  { name: 'rails: memo', method: 'POST', url: () => '/api/v1/payment-rails/payments', body: () => ({ account_id: from, amount: '1.00', currency: 'USD', rail: 'auto', creditor_account: { name: `n${NUL}`, account_number: '123456789', routing_number: '021000021' }, memo: `m${NUL}` }), status: 422, code: 'VALIDATION_ERROR' },
  { name: 'interledger: receiver', method: 'POST', url: () => '/api/v1/interledger/quotes', body: () => ({ send_amount: '1.00', send_currency: 'USD', receive_currency: 'USD', receiver: `$wallet.example/al${NUL}ice` }), status: 422, code: 'VALIDATION_ERROR', source: { pointer: '/receiver' } },
  { name: 'nested: metadata value', method: 'POST', url: () => '/api/v2/accounts', body: () => ({ name: 'ok', metadata: { note: `n${NUL}` } }), status: 422, code: 'VALIDATION_ERROR', source: { pointer: '/metadata/note' } },
  // Null bytes in query strings and path parameters.
  { name: 'query filter: asset_code', method: 'GET', url: () => '/api/v2/transactions?asset_code=US%00D', status: 422, code: 'VALIDATION_ERROR', source: { parameter: 'asset_code' } },
  { name: 'query filter: rails account_id', method: 'GET', url: () => '/api/v1/payment-rails/payments?account_id=a%00b', status: 422, code: 'VALIDATION_ERROR', source: { parameter: 'account_id' } },
  { name: 'path: interledger quote id', method: 'GET', url: () => '/api/v1/interledger/quotes/q%00q', status: 422, code: 'VALIDATION_ERROR', source: { parameter: 'id' } },
  { name: 'path: transfer uuid', method: 'GET', url: () => '/api/v2/transfers/ab%00cd', status: 422, code: 'VALIDATION_ERROR', source: { parameter: 'uuid' } },
  { name: 'path: webhook id', method: 'GET', url: () => '/api/v2/webhooks/w%00', status: 422, code: 'VALIDATION_ERROR', source: { parameter: 'id' } },
  // Pages beyond range on every list route.
  ...[
    () => '/api/v2/accounts',
    () => `/api/v2/accounts/${from}/transactions`,
    () => `/api/v2/accounts/${from}/transfers`,
    () => '/api/v2/transactions',
    () => '/api/v2/api-keys',
    () => '/api/v2/webhooks',
    () => `/api/v2/webhooks/${webhook}/deliveries`,
    () => '/api/v1/payment-rails/payments',
  ].map(
    (path): Case => ({
      name: `page beyond range: ${path().replace(/[0-9a-f-]{36}|[a-z]+_[A-Za-z0-9]{10,}/g, ':id')}`,
      method: 'GET',
      url: () => `${path()}?page=${HUGE_PAGE}`,
      status: 422,
      code: 'VALIDATION_ERROR',
      source: { parameter: 'page' },
    }),
  ),
  { name: 'page just beyond the maximum', method: 'GET', url: () => '/api/v2/accounts?page=1000001', status: 422, code: 'VALIDATION_ERROR', source: { parameter: 'page' } },
  // Huge amounts where no amount parser stands in the way.
  { name: 'interledger: 25-digit send_amount', method: 'POST', url: () => '/api/v1/interledger/quotes', body: () => ({ send_amount: DIGITS_25, send_currency: 'USD', receive_currency: 'USD', receiver: '$wallet.example/alice' }), status: 422 },
  { name: 'bridge fees: 25-digit amount query', method: 'GET', url: () => `/api/v2/crosschain/bridge/fees?from=ethereum&to=polygon&token=USDC&amount=${DIGITS_25}`, status: 422 },
  { name: 'bridge quote: 25-digit amount', method: 'POST', url: () => '/api/v1/crosschain/bridge/quote', body: () => ({ source_chain: 'ethereum', destination_chain: 'polygon', token: 'USDC', amount: DIGITS_25 }), status: 422 },
  { name: 'transfer: JSON number amount 1e30', method: 'POST', url: () => '/api/v2/transfers', body: () => ({ from_account: from, to_account: to, amount: 1e30, asset_code: 'USD', workflow_enabled: false }), status: 422 },
  { name: 'rails: 25-digit amount', method: 'POST', url: () => '/api/v1/payment-rails/payments', body: () => ({ account_id: from, amount: DIGITS_25, currency: 'USD', rail: 'auto', creditor_account: { name: 'Bob', account_number: '123456789', routing_number: '021000021' } }), status: 422 },
  // Over-long ids.
  { name: 'transfer id of 150 characters', method: 'GET', url: () => `/api/v2/transfers/${'a'.repeat(150)}`, status: 414, code: 'URI_TOO_LONG', source: { parameter: 'uuid' } },
  { name: 'webhook id of 5000 characters', method: 'DELETE', url: () => `/api/v2/webhooks/${'w'.repeat(5000)}`, status: 414, code: 'URI_TOO_LONG', source: { parameter: 'id' } },
  // Known paths, wrong method.
  { name: 'PUT on the accounts list', method: 'PUT', url: () => '/api/v2/accounts', body: () => ({}), status: 405, code: 'METHOD_NOT_ALLOWED' },
  { name: 'DELETE on a transfer', method: 'DELETE', url: () => `/api/v2/transfers/${from}`, status: 405, code: 'METHOD_NOT_ALLOWED' },
  { name: 'POST on health', method: 'POST', url: () => '/api/health', body: () => ({}), status: 405, code: 'METHOD_NOT_ALLOWED', public: true },
];

describe('bad input is a 4xx in the envelope, never a 500', () => {
  it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const r = await t.app.inject({
      method: c.method,
      url: c.url(),
      headers: c.public ? {} : t.headers,
      ...(c.body ? { payload: c.body() } : {}),
    });
    expect(r.statusCode, r.body).toBe(c.status);
    expect(r.headers['content-type']).toMatch(/^application\/json/);
    const body = r.json();
    expect(body.data, r.body).toBeNull();
    expect(body.errors?.length, r.body).toBeGreaterThan(0);
    expect(body.meta.request_id).toBe(r.headers['x-request-id']);
    expect(r.headers['x-ratelimit-limit'], 'rate-limit headers').toBeDefined();
    if (c.code) expect(body.errors.map((e: { code: string }) => e.code), r.body).toContain(c.code);
    if (c.source) expect(body.errors.map((e: { source?: unknown }) => e.source), r.body).toContainEqual(c.source);
  });

  it('405 names the methods the path has in Allow', async () => {
    const list = await t.app.inject({ method: 'PUT', url: '/api/v2/accounts', headers: t.headers, payload: {} });
    expect(list.statusCode).toBe(405);
    expect(list.headers.allow).toBe('GET, HEAD, POST');
    const one = await t.app.inject({ method: 'DELETE', url: `/api/v2/transfers/${from}`, headers: t.headers });
    expect(one.headers.allow).toBe('GET, HEAD');
    const health = await t.app.inject({ method: 'POST', url: '/api/health', payload: {} });
    expect(health.headers.allow).toBe('GET, HEAD');
  });

  it('an unknown path is still 404 ROUTE_NOT_FOUND', async () => {
    const r = await t.app.inject({ method: 'DELETE', url: '/api/v2/nothing-here', headers: t.headers });
    expect(r.statusCode).toBe(404);
    expect(r.json().errors[0].code).toBe('ROUTE_NOT_FOUND');
    expect(r.headers.allow).toBeUndefined();
  });

  it('the largest page and a page of 100 still answer', async () => {
    const r = await t.app.inject({ method: 'GET', url: '/api/v2/accounts?page=1000000&per_page=100', headers: t.headers });
    expect(r.statusCode, r.body).toBe(200);
    expect(r.json().data).toEqual([]);
    expect(r.json().meta.current_page).toBe(1000000);
  });

  it('the connection pool still serves after every case above', async () => {
    const r = await t.app.inject({ method: 'POST', url: '/api/v2/transfers', headers: t.headers, payload: { from_account: from, to_account: to, amount: '1.00', asset_code: 'USD', workflow_enabled: false } });
    expect(r.statusCode, r.body).toBe(201);
  });
});
