// Ledger throughput: direct transfers between hot customer accounts through postEntry (one SQL
// function call each) at concurrency 32, against a bare single-row UPDATE transaction at the same
// concurrency as the yardstick. Uses its own throw-away database. Run: npx tsx scripts/bench/ledger.ts
import { pathToFileURL } from 'node:url';
import { createAccount, ensureCustomerLedgerAccount } from '../../domain/accounts';
import { getPool } from '../../domain/db/pool';
import { drive, report, withBenchDatabase } from './common';
import { postEntry, systemAccount } from '../../domain/ledger';
import { newId } from '../../domain/platform/ids';

const CONCURRENCY = Number.parseInt(process.env.BENCH_CONCURRENCY ?? '32', 10);
const HOT_ACCOUNTS = Number.parseInt(process.env.BENCH_ACCOUNTS ?? '10', 10);
const SECONDS = Number.parseInt(process.env.BENCH_SECONDS ?? '8', 10);

export async function benchLedger(): Promise<void> {
  await withBenchDatabase(async () => {
    const pool = getPool();

    // Hot accounts, funded well beyond what the run can move.
    const userId = newId('usr');
    await pool.query(`INSERT INTO users (id, name, email, password_hash) VALUES ($1, 'Bench', $2, 'x')`, [userId, `${userId}@bench.test`]);
    const las: string[] = [];
    for (let i = 0; i < HOT_ACCOUNTS; i++) {
      const acct = await createAccount({ userId, environment: 'sandbox', name: `hot ${i}` });
      const la = await ensureCustomerLedgerAccount(acct.id, 'USD');
      const funding = await systemAccount('sandbox', 'USD', 'funding', `seed-${i}`);
      await postEntry({ environment: 'sandbox', idempotencyKey: `seed-${i}`, type: 'deposit', lines: [
        { accountId: funding, direction: 'debit', amount: '100000000.00' },
        { accountId: la, direction: 'credit', amount: '100000000.00' },
      ] });
      las.push(la);
    }
    await pool.query(`CREATE TABLE bench_counter (id integer PRIMARY KEY, n bigint NOT NULL DEFAULT 0)`);
    await pool.query(`INSERT INTO bench_counter (id) SELECT generate_series(0, $1::int - 1)`, [HOT_ACCOUNTS]);
    // Open all pool connections before timing.
    await Promise.all(Array.from({ length: CONCURRENCY }, () => pool.query('SELECT 1')));

    const transfer = (prefix: string) => async (i: number) => {
      const from = las[i % HOT_ACCOUNTS];
      const to = las[(i + 1 + (Math.floor(i / HOT_ACCOUNTS) % (HOT_ACCOUNTS - 1))) % HOT_ACCOUNTS];
      await postEntry({ environment: 'sandbox', idempotencyKey: `${prefix}-${i}`, type: 'transfer', lines: [
        { accountId: from, direction: 'debit', amount: '0.01' },
        { accountId: to, direction: 'credit', amount: '0.01' },
      ] });
    };
    const bare = async (i: number) => {
      await pool.query('UPDATE bench_counter SET n = n + 1 WHERE id = $1', [i % HOT_ACCOUNTS]);
    };

    console.log(`ledger bench: ${HOT_ACCOUNTS} hot USD accounts, concurrency ${CONCURRENCY}, ${SECONDS} s per run, pool ${CONCURRENCY}`);
    await drive(CONCURRENCY, 1, bare); // warm-up
    const bareRate = report('bare single-row UPDATE (autocommit)', await drive(CONCURRENCY, SECONDS, bare));
    await drive(CONCURRENCY, 1, transfer('warm')); // warm-up
    const ledgerRate = report('ledger transfer (postEntry)', await drive(CONCURRENCY, SECONDS, transfer('bench')));
    console.log(`ratio ledger / bare UPDATE: ${(ledgerRate / bareRate).toFixed(2)}`);

    const check = await pool.query<{ balanced: boolean }>(
      `SELECT bool_and(d = c) AS balanced FROM (SELECT asset_code, sum(debits_posted) d, sum(credits_posted) c FROM ledger_accounts GROUP BY asset_code) t`,
    );
    console.log(`ledger balanced after the run: ${check.rows[0].balanced}`);
  }, CONCURRENCY);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  benchLedger().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
