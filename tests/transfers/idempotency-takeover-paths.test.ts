/**
 * An Idempotency-Key taken over after a crash (see idempotency-takeover.test.ts) must not move money
 * twice on the other ways a transfer starts either: GraphQL's createTransfer (where one document may
 * hold several money mutations under the one key) and mobile P2P.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPool } from '../../domain/db/pool';
import { createTestApp, createTestUser, type TestApp, type TestUser } from '../helpers/app';
import { crashedAfterCommit, newIdempotencyKey } from '../helpers/idempotency';
import { startTestWorker, type TestWorker } from '../helpers/worker';
import { balance, openFundedAccount, settled, transfersFrom, waitForTransfer } from './helpers';

let t: TestApp;
let w: TestWorker;
let bob: TestUser;
beforeAll(async () => {
  t = await createTestApp();
  w = await startTestWorker();
  bob = await createTestUser();
  await openFundedAccount(t, bob.headers, '0');
}, 120_000);
afterAll(async () => {
  await w?.stop();
  await t?.close();
});

const graphql = (key: string, query: string, variables: Record<string, unknown>) =>
  t.app.inject({ method: 'POST', url: '/api/graphql', headers: { ...t.headers, 'idempotency-key': key }, payload: { query, variables } });

describe('Idempotency-Key takeover after a crash: GraphQL createTransfer', () => {
  it('the retried document answers with the same transfer; the money moved once', async () => {
    const from = await openFundedAccount(t, t.headers, '100.00');
    const to = await openFundedAccount(t, t.headers, '0');
    const key = newIdempotencyKey();
    const doc = 'mutation($i: TransferInput!) { createTransfer(input: $i) { id status } }';
    const vars = { i: { fromAccount: from, toAccount: to, amount: '10.00', assetCode: 'USD', workflowEnabled: false } };
    const first = await graphql(key, doc, vars);
    expect(first.json().errors, first.body).toBeUndefined();
    const created = first.json().data.createTransfer;

    await crashedAfterCommit(key);
    const retry = await graphql(key, doc, vars);
    expect(retry.json().errors, retry.body).toBeUndefined();
    expect(retry.json().data.createTransfer.id).toBe(created.id);
    expect(await transfersFrom(from)).toEqual([created.id]);
    expect(await balance(t, t.headers, to)).toMatchObject({ total_balance: '10.00' });
  });

  it('two transfers in one document under one key are two transfers, each made once across a retry', async () => {
    const from = await openFundedAccount(t, t.headers, '100.00');
    const to = await openFundedAccount(t, t.headers, '0');
    const key = newIdempotencyKey();
    const doc = `mutation($a: TransferInput!, $b: TransferInput!) {
      first: createTransfer(input: $a) { id }
      second: createTransfer(input: $b) { id }
    }`;
    const vars = {
      a: { fromAccount: from, toAccount: to, amount: '3.00', assetCode: 'USD', workflowEnabled: false },
      b: { fromAccount: from, toAccount: to, amount: '3.00', assetCode: 'USD', workflowEnabled: true },
    };
    const first = await graphql(key, doc, vars);
    expect(first.json().errors, first.body).toBeUndefined();
    const ids = [first.json().data.first.id, first.json().data.second.id];
    expect(new Set(ids).size).toBe(2);
    await waitForTransfer(t, t.headers, ids[1], settled);

    await crashedAfterCommit(key);
    const retry = await graphql(key, doc, vars);
    expect(retry.json().errors, retry.body).toBeUndefined();
    expect([retry.json().data.first.id, retry.json().data.second.id]).toEqual(ids);
    expect((await transfersFrom(from)).sort()).toEqual([...ids].sort());
    expect(await balance(t, t.headers, to)).toMatchObject({ total_balance: '6.00' });
  });
});

describe('Idempotency-Key takeover after a crash: mobile P2P', () => {
  it('the retry answers with the same P2P transfer; the money moved once', async () => {
    const from = await openFundedAccount(t, t.headers, '100.00');
    const key = newIdempotencyKey();
    const send = () =>
      t.app.inject({
        method: 'POST',
        url: '/api/v2/mobile/transfers/p2p',
        headers: { ...t.headers, 'idempotency-key': key },
        payload: { to_user: bob.email, amount: '4.00', currency: 'USD', from_account: from },
      });
    const first = await send();
    expect(first.statusCode, first.body).toBe(201);
    const created = first.json().data;
    await waitForTransfer(t, t.headers, created.id, settled);
    const after = (await balance(t, t.headers, from)).total_balance;
    expect(after).not.toBe('100.00');

    await crashedAfterCommit(key);
    const retry = await send();
    expect(retry.statusCode, retry.body).toBe(201);
    expect(retry.json().data.id).toBe(created.id);
    expect(await transfersFrom(from)).toHaveLength(1);
    await waitForTransfer(t, t.headers, created.id, settled);
    expect((await balance(t, t.headers, from)).total_balance).toBe(after);
  });
});

describe('Idempotency-Key takeover after a crash: rail payments', () => {
  it('the retry answers with the same payment; one payment exists and the money left once', async () => {
    const from = await openFundedAccount(t, t.headers, '100.00');
    const key = newIdempotencyKey();
    const send = () =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/payment-rails/payments',
        headers: { ...t.headers, 'idempotency-key': key },
        payload: { account_id: from, amount: '9.00', currency: 'USD', rail: 'rtp', creditor_account: { name: 'Bob Payee', account_number: '123456789', routing_number: '021000021' } },
      });
    const first = await send();
    expect(first.statusCode, first.body).toBe(201);
    const created = first.json().data;

    await crashedAfterCommit(key);
    const retry = await send();
    expect(retry.statusCode, retry.body).toBe(201);
    expect(retry.json().data.id).toBe(created.id);
    const { rows } = await getPool().query('SELECT id FROM rail_payments WHERE account_id = $1', [from]);
    expect(rows.map((r) => r.id)).toEqual([created.id]);
    for (const deadline = Date.now() + 20_000; ; ) {
      const p = (await t.app.inject({ method: 'GET', url: `/api/v1/payment-rails/payments/${created.id}`, headers: t.headers })).json().data;
      if (p.status === 'completed') break;
      if (Date.now() > deadline) throw new Error(`payment still ${p.status}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect((await balance(t, t.headers, from)).total_balance).toBe('91.00');
  });
});
