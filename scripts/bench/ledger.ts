// Ledger throughput: direct transfers between hot customer accounts through postEntry (one SQL
// function call each) at concurrency 32, against a bare single-row UPDATE transaction at the same
// concurrency as the yardstick. Uses its own throw-away database. Run: npx tsx scripts/bench/ledger.ts
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { createAccount, ensureCustomerLedgerAccount } from '../../domain/accounts';
import { migrate } from '../../domain/db/migrate';
import { closePool, getPool } from '../../domain/db/pool';
import { postEntry, systemAccount } from '../../domain/ledger';
import { newId } from '../../domain/platform/ids';

const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const CONCURRENCY = Number.parseInt(process.env.BENCH_CONCURRENCY ?? '32', 10);
const HOT_ACCOUNTS = Number.parseInt(process.env.BENCH_ACCOUNTS ?? '10', 10);
const SECONDS = Number.parseInt(process.env.BENCH_SECONDS ?? '8', 10);

function urlFor(name: string): string {
  const u = new URL(ADMIN_URL);
  u.pathname = `/${name}`;
  return u.toString();
}

interface Run {
  ops: number;
  seconds: number;
  latenciesMs: number[];
}

/** Calls op from CONCURRENCY loops for `seconds`, recording each call's latency. */
async function drive(seconds: number, op: (i: number) => Promise<void>): Promise<Run> {
  const latenciesMs: number[] = [];
  const start = process.hrtime.bigint();
  const end = start + BigInt(seconds * 1e9);
  let i = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (process.hrtime.bigint() < end) {
        const t0 = process.hrtime.bigint();
        await op(i++);
        latenciesMs.push(Number(process.hrtime.bigint() - t0) / 1e6);
      }
    }),
  );
  return { ops: latenciesMs.length, seconds: Number(process.hrtime.bigint() - start) / 1e9, latenciesMs };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function report(label: string, run: Run) {
  const sorted = [...run.latenciesMs].sort((a, b) => a - b);
  const rate = run.ops / run.seconds;
  console.log(
    `${label.padEnd(34)} ${rate.toFixed(0).padStart(7)} /s   p50 ${percentile(sorted, 50).toFixed(2)} ms   p99 ${percentile(sorted, 99).toFixed(2)} ms   (${run.ops} in ${run.seconds.toFixed(1)} s)`,
  );
  return rate;
}

export async function benchLedger(): Promise<void> {
  const name = `bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  const saved = { url: process.env.DATABASE_URL, max: process.env.DB_POOL_MAX };
  try {
    await migrate(urlFor(name));
    await closePool();
    process.env.DATABASE_URL = urlFor(name);
    process.env.DB_POOL_MAX = String(CONCURRENCY);
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
    await drive(1, bare); // warm-up
    const bareRate = report('bare single-row UPDATE (autocommit)', await drive(SECONDS, bare));
    await drive(1, transfer('warm')); // warm-up
    const ledgerRate = report('ledger transfer (postEntry)', await drive(SECONDS, transfer('bench')));
    console.log(`ratio ledger / bare UPDATE: ${(ledgerRate / bareRate).toFixed(2)}`);

    const check = await pool.query<{ balanced: boolean }>(
      `SELECT bool_and(d = c) AS balanced FROM (SELECT asset_code, sum(debits_posted) d, sum(credits_posted) c FROM ledger_accounts GROUP BY asset_code) t`,
    );
    console.log(`ledger balanced after the run: ${check.rows[0].balanced}`);
  } finally {
    await closePool();
    process.env.DATABASE_URL = saved.url;
    process.env.DB_POOL_MAX = saved.max;
    if (saved.url === undefined) delete process.env.DATABASE_URL;
    if (saved.max === undefined) delete process.env.DB_POOL_MAX;
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  benchLedger().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
