// Transfers through the HTTP API, as a client sees them: the API and the worker run as their
// own processes (npm run api / npm run worker) on a throw-away database and a local Temporal dev
// server; this process is only the load generator. Prints synchronous transfers per second with
// p50/p99 (in slices alternating with a bare single-row UPDATE, the yardstick) and workflow
// transfers completed per second.
// Run: npx tsx scripts/bench/transfers.ts
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { WorkflowHandle } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { BalancedPool, Pool } from 'undici';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createApiKey } from '../../domain/auth/api-keys';
import { registerUser } from '../../domain/auth/users';
import { closePrisma } from '../../domain/db/prisma';
import { getPool } from '../../domain/db/pool';
import { REPO_ROOT } from '../../domain/platform/config';
import { findTemporalCli } from '../../domain/temporal/binaries';
import { ALL_SEARCH_ATTRIBUTES, SA } from '../../domain/temporal/search-attributes';
import { childPids, drive, freePort, installQuietTemporalRuntime, percentile, processCpuMs, report, waitForHealth, withBenchDatabase, type Run } from './common';

// 16 concurrent clients: the load the README's figures and the latency target are stated for.
const CONCURRENCY = Number.parseInt(process.env.BENCH_CONCURRENCY ?? '16', 10);
const SECONDS = Number.parseInt(process.env.BENCH_SECONDS ?? '10', 10);
const ACCOUNTS = Number.parseInt(process.env.BENCH_ACCOUNTS ?? '50', 10);
const WORKFLOWS = Number.parseInt(process.env.BENCH_WORKFLOWS ?? '1000', 10);
const SLICES = Math.max(1, Number.parseInt(process.env.BENCH_SLICES ?? '5', 10));
// Scale-out on one machine: API processes (the load spread over them) and worker processes.
const APIS = Math.max(1, Number.parseInt(process.env.BENCH_APIS ?? '1', 10));
const WORKERS = Math.max(1, Number.parseInt(process.env.BENCH_WORKERS ?? '1', 10));

function spawnTsx(script: string, env: Record<string, string>, index = 0): ChildProcess {
  // node itself runs the script (tsx as a loader): signals reach the process, no wrapper is left behind.
  // BENCH_CPU_PROF=<dir>: V8 CPU profiles of the API and worker processes (written when they exit).
  // BENCH_NODE_FLAGS: more flags for both (e.g. --trace-gc-nvp); BENCH_CHILD_OUT=<prefix>: their
  // stdout, where V8 traces go, to <prefix>.api / <prefix>.worker (.api.1, … past the first) instead of nowhere.
  const prof = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  const flags = process.env.BENCH_NODE_FLAGS?.split(' ').filter(Boolean) ?? [];
  const out = process.env.BENCH_CHILD_OUT ? openSync(`${process.env.BENCH_CHILD_OUT}.${path.basename(path.dirname(script))}${index ? `.${index}` : ''}`, 'w') : 'ignore';
  const child = spawn(process.execPath, [...prof, ...flags, '--import', 'tsx', script], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', out, 'inherit'],
  });
  if (typeof out === 'number') closeSync(out); // the child has its own copy
  return child;
}

export async function benchTransfers(): Promise<void> {
  await installQuietTemporalRuntime();
  const cli = findTemporalCli();
  if (!cli) throw new Error('Temporal CLI not found (npm ci installs it)');
  const temporal = await TestWorkflowEnvironment.createLocal({
    server: { executable: { type: 'existing-path', path: cli }, searchAttributes: ALL_SEARCH_ATTRIBUTES, log: { format: 'json', level: 'error' },
      // BENCH_TEMPORAL_ARGS: more dev-server flags, e.g. '--dynamic-config-value system.enableActivityEagerExecution=true'.
      extraArgs: (process.env.BENCH_TEMPORAL_ARGS ?? '').split(' ').filter(Boolean) },
  });
  const children: ChildProcess[] = [];
  try {
    await withBenchDatabase(async (url) => {
      const ports: number[] = [];
      for (let i = 0; i < APIS; i++) ports.push(await freePort());
      const port = ports[0];
      const env = {
        DATABASE_URL: url,
        TEMPORAL_ADDRESS: temporal.address,
        TEMPORAL_TASK_QUEUE: 'bench',
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        DB_POOL_MAX: '20',
        RATE_LIMIT_PER_MINUTE: '1000000000',
        RATE_LIMIT_PER_HOUR: '1000000000',
        TRANSFER_REVIEW_THRESHOLD_USD: '1000000000',
        TRANSFER_DAILY_LIMIT_USD: '1000000000000',
        JWT_SECRET: 'bench-secret-bench-secret-bench-secret',
      };
      const bases = ports.map((p) => `http://127.0.0.1:${p}`);
      const base = bases[0];
      for (const [i, p] of ports.entries()) children.push(spawnTsx('api/main.ts', { ...env, PORT: String(p) }, i));
      for (const b of bases) await waitForHealth(b);
      if (APIS > 1 || WORKERS > 1) console.log(`scale-out: ${APIS} API processes (requests spread over them), ${WORKERS} worker processes`);

      const user = await registerUser('Bench', `bench-${port}@bench.test`, 'bench-password-123');
      const { value } = await createApiKey({ userId: user!.id, name: 'bench', environment: 'sandbox', permissions: ['read', 'write'] });
      const headers = { authorization: `Bearer ${value}`, 'content-type': 'application/json' };
      // undici's Pool (keep-alive connections, one per client) rather than node:http or fetch: the
      // load generator shares the two cores with the API and PostgreSQL, and node:http costs it about
      // twice the CPU per request (fetch four times).
      const clients = APIS > 1 ? new BalancedPool(bases, { connections: Math.ceil(CONCURRENCY / APIS), pipelining: 1 }) : new Pool(base, { connections: CONCURRENCY, pipelining: 1 });
      const call = async (p: string, body: unknown) => {
        const res = await clients.request({ path: p, method: 'POST', headers, body: JSON.stringify(body) });
        const text = await res.body.text();
        if (res.statusCode !== 201) throw new Error(`${p}: ${res.statusCode} ${text}`);
        return JSON.parse(text) as { data: Record<string, unknown> };
      };
      const accounts: string[] = [];
      for (let i = 0; i < ACCOUNTS; i++) {
        const a = await call('/api/v2/accounts', { name: `bench ${i}` });
        accounts.push(a.data.uuid as string);
        await call(`/api/v2/accounts/${a.data.uuid}/deposit`, { amount: '1000000000.00', asset_code: 'USD' });
      }
      // Random distinct pairs: customers pay each other independently.
      const pair = (_i: number) => {
        const a = Math.floor(Math.random() * ACCOUNTS);
        const b = (a + 1 + Math.floor(Math.random() * (ACCOUNTS - 1))) % ACCOUNTS;
        return { from_account: accounts[a], to_account: accounts[b] };
      };
      const syncTransfer = async (i: number) => {
        await call('/api/v2/transfers', { ...pair(i), amount: '10.00', asset_code: 'USD', workflow_enabled: false });
      };

      const pool = getPool();
      // Where the CPU goes (per process): the Temporal server, our API and worker, PostgreSQL.
      const dbName = new URL(url).pathname.slice(1);
      const pgDelta = (a: Map<number, number>, b: Map<number, number>) => [...b].reduce((t, [pid, ms]) => t + ms - (a.get(pid) ?? 0), 0);
      const cpuShares = async () => {
        const { rows: backends } = await pool.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1', [dbName]);
        const kids = childPids();
        const pick = (re: RegExp) => kids.filter((k) => re.test(k.command)).reduce((t, k) => t + processCpuMs(k.pid), 0);
        return {
          temporal: pick(/temporal/),
          api: pick(/api\/main\.ts/),
          worker: pick(/worker\/main\.ts/),
          // Per backend: a connection that closes between two readings takes its CPU with it, so
          // deltas are summed over the backends alive at the later reading (see pgDelta).
          postgres: new Map(backends.map((b) => [b.pid, processCpuMs(b.pid)])),
        };
      };
      // Yardstick: the same machine's rate for a bare single-row UPDATE transaction via pg.
      await pool.query('CREATE TABLE bench_counter (id integer PRIMARY KEY, n bigint NOT NULL DEFAULT 0)');
      await pool.query('INSERT INTO bench_counter (id) SELECT generate_series(0, $1::int - 1)', [ACCOUNTS]);
      const bare = async (i: number) => {
        const c = await pool.connect();
        try {
          await c.query('BEGIN');
          await c.query('UPDATE bench_counter SET n = n + 1 WHERE id = $1', [i % ACCOUNTS]);
          await c.query('COMMIT');
        } finally {
          c.release();
        }
      };
      console.log(`transfers bench: API and worker as separate processes, ${ACCOUNTS} accounts, concurrency ${CONCURRENCY}, ${SECONDS} s`);
      await drive(CONCURRENCY, 2, syncTransfer); // warm-up (JIT, pool, caches)
      await drive(20, 1, bare);
      // The two are measured in alternating slices (SLICES of each, SECONDS in all for each): this
      // machine's speed drifts by 20-40 % within a minute, and measured one after the other the ratio
      // read the drift as much as the code.
      const sync: Run = { ops: 0, seconds: 0, latenciesMs: [] };
      const yard: Run = { ops: 0, seconds: 0, latenciesMs: [] };
      const add = (into: Run, r: Run) => {
        into.ops += r.ops;
        into.seconds += r.seconds;
        for (const l of r.latenciesMs) into.latenciesMs.push(l);
      };
      let syncCpu = { api: 0, postgres: 0, self: 0 };
      for (let s = 0; s < SLICES; s++) {
        const s0 = { ...(await cpuShares()), self: process.cpuUsage() };
        add(sync, await drive(CONCURRENCY, SECONDS / SLICES, syncTransfer));
        const s1 = await cpuShares();
        const self = process.cpuUsage(s0.self);
        syncCpu = {
          api: syncCpu.api + s1.api - s0.api,
          postgres: syncCpu.postgres + pgDelta(s0.postgres, s1.postgres),
          self: syncCpu.self + (self.user + self.system) / 1000,
        };
        add(yard, await drive(20, SECONDS / SLICES, bare));
      }
      const syncRate = report('HTTP sync transfer (POST /api/v2/transfers)', sync);
      const per = (ms: number) => (ms / Math.max(1, sync.ops)).toFixed(2);
      console.log(`CPU per sync transfer: api ${per(syncCpu.api)} ms, postgres ${per(syncCpu.postgres)} ms, load generator (this process) ${per(syncCpu.self)} ms`);
      const bareRate = report('bare single-row UPDATE transaction (pg)', yard);
      const syncP99 = percentile([...sync.latenciesMs].sort((a, b) => a - b), 99);
      // Issue 24's target: a quarter of the yardstick, p99 within 25 ms at 16 clients.
      const ratio = syncRate / bareRate;
      console.log(
        `sync transfers / bare UPDATE: ${ratio.toFixed(2)} (target ≥ 0.25: ${ratio >= 0.25 ? 'met' : 'not met'}); p99 ${syncP99.toFixed(1)} ms (target ≤ 25 ms: ${syncP99 <= 25 ? 'met' : 'not met'})`,
      );

      // Workflow path: start WORKFLOWS transfers, then measure until every one has finished.
      for (let i = 0; i < WORKERS; i++) children.push(spawnTsx('worker/main.ts', env, i));
      // The worker's outbox dispatcher first publishes the synchronous phase's backlog, so that this
      // phase measures workflow transfers (and their own events), not the catch-up.
      // That catch-up is also the relay's rate: timed from its first published event to the last.
      const unpublished = async () => (await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM outbox_events WHERE published_at IS NULL')).rows[0].n;
      const backlog = await unpublished();
      let relayFrom: { at: number; left: number } | null = null;
      for (let waited = 0; waited < 300_000; waited += 200) {
        const left = await unpublished();
        if (!relayFrom && left < backlog) relayFrom = { at: Date.now(), left };
        if (left === 0) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      if (relayFrom && relayFrom.left > 0) {
        const s = (Date.now() - relayFrom.at) / 1000;
        console.log(`outbox relay: ${relayFrom.left} events in ${s.toFixed(1)} s = ${(relayFrom.left / s).toFixed(0)} events/s (${WORKERS} worker process${WORKERS > 1 ? 'es' : ''}; the immediate phase's backlog of ${backlog})`);
      }
      // Warm-up: one workflow transfer end to end, so the worker has started (bundled its workflows)
      // before the clock and the CPU counters start.
      const warm = await call('/api/v2/transfers', { ...pair(0), amount: '10.00', asset_code: 'USD', workflow_enabled: true });
      for (;;) {
        const { rows: w } = await pool.query<{ status: string }>('SELECT status FROM transfers WHERE id = $1', [warm.data.uuid]);
        if (w[0]?.status === 'completed' || w[0]?.status === 'failed') break;
        await new Promise((r) => setTimeout(r, 100));
      }
      const cpu0 = await cpuShares();
      // WAL written over the run (the whole server: this run's database is the only busy one), per transfer.
      const walLsn = async () => (await pool.query<{ lsn: string }>('SELECT pg_current_wal_insert_lsn()::text AS lsn')).rows[0].lsn;
      const wal0 = await walLsn();
      const started = Date.now();
      const ids: string[] = [];
      let next = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < WORKFLOWS) {
            const i = next++;
            const r = await call('/api/v2/transfers', { ...pair(i), amount: '10.00', asset_code: 'USD', workflow_enabled: true });
            ids.push(r.data.uuid as string);
          }
        }),
      );
      for (;;) {
        const { rows } = await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM transfers WHERE workflow_id IS NOT NULL AND status IN ('completed', 'failed')`);
        if (rows[0].n >= ids.length + 1) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      const seconds = (Date.now() - started) / 1000;
      const { rows } = await pool.query<{ status: string; n: number }>(
        `SELECT status, count(*)::int AS n FROM transfers WHERE workflow_id IS NOT NULL GROUP BY status`,
      );
      console.log(
        `${'workflow transfers completed'.padEnd(40)} ${(ids.length / seconds).toFixed(0).padStart(7)} /s   (${ids.length} in ${seconds.toFixed(1)} s; ${rows.map((r) => `${r.status} ${r.n}`).join(', ')})`,
      );
      // Request to completed, from the transfers' own timestamps (created in the API's transaction, completed in the post's).
      const lat = await pool.query<{ p50: number; p99: number }>(
        `SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS p50, percentile_cont(0.99) WITHIN GROUP (ORDER BY ms) AS p99
           FROM (SELECT extract(epoch FROM completed_at - created_at) * 1000 AS ms FROM transfers WHERE id = ANY($1::text[]) AND completed_at IS NOT NULL) t`,
        [ids],
      );
      console.log(`workflow transfer, request to completed: p50 ${Number(lat.rows[0].p50).toFixed(0)} ms, p99 ${Number(lat.rows[0].p99).toFixed(0)} ms`);
      const cpu1 = await cpuShares();
      const cpuLine = [
        ...(['temporal', 'api', 'worker'] as const).map((k) => `${k} ${((cpu1[k] - cpu0[k]) / Math.max(1, ids.length)).toFixed(2)} ms`),
        `postgres ${(pgDelta(cpu0.postgres, cpu1.postgres) / Math.max(1, ids.length)).toFixed(2)} ms`,
      ].join(', ');
      if (ids.length > 0) console.log(`CPU per workflow transfer: ${cpuLine} (PostgreSQL: this database's backends)`);
      const wal = await pool.query<{ bytes: string }>('SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), $1) AS bytes', [wal0]);
      if (ids.length > 0) console.log(`WAL per workflow transfer: ${(Number(wal.rows[0].bytes) / ids.length / 1024).toFixed(1)} KiB (the PostgreSQL server's WAL over the run)`);
      // Yardstick: the same number of workflows of the same shape with activities that do nothing.
      const yardWorker = await Worker.create({
        connection: await NativeConnection.connect({ address: temporal.address }),
        taskQueue: 'bench-yardstick',
        workflowsPath: path.join(REPO_ROOT, 'scripts/bench/noop-workflow.ts'),
        activities: { async noop() {} },
        maxConcurrentActivityTaskExecutions: 100,
      });
      const yardRun = yardWorker.run();
      // History events per workflow transfer (one finished run), the figure a production cluster persists.
      const sample = await temporal.client.workflow.getHandle(`transfer-${ids[0]}`).fetchHistory().catch(() => undefined);
      if (sample) console.log(`history events per workflow transfer: ${sample.events?.length ?? 0}`);
      for (const [shape, label] of [
        ['noopTransferShape', 'no-op workflows of the old shape (4 activities)'],
        ['noopTransferSingleActivity', 'no-op workflows of the one-activity shape'],
        ['noopTransferLocalActivity', 'no-op workflows of the current shape (local activity)'],
      ] as const) {
        const yCpu0 = { temporal: (await cpuShares()).temporal, self: process.cpuUsage() };
        const y0 = Date.now();
        const handles: WorkflowHandle[] = [];
        let k = 0;
        await Promise.all(
          Array.from({ length: CONCURRENCY }, async () => {
            while (k < ids.length) {
              const i = k++;
              handles.push(
                await temporal.client.workflow.start(shape, {
                  taskQueue: 'bench-yardstick',
                  workflowId: `yard-${shape}-${i}`,
                  // The same search attributes a transfer starts with (domain/temporal/start.ts).
                  typedSearchAttributes: [
                    { key: SA.transferId, value: `txfr_yard_${i}` },
                    { key: SA.accountIds, value: [accounts[0], accounts[1]] },
                    { key: SA.assetCode, value: 'USD' },
                    { key: SA.amount, value: '10.00' },
                    { key: SA.businessStatus, value: 'pending' },
                    { key: SA.environment, value: 'sandbox' },
                    { key: SA.userId, value: user!.id },
                  ],
                }),
              );
            }
          }),
        );
        await Promise.all(handles.map((h) => h.result()));
        const ys = (Date.now() - y0) / 1000;
        const ySelf = process.cpuUsage(yCpu0.self);
        const yTemporal = (await cpuShares()).temporal - yCpu0.temporal;
        const events = (await handles[0]?.fetchHistory())?.events?.length ?? 0;
        if (ids.length > 0) console.log(
          `CPU per ${label}: temporal ${(yTemporal / Math.max(1, ids.length)).toFixed(2)} ms, worker (this process, incl. starting them) ${((ySelf.user + ySelf.system) / 1000 / Math.max(1, ids.length)).toFixed(2)} ms; ${events} history events`,
        );
        console.log(`${label.padEnd(40)} ${(ids.length / ys).toFixed(0).padStart(7)} /s   (${ids.length} in ${ys.toFixed(1)} s: the Temporal server's rate here)`);
      }
      yardWorker.shutdown();
      await yardRun;

      const tb = await pool.query<{ balanced: boolean }>(
        `SELECT bool_and(d = c) AS balanced FROM (SELECT asset_code, sum(debits_posted) d, sum(credits_posted) c FROM ledger_accounts GROUP BY asset_code) t`,
      );
      console.log(`ledger balanced after the run: ${tb.rows[0].balanced}`);
      await clients.close();
      for (const c of children) c.kill('SIGTERM');
      await Promise.all(children.map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.once('exit', r)))));
      await closePrisma();
    }, 20);
  } finally {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    await temporal.teardown();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  benchTransfers().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
