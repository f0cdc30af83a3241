import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, createTestUser, type TestApp, type TestUser } from '../helpers/app';
import { startTestWorker, type TestWorker } from '../helpers/worker';
import { openFundedAccount, settled, waitForTransfer } from '../transfers/helpers';
import { gqlOk, gqlRefused } from './helpers';

let t: TestApp;
let w: TestWorker;
let bob: TestUser;
let stranger: TestUser;
let readOnly: TestUser;
let account: string;

beforeAll(async () => {
  t = await createTestApp();
  w = await startTestWorker();
  bob = await createTestUser();
  stranger = await createTestUser();
  readOnly = await createTestUser({ permissions: ['read'] });
  account = await openFundedAccount(t, t.headers, '500.00');
  await openFundedAccount(t, bob.headers, '0');
}, 120_000);

afterAll(async () => {
  await w?.stop();
  await t?.close();
});

type Headers = Record<string, string>;
const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown, headers: Headers = t.headers) =>
  t.app.inject({ method, url, headers, ...(payload !== undefined ? { payload: payload as object } : {}) });

const INTENT_FIELDS = `id status amount currency description recipient { userId name identifier } role requiresPasskey amountUsd accountId fee entryId receiptId
  lastError { code message } cancellationReason workflowId expiresAt createdAt confirmedAt succeededAt canceledAt expiredAt`;
const CREATE_INTENT = `mutation ($i: PaymentIntentInput!) { createPaymentIntent(input: $i) { ${INTENT_FIELDS} } }`;

/** REST's intent in the GraphQL field names. */
const intentOf = (r: any) => ({
  id: r.id,
  status: r.status,
  amount: r.amount,
  currency: r.currency,
  description: r.description,
  recipient: { userId: r.recipient.user_id, name: r.recipient.name, identifier: r.recipient.identifier },
  role: r.role,
  requiresPasskey: r.requires_passkey,
  amountUsd: r.amount_usd,
  accountId: r.account_id,
  fee: r.fee,
  entryId: r.entry_id,
  receiptId: r.receipt_id,
  lastError: r.last_error,
  cancellationReason: r.cancellation_reason,
  workflowId: r.workflow_id,
  expiresAt: r.expires_at,
  createdAt: r.created_at,
  confirmedAt: r.confirmed_at,
  succeededAt: r.succeeded_at,
  canceledAt: r.canceled_at,
  expiredAt: r.expired_at,
});

describe('payment intents over GraphQL', () => {
  it('created through the domain; payer and payee each read what REST shows them; cancelled as REST sees it', async () => {
    const created = (await gqlOk(t, CREATE_INTENT, { i: { amount: '25.00', currency: 'USD', recipient: bob.email, description: 'Coffee beans' } })).createPaymentIntent;
    expect(created).toMatchObject({ status: 'requires_confirmation', amount: '25.00', role: 'payer', recipient: { userId: bob.userId, identifier: bob.email } });
    const asPayer = await call('GET', `/api/v2/mobile/payments/intents/${created.id}`);
    expect(asPayer.statusCode, asPayer.body).toBe(200);
    expect(created).toEqual(intentOf(asPayer.json().data));
    // The payee's view hides the payer's identifier and workflow, as on REST.
    const asPayee = (await call('GET', `/api/v2/mobile/payments/intents/${created.id}`, undefined, bob.headers)).json().data;
    const q = (await gqlOk(t, `{ paymentIntent(id: "${created.id}") { ${INTENT_FIELDS} } }`, undefined, bob.headers)).paymentIntent;
    expect(q).toEqual(intentOf(asPayee));
    expect(q).toMatchObject({ role: 'payee', workflowId: null, recipient: { identifier: null } });

    const list = (await gqlOk(t, '{ paymentIntents(status: requires_confirmation) { data { id } paginatorInfo { total } } }')).paymentIntents;
    expect(list.data.map((i: { id: string }) => i.id)).toContain(created.id);

    const cancelled = (await gqlOk(t, `mutation { cancelPaymentIntent(id: "${created.id}", reason: "changed my mind") { status cancellationReason } }`)).cancelPaymentIntent;
    expect(cancelled).toEqual({ status: 'canceled', cancellationReason: 'changed my mind' });
    expect((await call('GET', `/api/v2/mobile/payments/intents/${created.id}`)).json().data).toMatchObject({ status: 'canceled', cancellation_reason: 'changed my mind' });
  });

  it('an amount with too many decimals is refused with the REST code and status', async () => {
    const rest = await call('POST', '/api/v2/mobile/payments/intents', { amount: '1.001', currency: 'USD', recipient: bob.email });
    expect(rest.statusCode).toBe(422);
    const r = await gqlRefused(t, CREATE_INTENT, rest.json().errors[0].code, 422, { i: { amount: '1.001', currency: 'USD', recipient: bob.email } });
    expect(r.errors![0].extensions.pointer).toBe(rest.json().errors[0].source?.pointer);
  });

  it("a stranger gets REST's not-found; a read-only key cannot create an intent", async () => {
    const created = (await gqlOk(t, CREATE_INTENT, { i: { amount: '5.00', currency: 'USD', recipient: bob.email } })).createPaymentIntent;
    const rest = await call('GET', `/api/v2/mobile/payments/intents/${created.id}`, undefined, stranger.headers);
    expect(rest.statusCode).toBe(404);
    await gqlRefused(t, `{ paymentIntent(id: "${created.id}") { id } }`, rest.json().errors[0].code, 404, undefined, stranger.headers);
    await gqlRefused(t, `mutation { cancelPaymentIntent(id: "${created.id}") { id } }`, rest.json().errors[0].code, 404, undefined, stranger.headers);
    await gqlRefused(t, CREATE_INTENT, 'INSUFFICIENT_PERMISSIONS', 403, { i: { amount: '5.00', currency: 'USD', recipient: bob.email } }, readOnly.headers);
  });
});

describe('P2P over GraphQL', () => {
  it('sends through the transfers workflow; the transfer and the receipt read as on REST, for each side', async () => {
    const sent = (
      await gqlOk(t, 'mutation ($i: P2pInput!) { sendP2p(input: $i) { id direction status amount currency note from { userId accountId } to { userId accountId } } }', {
        i: { toUser: bob.email, amount: '10.00', currency: 'USD', note: 'lunch', fromAccount: account },
      })
    ).sendP2p;
    expect(sent).toMatchObject({ direction: 'sent', amount: '10.00', currency: 'USD', note: 'lunch', from: { accountId: account }, to: { userId: bob.userId, accountId: null } });
    await waitForTransfer(t, t.headers, sent.id, settled);

    const P2P = (id: string) => `{ p2pTransfer(id: "${id}") { id direction status amount fee note from { userId name accountId } to { userId name accountId } entryId receiptId failure { code } workflowId createdAt completedAt } }`;
    for (const headers of [t.headers, bob.headers]) {
      const r = (await call('GET', `/api/v2/mobile/transfers/p2p/${sent.id}`, undefined, headers)).json().data;
      const q = (await gqlOk(t, P2P(sent.id), undefined, headers)).p2pTransfer;
      expect(q).toEqual({
        id: r.id,
        direction: r.direction,
        status: r.status,
        amount: r.amount,
        fee: r.fee,
        note: r.note,
        from: { userId: r.from.user_id, name: r.from.name, accountId: r.from.account_id },
        to: { userId: r.to.user_id, name: r.to.name, accountId: r.to.account_id },
        entryId: r.entry_id,
        receiptId: r.receipt_id,
        failure: r.failure,
        workflowId: r.workflow_id,
        createdAt: r.created_at,
        completedAt: r.completed_at,
      });
    }
    expect((await gqlOk(t, P2P(sent.id), undefined, bob.headers)).p2pTransfer).toMatchObject({ status: 'completed', direction: 'received', workflowId: null });

    const receiptId = `rcpt_${sent.id}`;
    const rr = (await call('GET', `/api/v2/mobile/receipts/${receiptId}`)).json().data;
    const qr = (await gqlOk(t, `{ receipt(id: "${receiptId}") { id number kind sourceId issuedAt payer { userId name accountId } payee { userId name accountId } amount fee total currency description ledger { entryId lines } } }`)).receipt;
    expect(qr).toEqual({
      id: rr.id,
      number: rr.number,
      kind: rr.kind,
      sourceId: rr.source_id,
      issuedAt: rr.issued_at,
      payer: { userId: rr.payer.user_id, name: rr.payer.name, accountId: rr.payer.account_id },
      payee: { userId: rr.payee.user_id, name: rr.payee.name, accountId: rr.payee.account_id },
      amount: rr.amount,
      fee: rr.fee,
      total: rr.total,
      currency: rr.currency,
      description: rr.description,
      ledger: { entryId: rr.ledger.entry_id, lines: rr.ledger.lines },
    });

    const feed = (await gqlOk(t, '{ mobileActivity(types: [transfer]) { data { sourceId type direction } } }')).mobileActivity.data;
    const restFeed = (await call('GET', '/api/v2/mobile/activity?type=transfer')).json().data;
    expect(feed).toEqual(restFeed.map((f: any) => ({ sourceId: f.source_id, type: f.type, direction: f.direction })));
  }, 60_000);

  it('to oneself and to an unknown customer: the REST codes', async () => {
    const MUT = 'mutation ($i: P2pInput!) { sendP2p(input: $i) { id } }';
    const self = await call('POST', '/api/v2/mobile/transfers/p2p', { to_user: t.user.email, amount: '1.00', currency: 'USD' });
    await gqlRefused(t, MUT, self.json().errors[0].code, self.statusCode, { i: { toUser: t.user.email, amount: '1.00', currency: 'USD' } });
    await gqlRefused(t, MUT, 'RECIPIENT_NOT_FOUND', 404, { i: { toUser: 'nobody@example.test', amount: '1.00', currency: 'USD' } });
    await gqlRefused(t, MUT, 'INSUFFICIENT_PERMISSIONS', 403, { i: { toUser: bob.email, amount: '1.00', currency: 'USD' } }, readOnly.headers);
  });
});

describe('profile, devices, notifications and passkeys over GraphQL', () => {
  it('the profile is set through the domain (REST reads it) and refused as REST refuses it', async () => {
    const p = (await gqlOk(t, 'mutation { updateMobileProfile(handle: "@Gql_Payer") { userId handle phone } }')).updateMobileProfile;
    expect(p).toMatchObject({ handle: 'gql_payer', phone: null });
    expect((await call('GET', '/api/v2/mobile/profile')).json().data).toMatchObject({ handle: 'gql_payer' });
    await gqlRefused(t, 'mutation { updateMobileProfile(phone: "12") { handle } }', 'INVALID_PHONE', 422);
    await gqlRefused(t, 'mutation { updateMobileProfile(handle: "gql_payer") { handle } }', 'HANDLE_TAKEN', 422, undefined, bob.headers);
    expect((await gqlOk(t, '{ mobileProfile { handle } }')).mobileProfile.handle).toBe('gql_payer');
  });

  it('devices: registered, listed as REST lists them, removed (delete permission)', async () => {
    const d = (await gqlOk(t, 'mutation { registerDevice(platform: ios, pushToken: "tok-gql-abcdef123456", name: "phone") { id platform name pushTokenSuffix } }')).registerDevice;
    expect(d).toMatchObject({ platform: 'ios', name: 'phone', pushTokenSuffix: '123456' });
    const rest = (await call('GET', '/api/v2/mobile/devices')).json().data;
    const q = (await gqlOk(t, '{ devices { data { id platform name pushTokenSuffix createdAt lastSeenAt } } }')).devices.data;
    expect(q).toEqual(rest.map((x: any) => ({ id: x.id, platform: x.platform, name: x.name, pushTokenSuffix: x.push_token_suffix, createdAt: x.created_at, lastSeenAt: x.last_seen_at })));
    const restStranger = await call('DELETE', `/api/v2/mobile/devices/${d.id}`, undefined, stranger.headers);
    expect(restStranger.statusCode).toBe(404);
    await gqlRefused(t, `mutation { removeDevice(id: "${d.id}") }`, restStranger.json().errors[0].code, 404, undefined, stranger.headers);
    const writeOnly = await createTestUser({ permissions: ['read', 'write'] });
    await gqlRefused(t, `mutation { removeDevice(id: "${d.id}") }`, 'INSUFFICIENT_PERMISSIONS', 403, undefined, writeOnly.headers);
    expect((await gqlOk(t, `mutation { removeDevice(id: "${d.id}") }`)).removeDevice).toBe(true);
    expect((await call('GET', '/api/v2/mobile/devices')).json().data).toEqual([]);
  });

  it('notifications and passkeys list as on REST; an unknown passkey is the REST not-found', async () => {
    const rest = (await call('GET', '/api/v2/mobile/notifications', undefined, bob.headers)).json();
    const q = (await gqlOk(t, '{ mobileNotifications { data { id eventType title readAt } paginatorInfo { total } } }', undefined, bob.headers)).mobileNotifications;
    expect(q.paginatorInfo.total).toBe(rest.meta.total);
    expect(q.data).toEqual(rest.data.map((n: any) => ({ id: n.id, eventType: n.event_type, title: n.title, readAt: n.read_at })));
    expect((await gqlOk(t, '{ passkeys { data { id } paginatorInfo { total } } }')).passkeys).toEqual({ data: [], paginatorInfo: { total: 0 } });
    const restDel = await call('DELETE', '/api/v2/mobile/auth/passkeys/pk_unknown');
    expect(restDel.statusCode).toBe(404);
    await gqlRefused(t, 'mutation { deletePasskey(id: "pk_unknown") }', restDel.json().errors[0].code, 404);
  });
});
