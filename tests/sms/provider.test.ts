import { createHmac, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closePool, getPool } from '../../domain/db/pool';
import {
  SandboxSmsProvider,
  sandboxProviderMessageId,
  SmsProviderError,
  smsProviderFor,
  TwilioSmsProvider,
  twilioSignature,
  UnconfiguredSmsProvider,
  verifyTwilioSignature,
  type SmsProviderSettings,
  type SmsSubmission,
} from '../../domain/sms/provider';
import { useTestDatabase } from '../helpers/db';

beforeAll(async () => {
  await useTestDatabase();
});
afterAll(async () => closePool());

const T0 = new Date('2026-11-25T12:00:00Z');
const plus = (ms: number) => new Date(T0.getTime() + ms);
const msg = (to: string, extra: Partial<SmsSubmission> = {}): SmsSubmission => ({ messageId: `sms_${randomUUID()}`, to, from: 'Acme', body: 'Hello', parts: 1, ...extra });

async function providerError(p: Promise<unknown>): Promise<SmsProviderError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof SmsProviderError)) throw new Error(`expected an SmsProviderError, got ${String(err)}`);
  return err;
}

describe('sandbox operator', () => {
  const sandbox = new SandboxSmsProvider();

  it('accepts, sends after 1 s and delivers after 5 s, by the caller’s clock', async () => {
    const m = msg('+4915112345678');
    const { providerMessageId, status } = await sandbox.submit(m, T0);
    expect(status).toBe('accepted');
    expect(providerMessageId).toMatch(/^SM[0-9a-f]{32}$/);
    expect(providerMessageId).toBe(sandboxProviderMessageId(m.messageId));
    const at = (ms: number) => sandbox.report(providerMessageId, T0, plus(ms));
    expect(await at(0)).toEqual({ status: 'accepted', at: T0 });
    expect(await at(999)).toEqual({ status: 'accepted', at: T0 });
    expect(await at(1_000)).toEqual({ status: 'sent', at: plus(1_000) });
    expect(await at(4_999)).toEqual({ status: 'sent', at: plus(1_000) });
    expect(await at(5_000)).toEqual({ status: 'delivered', at: plus(5_000) });
    expect(await at(86_400_000)).toEqual({ status: 'delivered', at: plus(5_000) });
  });

  it('a repeated submit is idempotent: same provider id, no second message', async () => {
    const m = msg('+14155552671');
    const first = await sandbox.submit(m, T0);
    const again = await sandbox.submit(m, plus(30_000));
    expect(again).toEqual(first);
    const { rows } = await getPool().query('SELECT attempts, accepted FROM sms_sandbox_submissions WHERE message_id = $1', [m.messageId]);
    expect(rows).toEqual([{ attempts: 2, accepted: true }]);
  });

  it('…0000: refused at submit (21610, not retryable), and nothing to report on', async () => {
    const m = msg('+4915112340000');
    const e = await providerError(sandbox.submit(m, T0));
    expect([e.code, e.retryable, e.ambiguous, e.httpStatus]).toEqual(['21610', false, false, 400]);
    const r = await providerError(sandbox.report(sandboxProviderMessageId(m.messageId), T0, plus(10_000)));
    expect([r.code, r.retryable]).toEqual(['20404', false]);
  });

  it('…0001: accepted and sent, then a failed receipt (30003) at 5 s', async () => {
    const { providerMessageId } = await sandbox.submit(msg('+4915112340001'), T0);
    expect((await sandbox.report(providerMessageId, T0, plus(2_000))).status).toBe('sent');
    expect(await sandbox.report(providerMessageId, T0, plus(5_000))).toEqual({
      status: 'failed',
      errorCode: '30003',
      errorReason: 'Unreachable destination handset',
      at: plus(5_000),
    });
  });

  it('…0002: a retryable outage (503) on the first submit of the message; the retry is accepted', async () => {
    const m = msg('+447400120002');
    const e = await providerError(sandbox.submit(m, T0));
    expect([e.code, e.retryable, e.httpStatus]).toEqual(['20503', true, 503]);
    expect((await providerError(sandbox.report(sandboxProviderMessageId(m.messageId), T0, plus(10_000)))).code).toBe('20404');
    const ok = await sandbox.submit(m, plus(2_000));
    expect(ok.providerMessageId).toBe(sandboxProviderMessageId(m.messageId));
    expect((await sandbox.report(ok.providerMessageId, plus(2_000), plus(7_000))).status).toBe('delivered');
    // Another message to the same number meets the outage again: it is per message, not per number.
    expect((await providerError(sandbox.submit(msg('+447400120002'), T0))).code).toBe('20503');
  });

  it('…0003: sent, never a receipt, expired (30036) when the 10 h validity period ends', async () => {
    const { providerMessageId } = await sandbox.submit(msg('+14155550003'), T0);
    expect(await sandbox.report(providerMessageId, T0, plus(36_000_000 - 1))).toEqual({ status: 'sent', at: plus(1_000) });
    expect(await sandbox.report(providerMessageId, T0, plus(36_000_000))).toEqual({
      status: 'expired',
      errorCode: '30036',
      errorReason: 'Validity Period Expired: no delivery receipt from the operator',
      at: plus(36_000_000),
    });
  });

  it('refuses a message id reused for another destination', async () => {
    const m = msg('+4915112345678');
    await sandbox.submit(m, T0);
    const e = await providerError(sandbox.submit({ ...m, to: '+4915112345679' }, T0));
    expect([e.code, e.retryable]).toEqual(['21211', false]);
  });
});

describe('smsProviderFor', () => {
  const twilio: SmsProviderSettings = {
    smsProvider: 'twilio',
    twilioAccountSid: 'AC00000000000000000000000000000000',
    twilioAuthToken: 'token',
    twilioBaseUrl: 'https://api.twilio.com',
    smsStatusCallbackUrl: '',
  };

  it('sandbox keys get the sandbox operator whatever the settings', () => {
    expect(smsProviderFor('sandbox', { settings: twilio })).toBeInstanceOf(SandboxSmsProvider);
  });

  it('production gets Twilio when configured, else a provider that refuses (not retryable)', async () => {
    expect(smsProviderFor('production', { settings: twilio })).toBeInstanceOf(TwilioSmsProvider);
    const off = smsProviderFor('production', { settings: { ...twilio, smsProvider: 'sandbox' } });
    expect(off).toBeInstanceOf(UnconfiguredSmsProvider);
    const e = await providerError(off.submit(msg('+4915112345678'), T0));
    expect([e.code, e.retryable]).toEqual(['SMS_PROVIDER_NOT_CONFIGURED', false]);
    expect((await providerError(off.report('SM0', T0, T0))).code).toBe('SMS_PROVIDER_NOT_CONFIGURED');
    const noToken = smsProviderFor('production', { settings: { ...twilio, twilioAuthToken: '' } });
    expect((await providerError(noToken.submit(msg('+4915112345678'), T0))).message).toMatch(/TWILIO_AUTH_TOKEN is not set/);
  });
});

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A stand-in for api.twilio.com on 127.0.0.1: answers what `reply` says and records every request. */
async function fakeTwilio(reply: (req: Seen) => { status: number; json?: unknown; hang?: boolean }) {
  const seen: Seen[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      const s: Seen = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
      seen.push(s);
      const r = reply(s);
      if (r.hang) return; // never answers: the client's time-out must fire
      res.writeHead(r.status, { 'content-type': 'application/json' });
      res.end(r.json === undefined ? '' : JSON.stringify(r.json));
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = () =>
    new Promise<void>((ok) => {
      server.closeAllConnections();
      server.close(() => ok());
    });
  return { base, seen, close };
}

describe('Twilio adapter (against a loopback fake)', () => {
  const SID = 'AC0123456789abcdef0123456789abcdef';
  const TOKEN = 'test-auth-token';
  const MSG_SID = 'SM' + 'ab'.repeat(16);

  it('submits with POST, Basic auth and the form fields, message id on the StatusCallback', async () => {
    const fake = await fakeTwilio(() => ({ status: 201, json: { sid: MSG_SID, status: 'queued' } }));
    try {
      const twilio = new TwilioSmsProvider({ accountSid: SID, authToken: TOKEN, baseUrl: `${fake.base}/`, statusCallbackUrl: 'https://bank.example/api/v1/sms/callbacks/twilio' });
      const m = msg('+4915112345678', { from: 'Acme Bank', body: 'Your code: 1234 €' });
      expect(await twilio.submit(m, T0)).toEqual({ providerMessageId: MSG_SID, status: 'accepted' });
      const [req] = fake.seen;
      expect(req.method).toBe('POST');
      expect(req.url).toBe(`/2010-04-01/Accounts/${SID}/Messages.json`);
      expect(req.headers.authorization).toBe(`Basic ${Buffer.from(`${SID}:${TOKEN}`).toString('base64')}`);
      expect(req.headers['content-type']).toBe('application/x-www-form-urlencoded');
      expect(Object.fromEntries(new URLSearchParams(req.body))).toEqual({
        To: '+4915112345678',
        From: 'Acme Bank',
        Body: 'Your code: 1234 €',
        StatusCallback: `https://bank.example/api/v1/sms/callbacks/twilio?message_id=${m.messageId}`,
      });
    } finally {
      await fake.close();
    }
  });

  it('sends no StatusCallback when none is configured', async () => {
    const fake = await fakeTwilio(() => ({ status: 201, json: { sid: MSG_SID, status: 'queued' } }));
    try {
      await new TwilioSmsProvider({ accountSid: SID, authToken: TOKEN, baseUrl: fake.base }).submit(msg('+4915112345678'), T0);
      expect(new URLSearchParams(fake.seen[0].body).has('StatusCallback')).toBe(false);
    } finally {
      await fake.close();
    }
  });

  it.each([
    [400, { code: 21211, message: "The 'To' number is not a valid phone number.", status: 400 }, '21211', false, false],
    [401, { code: 20003, message: 'Authenticate', status: 401 }, '20003', false, false],
    [429, { code: 20429, message: 'Too Many Requests', status: 429 }, '20429', true, false],
    [500, { code: 20500, message: 'Internal Server Error', status: 500 }, '20500', true, true],
    [503, undefined, 'HTTP_503', true, false],
  ])('HTTP %i on submit → code %s… retryable and ambiguous as a retry would be', async (status, json, code, retryable, ambiguous) => {
    const fake = await fakeTwilio(() => ({ status, json }));
    try {
      const e = await providerError(new TwilioSmsProvider({ accountSid: SID, authToken: TOKEN, baseUrl: fake.base }).submit(msg('+4915112345678'), T0));
      expect([e.code, e.retryable, e.ambiguous, e.httpStatus]).toEqual([code, retryable, ambiguous, status]);
    } finally {
      await fake.close();
    }
  });

  it('a submit that times out is retryable but ambiguous (Twilio may have the message)', async () => {
    const fake = await fakeTwilio(() => ({ status: 0, hang: true }));
    try {
      const twilio = new TwilioSmsProvider({ accountSid: SID, authToken: TOKEN, baseUrl: fake.base, timeoutMs: 200 });
      const e = await providerError(twilio.submit(msg('+4915112345678'), T0));
      expect([e.code, e.retryable, e.ambiguous]).toEqual(['TWILIO_TIMEOUT', true, true]);
    } finally {
      await fake.close();
    }
  });

  it.each([
    ['queued', null, 'accepted'],
    ['accepted', null, 'accepted'],
    ['scheduled', null, 'accepted'],
    ['sending', null, 'sent'],
    ['sent', null, 'sent'],
    ['delivered', null, 'delivered'],
    ['read', null, 'delivered'],
    ['undelivered', 30003, 'failed'],
    ['failed', 30008, 'failed'],
    ['failed', 30036, 'expired'],
    ['canceled', null, 'failed'],
  ])('report: Twilio %s (error %s) is %s', async (twilioStatus, errorCode, status) => {
    const updated = 'Wed, 25 Nov 2026 12:00:07 +0000';
    const fake = await fakeTwilio(() => ({
      status: 200,
      json: { sid: MSG_SID, status: twilioStatus, error_code: errorCode, error_message: errorCode ? `error ${errorCode}` : null, date_updated: updated },
    }));
    try {
      const r = await new TwilioSmsProvider({ accountSid: SID, authToken: TOKEN, baseUrl: fake.base }).report(MSG_SID, T0, plus(10_000));
      expect(r.status).toBe(status);
      expect(r.at).toEqual(new Date(updated));
      if (errorCode) expect([r.errorCode, r.errorReason]).toEqual([String(errorCode), `error ${errorCode}`]);
      if (twilioStatus === 'canceled') expect(r.errorReason).toMatch(/canceled/);
      const [req] = fake.seen;
      expect([req.method, req.url, req.body]).toEqual(['GET', `/2010-04-01/Accounts/${SID}/Messages/${MSG_SID}.json`, '']);
      expect(req.headers.authorization).toBe(`Basic ${Buffer.from(`${SID}:${TOKEN}`).toString('base64')}`);
    } finally {
      await fake.close();
    }
  });

  it('report: still not final 72 h after submission is expired; an unknown SID is a final 404', async () => {
    const fake = await fakeTwilio((req) =>
      req.url.includes(MSG_SID) ? { status: 200, json: { sid: MSG_SID, status: 'sent', error_code: null } } : { status: 404, json: { code: 20404, message: 'The requested resource was not found', status: 404 } },
    );
    try {
      const twilio = new TwilioSmsProvider({ accountSid: SID, authToken: TOKEN, baseUrl: fake.base });
      expect((await twilio.report(MSG_SID, T0, plus(72 * 3_600_000 - 1))).status).toBe('sent');
      expect(await twilio.report(MSG_SID, T0, plus(72 * 3_600_000))).toMatchObject({ status: 'expired', at: plus(72 * 3_600_000) });
      const e = await providerError(twilio.report('SM' + 'cd'.repeat(16), T0, T0));
      expect([e.code, e.retryable, e.ambiguous]).toEqual(['20404', false, false]);
      expect((await providerError(twilio.report('not-a-sid', T0, T0))).code).toBe('TWILIO_BAD_SID');
    } finally {
      await fake.close();
    }
  });
});

describe('X-Twilio-Signature', () => {
  // Twilio's published example (TwilioDevEd/api-snippets, security/signature_validation).
  const token = '12345';
  const url = 'https://mycompany.com/myapp.php?foo=1&bar=2';
  const params = (caller: string) => ({ CallSid: 'CA1234567890ABCDE', Caller: caller, Digits: '1234', From: caller, To: '+18005551212' });

  it('matches Twilio’s own example values', () => {
    expect(twilioSignature(token, url, params('+14158675310'))).toBe('GvWf1cFY/Q7PnoempGyD5oXAezc=');
    expect(twilioSignature(token, url, params('+14158675309'))).toBe('RSOYDt4T1cUTdK1PDd93/VVr8B8=');
    expect(verifyTwilioSignature(token, 'GvWf1cFY/Q7PnoempGyD5oXAezc=', url, params('+14158675310'))).toBe(true);
  });

  it('is HMAC-SHA1 over the URL and the parameters sorted by name, base64', () => {
    const p = { MessageStatus: 'delivered', MessageSid: 'SM1', AccountSid: 'AC1' };
    const expected = createHmac('sha1', 'tok').update(`${url}AccountSidAC1MessageSidSM1MessageStatusdelivered`).digest('base64');
    expect(twilioSignature('tok', url, p)).toBe(expected);
    const repeated = createHmac('sha1', 'tok').update(`${url}Xa1Xa2`).digest('base64');
    expect(twilioSignature('tok', url, { Xa: ['2', '1'] })).toBe(repeated);
  });

  it('refuses a changed parameter, URL or token, a missing or malformed signature', () => {
    const good = 'GvWf1cFY/Q7PnoempGyD5oXAezc=';
    expect(verifyTwilioSignature(token, good, url, { ...params('+14158675310'), Digits: '1235' })).toBe(false);
    expect(verifyTwilioSignature(token, good, 'https://mycompany.com/myapp.php?foo=1&bar=3', params('+14158675310'))).toBe(false);
    expect(verifyTwilioSignature('54321', good, url, params('+14158675310'))).toBe(false);
    expect(verifyTwilioSignature(token, undefined, url, params('+14158675310'))).toBe(false);
    expect(verifyTwilioSignature(token, 'short', url, params('+14158675310'))).toBe(false);
    expect(verifyTwilioSignature('', good, url, params('+14158675310'))).toBe(false);
  });

  it('accepts the URL with or without the default port, as Twilio may sign either', () => {
    const good = 'GvWf1cFY/Q7PnoempGyD5oXAezc=';
    expect(verifyTwilioSignature(token, good, 'https://mycompany.com:443/myapp.php?foo=1&bar=2', params('+14158675310'))).toBe(true);
    const withPort = twilioSignature(token, 'https://mycompany.com:443/myapp.php?foo=1&bar=2', params('+14158675310'));
    expect(verifyTwilioSignature(token, withPort, url, params('+14158675310'))).toBe(true);
    expect(verifyTwilioSignature(token, good, 'https://mycompany.com:8443/myapp.php?foo=1&bar=2', params('+14158675310'))).toBe(false);
  });
});
