/**
 * An Idempotency-Key must never move money twice. The middleware (api/plugins/idempotency.ts)
 * keeps a key in_flight while its request runs; a process that dies after the transfer's commit and
 * before the answer is stored leaves it so, and after 60 s a retry takes the key over and runs the
 * handler again. The transfer itself is recorded with the key in its transaction, so the re-run
 * answers with the transfer the first run made.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPool } from '../../domain/db/pool';
import { getTemporalClient } from '../../domain/temporal/client';
import { createTestApp, createTestUser, type TestApp } from '../helpers/app';
import { crashedAfterCommit, newIdempotencyKey } from '../helpers/idempotency';
import { startTestWorker, type TestWorker } from '../helpers/worker';
import { balance, openFundedAccount, settled, transfersFrom, waitForTransfer } from './helpers';

let t: TestApp;
let w: TestWorker;
beforeAll(async () => {
  t = await createTestApp();
  w = await startTestWorker();
});
afterAll(async () => {
  await w.stop();
  await t.close();
});

const transfer = (key: string, payload: Record<string, unknown>, headers = t.headers) =>
  t.app.inject({ method: 'POST', url: '/api/v2/transfers', headers: { ...headers, 'idempotency-key': key }, payload });

/** Ledger entries that moved the account's money, deposits aside. */
async function entriesOn(accountId: string): Promise<number> {
  const { rows } = await getPool().query<{ n: number }>(
    `SELECT count(DISTINCT l.entry_id)::int AS n FROM ledger_lines l JOIN journal_entries e ON e.id = l.entry_id
      WHERE l.account_id = $1 AND e.type <> 'deposit'`,
    [accountId],
  );
  return rows[0].n;
}

async function workflowStartedEvents(transferIds: string[]): Promise<number> {
  const { rows } = await getPool().query<{ n: number }>(
    `SELECT count(*)::int AS n FROM platform_events WHERE type = 'workflow.started' AND aggregate_id = ANY ($1)`,
    [transferIds],
  );
  return rows[0].n;
}

describe('Idempotency-Key takeover after a crash (immediate transfers)', () => {
  it('the retry answers 201 with the same transfer; the money moved once', async () => {
    const from = await openFundedAccount(t, t.headers, '100.00');
    const to = await openFundedAccount(t, t.headers, '0');
    const key = newIdempotencyKey();
    const body = { from_account: from, to_account: to, amount: '10.00', asset_code: 'USD', workflow_enabled: false };
    const first = await transfer(key, body);
    expect(first.statusCode, first.body).toBe(201);
    const created = first.json().data;
    expect(created.status).toBe('completed');

    await crashedAfterCommit(key);
    const retry = await transfer(key, body);
    expect(retry.statusCode, retry.body).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBeUndefined(); // the handler ran again
    expect(retry.json().data).toEqual(created);

    expect(await transfersFrom(from)).toEqual([created.uuid]);
    expect(await entriesOn(from)).toBe(1);
    expect(await balance(t, t.headers, from)).toMatchObject({ total_balance: '89.99' });
    expect(await balance(t, t.headers, to)).toMatchObject({ total_balance: '10.00' });

    // The answer is stored again: a third request replays it.
    const third = await transfer(key, body);
    expect(third.headers['idempotent-replayed']).toBe('true');
    expect(third.json().data.uuid).toBe(created.uuid);
  });

  it('the legacy route is idempotent by its key too', async () => {
    const from = await openFundedAccount(t, t.headers, '100.00');
    const to = await openFundedAccount(t, t.headers, '0');
    const key = newIdempotencyKey();
    const body = { from_account: from, to_account: to, amount: 10, currency: 'USD', description: 'legacy' };
    const send = () => t.app.inject({ method: 'POST', url: '/api/transfers', headers: { ...t.headers, 'idempotency-key': key }, payload: body });
    const first = await send();
    expect(first.statusCode, first.body).toBe(201);
    await crashedAfterCommit(key);
    const retry = await send();
    expect(retry.statusCode, retry.body).toBe(201);
    expect(retry.json().data.uuid).toBe(first.json().data.uuid);
    expect(await transfersFrom(from)).toHaveLength(1);
  });

  it('two different keys make two transfers', async () => {
    const from = await openFundedAccount(t, t.headers, '100.00');
    const to = await openFundedAccount(t, t.headers, '0');
    const body = { from_account: from, to_account: to, amount: '10.00', asset_code: 'USD', workflow_enabled: false };
    const a = await transfer(newIdempotencyKey(), body);
    const b = await transfer(newIdempotencyKey(), body);
    expect([a.statusCode, b.statusCode]).toEqual([201, 201]);
    expect(a.json().data.uuid).not.toBe(b.json().data.uuid);
    expect(await transfersFrom(from)).toHaveLength(2);
    expect(await balance(t, t.headers, from)).toMatchObject({ total_balance: '79.98' });
  });

  it('the same key from another user is independent', async () => {
    const other = await createTestUser();
    const key = newIdempotencyKey();
    const mine = await openFundedAccount(t, t.headers, '100.00');
    const theirs = await openFundedAccount(t, other.headers, '100.00');
    const to = await openFundedAccount(t, t.headers, '0');
    const a = await transfer(key, { from_account: mine, to_account: to, amount: '10.00', asset_code: 'USD', workflow_enabled: false });
    const b = await transfer(key, { from_account: theirs, to_account: to, amount: '10.00', asset_code: 'USD', workflow_enabled: false }, other.headers);
    expect([a.statusCode, b.statusCode]).toEqual([201, 201]);
    expect(a.json().data.uuid).not.toBe(b.json().data.uuid);
    expect(await balance(t, t.headers, to)).toMatchObject({ total_balance: '20.00' });
  });

  it('a key reused for another transfer once its stored answer is gone is 409, nothing moves', async () => {
    const from = await openFundedAccount(t, t.headers, '100.00');
    const to = await openFundedAccount(t, t.headers, '0');
    const key = newIdempotencyKey();
    const first = await transfer(key, { from_account: from, to_account: to, amount: '10.00', asset_code: 'USD', workflow_enabled: false });
    expect(first.statusCode).toBe(201);
    // Past the 24 hours the middleware keeps answers.
    await getPool().query('DELETE FROM idempotency_keys WHERE key = $1', [key]);
    const other = await transfer(key, { from_account: from, to_account: to, amount: '20.00', asset_code: 'USD', workflow_enabled: false });
    expect(other.statusCode, other.body).toBe(409);
    expect(await transfersFrom(from)).toHaveLength(1);
    expect(await balance(t, t.headers, from)).toMatchObject({ total_balance: '89.99' });
  });

  it('runs of one request that reach the group commit together write one transfer; the batch\'s others are written', async () => {
    const from = await openFundedAccount(t, t.headers, '100.00');
    const to = await openFundedAccount(t, t.headers, '0');
    const others = await Promise.all([1, 2, 3].map(() => openFundedAccount(t, t.headers, '100.00')));
    const sinks = await Promise.all([1, 2, 3].map(() => openFundedAccount(t, t.headers, '0')));
    // Takeovers of one key happen one after the other in the middleware, but a run may outlive the
    // lock: here four runs of one request reach the domain at once, none recorded yet, alongside
    // unrelated transfers in the same batches.
    const { operationRequestKey } = await import('../../api/plugins/idempotency');
    const requestKey = operationRequestKey('some-credential', newIdempotencyKey());
    const input = { userId: t.user.userId, environment: 'sandbox' as const, fromAccountId: from, toAccountId: to, amount: '10.00', assetCode: 'USD', requestKey };
    const results = await Promise.all([
      ...[1, 2, 3, 4].map(() => t.app.transfers.createImmediateTransfer(input)),
      ...others.map((o, i) => t.app.transfers.createImmediateTransfer({ ...input, fromAccountId: o, toAccountId: sinks[i], requestKey: undefined })),
    ]);
    const ids = results.slice(0, 4).map((r) => r.id);
    expect(new Set(ids).size).toBe(1);
    expect(await transfersFrom(from)).toEqual([ids[0]]);
    expect(await entriesOn(from)).toBe(1);
    expect(await balance(t, t.headers, from)).toMatchObject({ total_balance: '89.99' });
    expect(new Set(results.slice(4).map((r) => r.id)).size).toBe(3);
    for (const o of others) expect(await balance(t, t.headers, o)).toMatchObject({ total_balance: '89.99' });
    for (const k of sinks) expect(await balance(t, t.headers, k)).toMatchObject({ total_balance: '10.00' });
  });

  it('a key given twice in one set-wise batch, or already recorded, sends the batch one by one; only that slot answers with the key\'s transfer', async () => {
    const a = await t.app.transfers.prepareImmediateTransfer({
      userId: t.user.userId, environment: 'sandbox', fromAccountId: await openFundedAccount(t, t.headers, '100.00'), toAccountId: await openFundedAccount(t, t.headers, '0'),
      amount: '1.00', assetCode: 'USD', requestKey: `k-${newIdempotencyKey()}`,
    });
    const b = await t.app.transfers.prepareImmediateTransfer({
      userId: t.user.userId, environment: 'sandbox', fromAccountId: await openFundedAccount(t, t.headers, '100.00'), toAccountId: await openFundedAccount(t, t.headers, '0'),
      amount: '1.00', assetCode: 'USD',
    });
    const dup = { ...a.item, id: `${a.item.id}x`, entry_id: `${a.item.entry_id}x`, entry: { ...(a.item.entry as object), entry_id: `${a.item.entry_id}x`, idempotency_key: `transfer:${a.item.id}x` } };
    const { rows } = await getPool().query<{ r: { results: Array<{ ok: boolean; code?: string; constraint?: string }> } }>(
      'SELECT transfers_create_immediate_batch_setwise($1::jsonb) AS r',
      [JSON.stringify([a.item, dup, b.item])],
    );
    expect(rows[0].r.results).toEqual([{ ok: true }, expect.objectContaining({ ok: false, code: '23505', constraint: 'transfers_request_key_key' }), { ok: true }]);
    const again = await getPool().query<{ r: { results: Array<{ ok: boolean; code?: string }> } }>(
      'SELECT transfers_create_immediate_batch_setwise($1::jsonb) AS r',
      [JSON.stringify([{ ...dup, id: `${a.item.id}y` }])],
    );
    expect(again.rows[0].r.results).toEqual([expect.objectContaining({ ok: false, code: '23505', constraint: 'transfers_request_key_key' })]);
    const { rows: written } = await getPool().query('SELECT id FROM transfers WHERE id = ANY ($1) ORDER BY id', [[a.item.id, dup.id, b.item.id, `${a.item.id}y`]]);
    expect(written.map((r) => r.id).sort()).toEqual([a.item.id, b.item.id].sort());
  });
});

describe('Idempotency-Key takeover after a crash (workflow transfers)', () => {
  it('the retry answers 201 with the same transfer and workflow; one workflow, the money moved once', async () => {
    const from = await openFundedAccount(t, t.headers, '100.00');
    const to = await openFundedAccount(t, t.headers, '0');
    const key = newIdempotencyKey();
    const body = { from_account: from, to_account: to, amount: '10.00', asset_code: 'USD', workflow_enabled: true };
    const first = await transfer(key, body);
    expect(first.statusCode, first.body).toBe(201);
    const created = first.json().data;
    const done = await waitForTransfer(t, t.headers, created.uuid, settled);
    expect(done.status).toBe('completed');
    const client = await getTemporalClient();
    const run = (await client.workflow.getHandle(created.workflow_id).describe()).runId;

    await crashedAfterCommit(key);
    const retry = await transfer(key, body);
    expect(retry.statusCode, retry.body).toBe(201);
    expect(retry.json().data).toMatchObject({ uuid: created.uuid, workflow_id: created.workflow_id, status: 'completed' });

    expect(await transfersFrom(from)).toEqual([created.uuid]);
    expect(await workflowStartedEvents([created.uuid])).toBe(1);
    expect((await client.workflow.getHandle(created.workflow_id).describe()).runId).toBe(run);
    expect(await balance(t, t.headers, from)).toMatchObject({ total_balance: '89.99', reserved_balance: '0.00' });
    expect(await balance(t, t.headers, to)).toMatchObject({ total_balance: '10.00' });
  });

  it('a crash before the workflow started: the retry starts it, once', async () => {
    const from = await openFundedAccount(t, t.headers, '100.00');
    const to = await openFundedAccount(t, t.headers, '0');
    const key = newIdempotencyKey();
    const body = { from_account: from, to_account: to, amount: '10.00', asset_code: 'USD', workflow_enabled: true };
    // The first run recorded the transfer and died before starting its workflow.
    const { rows } = await getPool().query<{ id: string }>(
      `SELECT id FROM api_keys WHERE key_hash = encode(sha256($1::bytea), 'hex')`,
      [t.user.key],
    );
    const { operationRequestKey } = await import('../../api/plugins/idempotency');
    const recorded = await t.app.transfers.createWorkflowTransfer({
      userId: t.user.userId,
      environment: 'sandbox',
      fromAccountId: from,
      toAccountId: to,
      amount: '10.00',
      assetCode: 'USD',
      requestKey: operationRequestKey(rows[0].id, key),
    });
    const retry = await transfer(key, body);
    expect(retry.statusCode, retry.body).toBe(201);
    expect(retry.json().data.uuid).toBe(recorded.id);
    const done = await waitForTransfer(t, t.headers, recorded.id, settled);
    expect(done.status).toBe('completed');
    expect(await transfersFrom(from)).toEqual([recorded.id]);
    expect(await balance(t, t.headers, from)).toMatchObject({ total_balance: '89.99', reserved_balance: '0.00' });
  });
});
