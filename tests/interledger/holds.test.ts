import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPool } from '../../domain/db/pool';
import { getTemporalClient } from '../../domain/temporal/client';
import { createTestApp, createTestUser, type TestApp, type TestUser } from '../helpers/app';
import { startTestWorker, type TestWorker } from '../helpers/worker';
import { balance, openFundedAccount } from '../transfers/helpers';
import { checkOutboxAgainstCatalog } from '../rails/events';

let t: TestApp;
let w: TestWorker;
let operator: TestUser;
beforeAll(async () => {
  t = await createTestApp();
  w = await startTestWorker();
  operator = await createTestUser({ admin: true });
});
afterAll(async () => {
  await w.stop();
  await t.close();
});

const inject = (method: 'GET' | 'POST', url: string, headers: Record<string, string>, payload?: unknown) => t.app.inject({ method, url, headers, ...(payload ? { payload: payload as object } : {}) });

/** Pays `receiver` 50.00 USD from a fresh account; returns the payment and the account. */
async function pay(receiver: string) {
  const acct = await openFundedAccount(t, t.headers, '100.00');
  const q = (await inject('POST', '/api/v1/interledger/quotes', t.headers, { send_amount: '50.00', send_currency: 'USD', receive_currency: 'USD', receiver })).json().data;
  const r = await inject('POST', '/api/v1/interledger/payments', t.headers, { quote_id: q.id, account_id: acct });
  expect(r.statusCode, r.body).toBe(201);
  return { acct, payment: r.json().data as { id: string; workflow_id: string } };
}

async function settle(p: { id: string; workflow_id: string }) {
  await (await getTemporalClient()).workflow.getHandle(p.workflow_id).result();
  return (await inject('GET', `/api/v1/interledger/payments/${p.id}`, t.headers)).json().data;
}

/** The open hold of a payment, once its workflow has opened it. */
async function holdOf(paymentId: string): Promise<any> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const found = (await inject('GET', '/api/v2/regtech/holds?status=open&per_page=100', operator.headers)).json().data.find((h: any) => h.subject_id === paymentId);
    if (found) return found;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no hold for ${paymentId}`);
}

describe('sanctions screening of Interledger receivers', () => {
  it("a receiver publishing a listed name is held; released, the payment is sent", async () => {
    const { acct, payment } = await pay('$wallet.example/manuel-antonio-noriega');
    const hold = await holdOf(payment.id);
    expect(hold).toMatchObject({ subject_kind: 'ilp_payment', party: 'receiver', screened_name: 'Manuel Antonio Noriega', reason_code: 'SANCTIONS_HIT' });
    expect(await balance(t, t.headers, acct)).toMatchObject({ reserved_balance: '50.00' });
    expect((await inject('POST', `/api/v2/regtech/holds/${hold.id}/release`, operator.headers, {})).statusCode).toBe(200);
    expect((await settle(payment)).status).toBe('completed');
    const { rows } = await getPool().query(`SELECT type FROM platform_events WHERE aggregate_id = $1 ORDER BY occurred_at, id`, [payment.id]);
    expect(rows.map((r) => r.type)).toEqual(expect.arrayContaining(['interledger.payment_screened', 'interledger.payment_held', 'interledger.payment_released', 'interledger.payment_completed']));
  });

  it('rejected, it fails with SANCTIONS_REJECTED and the reservation is voided; nothing is sent', async () => {
    const { acct, payment } = await pay('https://wallet.example/noriega-manuel-antonio');
    const hold = await holdOf(payment.id);
    expect((await inject('POST', `/api/v2/regtech/holds/${hold.id}/reject`, operator.headers, { note: 'true match' })).statusCode).toBe(200);
    const done = await settle(payment);
    expect(done).toMatchObject({ status: 'failed', failure: { code: 'SANCTIONS_REJECTED' }, packets: [] });
    expect(await balance(t, t.headers, acct)).toMatchObject({ total_balance: '100.00', reserved_balance: '0.00' });
  });

  it('an ordinary receiver is screened and paid; a well-known SPSP address publishes no name and is paid unscreened', async () => {
    const named = await pay('$wallet.example/alice');
    expect((await settle(named.payment)).status).toBe('completed');
    const unnamed = await pay('$wallet.example');
    expect((await settle(unnamed.payment)).status).toBe('completed');
    const { rows } = await getPool().query(`SELECT aggregate_id, data FROM platform_events WHERE type = 'interledger.payment_screened' AND aggregate_id = ANY($1)`, [[named.payment.id, unnamed.payment.id]]);
    const by = Object.fromEntries(rows.map((r) => [r.aggregate_id, r.data]));
    expect(by[named.payment.id]).toMatchObject({ receiver_name: 'Alice', sanctions_hit: false });
    expect(by[unnamed.payment.id]).toMatchObject({ receiver_name: null, sanctions_hit: false });
  });

  it('every event matches the catalog', async () => {
    const { problems } = await checkOutboxAgainstCatalog(['interledger', 'compliance']);
    expect(problems).toEqual([]);
  });
});
