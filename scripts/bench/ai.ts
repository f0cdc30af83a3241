// Natural-language transaction queries over 100,000 transactions of one customer (target p99 ≤ 100 ms
// end to end through the API in this process): deposits, withdrawals and bridge-typed movements in
// USD, EUR and USDC spread over a year, posted through the ledger's own posting function in batches,
// then dated across the year. Also the parser alone (target p99 ≤ 5 ms per query).
// Uses its own throw-away database. Run: npm run bench -- "ai"
import Decimal from 'decimal.js';
import { createApiKey } from '../../domain/auth/api-keys';
import { registerUser } from '../../domain/auth/users';
import { createAccount, ensureCustomerLedgerAccount } from '../../domain/accounts';
import { getPool } from '../../domain/db/pool';
import { entryPayload, systemAccount } from '../../domain/ledger';
import { benchApp, drive, percentile, report, withBenchDatabase } from './common';

const TRANSACTIONS = Number.parseInt(process.env.BENCH_AI_TRANSACTIONS ?? '100000', 10);
const CONCURRENCY = Number.parseInt(process.env.BENCH_CONCURRENCY ?? '4', 10);
const SECONDS = Number.parseInt(process.env.BENCH_SECONDS ?? '10', 10);

const QUERIES = [
  'Show me all cross-chain transfers over $1000 last month that have compliance flags',
  'deposits over $500 this year',
  'withdrawals between 100 and 200 EUR in the past 30 days',
  'largest deposit this year',
  'all transactions last week',
  'USDC deposits since March',
  'failed transactions',
  'everything',
];

export async function benchAi(): Promise<void> {
  await withBenchDatabase(async () => {
    const pool = getPool();
    const user = (await registerUser('Query Bench', 'ai@bench.test', 'bench-password-123'))!;
    const account = await createAccount({ userId: user.id, environment: 'sandbox', name: 'main' });
    const books = { USD: await ensureCustomerLedgerAccount(account.id, 'USD'), EUR: await ensureCustomerLedgerAccount(account.id, 'EUR'), USDC: await ensureCustomerLedgerAccount(account.id, 'USDC') };
    const t0 = performance.now();
    const assets = ['USD', 'EUR', 'USDC'] as const;
    // Entries of 99 customer lines and one balancing system line each (the ledger takes 100 lines at most) (one kind and asset per entry): the ledger's
    // own posting function, a thousand times rather than a hundred thousand.
    const PER_ENTRY = 99;
    const kinds = ['deposit', 'deposit', 'deposit', 'withdrawal', 'withdrawal', 'bridge'] as const;
    for (let start = 0; start < TRANSACTIONS; start += PER_ENTRY * 50) {
      const payloads: string[] = [];
      for (let e = start; e < Math.min(TRANSACTIONS, start + PER_ENTRY * 50); e += PER_ENTRY) {
        const n = e / PER_ENTRY;
        const asset = assets[n % 3];
        const kind = kinds[Math.floor(n / 3) % kinds.length];
        const key = `seed-${n}`;
        const sys = await systemAccount('sandbox', asset, 'funding', key);
        const amounts = Array.from({ length: Math.min(PER_ENTRY, TRANSACTIONS - e) }, (_, i) => (kind === 'deposit' ? `${((e + i) % 4999) + 1}.${String((e + i) % 100).padStart(2, '0')}` : `${((e + i) % 9) + 1}.00`));
        const total = amounts.reduce((a, b) => a.plus(b), new Decimal(0));
        const side = kind === 'deposit' ? 'credit' : 'debit';
        payloads.push(
          JSON.stringify(
            entryPayload({
              environment: 'sandbox',
              idempotencyKey: key,
              type: kind,
              userId: user.id,
              lines: [
                ...amounts.map((amount) => ({ accountId: books[asset], direction: side, amount }) as const),
                { accountId: sys, direction: side === 'credit' ? 'debit' : 'credit', amount: total.toFixed(2) },
              ],
            }),
          ),
        );
      }
      await pool.query('SELECT count(ledger_post_entry(p)) FROM unnest($1::jsonb[]) AS p', [payloads]);
    }
    // Spread over the past year in posting order, oldest first, as real history is written (history is
    // immutable: the seed sets the guard aside for this one statement's transaction). The lines were
    // appended in posting order, so their physical order is already their order in time.
    const c = await pool.connect();
    try {
      await c.query('BEGIN');
      await c.query('SET LOCAL session_replication_role = replica');
      await c.query(
        `UPDATE ledger_lines SET created_at = now() - (((SELECT max(seq) FROM ledger_lines) - seq) * (525600.0 / $2)) * interval '1 minute' WHERE user_id = $1`,
        [user.id, TRANSACTIONS],
      );
      await c.query('COMMIT');
    } finally {
      c.release();
    }
    await pool.query('VACUUM ANALYZE');
    console.log(`seeded ${TRANSACTIONS.toLocaleString('en')} transactions in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const { value } = await createApiKey({ userId: user.id, name: 'bench', environment: 'sandbox', permissions: ['read', 'write'] });
    const app = await benchApp();
    if (process.env.BENCH_EXPLAIN) {
      const { explainSearch } = await import('../../domain/ai/data');
      const { parseTransactionQuery } = await import('../../domain/ai/parser');
      for (const q of [QUERIES[0], QUERIES[7]]) console.log(await explainSearch({ userId: user.id, environment: 'sandbox', accountId: null }, parseTransactionQuery(q, { now: new Date(), timeZone: 'UTC' }).filter));
    }
    const headers = { authorization: `Bearer ${value}` };
    const ask = async (query: string) => {
      const r = await app.inject({ method: 'POST', url: '/api/v1/ai/transactions', headers, payload: { query, time_zone: 'Europe/Berlin' } });
      if (r.statusCode !== 200) throw new Error(r.body);
    };
    // Latency: one client, the mix of questions in turn (the target).
    const run = await drive(1, SECONDS, (i) => ask(QUERIES[i % QUERIES.length]));
    report(`queries over ${TRANSACTIONS / 1000}k transactions (c=1)`, run);
    const p99 = percentile([...run.latenciesMs].sort((a, b) => a - b), 99);
    // Each question alone, to show where the time goes.
    for (const q of QUERIES) report(`  "${q.length > 44 ? `${q.slice(0, 41)}...` : q}"`, await drive(1, Math.max(1, SECONDS / 8), () => ask(q)));
    // Under load: more clients than this machine has cores (the database, the API and the load share them).
    report(`queries under load (c=${CONCURRENCY})`, await drive(CONCURRENCY, SECONDS, (i) => ask(QUERIES[i % QUERIES.length])));
    console.log(`  target p99 ≤ 100 ms end to end (one client): ${p99 <= 100 ? 'met' : 'NOT met'}`);
    await app.close();
  });
}
