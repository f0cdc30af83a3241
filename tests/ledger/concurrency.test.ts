import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureCustomerLedgerAccount } from '../../domain/accounts';
import { closePool, getPool } from '../../domain/db/pool';
import { LedgerError, postEntry, postPending, reverseEntry, trialBalance, voidPending, type Entry } from '../../domain/ledger';
import { useTestDatabase } from '../helpers/db';
import { deposit, key, makeAccount, makeUser } from './helpers';

beforeAll(async () => {
  process.env.DB_POOL_MAX = '20';
  await useTestDatabase();
});
afterAll(async () => closePool());

/** Runs `count` tasks with at most `limit` in flight. */
async function runPool(count: number, limit: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

/** Random amount 0.01..60.00 built from whole cents, as a string. */
function randomAmount(): string {
  const cents = 1 + Math.floor(Math.random() * 6000);
  return `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
}

const pick = <T>(xs: T[]): T => xs[Math.floor(Math.random() * xs.length)];
// Refusals the random workload is expected to provoke; anything else (deadlock, timeout) fails.
const EXPECTED = new Set(['INSUFFICIENT_FUNDS', 'ALREADY_REVERSED']);

describe('ledger under concurrency', () => {
  it('2,000 random transfers among 10 hot accounts, 32 in flight: money is conserved, nothing overdraws', async () => {
    const userId = await makeUser();
    const las: string[] = [];
    for (let i = 0; i < 10; i++) las.push(await ensureCustomerLedgerAccount((await makeAccount(userId)).id, 'USD'));

    // Hammer deposits from the sharded funding account.
    await runPool(400, 32, async (i) => {
      await deposit(las[i % 10], 'USD', '25.00');
    });

    const posted: Entry[] = [];
    const pending: Entry[] = [];
    const outcomes = new Map<string, number>();
    const count = (k: string) => outcomes.set(k, (outcomes.get(k) ?? 0) + 1);
    await runPool(2000, 32, async () => {
      const from = pick(las);
      let to = pick(las);
      while (to === from) to = pick(las);
      const amount = randomAmount();
      const lines = [
        { accountId: from, direction: 'debit' as const, amount },
        { accountId: to, direction: 'credit' as const, amount },
      ];
      const roll = Math.random();
      try {
        if (roll < 0.04 && posted.length > 0) {
          await reverseEntry(pick(posted).id, { idempotencyKey: key('rev'), reason: 'load' });
          count('reversed');
        } else if (roll < 0.14) {
          pending.push(await postEntry({ environment: 'sandbox', idempotencyKey: key('p'), type: 'transfer', pending: true, lines }));
          count('pending');
        } else if (roll < 0.2 && pending.length > 0) {
          const p = pending.splice(Math.floor(Math.random() * pending.length), 1)[0];
          if (roll < 0.17) await postPending(p.id, { idempotencyKey: key('post') });
          else await voidPending(p.id, { idempotencyKey: key('void'), reason: 'load' });
          count('resolved');
        } else {
          posted.push(await postEntry({ environment: 'sandbox', idempotencyKey: key('t'), type: 'transfer', lines }));
          count('posted');
        }
      } catch (err) {
        if (err instanceof LedgerError && EXPECTED.has(err.code)) count(err.code);
        else count(`unexpected: ${(err as Error).message}`);
      }
    });
    const unexpected = [...outcomes.keys()].filter((k) => k.startsWith('unexpected'));
    expect(unexpected).toEqual([]);
    expect(outcomes.get('posted') ?? 0).toBeGreaterThan(1000);

    const pool = getPool();
    // Per asset, over every ledger account: debits = credits (posted and pending).
    const sums = await pool.query<{ asset_code: string; posted_zero: boolean; pending_zero: boolean }>(
      `SELECT asset_code, sum(debits_posted - credits_posted) = 0 AS posted_zero, sum(debits_pending - credits_pending) = 0 AS pending_zero
       FROM ledger_accounts GROUP BY asset_code`,
    );
    expect(sums.rows.length).toBeGreaterThan(0);
    for (const r of sums.rows) expect(r).toEqual({ asset_code: r.asset_code, posted_zero: true, pending_zero: true });
    // No flagged account below zero, available included.
    const negative = await pool.query(
      `SELECT id FROM ledger_accounts WHERE no_overdraft AND (credits_posted - debits_posted - debits_pending < 0)`,
    );
    expect(negative.rows).toEqual([]);
    // Stored totals agree with the lines, and the last balance_after of each account is its total.
    const drift = await pool.query(
      `SELECT la.id FROM ledger_accounts la
       LEFT JOIN LATERAL (
         SELECT coalesce(sum(amount) FILTER (WHERE direction = 'debit' AND status = 'posted'), 0) AS dp,
                coalesce(sum(amount) FILTER (WHERE direction = 'credit' AND status = 'posted'), 0) AS cp,
                coalesce(sum(amount) FILTER (WHERE direction = 'debit' AND status = 'pending'), 0) AS dpend,
                coalesce(sum(amount) FILTER (WHERE direction = 'credit' AND status = 'pending'), 0) AS cpend
         FROM ledger_lines l WHERE l.ledger_account_id = la.id) s ON true
       WHERE la.debits_posted <> s.dp OR la.credits_posted <> s.cp OR la.debits_pending <> s.dpend OR la.credits_pending <> s.cpend`,
    );
    expect(drift.rows).toEqual([]);
    const lastBalance = await pool.query(
      `SELECT la.id FROM ledger_accounts la
       CROSS JOIN LATERAL (SELECT balance_after FROM ledger_lines l WHERE l.ledger_account_id = la.id AND l.status = 'posted'
                           ORDER BY l.seq DESC LIMIT 1) last
       WHERE la.id = ANY($1) AND last.balance_after <> la.credits_posted - la.debits_posted`,
      [las],
    );
    expect(lastBalance.rows).toEqual([]);
    const tb = await trialBalance({ environment: 'sandbox' });
    expect(tb.balanced).toBe(true);
    expect(tb.assets.find((a) => a.assetCode === 'USD')).toMatchObject({ totalDebits: tb.assets.find((a) => a.assetCode === 'USD')!.totalCredits, balanced: true });
    // Deposits spread over the funding shards instead of queueing on one row.
    const shards = await pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ledger_accounts WHERE environment = 'sandbox' AND asset_code = 'USD' AND kind = 'funding' AND debits_posted > 0`,
    );
    expect(shards.rows[0].n).toBeGreaterThan(4);
  }, 90_000);
});
