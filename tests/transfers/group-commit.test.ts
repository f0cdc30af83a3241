import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPool } from '../../domain/db/pool';
import { GroupCommit } from '../../domain/transfers/group-commit';
import { createTestApp, type TestApp } from '../helpers/app';
import { balance, openFundedAccount } from './helpers';

/** A runBatch whose batches finish only when the test says so. */
function controlled() {
  const batches: Array<{ items: string[]; finish(err?: unknown): void }> = [];
  const runBatch = (items: string[]) =>
    new Promise<string[]>((resolve, reject) => {
      batches.push({ items, finish: (err) => (err ? reject(err) : resolve(items.map((i) => `done ${i}`))) });
    });
  return { batches, runBatch };
}
const tick = () => new Promise((r) => setImmediate(r));

describe('group commit scheduling', () => {
  it('sends at once while a slot is free and groups what arrives meanwhile', async () => {
    const c = controlled();
    const g = new GroupCommit<string, string>({ runBatch: c.runBatch, retryAlone: () => true, locks: (i) => [i], maxBatch: 3, maxInFlight: 1 });
    const results = ['a', 'b', 'c', 'd', 'e'].map((i) => g.submit(i));
    await tick();
    expect(c.batches.map((b) => b.items)).toEqual([['a']]);
    c.batches[0].finish();
    await tick();
    expect(c.batches.map((b) => b.items)).toEqual([['a'], ['b', 'c', 'd']]);
    c.batches[1].finish();
    await tick();
    c.batches[2].finish();
    expect(await Promise.all(results)).toEqual(['done a', 'done b', 'done c', 'done d', 'done e']);
  });

  it('never runs two batches that lock the same row at once, and posts the items of a row in arrival order', async () => {
    const c = controlled();
    const locks = (i: string) => i.split('-'); // 'x-y' locks x and y
    const g = new GroupCommit<string, string>({ runBatch: c.runBatch, retryAlone: () => true, locks, maxBatch: 10, maxInFlight: 2 });
    const all = ['x-y', 'y-z', 'p-q', 'z-w'].map((i) => g.submit(i));
    await tick();
    // y-z overlaps the batch in flight; p-q overlaps nothing and goes at once; z-w may not pass
    // y-z, which waits for z before it.
    expect(c.batches.map((b) => b.items)).toEqual([['x-y'], ['p-q']]);
    c.batches[1].finish();
    await tick();
    expect(c.batches).toHaveLength(2);
    c.batches[0].finish();
    await tick();
    expect(c.batches.map((b) => b.items)[2]).toEqual(['y-z', 'z-w']);
    c.batches[2].finish();
    expect(await Promise.all(all)).toEqual(['done x-y', 'done y-z', 'done p-q', 'done z-w']);
  });

  it('a failed batch is retried item by item when its error is definite, and fails whole when it is not', async () => {
    const seen: string[][] = [];
    const runBatch = async (items: string[]) => {
      seen.push(items);
      if (items.includes('bad')) throw Object.assign(new Error('boom'), { code: '22P02' });
      if (items.includes('lost')) throw new Error('connection terminated');
      return items.map((i) => `ok ${i}`);
    };
    const retryAlone = (err: unknown) => typeof (err as { code?: unknown }).code === 'string';
    const g = new GroupCommit<string, string>({ runBatch, retryAlone, locks: () => [], maxBatch: 10, maxInFlight: 1 });
    const blocker = g.submit('first');
    const group = ['one', 'bad', 'two'].map((i) => g.submit(i).catch((e: Error) => `error ${e.message}`));
    expect(await blocker).toBe('ok first');
    expect(await Promise.all(group)).toEqual(['ok one', 'error boom', 'ok two']);
    expect(seen).toEqual([['first'], ['one', 'bad', 'two'], ['one'], ['bad'], ['two']]);

    const g2 = new GroupCommit<string, string>({ runBatch, retryAlone, locks: () => [], maxBatch: 10, maxInFlight: 1 });
    const b2 = g2.submit('first');
    const lost = ['one', 'lost'].map((i) => g2.submit(i).catch((e: Error) => `error ${e.message}`));
    await b2;
    expect(await Promise.all(lost)).toEqual(['error connection terminated', 'error connection terminated']);
  });
});

describe('immediate transfers posted together', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('a refused transfer in a batch leaves nothing behind and the others of the batch complete', async () => {
    // 10.00 funds four transfers of 2.00 plus their fees at most; twelve race for it.
    const from = await openFundedAccount(t, t.headers, '10.00');
    const to = await openFundedAccount(t, t.headers, '0');
    const replies = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        t.app.inject({
          method: 'POST',
          url: '/api/v2/transfers',
          headers: t.headers,
          payload: { from_account: from, to_account: to, amount: '2.00', asset_code: 'USD', workflow_enabled: false, reference: `race ${i}` },
        }),
      ),
    );
    const ok = replies.filter((r) => r.statusCode === 201).map((r) => r.json().data);
    const refused = replies.filter((r) => r.statusCode !== 201);
    expect(ok.length).toBeGreaterThan(0);
    expect(refused.length).toBeGreaterThan(0);
    for (const r of refused) {
      expect(r.statusCode).toBe(422);
      expect(r.json().errors[0].code).toBe('INSUFFICIENT_FUNDS');
    }
    const fee = ok[0].fees.transfer_fee as string;
    const spent = ok.length * (200 + Math.round(Number(fee) * 100));
    expect((await balance(t, t.headers, from)).available_balance).toBe(((1000 - spent) / 100).toFixed(2));
    expect((await balance(t, t.headers, to)).available_balance).toBe((ok.length * 2).toFixed(2));
    expect(1000 - spent).toBeLessThan(200 + Math.round(Number(fee) * 100)); // no room for one more

    // Only the completed transfers exist, each with its events and a posted entry.
    const db = getPool();
    const rows = await db.query<{ id: string; status: string; posted: boolean; events: number }>(
      `SELECT t.id, t.status, (SELECT status = 'posted' FROM journal_entries WHERE id = t.entry_id) AS posted,
              (SELECT count(*)::int FROM outbox_events WHERE aggregate_type = 'transfer' AND aggregate_id = t.id) AS events
         FROM transfers t WHERE t.from_account_id = $1`,
      [from],
    );
    expect(rows.rows.map((r) => r.id).sort()).toEqual(ok.map((d) => d.uuid).sort());
    for (const r of rows.rows) expect(r).toMatchObject({ status: 'completed', posted: true, events: 2 });
    const orphans = await db.query(
      `SELECT 1 FROM outbox_events WHERE aggregate_type = 'transfer' AND data->>'from_account' = $1 AND aggregate_id <> ALL ($2::text[])`,
      [from, ok.map((d) => d.uuid)],
    );
    expect(orphans.rows).toEqual([]);
  });
});
