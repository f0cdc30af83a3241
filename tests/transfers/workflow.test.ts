import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPool } from '../../domain/db/pool';
import { getTemporalClient } from '../../domain/temporal/client';
import { createTestApp, createTestUser, type TestApp, type TestUser } from '../helpers/app';
import { startTestWorker, type TestWorker } from '../helpers/worker';
import { balance, openFundedAccount, settled, waitForTransfer } from './helpers';

let t: TestApp;
let w: TestWorker;
let admin: TestUser;
beforeAll(async () => {
  process.env.TRANSFER_REVIEW_THRESHOLD_USD = '5000';
  process.env.TRANSFER_DAILY_LIMIT_USD = '20000';
  t = await createTestApp();
  w = await startTestWorker();
  admin = await createTestUser({ admin: true });
});
afterAll(async () => {
  await w.stop();
  await t.close();
});

const transfer = (payload: Record<string, unknown>, headers = t.headers) =>
  t.app.inject({ method: 'POST', url: '/api/v2/transfers', headers, payload });

async function events(aggregateId: string) {
  const { rows } = await getPool().query(`SELECT type, data FROM platform_events WHERE aggregate_id = $1 ORDER BY occurred_at, id`, [aggregateId]);
  return rows as Array<{ type: string; data: Record<string, unknown> }>;
}

describe('transfer workflow', () => {
  it('runs validate, reserve, risk, post, complete; fee to fee revenue; searchable by attributes', async () => {
    const from = await openFundedAccount(t, t.headers, '1000.00');
    const other = await createTestUser();
    const to = await openFundedAccount(t, other.headers, '0');
    const r = await transfer({ from_account: from, to_account: to, amount: '200.00', asset_code: 'USD', reference: 'rent', workflow_enabled: true, metadata: { invoice: 'A-1' } });
    expect(r.statusCode).toBe(201);
    const created = r.json().data;
    expect(created).toMatchObject({ status: 'pending', amount: '200.00', fees: { transfer_fee: '0.20', currency: 'USD' }, workflow_id: `transfer-${created.uuid}` });
    expect(created.uuid).toMatch(/^txfr_/);
    expect(new Date(created.estimated_completion).getTime()).toBeGreaterThan(new Date(created.created_at).getTime());

    const done = await waitForTransfer(t, t.headers, created.uuid, settled);
    expect(done.status).toBe('completed');
    expect(await balance(t, t.headers, from)).toMatchObject({ total_balance: '799.80', reserved_balance: '0.00' });
    expect(await balance(t, other.headers, to)).toMatchObject({ total_balance: '200.00' });
    // The recipient sees the transfer too; a stranger does not.
    expect((await t.app.inject({ method: 'GET', url: `/api/v2/transfers/${created.uuid}`, headers: other.headers })).statusCode).toBe(200);
    const stranger = await createTestUser();
    expect((await t.app.inject({ method: 'GET', url: `/api/v2/transfers/${created.uuid}`, headers: stranger.headers })).statusCode).toBe(404);

    const types = (await events(created.uuid)).map((e) => e.type);
    expect(types).toEqual(
      expect.arrayContaining(['transfer.created', 'workflow.started', 'workflow.step_completed', 'transfer.completed', 'workflow.completed']),
    );
    expect(types.filter((x) => x === 'workflow.step_completed')).toHaveLength(4);

    const client = await getTemporalClient();
    const desc = await client.workflow.getHandle(created.workflow_id).describe();
    expect(desc.typedSearchAttributes.get({ name: 'TransferId', type: 'KEYWORD' } as never)).toBe(created.uuid);
    expect(desc.typedSearchAttributes.get({ name: 'BusinessStatus', type: 'KEYWORD' } as never)).toBe('completed');
    const list = [];
    for await (const x of client.workflow.list({ query: `TransferId = '${created.uuid}'` })) list.push(x.workflowId);
    // Visibility is eventually consistent; when indexed it must be this workflow.
    expect(list.every((id) => id === created.workflow_id)).toBe(true);

    const listed = (await t.app.inject({ method: 'GET', url: `/api/v2/accounts/${from}/transfers`, headers: t.headers })).json();
    expect(listed.data[0].uuid).toBe(created.uuid);
    const txns = (await t.app.inject({ method: 'GET', url: `/api/v2/accounts/${from}/transactions?type=fee`, headers: t.headers })).json();
    expect(txns.data[0]).toMatchObject({ type: 'fee', amount: '0.20', status: 'completed' });
  });

  it('insufficient funds fails the transfer at the reserve and nothing moves', async () => {
    const from = await openFundedAccount(t, t.headers, '10.00');
    const to = await openFundedAccount(t, t.headers, '0');
    const r = await transfer({ from_account: from, to_account: to, amount: '50.00', asset_code: 'USD', workflow_enabled: true });
    const done = await waitForTransfer(t, t.headers, r.json().data.uuid, settled);
    expect(done).toMatchObject({ status: 'failed', failure: { code: 'INSUFFICIENT_FUNDS' }, compensation_executed: false });
    expect(await balance(t, t.headers, from)).toMatchObject({ total_balance: '10.00', available_balance: '10.00' });
    expect((await events(done.uuid)).map((e) => e.type)).toContain('transfer.failed');
  });

  it('an approved transfer is one workflow task: runTransfer as a local activity, at most 10 history events (31 with four activities, 14 with one activity)', async () => {
    const from = await openFundedAccount(t, t.headers, '100.00');
    const to = await openFundedAccount(t, t.headers, '0');
    const created = (await transfer({ from_account: from, to_account: to, amount: '10.00', asset_code: 'USD', workflow_enabled: true })).json().data;
    // Waits on the workflow's result, not by polling GET: a GET asks the running workflow for its
    // progress, and a query that arrives during a workflow task is answered in a workflow task of its own.
    const handle = (await getTemporalClient()).workflow.getHandle(created.workflow_id);
    expect(await handle.result()).toMatchObject({ status: 'completed' });
    const history = await handle.fetchHistory();
    // No activity task goes through the server: the run is recorded as a local-activity marker.
    expect(history.events!.filter((e) => e.activityTaskScheduledEventAttributes)).toEqual([]);
    const markers = history.events!.filter((e) => e.markerRecordedEventAttributes).map((e) => e.markerRecordedEventAttributes!.markerName);
    expect(markers).toEqual(['core_patch', 'core_local_activity']);
    expect(history.events!.filter((e) => e.workflowTaskCompletedEventAttributes)).toHaveLength(1);
    expect(history.events!.length).toBeLessThanOrEqual(10);
    // The same ledger steps and events as the four-activity shape: a reservation, then its posting.
    expect((await events(created.uuid)).filter((e) => e.type === 'workflow.step_completed').map((e) => e.data.step)).toEqual(['validate', 'reserve', 'risk_check', 'post']);
  });

  it('Prefer: wait=N answers once the workflow decided (completed, or pending_review), with Preference-Applied', async () => {
    const from = await openFundedAccount(t, t.headers, '9000.00');
    const to = await openFundedAccount(t, t.headers, '0');
    const headers = { ...t.headers, prefer: 'wait=10' };
    const small = await transfer({ from_account: from, to_account: to, amount: '10.00', asset_code: 'USD' }, headers);
    expect(small.statusCode).toBe(201);
    expect(small.headers['preference-applied']).toBe('wait=10');
    expect(small.json().data.status).toBe('completed');
    const large = await transfer({ from_account: from, to_account: to, amount: '6000.00', asset_code: 'USD' }, headers);
    expect(large.json().data.status).toBe('pending_review');
    const refused = await transfer({ from_account: from, to_account: to, amount: '8000.00', asset_code: 'USD' }, headers);
    expect(refused.json().data).toMatchObject({ status: 'failed', failure: { code: 'INSUFFICIENT_FUNDS' } });
    // Without the header (or with workflow_enabled false) nothing waits: pending, and no Preference-Applied.
    const plain = await transfer({ from_account: from, to_account: to, amount: '1.00', asset_code: 'USD' });
    expect(plain.json().data.status).toBe('pending');
    expect(plain.headers['preference-applied']).toBeUndefined();
    const sync = await transfer({ from_account: from, to_account: to, amount: '1.00', asset_code: 'USD', workflow_enabled: false }, headers);
    expect(sync.json().data.status).toBe('completed');
    expect(sync.headers['preference-applied']).toBeUndefined();
  });

  it('a large transfer waits for review (progress query), and a rejection voids the reservation', async () => {
    const from = await openFundedAccount(t, t.headers, '9000.00');
    const to = await openFundedAccount(t, t.headers, '0');
    const r = await transfer({ from_account: from, to_account: to, amount: '6000.00', asset_code: 'USD', workflow_enabled: true });
    const id = r.json().data.uuid;
    // The row says pending_review as the risk check's activity commits; the workflow's progress follows
    // when the workflow takes the activity's result (a moment later).
    const held = await waitForTransfer(t, t.headers, id, (s, x) => s === 'pending_review' && x.workflow?.status === 'awaiting_review');
    expect(held.workflow).toMatchObject({ status: 'awaiting_review', current_step: 'review', completed_steps: ['validate', 'reserve', 'risk_check'] });
    expect(await balance(t, t.headers, from)).toMatchObject({ reserved_balance: '6005.00', available_balance: '2995.00' });

    expect((await t.app.inject({ method: 'POST', url: `/api/v2/transfers/${id}/review`, headers: t.headers, payload: { decision: 'approve' } })).statusCode).toBe(403);
    const rev = await t.app.inject({ method: 'POST', url: `/api/v2/transfers/${id}/review`, headers: admin.headers, payload: { decision: 'reject', reason: 'unusual payee' } });
    expect(rev.statusCode).toBe(202);
    const done = await waitForTransfer(t, t.headers, id, settled);
    expect(done).toMatchObject({ status: 'failed', failure: { code: 'REVIEW_REJECTED', reason: 'unusual payee' }, compensation_executed: true });
    expect(await balance(t, t.headers, from)).toMatchObject({ reserved_balance: '0.00', available_balance: '9000.00' });
    expect((await events(id)).map((e) => e.type)).toContain('workflow.compensation_executed');
  });

  it('an approved review posts the transfer', async () => {
    const from = await openFundedAccount(t, t.headers, '9000.00');
    const to = await openFundedAccount(t, t.headers, '0');
    const id = (await transfer({ from_account: from, to_account: to, amount: '5000.00', asset_code: 'USD' })).json().data.uuid;
    await waitForTransfer(t, t.headers, id, (s) => s === 'pending_review');
    await t.app.inject({ method: 'POST', url: `/api/v2/transfers/${id}/review`, headers: admin.headers, payload: { decision: 'approve' } });
    expect((await waitForTransfer(t, t.headers, id, settled)).status).toBe('completed');
    expect(await balance(t, t.headers, to)).toMatchObject({ total_balance: '5000.00' });
  });

  it('the daily limit rejects after the reserve and compensation releases the funds', async () => {
    const from = await openFundedAccount(t, t.headers, '30000.00');
    const to = await openFundedAccount(t, t.headers, '0');
    // Under the review threshold each, but together over the 20,000 USD daily limit.
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await transfer({ from_account: from, to_account: to, amount: '4900.00', asset_code: 'USD', workflow_enabled: false });
      expect(r.statusCode).toBe(201);
      ids.push(r.json().data.uuid);
    }
    const last = (await transfer({ from_account: from, to_account: to, amount: '100.00', asset_code: 'USD' })).json().data.uuid;
    const done = await waitForTransfer(t, t.headers, last, settled);
    expect(done).toMatchObject({ status: 'failed', failure: { code: 'RISK_REJECTED' }, compensation_executed: true });
    expect((await balance(t, t.headers, from)).reserved_balance).toBe('0.00');
  });

  it('a source frozen before the workflow runs fails validation with no money moved', async () => {
    const from = await openFundedAccount(t, t.headers, '100.00');
    const to = await openFundedAccount(t, t.headers, '0');
    await w.stop(); // hold the workflow back while the account is frozen
    const id = (await transfer({ from_account: from, to_account: to, amount: '10.00', asset_code: 'USD' })).json().data.uuid;
    await t.app.inject({ method: 'POST', url: `/api/v2/accounts/${from}/freeze`, headers: admin.headers, payload: {} });
    w = await startTestWorker(w.taskQueue);
    const done = await waitForTransfer(t, t.headers, id, settled);
    expect(done).toMatchObject({ status: 'failed', failure: { code: 'ACCOUNT_FROZEN' } });
    expect((await balance(t, t.headers, from)).total_balance).toBe('100.00');
  });

  it('refuses with 422: same account, unknown destination, other environment, unknown asset, precision; 404 for a foreign source', async () => {
    const from = await openFundedAccount(t, t.headers, '100.00');
    const other = await createTestUser();
    const foreign = await openFundedAccount(t, other.headers, '0');
    const prod = await createTestUser({ environment: 'production' });
    const prodAcct = (await t.app.inject({ method: 'POST', url: '/api/v2/accounts', headers: prod.headers, payload: { name: 'p' } })).json().data.uuid;
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [{ to_account: from }, 422, 'SAME_ACCOUNT'],
      [{ to_account: 'acct_doesnotexist' }, 422, 'DESTINATION_NOT_FOUND'],
      [{ to_account: prodAcct }, 422, 'ENVIRONMENT_MISMATCH'],
      [{ to_account: foreign, asset_code: 'XYZ' }, 422, 'UNKNOWN_ASSET'],
      [{ to_account: foreign, amount: '1.001' }, 422, 'AMOUNT_PRECISION'],
      [{ to_account: foreign, amount: '0.00' }, 422, 'AMOUNT_NOT_POSITIVE'],
      [{ from_account: foreign, to_account: from }, 404, 'ACCOUNT_NOT_FOUND'],
    ];
    for (const [patch, status, code] of cases) {
      for (const workflow_enabled of [true, false]) {
        const r = await transfer({ from_account: from, to_account: foreign, amount: '1.00', asset_code: 'USD', workflow_enabled, ...patch });
        expect(r.statusCode, code).toBe(status);
        expect(r.json().errors[0].code, code).toBe(code);
      }
    }
    const { rows } = await getPool().query(`SELECT count(*)::int AS n FROM transfers WHERE from_account_id = $1`, [from]);
    expect(rows[0].n).toBe(0);
  });
});

describe('immediate transfers and reversals', () => {
  it('a frozen source and a closed destination get the same refusal whether the accounts were seen before or not', async () => {
    const from = await openFundedAccount(t, t.headers, '100.00');
    const other = await createTestUser();
    const to = await openFundedAccount(t, other.headers, '0');
    const op = (id: string, action: string) => t.app.inject({ method: 'POST', url: `/api/v2/accounts/${id}/${action}`, headers: admin.headers, payload: {} });
    const send = () => transfer({ from_account: from, to_account: to, amount: '1.00', asset_code: 'USD', workflow_enabled: false });

    // Never seen: the pre-check refuses. Seen (remembered once both hold the asset, that is after
    // the first transfer between them): the ledger does.
    await op(from, 'freeze');
    const cold = await send();
    await op(from, 'unfreeze');
    expect((await send()).statusCode).toBe(201);
    expect((await send()).statusCode).toBe(201);
    await op(from, 'freeze');
    const warm = await send();
    await op(from, 'unfreeze');
    expect(cold.statusCode).toBe(422);
    expect(cold.json().errors[0]).toMatchObject({ code: 'ACCOUNT_FROZEN', detail: 'The source account is frozen' });
    expect(warm.statusCode).toBe(422);
    expect(warm.json().errors).toEqual(cold.json().errors);

    // The destination empties itself and is closed.
    const back = await t.app.inject({ method: 'POST', url: `/api/v2/accounts/${to}/withdraw`, headers: other.headers, payload: { amount: '2.00', asset_code: 'USD' } });
    expect(back.statusCode).toBe(201);
    expect((await op(to, 'close')).statusCode).toBe(200);
    const closed = await send();
    expect(closed.statusCode).toBe(422);
    expect(closed.json().errors[0]).toMatchObject({ code: 'DESTINATION_CLOSED', detail: 'The destination account is closed' });
    const fresh = await openFundedAccount(t, other.headers, '0');
    expect((await op(fresh, 'close')).statusCode).toBe(200);
    const coldClosed = await transfer({ from_account: from, to_account: fresh, amount: '1.00', asset_code: 'USD', workflow_enabled: false });
    expect(coldClosed.json().errors).toEqual(closed.json().errors);
    expect((await balance(t, t.headers, from)).available_balance).toBe('98.00');
  });

  it('posts at once with the fee; the unversioned route takes a number and currency', async () => {
    const from = await openFundedAccount(t, t.headers, '100.00');
    const other = await createTestUser();
    const to = await openFundedAccount(t, other.headers, '0');
    const r = await transfer({ from_account: from, to_account: to, amount: '10.00', asset_code: 'USD', workflow_enabled: false });
    expect(r.json().data).toMatchObject({ status: 'completed', workflow_id: null, fees: { transfer_fee: '0.01' } });
    const legacy = await t.app.inject({
      method: 'POST',
      url: '/api/transfers',
      headers: t.headers,
      payload: { from_account: from, to_account: to, amount: 12.5, currency: 'USD', description: 'lunch' },
    });
    expect(legacy.statusCode).toBe(201);
    expect(legacy.json().data).toMatchObject({ amount: '12.50', reference: 'lunch', status: 'completed' });
    const tooPrecise = await t.app.inject({
      method: 'POST',
      url: '/api/transfers',
      headers: t.headers,
      payload: { from_account: from, to_account: to, amount: 0.1 + 0.2, currency: 'USD' },
    });
    expect(tooPrecise.statusCode).toBe(422);
    expect((await balance(t, other.headers, to)).total_balance).toBe('22.50');
    const insufficient = await transfer({ from_account: from, to_account: to, amount: '1000.00', asset_code: 'USD', workflow_enabled: false });
    expect(insufficient.json().errors[0].code).toBe('INSUFFICIENT_FUNDS');
  });

  it('the recipient can return an incoming transfer once; spent funds need an operator to force it', async () => {
    const from = await openFundedAccount(t, t.headers, '100.00');
    const other = await createTestUser();
    const to = await openFundedAccount(t, other.headers, '0');
    const sent = (await transfer({ from_account: from, to_account: to, amount: '40.00', asset_code: 'USD', workflow_enabled: false })).json().data;
    const incoming = (await t.app.inject({ method: 'GET', url: `/api/v2/accounts/${to}/transactions`, headers: other.headers })).json().data[0];
    // The sender may not claw money back from the recipient.
    const outgoing = (await t.app.inject({ method: 'GET', url: `/api/v2/accounts/${from}/transactions?type=transfer`, headers: t.headers })).json().data[0];
    const claw = await t.app.inject({ method: 'POST', url: '/api/transactions/reverse', headers: t.headers, payload: { transaction_id: outgoing.uuid, reason: 'oops' } });
    expect(claw.statusCode).toBe(403);

    const rev = await t.app.inject({ method: 'POST', url: '/api/transactions/reverse', headers: other.headers, payload: { transaction_id: incoming.uuid, reason: 'not mine' } });
    expect(rev.statusCode).toBe(201);
    expect(rev.json().data.transfer_uuid).toBe(sent.uuid);
    expect((await balance(t, t.headers, from)).total_balance).toBe('100.00'); // amount and fee returned
    expect((await balance(t, other.headers, to)).total_balance).toBe('0.00');
    const again = await t.app.inject({ method: 'POST', url: '/api/transactions/reverse', headers: other.headers, payload: { transaction_id: incoming.uuid, reason: 'again' } });
    expect(again.statusCode).toBe(422);
    expect(again.json().errors[0].code).toBe('ALREADY_REVERSED');
    const tr = (await t.app.inject({ method: 'GET', url: `/api/v2/transfers/${sent.uuid}`, headers: t.headers })).json().data;
    expect(tr.status).toBe('reversed');
    expect((await events(sent.uuid)).map((e) => e.type)).toContain('transfer.reversed');

    // Spent: the recipient moved the money on; a plain reversal would overdraw them.
    const sent2 = (await transfer({ from_account: from, to_account: to, amount: '30.00', asset_code: 'USD', workflow_enabled: false })).json().data;
    const elsewhere = await openFundedAccount(t, other.headers, '0');
    await transfer({ from_account: to, to_account: elsewhere, amount: '25.00', asset_code: 'USD', workflow_enabled: false }, other.headers);
    const inc2 = (await t.app.inject({ method: 'GET', url: `/api/v2/accounts/${to}/transactions?type=transfer&sort=-created_at`, headers: other.headers })).json()
      .data.find((x: { direction: string; amount: string }) => x.direction === 'credit' && x.amount === '30.00');
    const spent = await t.app.inject({ method: 'POST', url: '/api/transactions/reverse', headers: admin.headers, payload: { transaction_id: inc2.uuid, reason: 'fraud' } });
    expect(spent.statusCode).toBe(422);
    expect(spent.json().errors[0].code).toBe('INSUFFICIENT_FUNDS');
    const noForce = await t.app.inject({ method: 'POST', url: '/api/transactions/reverse', headers: other.headers, payload: { transaction_id: inc2.uuid, reason: 'x', force: true } });
    expect(noForce.statusCode).toBe(403);
    const forced = await t.app.inject({ method: 'POST', url: '/api/transactions/reverse', headers: admin.headers, payload: { transaction_id: inc2.uuid, reason: 'fraud', force: true } });
    expect(forced.statusCode).toBe(201);
    expect(forced.json().data.forced_overdraft).not.toBeNull();
    expect((await balance(t, other.headers, to)).total_balance).toBe('-25.03');
    expect(sent2.uuid).toMatch(/^txfr_/);
  });
});
