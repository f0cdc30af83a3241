import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { getPool } from '../../domain/db/pool';
import { getEntry, trialBalance } from '../../domain/ledger';
import { createTestUser, type TestApp, type TestUser } from '../helpers/app';
import { startRailsHarness, type RailsHarness } from '../rails/harness';
import { checkOutboxAgainstCatalog } from '../rails/events';
import { balance, openFundedAccount } from '../transfers/helpers';
import { SoftwareAuthenticator, verifyBody } from './authenticator';

// The time-skipping server (expiry is a timer), the API and a worker: the rails' harness is generic.
let h: RailsHarness;
let env: TestWorkflowEnvironment;
let t: TestApp;
let payee: TestUser;
let payeeAccount: string;

beforeAll(async () => {
  h = await startRailsHarness('intents-test');
  ({ env, t } = h);
  payee = await createTestUser();
  payeeAccount = await openFundedAccount(t, payee.headers, '0');
}, 120_000);

afterAll(async () => {
  await h?.close();
});

const call = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown, headers = t.headers) =>
  t.app.inject({ method, url, headers, ...(payload !== undefined ? { payload: payload as object } : {}) });

async function intent(amount: string, extra: Record<string, unknown> = {}) {
  const r = await call('POST', '/api/v2/mobile/payments/intents', { amount, currency: 'USD', recipient: payee.email, description: 'Coffee beans', ...extra });
  expect(r.statusCode, r.body).toBe(201);
  return r.json().data;
}

/** The workflow's end (time skips while the test waits on it), then the intent through the API. */
async function settle(id: string) {
  await env.client.workflow.getHandle(`payment-intent-${id}`).result();
  return (await call('GET', `/api/v2/mobile/payments/intents/${id}`)).json().data;
}

describe('payment intents', () => {
  it('requires_confirmation → processing → succeeded: one ledger entry with the transfer fee, a receipt for both sides', async () => {
    const acct = await openFundedAccount(t, t.headers, '100.00');
    const created = await intent('25.00');
    expect(created).toMatchObject({ status: 'requires_confirmation', amount: '25.00', currency: 'USD', role: 'payer', requires_passkey: false, receipt_id: null, recipient: { user_id: payee.userId } });
    expect(created.id).toMatch(/^pi_[0-9a-f]{32}$/);
    const confirmed = await call('POST', `/api/v2/mobile/payments/intents/${created.id}/confirm`, { account_id: acct });
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    expect(confirmed.json().data.status).toBe('processing');
    const done = await settle(created.id);
    expect(done).toMatchObject({ status: 'succeeded', account_id: acct, receipt_id: `rcpt_${created.id}`, fee: '0.03' });
    const entry = (await getEntry(done.entry_id))!;
    expect(entry.status).toBe('posted');
    // 0.1 % transfer fee (fee_schedules), paid by the payer.
    expect(await balance(t, t.headers, acct)).toMatchObject({ total_balance: '74.97' });
    expect(await balance(t, payee.headers, payeeAccount)).toMatchObject({ total_balance: '25.00' });

    // The payee sees the intent (without the payer's account) and the receipt; a stranger sees neither.
    const seen = (await call('GET', `/api/v2/mobile/payments/intents/${created.id}`, undefined, payee.headers)).json().data;
    expect(seen).toMatchObject({ role: 'payee', account_id: payeeAccount, workflow_id: null });
    const receipt = (await call('GET', `/api/v2/mobile/receipts/rcpt_${created.id}`)).json().data;
    expect(receipt).toMatchObject({ kind: 'payment_intent', amount: '25.00', fee: '0.03', total: '25.03', currency: 'USD', payer: { account_id: acct }, payee: { user_id: payee.userId, account_id: null }, ledger: { entry_id: done.entry_id } });
    expect(receipt.ledger.lines).toEqual([
      { account_id: acct, direction: 'debit', amount: '25.00' },
      { account_id: acct, direction: 'debit', amount: '0.03' },
    ]);
    expect((await call('GET', `/api/v2/mobile/receipts/rcpt_${created.id}`, undefined, payee.headers)).json().data.payee.account_id).toBe(payeeAccount);
    const html = await call('GET', `/api/v2/mobile/receipts/rcpt_${created.id}/html`);
    expect(html.headers['content-type']).toMatch(/text\/html/);
    expect(html.body).toContain(receipt.number);
    expect(html.body).toContain('Coffee beans');
    const stranger = await createTestUser();
    expect((await call('GET', `/api/v2/mobile/payments/intents/${created.id}`, undefined, stranger.headers)).statusCode).toBe(404);
    expect((await call('GET', `/api/v2/mobile/receipts/rcpt_${created.id}`, undefined, stranger.headers)).statusCode).toBe(404);

    // Final states refuse every further move with 409.
    for (const action of ['confirm', 'cancel']) {
      const r = await call('POST', `/api/v2/mobile/payments/intents/${created.id}/${action}`, {});
      expect(r.statusCode).toBe(409);
      expect(r.json().errors[0].code).toBe('PAYMENT_INTENT_STATE_CONFLICT');
    }
  });

  it('20 concurrent confirms of one intent: one is accepted, 19 are 409, and the money moves once', async () => {
    const acct = await openFundedAccount(t, t.headers, '50.00');
    const created = await intent('10.00');
    const rs = await Promise.all(Array.from({ length: 20 }, () => call('POST', `/api/v2/mobile/payments/intents/${created.id}/confirm`, { account_id: acct })));
    expect(rs.filter((r) => r.statusCode === 200)).toHaveLength(1);
    expect(rs.filter((r) => r.statusCode === 409)).toHaveLength(19);
    expect((await settle(created.id)).status).toBe('succeeded');
    expect(await balance(t, t.headers, acct)).toMatchObject({ total_balance: '39.99' });
    const { rows } = await getPool().query(`SELECT count(*)::int AS n FROM journal_entries WHERE reference = $1`, [created.id]);
    expect(rows[0].n).toBe(1);
  });

  it('insufficient funds: back to requires_confirmation with last_error; funded, a second confirm succeeds', async () => {
    const acct = await openFundedAccount(t, t.headers, '5.00');
    const created = await intent('30.00');
    expect((await call('POST', `/api/v2/mobile/payments/intents/${created.id}/confirm`, { account_id: acct })).statusCode).toBe(200);
    const deadline = Date.now() + 15_000;
    let cur = created;
    while (Date.now() < deadline) {
      cur = (await call('GET', `/api/v2/mobile/payments/intents/${created.id}`)).json().data;
      if (cur.status === 'requires_confirmation' && cur.last_error) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(cur).toMatchObject({ status: 'requires_confirmation', last_error: { code: 'INSUFFICIENT_FUNDS' } });
    expect(await balance(t, t.headers, acct)).toMatchObject({ total_balance: '5.00', reserved_balance: '0.00' });
    expect((await call('POST', `/api/v2/accounts/${acct}/deposit`, { amount: '30.00', asset_code: 'USD' })).statusCode).toBe(201);
    expect((await call('POST', `/api/v2/mobile/payments/intents/${created.id}/confirm`, { account_id: acct })).statusCode).toBe(200);
    expect(await settle(created.id)).toMatchObject({ status: 'succeeded', last_error: null });
    expect(await balance(t, t.headers, acct)).toMatchObject({ total_balance: '4.97' });
  });

  it('an unconfirmed intent expires on its timer (skipped time) with payment_intent.expired; a canceled one stays canceled', async () => {
    const created = await intent('12.00', { expires_in_minutes: 15 });
    const done = await settle(created.id);
    expect(done).toMatchObject({ status: 'expired' });
    expect(done.expired_at).not.toBeNull();
    const { rows } = await getPool().query(`SELECT type FROM platform_events WHERE aggregate_id = $1 ORDER BY occurred_at, id`, [created.id]);
    expect(rows.map((r) => r.type)).toEqual(['payment_intent.created', 'payment_intent.expired']);
    expect((await call('POST', `/api/v2/mobile/payments/intents/${created.id}/confirm`, {})).statusCode).toBe(409);

    const other = await intent('3.00');
    const canceled = await call('POST', `/api/v2/mobile/payments/intents/${other.id}/cancel`, { reason: 'changed my mind' });
    expect(canceled.json().data).toMatchObject({ status: 'canceled', cancellation_reason: 'changed my mind' });
    expect(await settle(other.id)).toMatchObject({ status: 'canceled' });
  });

  it('at or above the passkey threshold only a passkey session confirms: a key gets 403 PASSKEY_REQUIRED', async () => {
    await openFundedAccount(t, t.headers, '2000.00');
    const created = await intent('1000.00');
    expect(created.requires_passkey).toBe(true);
    const r = await call('POST', `/api/v2/mobile/payments/intents/${created.id}/confirm`, {});
    expect(r.statusCode).toBe(403);
    expect(r.json().errors[0].code).toBe('PASSKEY_REQUIRED');
    expect((await call('GET', `/api/v2/mobile/payments/intents/${created.id}`)).json().data.status).toBe('requires_confirmation');

    // Signed in with a passkey (a software authenticator's real ES256 assertion), the same payer confirms.
    const phone = new SoftwareAuthenticator();
    const login = await call('POST', '/api/auth/login', { email: t.user.email, password: t.user.password }, {});
    const loggedIn = { authorization: `Bearer ${login.json().data.access_token}` };
    const options = (await call('POST', '/api/v2/mobile/auth/passkeys/registration/options', undefined, loggedIn)).json().data;
    expect((await call('POST', '/api/v2/mobile/auth/passkeys/registration/verify', { response: phone.create(options) }, loggedIn)).statusCode).toBe(201);
    const request = (await call('POST', '/api/v2/mobile/auth/passkey/options', { email: t.user.email }, {})).json().data;
    const session = await call('POST', '/api/v2/mobile/auth/passkey/verify', verifyBody(phone.get(request)), {});
    expect(session.statusCode, session.body).toBe(200);
    const biometric = { authorization: `Bearer ${session.json().data.access_token}` };
    const ok = await call('POST', `/api/v2/mobile/payments/intents/${created.id}/confirm`, {}, biometric);
    expect(ok.statusCode, ok.body).toBe(200);
    expect(await settle(created.id)).toMatchObject({ status: 'succeeded' });
  });

  it('deleting the passkey ends the sessions it started: neither their access tokens nor refreshed ones confirm a passkey-gated intent', async () => {
    await openFundedAccount(t, t.headers, '2000.00');
    const created = await intent('1500.00');
    expect(created.requires_passkey).toBe(true);
    const phone = new SoftwareAuthenticator();
    const login = await call('POST', '/api/auth/login', { email: t.user.email, password: t.user.password }, {});
    const loggedIn = { authorization: `Bearer ${login.json().data.access_token}` };
    const options = (await call('POST', '/api/v2/mobile/auth/passkeys/registration/options', undefined, loggedIn)).json().data;
    const registered = await call('POST', '/api/v2/mobile/auth/passkeys/registration/verify', { response: phone.create(options) }, loggedIn);
    expect(registered.statusCode).toBe(201);
    const passkeyId = registered.json().data.id;
    const signIn = async () => {
      const request = (await call('POST', '/api/v2/mobile/auth/passkey/options', { email: t.user.email }, {})).json().data;
      const r = await call('POST', '/api/v2/mobile/auth/passkey/verify', verifyBody(phone.get(request)), {});
      expect(r.statusCode, r.body).toBe(200);
      return r.json().data as { access_token: string; refresh_token: string };
    };
    const first = await signIn();
    const second = await signIn();
    // A token refreshed from the passkey session is still that session.
    const refreshed = (await call('POST', '/api/auth/refresh', { refresh_token: second.refresh_token }, {})).json().data;
    expect(refreshed.access_token).toEqual(expect.any(String));

    const removed = await call('DELETE', `/api/v2/mobile/auth/passkeys/${passkeyId}`, undefined, loggedIn);
    expect(removed.statusCode).toBe(204);
    for (const token of [first.access_token, second.access_token, refreshed.access_token]) {
      const r = await call('POST', `/api/v2/mobile/payments/intents/${created.id}/confirm`, {}, { authorization: `Bearer ${token}` });
      expect(r.statusCode).toBe(401);
    }
    for (const refresh of [first.refresh_token, refreshed.refresh_token]) {
      expect((await call('POST', '/api/auth/refresh', { refresh_token: refresh }, {})).statusCode).toBe(401);
    }
    // The password session is untouched and still not enough for this amount.
    const r = await call('POST', `/api/v2/mobile/payments/intents/${created.id}/confirm`, {}, loggedIn);
    expect([r.statusCode, r.json().errors[0].code]).toEqual([403, 'PASSKEY_REQUIRED']);
    expect((await call('GET', `/api/v2/mobile/payments/intents/${created.id}`)).json().data.status).toBe('requires_confirmation');
  });

  it('bad input: 4xx with a pointer, nothing stored', async () => {
    const before = (await getPool().query('SELECT count(*)::int AS n FROM payment_intents')).rows[0].n;
    const cases: Array<[Record<string, unknown>, number, string, string?]> = [
      [{ amount: '1.001', currency: 'USD', recipient: payee.email }, 422, 'AMOUNT_PRECISION', '/amount'],
      [{ amount: '1.00', currency: 'XYZ', recipient: payee.email }, 422, 'UNKNOWN_ASSET', '/currency'],
      [{ amount: '1.00', currency: 'USD', recipient: 'nobody@example.test' }, 404, 'RECIPIENT_NOT_FOUND'],
      [{ amount: '1.00', currency: 'USD', recipient: t.user.email }, 422, 'PAYMENT_TO_SELF', '/recipient'],
      [{ amount: 1, currency: 'USD', recipient: payee.email }, 422, 'VALIDATION_ERROR'],
    ];
    for (const [body, status, code, pointer] of cases) {
      const r = await call('POST', '/api/v2/mobile/payments/intents', body);
      expect(r.statusCode, JSON.stringify(body) + r.body).toBe(status);
      expect(r.json().errors[0].code).toBe(code);
      if (pointer) expect(r.json().errors[0].source?.pointer).toBe(pointer);
    }
    expect((await getPool().query('SELECT count(*)::int AS n FROM payment_intents')).rows[0].n).toBe(before);
  });

  it('every event matches the catalog and the ledger balances', async () => {
    const { problems, seen } = await checkOutboxAgainstCatalog(['payment_intent']);
    expect(problems).toEqual([]);
    expect([...seen].sort()).toEqual(['payment_intent.completed', 'payment_intent.created', 'payment_intent.expired']);
    expect((await trialBalance({ environment: 'sandbox' })).balanced).toBe(true);
  });
});
