import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPool } from '../../domain/db/pool';
import { createTestApp, createTestUser, type TestApp } from '../helpers/app';
import { startTestWorker, type TestWorker } from '../helpers/worker';
import { openFundedAccount, settled, waitForTransfer } from './helpers';

let t: TestApp;
let w: TestWorker;
beforeAll(async () => {
  process.env.TRANSFER_REVIEW_THRESHOLD_USD = '1000000';
  process.env.TRANSFER_DAILY_LIMIT_USD = '100000000';
  t = await createTestApp();
  w = await startTestWorker();
});
afterAll(async () => {
  await w.stop();
  await t.close();
});

/** Runs tasks with at most `limit` in flight. */
async function pool<T>(n: number, limit: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < n) {
        const i = next++;
        out[i] = await task(i);
      }
    }),
  );
  return out;
}

async function invariants() {
  const db = getPool();
  // Every asset sums to zero over all ledger accounts (signed debit - credit), pending included.
  const sums = await db.query<{ asset_code: string; posted: string; pending: string }>(
    `SELECT asset_code, sum(debits_posted - credits_posted)::text AS posted, sum(debits_pending - credits_pending)::text AS pending
       FROM ledger_accounts GROUP BY asset_code`,
  );
  for (const s of sums.rows) {
    expect(Number(s.posted), s.asset_code).toBe(0);
    expect(Number(s.pending), s.asset_code).toBe(0);
  }
  const negative = await db.query(
    `SELECT id FROM ledger_accounts WHERE no_overdraft AND credits_posted - debits_posted - debits_pending < 0`,
  );
  expect(negative.rows).toEqual([]);
  const lines = await db.query<{ d: string; c: string }>(
    `SELECT sum(amount) FILTER (WHERE direction = 'debit' AND status = 'posted')::text AS d,
            sum(amount) FILTER (WHERE direction = 'credit' AND status = 'posted')::text AS c FROM ledger_lines`,
  );
  expect(lines.rows[0].d).toBe(lines.rows[0].c);
}

describe('concurrency on hot accounts', () => {
  it('thousands of transfers, both paths, many in flight: money is conserved and nothing overdraws', async () => {
    const accounts = await Promise.all(Array.from({ length: 5 }, () => openFundedAccount(t, t.headers, '500.00')));
    const pick = (i: number, k: number) => accounts[(i * 7 + k) % accounts.length];
    const send = (i: number, workflow: boolean) => {
      const from = pick(i, 0);
      let to = pick(i, 3);
      if (to === from) to = pick(i, 1);
      // Amounts large enough that some transfers run accounts dry and must fail cleanly.
      const amount = `${(i % 97) + 1}.${String(i % 100).padStart(2, '0')}`;
      return t.app.inject({
        method: 'POST',
        url: '/api/v2/transfers',
        headers: t.headers,
        payload: { from_account: from, to_account: to, amount, asset_code: 'USD', workflow_enabled: workflow },
      });
    };
    const immediate = await pool(2000, 32, (i) => send(i, false));
    const codes = new Map<number, number>();
    for (const r of immediate) codes.set(r.statusCode, (codes.get(r.statusCode) ?? 0) + 1);
    expect([...codes.keys()].every((c) => c === 201 || c === 422)).toBe(true);
    expect(codes.get(201)).toBeGreaterThan(100);
    for (const r of immediate.filter((x) => x.statusCode === 422)) expect(r.json().errors[0].code).toBe('INSUFFICIENT_FUNDS');

    // 100 workflow transfers, 50 started at once: the workflow path's race is between reservations
    // in flight, which 50 at once exercise; more only wait on the Temporal dev server (~15 a second).
    const started = await pool(100, 50, (i) => send(i + 5000, true));
    expect(started.every((r) => r.statusCode === 201)).toBe(true);
    const ids = started.map((r) => r.json().data.uuid as string);
    const finished = await pool(ids.length, 20, (i) => waitForTransfer(t, t.headers, ids[i], settled, 120_000));
    const outcome = finished.map((f) => f.status);
    expect(outcome.every((s) => s === 'completed' || s === 'failed')).toBe(true);
    for (const f of finished.filter((x) => x.status === 'failed')) expect(f.failure.code).toBe('INSUFFICIENT_FUNDS');

    await invariants();
    const admin = await createTestUser({ admin: true });
    const tb = (await t.app.inject({ method: 'GET', url: '/api/v1/ledger/trial-balance', headers: admin.headers })).json().data;
    expect(tb.balanced).toBe(true);
    const total = await getPool().query<{ s: string }>(
      `SELECT sum(credits_posted - debits_posted)::text AS s FROM ledger_accounts WHERE account_id = ANY($1::text[])`,
      [accounts],
    );
    const fees = await getPool().query<{ s: string }>(
      `SELECT coalesce(sum(fee_amount), 0)::text AS s FROM transfers WHERE status = 'completed' AND from_account_id = ANY($1::text[])`,
      [accounts],
    );
    // Customers' money only left through fees.
    expect(Number(total.rows[0].s) + Number(fees.rows[0].s)).toBeCloseTo(2500, 6);
  }, 300_000);
});
