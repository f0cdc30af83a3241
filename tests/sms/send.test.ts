import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPool } from '../../domain/db/pool';
import { systemBalance } from '../../domain/ledger';
import { createTestApp, createTestUser, type TestApp } from '../helpers/app';
import { startTestWorker, type TestWorker } from '../helpers/worker';
import { fundUsdc, paymentHeader, payWithClient, registerPayer, requiredFrom, signAuthorization, testPayer } from '../x402/helpers';

let t: TestApp;
let w: TestWorker;
const payer = testPayer();
let payerAccount: string;

const DELIVERS = '+4915112345678';
const REJECTED = '+4915112340000';
const UNDELIVERABLE = '+4915112340001';

beforeAll(async () => {
  t = await createTestApp();
  w = await startTestWorker();
  payerAccount = await registerPayer(t, t.headers, payer);
  await fundUsdc(payerAccount, 'base', '10.00');
}, 120_000);

afterAll(async () => {
  await w?.stop();
  await t?.close();
});

const send = (payload: Record<string, unknown>, headers: Record<string, string> = {}) => t.app.inject({ method: 'POST', url: '/api/v1/sms/send', payload, headers });
const usdc = async () => (await t.app.inject({ method: 'GET', url: `/api/v2/accounts/${payerAccount}/balances`, headers: t.headers })).json().data.balances.find((b: { asset_code: string }) => b.asset_code === 'USDC').total_balance as string;
const revenue = () => systemBalance('sandbox', 'USDC', 'fee_revenue');

/** The challenge parameters of one WWW-Authenticate Payment value. */
function parseChallenge(value: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of value.replace(/^Payment\s+/, '').matchAll(/([a-z]+)="((?:[^"\\]|\\.)*)"/g)) out[m[1]] = m[2];
  return out;
}

/** Pays a challenge as a client of the 'Payment' scheme: signs the EIP-3009 authorization its request asks for. */
async function credentialFor(challengeHeaderValue: string, tamper: Parameters<typeof signAuthorization>[3] = {}, edit?: (c: Record<string, string>) => void) {
  const challenge = parseChallenge(challengeHeaderValue);
  const request = JSON.parse(Buffer.from(challenge.request, 'base64url').toString());
  const requirement = { scheme: 'exact', network: request.methodDetails.network, amount: request.amount, asset: request.currency, payTo: request.recipient, maxTimeoutSeconds: 300, extra: { name: request.methodDetails.name, version: request.methodDetails.version } };
  const signed = await signAuthorization(payer, requirement, request.methodDetails.chainId, tamper);
  edit?.(challenge);
  return { authorization: `Payment ${Buffer.from(JSON.stringify({ challenge, payload: signed.payload })).toString('base64url')}` };
}

async function firstChallenge(body: Record<string, unknown>) {
  const r = await send(body);
  expect(r.statusCode, r.body).toBe(402);
  const all = ([] as string[]).concat(r.headers['www-authenticate'] as string | string[]);
  return { r, header: all.find((h) => parseChallenge(h).request && JSON.parse(Buffer.from(parseChallenge(h).request, 'base64url').toString()).methodDetails.network === 'eip155:84532')! };
}

async function waitForStatus(id: string, until: (s: string) => boolean, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await t.app.inject({ method: 'GET', url: `/api/v1/sms/status/${id}`, headers: t.headers });
    expect(r.statusCode, r.body).toBe(200);
    if (until(r.json().data.status) || Date.now() > deadline) return r.json().data;
    await new Promise((res) => setTimeout(res, 200));
  }
}

describe('payment-gated SMS', () => {
  it('first call: 402 with the price, the rails, Payment challenges and x402 requirements; nothing is sent', async () => {
    const { r } = await firstChallenge({ to: DELIVERS, from: 'MyBank', message: 'Your code is 123456' });
    const body = r.json();
    expect(body.success).toBe(false);
    expect(body.errors[0].code).toBe('PAYMENT_REQUIRED');
    expect(body.data).toMatchObject({ destination: DELIVERS, country_code: 'DE', parts: 1, encoding: 'GSM-7' });
    expect(body.data.price_usdc).toBe(body.data.rate_usdc);
    expect(body.data.payment_rails).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ rail: 'payment-auth', scheme: 'Payment', method: 'evm', intent: 'charge', network: 'eip155:84532', environment: 'sandbox', amount: body.data.price_usdc }),
        expect.objectContaining({ rail: 'x402', scheme: 'exact', network: 'eip155:84532', facilitator: 'http://localhost:80/api/v2/x402/facilitator' }),
      ]),
    );
    const challenge = parseChallenge(([] as string[]).concat(r.headers['www-authenticate'] as string)[0]);
    expect(Object.keys(challenge)).toEqual(expect.arrayContaining(['id', 'realm', 'method', 'intent', 'request', 'expires', 'digest', 'description']));
    expect(challenge.digest).toMatch(/^sha-256=:[A-Za-z0-9+/]+=*:$/);
    expect(requiredFrom(r.headers).accepts[0]).toMatchObject({ network: 'eip155:84532', amount: body.data.price_usdc });
    expect((await getPool().query('SELECT count(*)::int AS n FROM sms_messages')).rows[0].n).toBe(0);
  });

  it('checks destination, sender and length before asking for payment', async () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ to: '12345', from: 'MyBank', message: 'hi' }, 'INVALID_PHONE_NUMBER', '/to'],
      [{ to: DELIVERS, from: 'Far too long sender', message: 'hi' }, 'INVALID_SENDER_ID', '/from'],
      [{ to: DELIVERS, from: 'MyBank', message: 'x'.repeat(5000) }, 'SMS_MESSAGE_TOO_LONG', '/message'],
    ];
    for (const [body, code, pointer] of cases) {
      const r = await send(body);
      expect(r.statusCode, code).toBe(422);
      expect(r.json()).toMatchObject({ success: false, errors: [{ code, source: { pointer } }] });
    }
  });

  it('paid with the Payment scheme: settled once, sent, then delivered by receipt; the payment cannot be used again', async () => {
    const body = { to: DELIVERS, from: 'MyBank', message: 'Your code is 654321' };
    const { header } = await firstChallenge(body);
    const before = [await usdc(), await revenue()];
    const credential = await credentialFor(header);
    const r = await send(body, credential);
    expect(r.statusCode, r.body).toBe(200);
    const sent = r.json();
    expect(sent).toMatchObject({ success: true, data: { status: 'sent', parts: 1, destination: DELIVERS, payment_status: 'settled' } });
    expect(sent.data.transaction_hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(r.headers['payment-receipt']).toBeDefined();
    const price = Number(sent.data.price_usdc) / 1e6;
    expect(Number(before[0]) - Number(await usdc())).toBeCloseTo(price, 6);
    expect(Number(await revenue()) - Number(before[1])).toBeCloseTo(price, 6);
    const delivered = await waitForStatus(sent.data.message_id, (s) => s === 'delivered');
    expect(delivered).toMatchObject({ status: 'delivered', payment_status: 'settled' });
    expect(delivered.delivered_at).not.toBeNull();

    const replay = await send(body, credential);
    expect(replay.statusCode).toBe(402);
    expect(replay.json().errors[0].code).toBe('PAYMENT_NONCE_USED');
    // Another user cannot see the message.
    const other = await createTestUser();
    expect((await t.app.inject({ method: 'GET', url: `/api/v1/sms/status/${sent.data.message_id}`, headers: other.headers })).statusCode).toBe(404);
  }, 30_000);

  it('a concurrent double-submit sends one message and settles once', async () => {
    const body = { to: DELIVERS, from: 'MyBank', message: 'Double submit' };
    const { header } = await firstChallenge(body);
    const credential = await credentialFor(header);
    const before = await revenue();
    const all = await Promise.all(Array.from({ length: 6 }, () => send(body, credential)));
    expect(all.filter((r) => r.statusCode === 200)).toHaveLength(1);
    for (const r of all.filter((x) => x.statusCode !== 200)) expect(r.json().errors[0].code).toBe('PAYMENT_NONCE_USED');
    const price = Number(all.find((r) => r.statusCode === 200)!.json().data.price_usdc) / 1e6;
    expect(Number(await revenue()) - Number(before)).toBeCloseTo(price, 6);
  });

  it('an altered or misapplied challenge, or a tampered authorization, is refused with a fresh challenge; nothing moves', async () => {
    const body = { to: DELIVERS, from: 'MyBank', message: 'Tamper' };
    const { header } = await firstChallenge(body);
    const before = [await usdc(), (await getPool().query('SELECT count(*)::int AS n FROM sms_messages')).rows[0].n];
    const cheaper = await credentialFor(header, { value: '1' }, (c) => {
      const req = JSON.parse(Buffer.from(c.request, 'base64url').toString());
      c.request = Buffer.from(JSON.stringify({ ...req, amount: '1' })).toString('base64url');
    });
    const cases: [Record<string, string>, Record<string, unknown>, string][] = [
      [cheaper, body, 'PAYMENT_INVALID_CHALLENGE'],
      [await credentialFor(header), { ...body, message: 'Another text' }, 'PAYMENT_INVALID_CHALLENGE'],
      [await credentialFor(header, { value: '1' }), body, 'PAYMENT_AMOUNT_MISMATCH'],
      [await credentialFor(header, { chainId: 8453 }), body, 'PAYMENT_INVALID_SIGNATURE'],
      [await credentialFor(header, { validBefore: BigInt(Math.floor(Date.now() / 1000)) }), body, 'PAYMENT_EXPIRED'],
      [{ authorization: 'Payment %%%' }, body, 'PAYMENT_MALFORMED'],
    ];
    for (const [headers, b, code] of cases) {
      const r = await send(b, headers);
      expect(r.statusCode, code).toBe(402);
      expect(r.json().errors[0].code, code).toBe(code);
      expect(r.headers['www-authenticate'], code).toBeDefined();
    }
    expect([await usdc(), (await getPool().query('SELECT count(*)::int AS n FROM sms_messages')).rows[0].n]).toEqual(before);
  });

  it('x402 clients pay with PAYMENT-SIGNATURE', async () => {
    const body = { to: DELIVERS, from: '+4915112345678', message: 'Paid by x402 😀' };
    const { r } = await firstChallenge(body);
    expect(r.json().data.encoding).toBe('UCS-2');
    const paid = await send(body, paymentHeader(await payWithClient(payer, requiredFrom(r.headers))));
    expect(paid.statusCode, paid.body).toBe(200);
    expect(paid.json().data).toMatchObject({ status: 'sent', encoding: 'UCS-2', payment_status: 'settled' });
  });

  it('refunds through the ledger when the operator refuses the message or fails its delivery', async () => {
    const before = await usdc();
    const refused = await send({ to: REJECTED, from: 'MyBank', message: 'never sent' }, await credentialFor((await firstChallenge({ to: REJECTED, from: 'MyBank', message: 'never sent' })).header));
    expect(refused.statusCode, refused.body).toBe(200);
    const r1 = await waitForStatus(refused.json().data.message_id, (s) => s === 'failed');
    expect(r1).toMatchObject({ status: 'failed', payment_status: 'refunded' });
    expect(r1.failure_code).toMatch(/21610/);
    const lost = await send({ to: UNDELIVERABLE, from: 'MyBank', message: 'lost' }, await credentialFor((await firstChallenge({ to: UNDELIVERABLE, from: 'MyBank', message: 'lost' })).header));
    expect(lost.json().data).toMatchObject({ status: 'sent', payment_status: 'settled' });
    const r2 = await waitForStatus(lost.json().data.message_id, (s) => s === 'failed');
    expect(r2).toMatchObject({ status: 'failed', payment_status: 'refunded' });
    expect(r2.failure_code).toMatch(/30003/);
    expect(await usdc()).toBe(before);
    const payments = (await t.app.inject({ method: 'GET', url: '/api/v2/x402/payments?per_page=2', headers: t.headers })).json().data;
    expect(payments.map((p: { status: string; purpose: string }) => [p.purpose, p.status])).toEqual([
      ['sms', 'refunded'],
      ['sms', 'refunded'],
    ]);
  }, 40_000);

  it('rates and info are public', async () => {
    const rate = await t.app.inject({ method: 'GET', url: '/api/v1/sms/rates?country=de' });
    expect(rate.statusCode).toBe(200);
    expect(rate.body.match(/"success"/g)).toHaveLength(1);
    expect(rate.json()).toMatchObject({ success: true, data: { country: 'Germany', country_code: 'DE' } });
    expect(rate.json().data.rate_usdc).toMatch(/^[1-9][0-9]*$/);
    const bad = await t.app.inject({ method: 'GET', url: '/api/v1/sms/rates?country=XX' });
    expect(bad.statusCode).toBe(422);
    expect(bad.json()).toMatchObject({ success: false, errors: [{ code: 'SMS_COUNTRY_NOT_SUPPORTED' }] });
    const info = (await t.app.inject({ method: 'GET', url: '/api/v1/sms/info' })).json();
    expect(info).toMatchObject({ success: true, data: { networks: ['eip155:8453', 'eip155:1', 'eip155:84532'] } });
    const sandbox = (await t.app.inject({ method: 'GET', url: '/api/v1/sms/info', headers: t.headers })).json();
    expect(sandbox.data).toMatchObject({ provider: 'sandbox', enabled: true, test_mode: true });
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/sms/status/sms_x' })).statusCode).toBe(401);
  });
});

describe("Twilio's status callbacks", () => {
  it('wake the message only with a valid X-Twilio-Signature over the configured URL and form', async () => {
    const { twilioSignature } = await import('../../domain/sms/provider');
    const form = { MessageSid: 'SM' + 'a'.repeat(32), MessageStatus: 'delivered' };
    const post = (id: string, signature?: string) =>
      t.app.inject({
        method: 'POST',
        url: `/api/v1/sms/callbacks/twilio?message_id=${id}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...(signature ? { 'x-twilio-signature': signature } : {}) },
        payload: new URLSearchParams(form).toString(),
      });
    expect((await post('sms_x', 'sig')).statusCode).toBe(403);
    process.env.SMS_STATUS_CALLBACK_URL = 'https://bank.example/api/v1/sms/callbacks/twilio';
    process.env.TWILIO_AUTH_TOKEN = 'test-twilio-auth-token';
    try {
      const body = { to: DELIVERS, from: 'MyBank', message: 'Callback' };
      const sent = (await send(body, await credentialFor((await firstChallenge(body)).header))).json().data;
      const url = `https://bank.example/api/v1/sms/callbacks/twilio?message_id=${sent.message_id}`;
      const bad = await post(sent.message_id, twilioSignature('another-token', url, form));
      expect(bad.statusCode).toBe(403);
      expect(bad.json()).toMatchObject({ success: false, errors: [{ code: 'CALLBACK_SIGNATURE_INVALID' }] });
      expect((await post(sent.message_id)).statusCode).toBe(403);
      expect((await post(sent.message_id, twilioSignature('test-twilio-auth-token', url, form))).statusCode).toBe(204);
      // The woken workflow reads the report itself: the sandbox says delivered once 5 s have passed.
      expect((await waitForStatus(sent.message_id, (s) => s === 'delivered')).status).toBe('delivered');
      const unknown = `https://bank.example/api/v1/sms/callbacks/twilio?message_id=sms_unknown`;
      expect((await post('sms_unknown', twilioSignature('test-twilio-auth-token', unknown, form))).statusCode).toBe(404);
    } finally {
      delete process.env.SMS_STATUS_CALLBACK_URL;
      delete process.env.TWILIO_AUTH_TOKEN;
    }
  }, 30_000);
});
