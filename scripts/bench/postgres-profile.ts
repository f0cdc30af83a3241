// Where PostgreSQL spends an immediate transfer, without HTTP: a TransferService's createImmediateTransfer
// from this process on a throw-away database, printing PostgreSQL CPU per transfer and the time of
// each SQL function per transfer (pg_stat_user_functions). Not part of `npm run bench`; a tool for
// the next optimisation. Run: npx tsx scripts/bench/postgres-profile.ts
//   PROFILE_CONCURRENCY (16), PROFILE_SECONDS (8), PROFILE_ACCOUNTS (50)
//   PROFILE_PATCH=<file.sql>: SQL run after the migrations (try a changed function or index first)
//   PROFILE_PERF=<file>: `perf record -a -g` over the measured seconds (read it with perf report --comm postgres)
//   PROFILE_FIXED=<batches>: instead, a fixed workload on one connection (that many batches of
//     PROFILE_BATCH (8) transfers, as the group commit sends them), printing the backend's CPU and the WAL per transfer:
//     steadier than throughput on a noisy machine. PROFILE_WALDUMP=<pg_wal dir> adds pg_waldump's
//     record statistics for that WAL (run as a user who can read the directory); PROFILE_PERF records
//     the backend alone; PROFILE_EXPLAIN=1 prints one batch's plans with their times (auto_explain,
//     nested statements included) instead.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { createAccount } from '../../domain/accounts';
import { registerUser } from '../../domain/auth/users';
import { moveCash } from '../../domain/cash';
import { closePool, getPool } from '../../domain/db/pool';
import { closePrisma } from '../../domain/db/prisma';
import { loadConfig } from '../../domain/platform/config';
import { createTransferService } from '../../domain/transfers';
import { drive, processCpuMs, report, withBenchDatabase } from './common';

const CONCURRENCY = Number.parseInt(process.env.PROFILE_CONCURRENCY ?? '16', 10);
const SECONDS = Number.parseInt(process.env.PROFILE_SECONDS ?? '8', 10);
const ACCOUNTS = Number.parseInt(process.env.PROFILE_ACCOUNTS ?? '50', 10);

export async function profilePostgres(): Promise<void> {
  await withBenchDatabase(async (url) => {
    const db = new URL(url).pathname.slice(1);
    await getPool().query(`ALTER DATABASE "${db}" SET track_functions = 'all'`);
    if (process.env.PROFILE_PATCH) await getPool().query(readFileSync(process.env.PROFILE_PATCH, 'utf8'));
    await closePool(); // new connections pick up track_functions
    const pool = getPool();
    const transfers = createTransferService({ pool, config: loadConfig() });
    const user = await registerUser('Profile', `profile-${db}@bench.test`, 'profile-password-123');
    const accounts: string[] = [];
    for (let i = 0; i < ACCOUNTS; i++) {
      const a = await createAccount({ userId: user!.id, environment: 'sandbox', name: `profile ${i}` });
      await moveCash('deposit', { userId: user!.id, environment: 'sandbox', accountId: a.id, amount: '1000000000.00', assetCode: 'USD' });
      accounts.push(a.id);
    }
    const transfer = async () => {
      const a = Math.floor(Math.random() * ACCOUNTS);
      const b = (a + 1 + Math.floor(Math.random() * (ACCOUNTS - 1))) % ACCOUNTS;
      await transfers.createImmediateTransfer({ userId: user!.id, environment: 'sandbox', fromAccountId: accounts[a], toAccountId: accounts[b], amount: '10.00', assetCode: 'USD' });
    };
    await drive(CONCURRENCY, 2, transfer); // warm-up
    if (process.env.PROFILE_FIXED) return fixedWorkload(pool, transfers, user!.id, accounts, Number(process.env.PROFILE_FIXED));
    const backends = async () =>
      new Map((await pool.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1', [db])).rows.map((r) => [r.pid, processCpuMs(r.pid)]));
    await pool.query('SELECT pg_stat_reset()');
    const before = await backends();
    const self = process.cpuUsage();
    const perf = process.env.PROFILE_PERF
      ? spawn('perf', ['record', '-e', 'cpu-clock', '-F', '999', '-a', '-g', '-o', process.env.PROFILE_PERF], { stdio: 'ignore' })
      : null;
    const run = await drive(CONCURRENCY, SECONDS, transfer);
    if (perf) {
      perf.kill('SIGINT');
      await new Promise((r) => perf.once('exit', r));
    }
    const after = await backends();
    const selfCpu = process.cpuUsage(self);
    report('immediate transfer (domain, no HTTP)', run);
    const pgMs = [...after].reduce((t, [pid, ms]) => t + ms - (before.get(pid) ?? 0), 0);
    console.log(`CPU per transfer: postgres ${(pgMs / run.ops).toFixed(2)} ms, this process ${((selfCpu.user + selfCpu.system) / 1000 / run.ops).toFixed(2)} ms`);
    await new Promise((r) => setTimeout(r, 600)); // function statistics are flushed at most every 500 ms
    const { rows } = await pool.query<{ funcname: string; calls: string; total_time: number; self_time: number }>(
      'SELECT funcname, calls, total_time, self_time FROM pg_stat_user_functions ORDER BY total_time DESC LIMIT 12',
    );
    // Approximate: backends flush function statistics lazily, so some warm-up calls land here too.
    console.log('per transfer (wall time, lock waits included; approximate):');
    for (const r of rows) {
      const per = (x: number) => (x / run.ops).toFixed(3);
      console.log(`  ${r.funcname.padEnd(36)} calls ${(Number(r.calls) / run.ops).toFixed(2).padStart(5)}  total ${per(r.total_time)} ms  self ${per(r.self_time)} ms`);
    }
    await closePrisma();
  }, 20);
}

/** PROFILE_FIXED: the same batches every run, one after another on one connection. */
async function fixedWorkload(pool: ReturnType<typeof getPool>, transfers: ReturnType<typeof createTransferService>, userId: string, accounts: string[], batches: number) {
  const size = Number.parseInt(process.env.PROFILE_BATCH ?? '8', 10);
  const c = await pool.connect();
  try {
    const batch = async (b: number) => {
      const items = [];
      for (let k = 0; k < size; k++) {
        const i = (b * size + k) % accounts.length;
        const input = { userId, environment: 'sandbox' as const, fromAccountId: accounts[i], toAccountId: accounts[(i + 1 + (b % (accounts.length - 1))) % accounts.length], amount: '10.00', assetCode: 'USD' };
        items.push((await transfers.prepareImmediateTransfer(input)).item);
      }
      await c.query({ name: 'batch', text: 'SELECT transfers_create_immediate_batch_setwise($1::jsonb) AS r', values: [JSON.stringify(items)] });
    };
    for (let b = 0; b < 20; b++) await batch(b); // warm-up: plans cached on this connection
    if (process.env.PROFILE_EXPLAIN) {
      c.on('notice', (m) => console.log(m.message));
      await c.query(`LOAD 'auto_explain'; SET auto_explain.log_min_duration = 0; SET auto_explain.log_nested_statements = on; SET auto_explain.log_analyze = on; SET auto_explain.log_level = notice; SET client_min_messages = notice`);
      await batch(20);
      return;
    }
    const { rows } = await c.query<{ pid: number; lsn: string }>('SELECT pg_backend_pid() AS pid, pg_current_wal_insert_lsn()::text AS lsn');
    const cpu0 = processCpuMs(rows[0].pid);
    const perf = process.env.PROFILE_PERF
      ? spawn('perf', ['record', '-e', 'cpu-clock', '-F', '999', '-g', '-p', String(rows[0].pid), '-o', process.env.PROFILE_PERF], { stdio: 'ignore' })
      : null;
    if (perf) await new Promise((r) => setTimeout(r, 500)); // perf attached
    for (let b = 0; b < batches; b++) await batch(b);
    if (perf) {
      perf.kill('SIGINT');
      await new Promise((r) => perf.once('exit', r));
    }
    const { rows: end } = await c.query<{ lsn: string; bytes: string }>('SELECT pg_current_wal_insert_lsn()::text AS lsn, pg_wal_lsn_diff(pg_current_wal_insert_lsn(), $1) AS bytes', [rows[0].lsn]);
    const n = batches * size;
    console.log(`fixed workload: ${n} transfers in batches of ${size} on one connection`);
    console.log(`  backend CPU ${((processCpuMs(rows[0].pid) - cpu0) / n).toFixed(3)} ms per transfer, WAL ${(Number(end[0].bytes) / n).toFixed(0)} bytes per transfer`);
    if (process.env.PROFILE_WALDUMP) {
      const dump = spawnSync('/usr/lib/postgresql/15/bin/pg_waldump', ['-p', process.env.PROFILE_WALDUMP, '-s', rows[0].lsn, '-e', end[0].lsn, '--stats=record'], { encoding: 'utf8' });
      console.log(dump.stdout || dump.stderr);
    }
  } finally {
    c.release();
    await closePrisma();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  profilePostgres().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
