import { createHash } from 'node:crypto';
import { deserializeIlpFulfill, deserializeIlpPrepare, deserializeIlpReject } from 'ilp-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getTemporalClient } from '../../domain/temporal/client';
import { createTestApp, createTestUser, type TestApp } from '../helpers/app';
import { startTestWorker, type TestWorker } from '../helpers/worker';
import { balance, openFundedAccount } from '../transfers/helpers';
import { checkOutboxAgainstCatalog } from '../rails/events';
import { getPool } from '../../domain/db/pool';
import { refusalsOf, tenantCustomers, type Probe } from '../helpers/tenants';

let t: TestApp;
let w: TestWorker;
beforeAll(async () => {
  t = await createTestApp();
  w = await startTestWorker();
});
afterAll(async () => {
  await w.stop();
  await t.close();
  delete process.env.ILP_QUOTE_TTL_SECONDS;
});

const quote = (body: Record<string, unknown>, headers = t.headers) => t.app.inject({ method: 'POST', url: '/api/v1/interledger/quotes', headers, payload: body });
const payQuote = (quote_id: string, account_id: string, headers = t.headers) =>
  t.app.inject({ method: 'POST', url: '/api/v1/interledger/payments', headers, payload: { quote_id, account_id } });

async function settle(id: string, workflowId: string) {
  await (await getTemporalClient()).workflow.getHandle(workflowId).result();
  return (await t.app.inject({ method: 'GET', url: `/api/v1/interledger/payments/${id}`, headers: t.headers })).json().data;
}

describe('interledger', () => {
  it('quotes with fee, FX rate, expiry and Open Payments amounts', async () => {
    const r = await quote({ send_amount: '100.00', send_currency: 'USD', receive_currency: 'EUR', receiver: '$wallet.example/alice' });
    expect(r.statusCode).toBe(201);
    const q = r.json().data;
    // fee 0.5 % = 0.50; rate 1 / 1.08; receive = 99.50 / 1.08 rounded down = 92.12
    expect(q).toMatchObject({ send_amount: '100.00', fee: '0.50', receive_amount: '92.12', receive_currency: 'EUR', wallet_address: 'https://wallet.example/alice' });
    expect(q.fx_rate).toMatch(/^0\.925925925926$/);
    expect(q.open_payments).toEqual({
      debitAmount: { value: '10000', assetCode: 'USD', assetScale: 2 },
      receiveAmount: { value: '9212', assetCode: 'EUR', assetScale: 2 },
      fee: { value: '50', assetCode: 'USD', assetScale: 2 },
    });
    const ttl = new Date(q.expires_at).getTime() - new Date(q.created_at).getTime();
    expect(ttl).toBeGreaterThan(299_000);
    expect(ttl).toBeLessThan(301_000);
    expect((await quote({ send_amount: '1.001', send_currency: 'USD', receive_currency: 'EUR', receiver: '$wallet.example/a' })).statusCode).toBe(422);
    expect((await quote({ send_amount: '1.00', send_currency: 'USD', receive_currency: 'EUR', receiver: 'http://insecure.example/a' })).json().errors[0].code).toBe('INVALID_RECEIVER');
  });

  it('pays a quote: ILP Prepare with a SHA-256 condition is fulfilled and the entry posts; the quote cannot be used twice', async () => {
    const acct = await openFundedAccount(t, t.headers, '500.00');
    const q = (await quote({ send_amount: '100.00', send_currency: 'USD', receive_currency: 'EUR', receiver: 'https://wallet.example/bob' })).json().data;
    const r = await payQuote(q.id, acct);
    expect(r.statusCode).toBe(201);
    const done = await settle(r.json().data.id, r.json().data.workflow_id);
    expect(done).toMatchObject({ status: 'completed', ilp_reject_code: null, failure: null });
    const prepare = deserializeIlpPrepare(Buffer.from(done.packets[0].base64, 'base64'));
    const fulfill = deserializeIlpFulfill(Buffer.from(done.packets[1].base64, 'base64'));
    expect(prepare.destination).toMatch(/^test\.example\.wallet\.bob\./);
    expect(prepare.amount).toBe('9950');
    expect(createHash('sha256').update(fulfill.fulfillment).digest().equals(prepare.executionCondition)).toBe(true);
    expect(Buffer.from(done.fulfillment, 'base64').equals(fulfill.fulfillment)).toBe(true);
    expect(await balance(t, t.headers, acct)).toMatchObject({ total_balance: '400.00', reserved_balance: '0.00' });
    // Operators find the workflow by PaymentId and Rail (the dev server's visibility answers the query).
    const client = await getTemporalClient();
    const sa = (await client.workflow.getHandle(done.workflow_id).describe()).typedSearchAttributes;
    expect(sa.get({ name: 'PaymentId', type: 'KEYWORD' } as never)).toBe(done.id);
    expect(sa.get({ name: 'Rail', type: 'KEYWORD' } as never)).toBe('interledger');
    expect(sa.get({ name: 'TransferId', type: 'KEYWORD' } as never)).toBeUndefined();
    const found: string[] = [];
    for (let i = 0; i < 100 && found.length === 0; i++) {
      for await (const x of client.workflow.list({ query: `PaymentId = '${done.id}' AND Rail = 'interledger'` })) found.push(x.workflowId);
      if (found.length === 0) await new Promise((r) => setTimeout(r, 50));
    }
    expect(found).toEqual([done.workflow_id]);

    const getQuote = (id: string, headers = t.headers) => t.app.inject({ method: 'GET', url: `/api/v1/interledger/quotes/${id}`, headers });
    const read = await getQuote(q.id);
    expect(read.statusCode).toBe(200);
    expect(read.json().data).toEqual({ ...q, used: true, expired: false });
    expect((await getQuote(q.id, (await createTestUser()).headers)).statusCode).toBe(404);
    expect((await getQuote('ilpq_nosuchquote')).statusCode).toBe(404);

    const again = await payQuote(q.id, acct);
    expect(again.statusCode).toBe(422);
    expect(again.json().errors[0].code).toBe('QUOTE_ALREADY_USED');
    const stranger = await createTestUser();
    expect((await payQuote(q.id, acct, stranger.headers)).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: `/api/v1/interledger/payments/${done.id}`, headers: stranger.headers })).statusCode).toBe(404);
  });

  it('a rejecting receiver (F99) voids the reservation', async () => {
    const acct = await openFundedAccount(t, t.headers, '50.00');
    const q = (await quote({ send_amount: '20.00', send_currency: 'USD', receive_currency: 'USD', receiver: '$wallet.example/reject-all' })).json().data;
    const r = (await payQuote(q.id, acct)).json().data;
    const done = await settle(r.id, r.workflow_id);
    expect(done).toMatchObject({ status: 'failed', ilp_reject_code: 'F99', failure: { code: 'ILP_F99' }, compensation_executed: true });
    const reject = deserializeIlpReject(Buffer.from(done.packets[1].base64, 'base64'));
    expect(reject.code).toBe('F99');
    expect(await balance(t, t.headers, acct)).toMatchObject({ total_balance: '50.00', available_balance: '50.00' });
  });

  it('an expired quote is 422 and moves nothing', async () => {
    process.env.ILP_QUOTE_TTL_SECONDS = '1';
    const acct = await openFundedAccount(t, t.headers, '50.00');
    const q = (await quote({ send_amount: '10.00', send_currency: 'USD', receive_currency: 'EUR', receiver: '$wallet.example/carol' })).json().data;
    delete process.env.ILP_QUOTE_TTL_SECONDS;
    expect(q.expired).toBe(false);
    await new Promise((res) => setTimeout(res, 1200));
    expect((await t.app.inject({ method: 'GET', url: `/api/v1/interledger/quotes/${q.id}`, headers: t.headers })).json().data).toMatchObject({ id: q.id, expired: true, used: false });
    const r = await payQuote(q.id, acct);
    expect(r.statusCode).toBe(422);
    expect(r.json().errors[0].code).toBe('QUOTE_EXPIRED');
    expect(await balance(t, t.headers, acct)).toMatchObject({ total_balance: '50.00' });
  });
});

describe('tenant isolation (issue 41)', () => {
  it("another customer of the tenant and a customer of another tenant get 404 on A's quotes, payments and accounts; nothing changes", async () => {
    const { a, b, c } = await tenantCustomers(t.user.userId);
    const acct = await openFundedAccount(t, a.headers, '100.00');
    const body = { send_amount: '10.00', send_currency: 'USD', receive_currency: 'EUR', receiver: '$wallet.example/alice' };
    const paid = (await quote(body, a.headers)).json().data;
    const payment = (await payQuote(paid.id, acct, a.headers)).json().data;
    await settle(payment.id, payment.workflow_id);
    const spare = (await quote(body, a.headers)).json().data;
    const snapshot = async () => ({
      quotes: (await getPool().query('SELECT id, used_at FROM ilp_quotes WHERE user_id = $1 ORDER BY id', [a.userId])).rows,
      payments: (await getPool().query('SELECT id, status, updated_at FROM ilp_payments WHERE account_id = $1', [acct])).rows,
      balance: await balance(t, a.headers, acct),
    });
    const before = await snapshot();
    const wrong: string[] = [];
    for (const [who, headers] of [['B (same tenant)', b.headers], ['C (other tenant)', c.headers]] as const) {
      const own = await openFundedAccount(t, headers, '100.00');
      const ownQuote = (await quote(body, headers)).json().data.id as string;
      const probes: Probe[] = [
        { method: 'GET', url: `/api/v1/interledger/quotes/${spare.id}` },
        { method: 'GET', url: `/api/v1/interledger/quotes/${paid.id}` },
        { method: 'GET', url: `/api/v1/interledger/payments/${payment.id}` },
        { method: 'POST', url: '/api/v1/interledger/payments', payload: { quote_id: spare.id, account_id: own } },
        { method: 'POST', url: '/api/v1/interledger/payments', payload: { quote_id: ownQuote, account_id: acct }, expect: { status: 404, code: 'ACCOUNT_NOT_FOUND' } },
      ];
      wrong.push(...(await refusalsOf(t.app, probes, [[who, headers]], { status: 404, code: 'NOT_FOUND' }, [acct, spare.id, paid.id, payment.id])));
    }
    expect(wrong).toEqual([]);
    expect(await snapshot()).toEqual(before);
  });
});

describe('production connector selection', () => {
  it('without ILP_CONNECTOR_URL/TOKEN a production payment fails at once with ILP_NOT_CONFIGURED and the reservation is voided', async () => {
    const prod = await createTestUser({ environment: 'production' });
    const operator = await createTestUser({ environment: 'production', admin: true });
    const acct = (await t.app.inject({ method: 'POST', url: '/api/v2/accounts', headers: prod.headers, payload: { name: 'prod' } })).json().data.uuid as string;
    const d = await t.app.inject({ method: 'POST', url: `/api/v2/accounts/${acct}/deposit`, headers: prod.headers, payload: { amount: '50.00', asset_code: 'USD' } });
    expect((await t.app.inject({ method: 'POST', url: `/api/v1/ledger/entries/${d.json().data.entry_id}/post`, headers: operator.headers, payload: {} })).statusCode).toBe(200);
    const q = (await quote({ send_amount: '20.00', send_currency: 'USD', receive_currency: 'USD', receiver: '$wallet.example/dora' }, prod.headers)).json().data;
    const r = (await payQuote(q.id, acct, prod.headers)).json().data;
    const client = await getTemporalClient();
    expect(await client.workflow.getHandle(r.workflow_id).result()).toEqual({ status: 'failed', code: 'ILP_NOT_CONFIGURED' });
    const done = (await t.app.inject({ method: 'GET', url: `/api/v1/interledger/payments/${r.id}`, headers: prod.headers })).json().data;
    expect(done).toMatchObject({ status: 'failed', failure: { code: 'ILP_NOT_CONFIGURED' }, compensation_executed: true, packets: [] });
    expect(done.failure.reason).toMatch(/ILP_CONNECTOR_URL and ILP_CONNECTOR_TOKEN/);
    const { events } = await client.workflow.getHandle(r.workflow_id).fetchHistory();
    expect(events!.filter((e) => (e.activityTaskStartedEventAttributes?.attempt ?? 1) > 1)).toEqual([]);
    expect(await balance(t, prod.headers, acct)).toMatchObject({ total_balance: '50.00', available_balance: '50.00' });
  });
});

describe('interledger events', () => {
  it('every interledger.* event written above validates against its catalog schema', async () => {
    const { problems, seen } = await checkOutboxAgainstCatalog(['interledger', 'workflow']);
    expect(problems).toEqual([]);
    for (const type of ['payment_created', 'payment_reserved', 'packet_fulfilled', 'packet_rejected', 'payment_completed', 'payment_failed', 'compensation_executed']) {
      expect(seen).toContain(`interledger.${type}`);
    }
    expect([...seen].filter((s) => s.startsWith('workflow.'))).toEqual([]);
  });
});
