// GET /api/v2/mobile/activity with 10,000 items in the caller's feed (target p99 ≤ 20 ms): 4,000
// transfers sent and 3,000 received (real immediate transfers through the ledger), 1,500 payment
// intents and 1,500 notifications; first pages and deep pages of 20, through the API in this
// process (Fastify inject, so no socket costs are counted).
import { createApiKey } from '../../domain/auth/api-keys';
import { registerUser } from '../../domain/auth/users';
import { createAccount } from '../../domain/accounts';
import { moveCash } from '../../domain/cash';
import { getPool } from '../../domain/db/pool';
import { loadConfig } from '../../domain/platform/config';
import { createTransferService } from '../../domain/transfers';
import { benchApp, drive, percentile, report, withBenchDatabase } from './common';

const CONCURRENCY = Number.parseInt(process.env.BENCH_CONCURRENCY ?? '4', 10);
const SECONDS = Number.parseInt(process.env.BENCH_SECONDS ?? '8', 10);

export async function benchMobileFeed(): Promise<void> {
  await withBenchDatabase(async () => {
    const pool = getPool();
    const a = (await registerUser('Ada Payer', 'ada@bench.test', 'bench-password-123'))!;
    const b = (await registerUser('Ben Payee', 'ben@bench.test', 'bench-password-123'))!;
    const aAcct = await createAccount({ userId: a.id, environment: 'sandbox', name: 'main' });
    const bAcct = await createAccount({ userId: b.id, environment: 'sandbox', name: 'main' });
    for (const [acct, user] of [[aAcct.id, a.id], [bAcct.id, b.id]]) {
      await moveCash('deposit', { userId: user, environment: 'sandbox', accountId: acct, amount: '1000000.00', assetCode: 'USD' });
    }
    const transfers = createTransferService({ pool, config: loadConfig() });
    const t0 = performance.now();
    const send = (from: string, to: string, userId: string, n: number) =>
      Promise.all(Array.from({ length: 16 }, async (_, w) => {
        for (let i = w; i < n; i += 16) await transfers.createImmediateTransfer({ userId, environment: 'sandbox', fromAccountId: from, toAccountId: to, amount: '1.00', assetCode: 'USD', reference: 'bench' });
      }));
    await send(aAcct.id, bAcct.id, a.id, 4000);
    await send(bAcct.id, aAcct.id, b.id, 3000);
    await pool.query(
      `INSERT INTO payment_intents (id, environment, user_id, payee_user_id, recipient, amount, currency, status, requires_passkey, amount_usd, workflow_id, expires_at, created_at)
       SELECT 'pi_bench' || g, 'sandbox', $1, $2, 'ben@bench.test', 5, 'USD', 'canceled', false, 5, 'payment-intent-pi_bench' || g, now(), now() - g * interval '1 second'
         FROM generate_series(1, 1500) g`,
      [a.id, b.id],
    );
    await pool.query(
      `INSERT INTO notifications (id, user_id, environment, event_id, event_type, title, body, created_at)
       SELECT 'ntf_bench' || g, $1, 'sandbox', 'evt_bench' || g, 'transfer.completed', 'Money received', 'You received 1 USD.', now() - g * interval '1 second'
         FROM generate_series(1, 1500) g`,
      [a.id],
    );
    // As autovacuum leaves a table: statistics and the visibility map (index-only counts).
    await pool.query('VACUUM ANALYZE');
    console.log(`seeded 10,000 feed items in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const { value } = await createApiKey({ userId: a.id, name: 'bench', environment: 'sandbox', permissions: ['read'] });
    const app = await benchApp();
    const headers = { authorization: `Bearer ${value}` };
    if (process.env.BENCH_EXPLAIN) {
      const { explainFeed } = await import('../../domain/mobile/activity');
      console.log(await explainFeed({ userId: a.id, environment: 'sandbox' } as never));
    }
    const total = (await app.inject({ method: 'GET', url: '/api/v2/mobile/activity?per_page=1', headers })).json().meta.total;
    console.log(`feed total: ${total} items`);
    const first = await drive(CONCURRENCY, SECONDS, async () => {
      const r = await app.inject({ method: 'GET', url: '/api/v2/mobile/activity?per_page=20', headers });
      if (r.statusCode !== 200) throw new Error(r.body);
    });
    report('first page of 20', first);
    const p99 = percentile([...first.latenciesMs].sort((x, y) => x - y), 99);
    const deep = await drive(CONCURRENCY, SECONDS, async (i) => {
      const r = await app.inject({ method: 'GET', url: `/api/v2/mobile/activity?per_page=20&page=${25 + (i % 25)}`, headers });
      if (r.statusCode !== 200) throw new Error(r.body);
    });
    report('pages 25-49 of 20 (items 480-980)', deep);
    console.log(`  target p99 ≤ 20 ms with 10,000 items (first page): ${p99 <= 20 ? 'met' : 'NOT met'}`);
    await app.close();
  });
}
