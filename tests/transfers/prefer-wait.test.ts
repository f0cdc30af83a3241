/**
 * `Prefer: wait=N` on POST /api/v2/transfers under twenty parallel requests (issue 44): each waits on
 * its workflow's `decided` update, and while they wait the API holds no database connection and
 * answers everyone else; copies of one request (same Idempotency-Key) make one transfer, and a
 * retry replays the first answer without waiting again.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPool } from '../../domain/db/pool';
import { getTemporalClient } from '../../domain/temporal/client';
import { createTestApp, type TestApp } from '../helpers/app';
import { gql, gqlOk } from '../graphql/helpers';
import { newIdempotencyKey } from '../helpers/idempotency';
import { startTestWorker, type TestWorker } from '../helpers/worker';
import { balance, openFundedAccount, settled, waitForTransfer } from './helpers';

let t: TestApp;
let w: TestWorker | undefined;
// This file's own task queue, on which a worker starts only when the test says so.
const taskQueue = `test-${randomBytes(4).toString('hex')}`;
beforeAll(async () => {
  process.env.TEMPORAL_TASK_QUEUE = taskQueue;
  t = await createTestApp();
});
afterAll(async () => {
  await w?.stop();
  await t.close();
});

const transfer = (payload: Record<string, unknown>, headers: Record<string, string>) =>
  t.app.inject({ method: 'POST', url: '/api/v2/transfers', headers: { ...t.headers, ...headers }, payload });

describe('Prefer: wait under twenty parallel requests', () => {
  it('twenty waiting requests hold no database connection, and the API answers others meanwhile', async () => {
    const from = await openFundedAccount(t, t.headers, '100.00');
    const to = await openFundedAccount(t, t.headers, '0');
    const pool = getPool();
    // No worker polls the task queue yet: every workflow waits, so every request waits its 4 s.
    const started = Date.now();
    const waiting = Array.from({ length: 20 }, () => transfer({ from_account: from, to_account: to, amount: '1.00', asset_code: 'USD' }, { prefer: 'wait=4' }));
    // A request whose workflow runs is past its database work: from then on it only waits.
    const client = await getTemporalClient();
    let running = 0;
    for (const deadline = Date.now() + 3000; running < 20 && Date.now() < deadline; ) {
      await new Promise((r) => setTimeout(r, 50));
      const { rows } = await pool.query<{ workflow_id: string }>('SELECT workflow_id FROM transfers WHERE from_account_id = $1', [from]);
      const described = await Promise.all(rows.map((r) => client.workflow.getHandle(r.workflow_id).describe().then(() => 1, () => 0)));
      running = described.reduce((a: number, b: number) => a + b, 0);
    }
    expect(running).toBe(20);
    // Meanwhile: a read answers at once, and no connection is checked out for the waiting twenty.
    const inUse = pool.totalCount - pool.idleCount;
    const readStarted = Date.now();
    const read = await t.app.inject({ method: 'GET', url: `/api/v2/accounts/${from}/balances`, headers: t.headers });
    expect(read.statusCode).toBe(200);
    expect(Date.now() - readStarted).toBeLessThan(1000);
    expect(inUse).toBe(0);
    expect(pool.waitingCount).toBe(0);

    const answers = await Promise.all(waiting);
    expect(Date.now() - started).toBeGreaterThanOrEqual(4000);
    for (const a of answers) {
      expect(a.statusCode).toBe(201);
      expect(a.headers['preference-applied']).toBe('wait=4');
      expect(a.json().data.status).toBe('pending');
    }
    // Once a worker runs, every one completes: twenty transfers, each moved once.
    w = await startTestWorker(taskQueue);
    for (const a of answers) expect((await waitForTransfer(t, t.headers, a.json().data.uuid, settled)).status).toBe('completed');
    expect(new Set(answers.map((a) => a.json().data.uuid)).size).toBe(20);
    expect(await balance(t, t.headers, to)).toMatchObject({ total_balance: '20.00' });
  });

  it('twenty parallel copies of one request (same Idempotency-Key): one transfer, the others told it is in progress', async () => {
    w ??= await startTestWorker(taskQueue);
    const from = await openFundedAccount(t, t.headers, '100.00');
    const to = await openFundedAccount(t, t.headers, '0');
    const key = newIdempotencyKey();
    const send = () => transfer({ from_account: from, to_account: to, amount: '7.00', asset_code: 'USD' }, { prefer: 'wait=10', 'idempotency-key': key });
    const answers = await Promise.all(Array.from({ length: 20 }, send));
    const created = answers.filter((a) => a.statusCode === 201);
    expect(created).toHaveLength(1);
    expect(created[0].json().data.status).toBe('completed');
    for (const a of answers.filter((x) => x.statusCode !== 201)) {
      expect(a.statusCode).toBe(409);
      expect(a.json().errors[0].code).toBe('IDEMPOTENCY_REQUEST_IN_PROGRESS');
    }
    // A retry afterwards is the same transfer.
    const again = await send();
    expect(again.statusCode).toBe(201);
    expect(again.json().data).toMatchObject({ uuid: created[0].json().data.uuid, status: 'completed' });
    expect(await balance(t, t.headers, to)).toMatchObject({ total_balance: '7.00' });
  });

  it('a retry with Prefer: wait replays the first answer at once (it does not wait again); GET has the decision', async () => {
    // A queue no worker polls yet, so the transfer stays undecided until the test starts one.
    const queue = `test-${randomBytes(4).toString('hex')}`;
    process.env.TEMPORAL_TASK_QUEUE = queue;
    const from = await openFundedAccount(t, t.headers, '100.00');
    const to = await openFundedAccount(t, t.headers, '0');
    const key = newIdempotencyKey();
    const send = (wait: number) => transfer({ from_account: from, to_account: to, amount: '3.00', asset_code: 'USD' }, { prefer: `wait=${wait}`, 'idempotency-key': key });
    const first = await send(1);
    expect(first.json().data.status).toBe('pending');
    const second = await startTestWorker(queue);
    try {
      const retryStarted = Date.now();
      const retry = await send(10);
      expect(Date.now() - retryStarted).toBeLessThan(2000);
      expect(retry.statusCode).toBe(201);
      expect(retry.headers['idempotent-replayed']).toBe('true');
      expect(retry.json()).toEqual(first.json());
      expect((await waitForTransfer(t, t.headers, first.json().data.uuid, settled)).status).toBe('completed');
    } finally {
      await second.stop();
    }
    expect(await balance(t, t.headers, to)).toMatchObject({ total_balance: '3.00' });
  });

  it('GraphQL: createTransfer(waitSeconds: N) waits for the decision as Prefer: wait=N does; out of range is a validation error', async () => {
    process.env.TEMPORAL_TASK_QUEUE = taskQueue;
    w ??= await startTestWorker(taskQueue);
    const from = await openFundedAccount(t, t.headers, '100.00');
    const to = await openFundedAccount(t, t.headers, '0');
    const mutation = 'mutation($i: TransferInput!, $w: Int) { createTransfer(input: $i, waitSeconds: $w) { id status } }';
    const input = { fromAccount: from, toAccount: to, amount: '2.00', assetCode: 'USD' };
    expect((await gqlOk(t, mutation, { i: input, w: 10 })).createTransfer.status).toBe('completed');
    expect((await gqlOk(t, mutation, { i: input })).createTransfer.status).toBe('pending');
    for (const bad of [0, 11, -1]) {
      const refused = await gql(t, mutation, { i: input, w: bad });
      expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'VALIDATION_ERROR', status: 422 });
    }
    await waitForTransfer(t, t.headers, (await gqlOk(t, mutation, { i: input, w: 10 })).createTransfer.id, settled);
    expect(await balance(t, t.headers, to)).toMatchObject({ total_balance: '6.00' });
  });
});
