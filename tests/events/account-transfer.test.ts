import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, createTestUser, type TestApp } from '../helpers/app';
import { startTestWorker, type TestWorker } from '../helpers/worker';
import { balance, openFundedAccount, waitForTransfer } from '../transfers/helpers';
import { outbox } from './helpers';

let t: TestApp;
let w: TestWorker;
beforeAll(async () => {
  process.env.TRANSFER_REVIEW_THRESHOLD_USD = '5000';
  process.env.TRANSFER_DAILY_LIMIT_USD = '20000';
  process.env.TRANSFER_REVIEW_TIMEOUT_MS = '1500';
  t = await createTestApp();
  w = await startTestWorker();
});
afterAll(async () => {
  delete process.env.TRANSFER_REVIEW_TIMEOUT_MS;
  await w.stop();
  await t.close();
});

describe('account.updated', () => {
  it('PATCH renames and replaces metadata, one event per real change, in the same transaction', async () => {
    const created = await t.app.inject({ method: 'POST', url: '/api/v2/accounts', headers: t.headers, payload: { name: 'old', metadata: { a: '1' } } });
    const id = created.json().data.uuid as string;
    const r = await t.app.inject({ method: 'PATCH', url: `/api/v2/accounts/${id}`, headers: t.headers, payload: { name: 'new', metadata: { b: '2' } } });
    expect(r.statusCode).toBe(200);
    expect(r.json().data).toMatchObject({ uuid: id, name: 'new', metadata: { b: '2' } });
    // Nothing changed: no event.
    expect((await t.app.inject({ method: 'PATCH', url: `/api/v2/accounts/${id}`, headers: t.headers, payload: { name: 'new' } })).statusCode).toBe(200);
    const events = await outbox('account.updated', { aggregateId: id });
    expect(events).toHaveLength(1);
    expect(events[0].data).toMatchObject({ changes: ['name', 'metadata'], previous: { name: 'old', metadata: { a: '1' } }, account: { name: 'new' } });
    // Validation and ownership.
    expect((await t.app.inject({ method: 'PATCH', url: `/api/v2/accounts/${id}`, headers: t.headers, payload: {} })).statusCode).toBe(422);
    const other = await createTestUser();
    expect((await t.app.inject({ method: 'PATCH', url: `/api/v2/accounts/${id}`, headers: other.headers, payload: { name: 'x' } })).statusCode).toBe(404);
  });
});

describe('transfer.expired', () => {
  it('a transfer held for review past its review timeout expires; the reservation is released', async () => {
    const from = await openFundedAccount(t, t.headers, '9000.00');
    const to = await openFundedAccount(t, t.headers, '0');
    const r = await t.app.inject({ method: 'POST', url: '/api/v2/transfers', headers: t.headers, payload: { from_account: from, to_account: to, amount: '6000.00', asset_code: 'USD', workflow_enabled: true } });
    expect(r.statusCode).toBe(201);
    const id = r.json().data.uuid as string;
    const done = await waitForTransfer(t, t.headers, id, (s) => s === 'expired', 30_000);
    expect(done).toMatchObject({ status: 'expired', failure: { code: 'REVIEW_TIMEOUT' }, compensation_executed: true });
    expect(await balance(t, t.headers, from)).toMatchObject({ reserved_balance: '0.00', available_balance: '9000.00', total_balance: '9000.00' });
    const expired = await outbox('transfer.expired', { aggregateId: id });
    expect(expired).toHaveLength(1);
    expect(expired[0].data).toMatchObject({ transfer_id: id, status: 'expired', failure_code: 'REVIEW_TIMEOUT' });
    expect(await outbox('transfer.failed', { aggregateId: id })).toHaveLength(0);
    expect(await outbox('workflow.timeout', { aggregateId: id })).toHaveLength(1);
    expect(await outbox('workflow.compensation_executed', { aggregateId: id })).toHaveLength(1);
  });
});
