// The chaos test: money under chaos (docs/operations.md "Chaos test").
//
//   npm run chaos                       # full size: 10,000 transfers
//   npm run chaos -- --transfers 600    # bounded (tests/chaos/chaos.test.ts)
//
// Its own database, Temporal dev server and nats-server; the API and the worker as child
// processes. While transfers (half immediate, half workflow), swaps and rail payments run from
// 16 clients, the worker is SIGKILLed every 10 s (and started again at once), the API is
// restarted once, NATS once, and one PostgreSQL connection of the platform is terminated. Then
// everything must settle and the money, workflow and event invariants hold. Exit 1 on any
// violation; the figures go to .data/chaos/last-run.json (or --out).
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { percentile } from '../bench/common';
import { ApiClient, startReceiver, type Receiver } from './client';
import { connectBroker, consumerFigures, describePending, settle, verify, type Broker } from './checks';
import { CHAOS_DIR, elapsed, log, PlatformProcess, sleep, startInfra, type Infra } from './infra';
import { DEFAULT_WEBHOOK_EVENTS, runLoad, setUp, type LoadResult } from './load';

interface Options {
  transfers: number;
  seconds: number;
  concurrency: number;
  killEvery: number;
  killMode: 'uptime' | 'clock';
  settleTimeout: number;
  out: string;
  keepDb: boolean;
  webhookEvents: string[];
}

function parseArgs(argv: string[]): Options {
  const get = (name: string) => {
    const i = argv.indexOf(`--${name}`);
    if (i >= 0) return argv[i + 1];
    const eq = argv.find((a) => a.startsWith(`--${name}=`));
    return eq?.slice(name.length + 3);
  };
  const num = (name: string, fallback: number) => {
    const v = get(name);
    if (v === undefined) return fallback;
    const n = Number(v);
    if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number, got ${v}`);
    return n;
  };
  const transfers = Math.round(num('transfers', 10_000));
  return {
    transfers,
    // Paced: the worker kills, the restarts and the connection kill all land while the load runs.
    seconds: num('duration', Math.max(60, Math.round(transfers / 25))),
    concurrency: Math.round(num('concurrency', 16)),
    killEvery: num('kill-every', 10),
    killMode: get('kill-mode') === 'clock' ? 'clock' : 'uptime',
    settleTimeout: num('settle-timeout', transfers >= 5000 ? 1500 : 180),
    out: get('out') ?? path.join(CHAOS_DIR, 'last-run.json'),
    keepDb: argv.includes('--keep-db'),
    webhookEvents: get('webhook-events')?.split(',').map((x) => x.trim()).filter(Boolean) ?? DEFAULT_WEBHOOK_EVENTS,
  };
}

interface Fault {
  at: string;
  t: number;
  kind: 'worker-kill' | 'api-restart' | 'nats-restart' | 'pg-kill';
  detail: string;
}

async function waitForApi(base: string, proc: PlatformProcess, timeoutMs = 120_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (!proc.running) throw new Error(`the API exited during start-up (see ${proc.name}'s log)`);
    try {
      if ((await fetch(`${base}/api/health`, { signal: AbortSignal.timeout(2000) })).ok) return;
    } catch {
      /* not up yet */
    }
    await sleep(200);
  }
  throw new Error(`the API on ${base} did not answer /api/health within ${timeoutMs / 1000} s`);
}

async function waitForWorker(w: PlatformProcess, timeoutMs = 180_000): Promise<number> {
  const until = Date.now() + timeoutMs;
  while (w.readyAt === null) {
    if (Date.now() > until) throw new Error(`the worker did not start polling within ${timeoutMs / 1000} s (see ${w.name}'s log)`);
    if (!w.running) throw new Error('the worker exited during start-up (see its log)');
    await sleep(100);
  }
  return (w.readyAt - w.startedAt) / 1000;
}

/** What an interrupted run (Ctrl-C, a test's timeout) must still do: stop its processes and servers, drop its database. */
let onInterrupt: (() => Promise<void>) | undefined;

export async function main(argv = process.argv.slice(2)): Promise<number> {
  const o = parseArgs(argv);
  mkdirSync(CHAOS_DIR, { recursive: true });
  log(
    `chaos: ${o.transfers} transfers + ~2% swaps + ~2% rail payments over ~${o.seconds} s from ${o.concurrency} clients; ` +
      `worker SIGKILL ${o.killMode === 'clock' ? `every ${o.killEvery} s` : `${o.killEvery} s after it starts polling (every 4th during start-up)`}`,
  );
  const infra: Infra = await startInfra();
  const procs: PlatformProcess[] = [];
  const killAll = () => {
    for (const p of procs) {
      p.restartOnCrash = false;
      p.child?.kill('SIGKILL');
    }
  };
  process.on('exit', killAll);
  let cleaned: Promise<void> | undefined;
  let receiver: Receiver | undefined;
  let broker: Broker | undefined;
  let db: pg.Client | undefined;
  const api = new ApiClient(infra.base);
  const faults: Fault[] = [];
  onInterrupt = cleanup;
  const fault = (kind: Fault['kind'], detail: string) => {
    faults.push({ at: new Date().toISOString(), t: Number(elapsed().toFixed(1)), kind, detail });
    log(`FAULT ${kind}: ${detail}`);
  };
  try {
    receiver = await startReceiver();
    const apiProc = new PlatformProcess('api', 'api/main.ts', infra.env, path.join(infra.logDir, 'api.log'));
    const worker = new PlatformProcess('worker', 'worker/main.ts', infra.env, path.join(infra.logDir, 'worker.log'), /worker polling task queue/);
    procs.push(apiProc, worker);
    apiProc.start();
    await waitForApi(infra.base, apiProc);
    log(`API up on ${infra.base}`);
    worker.start();
    const firstStartup = await waitForWorker(worker);
    log(`worker polling after ${firstStartup.toFixed(1)} s`);
    const setup = await setUp(api, receiver.url, o.webhookEvents);
    log(`set-up: user ${setup.userId}, ${setup.accounts.length} hot accounts with ${setup.deposited} USD, webhook ${setup.webhookId} -> ${receiver.url} for ${setup.webhookEvents.join(', ')}`);

    db = new pg.Client({ connectionString: infra.databaseUrl });
    await db.connect();
    const ownPid = (await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;

    // The load, and the faults while it runs.
    let loadDone = false;
    const loadStart = Date.now();
    const readyTimes: number[] = [];
    const loadPromise = runLoad(api, setup, {
      transfers: o.transfers,
      seconds: o.seconds,
      concurrency: o.concurrency,
      onProgress: (done, total) =>
        log(`load: ${done}/${total} answered; worker ${worker.readyAt ? 'polling' : 'starting'}; API ${apiProc.running ? 'up' : 'down'}; retries: ${JSON.stringify(api.stats)}`),
    }).finally(() => {
      loadDone = true;
    });
    const at = async (seconds: number, fn: () => Promise<void>) => {
      const due = loadStart + seconds * 1000;
      while (!loadDone && Date.now() < due) await sleep(100);
      // A fault not reached before the load ended (it ran faster than planned) still happens once.
      await fn();
    };
    // uptime (default): a worker is killed killEvery seconds after it started polling, and every
    // 4th one 1-5 s after its start, during start-up (migrations, schedules, workflow bundling).
    // The worker needs 5-12 s to start on 2 busy cores: on a plain 10 s clock (--kill-mode clock)
    // most workers would die before polling and the load would run with no worker at all.
    const workerKiller = (async () => {
      for (let n = 1; ; n++) {
        const clockDue = Date.now() + o.killEvery * 1000;
        const startupKillMs = 1000 + Math.random() * 4000;
        const due = () => {
          if (o.killMode === 'clock') return Date.now() >= clockDue;
          if (n % 4 === 0) return Date.now() >= worker.startedAt + startupKillMs;
          return worker.readyAt !== null && Date.now() >= worker.readyAt + o.killEvery * 1000;
        };
        while (!loadDone && !due()) await sleep(100);
        if (loadDone) return;
        const wasReady = worker.readyAt;
        const since = ((Date.now() - (wasReady ?? worker.startedAt)) / 1000).toFixed(1);
        await worker.kill('SIGKILL');
        if (wasReady) readyTimes.push((wasReady - worker.startedAt) / 1000);
        worker.start();
        fault('worker-kill', `worker #${worker.starts - 1} SIGKILLed (${wasReady ? `polling for ${since} s` : `still starting, ${since} s after its start`}); worker #${worker.starts} started`);
      }
    })();
    const pgKill = at(o.seconds * 0.25, async () => {
      const { rows } = await db!.query<{ pid: number; application_name: string; state: string; query: string }>(
        `SELECT pid, application_name, state, left(regexp_replace(query, '\\s+', ' ', 'g'), 80) AS query FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> $1 AND backend_type = 'client backend'
          ORDER BY (state = 'active') DESC, (state LIKE 'idle in transaction%') DESC, random() LIMIT 1`,
        [ownPid],
      );
      if (!rows[0]) {
        fault('pg-kill', 'no platform connection to terminate (none open)');
        return;
      }
      const r = rows[0];
      const { rows: ok } = await db!.query<{ ok: boolean }>('SELECT pg_terminate_backend($1) AS ok', [r.pid]);
      fault('pg-kill', `pg_terminate_backend(${r.pid}) = ${ok[0].ok}: ${r.state} connection${r.application_name ? ` (${r.application_name})` : ''}, last query: ${r.query}`);
    });
    const apiRestart = at(o.seconds * 0.45, async () => {
      const t = Date.now();
      await apiProc.kill('SIGKILL');
      apiProc.start();
      fault('api-restart', 'API SIGKILLed and started again');
      await waitForApi(infra.base, apiProc);
      log(`API answering again after ${((Date.now() - t) / 1000).toFixed(1)} s`);
    });
    const natsRestart = at(o.seconds * 0.65, async () => {
      const t = Date.now();
      const old = infra.nats;
      infra.nats = await old.restart();
      fault('nats-restart', `nats-server stopped and started again on ${infra.nats.url} with the same store (${((Date.now() - t) / 1000).toFixed(1)} s)`);
    });
    const load: LoadResult = await loadPromise;
    await Promise.all([workerKiller, pgKill, apiRestart, natsRestart]);
    log(`load finished in ${load.seconds.toFixed(1)} s`);

    // Settle: the worker runs on undisturbed.
    if (!worker.running) worker.start();
    broker = await connectBroker(infra.nats.url, infra.stream);
    const settleStart = Date.now();
    const s = await settle(db, infra.temporal.client, broker, infra.env.TEMPORAL_TASK_QUEUE, o.settleTimeout);
    const settleSeconds = (Date.now() - settleStart) / 1000;
    const violations: string[] = [];
    for (const p of procs) for (const c of p.crashes) violations.push(`crash: the ${p.name} process died by itself at ${c.at} (${c.exit}): ${c.stderr.replace(/\n\s*/g, ' | ')}`);
    let figures: Record<string, unknown> = {};
    if (!s.settled) {
      violations.push(`did not settle within ${o.settleTimeout} s: ${s.last ? describePending(s.last) : 'no state read'}`);
      log(violations[0]);
    } else {
      log(`settled in ${settleSeconds.toFixed(1)} s`);
    }
    // The checks run even when it did not settle: they say what is wrong.
    const checked = await verify({ db, databaseUrl: infra.databaseUrl, client: infra.temporal.client, broker, taskQueue: infra.env.TEMPORAL_TASK_QUEUE, api, setup, load, receiver });
    violations.push(...checked.violations);
    figures = checked.figures;

    const sorted = [...load.latenciesMs].sort((a, b) => a - b);
    const kinds = Object.fromEntries(
      Object.entries(load.byKind).map(([k, f]) => [k, { sent: f.sent, done: f.done, refused: f.refused, unanswered: f.unanswered, retried: f.retried }]),
    );
    const answered = Object.values(load.byKind).reduce((t, f) => t + f.done + Object.values(f.refused).reduce((a, b) => a + b, 0), 0);
    const count = (k: Fault['kind']) => faults.filter((f) => f.kind === k).length;
    const report = {
      ok: violations.length === 0,
      finishedAt: new Date().toISOString(),
      options: { webhookEvents: o.webhookEvents, transfers: o.transfers, durationSeconds: o.seconds, concurrency: o.concurrency, killEverySeconds: o.killEvery, killMode: o.killMode },
      load: {
        seconds: Number(load.seconds.toFixed(1)),
        requestsPerSecond: Number((answered / load.seconds).toFixed(1)),
        latencyMs: { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted[sorted.length - 1] ?? 0 },
        kinds,
        transfersDone: load.byKind.immediate.done + load.byKind.workflow.done,
        transfersRefused: [load.byKind.immediate, load.byKind.workflow].reduce((t, f) => t + Object.values(f.refused).reduce((a, b) => a + b, 0), 0),
        client: api.stats,
      },
      faults: {
        workerKills: count('worker-kill'),
        workerKillsWhilePolling: faults.filter((f) => f.kind === 'worker-kill' && f.detail.includes('polling for')).length,
        apiRestarts: count('api-restart'),
        crashes: Object.fromEntries(procs.map((p) => [p.name, p.crashes.length])),
        natsRestarts: count('nats-restart'),
        pgConnectionsKilled: count('pg-kill'),
        workerStartupSeconds: { first: Number(firstStartup.toFixed(1)), afterKills: readyTimes.map((x) => Number(x.toFixed(1))) },
        log: faults,
      },
      settle: { settled: s.settled, seconds: Number(settleSeconds.toFixed(1)) },
      redeliveries: {
        receiverDuplicates: figures.receiverDuplicates,
        consumersRedelivered: Object.fromEntries(((figures.consumers as Awaited<ReturnType<typeof consumerFigures>>) ?? []).map((c) => [c.name, c.redeliveries])),
      },
      figures,
      violations,
      logs: infra.logDir,
    };
    mkdirSync(path.dirname(o.out), { recursive: true });
    writeFileSync(o.out, JSON.stringify(report, null, 2));
    printReport(report);
    log(`report written to ${o.out}`);
    for (const p of procs) p.restartOnCrash = false;
    await apiProc.kill('SIGTERM');
    await worker.kill('SIGTERM');
    return violations.length === 0 ? 0 : 1;
  } finally {
    await cleanup();
  }

  async function cleanup(): Promise<void> {
    cleaned ??= (async () => {
      killAll();
      await Promise.all(procs.map((p) => p.kill('SIGKILL')));
      for (const p of procs) p.close();
      api.close();
      await receiver?.close().catch(() => undefined);
      await broker?.close().catch(() => undefined);
      await db?.end().catch(() => undefined);
      await infra.teardown(o.keepDb).catch((err) => log(`teardown failed: ${(err as Error).message}`));
      process.off('exit', killAll);
    })();
    return cleaned;
  }
}

function printReport(r: any): void {
  const k = r.load.kinds;
  const line = (name: string, f: any) =>
    `  ${name.padEnd(10)} sent ${f.sent}, done ${f.done}, refused ${Object.values(f.refused as Record<string, number>).reduce((a, b) => a + b, 0)}${Object.keys(f.refused).length ? ` ${JSON.stringify(f.refused)}` : ''}, unanswered ${f.unanswered}, retried ${f.retried}`;
  console.log('\n=== chaos report ===');
  console.log(`load: ${r.load.seconds} s, ${r.load.requestsPerSecond} answered writes/s, latency p50 ${r.load.latencyMs.p50} ms p99 ${r.load.latencyMs.p99} ms max ${r.load.latencyMs.max} ms`);
  for (const name of ['immediate', 'workflow', 'swap', 'rail']) console.log(line(name, k[name]));
  console.log(`  client: ${JSON.stringify(r.load.client)}`);
  console.log(
    `faults: worker kills ${r.faults.workerKills} (${r.faults.workerKillsWhilePolling} while polling), API restarts ${r.faults.apiRestarts}, NATS restarts ${r.faults.natsRestarts}, PG connections killed ${r.faults.pgConnectionsKilled}; worker start-up ${r.faults.workerStartupSeconds.first} s`,
  );
  console.log(`settle: ${r.settle.settled ? 'settled' : 'NOT settled'} in ${r.settle.seconds} s`);
  const f = r.figures;
  console.log(`transfers: ${(f.transferStates ?? []).join('; ')}`);
  console.log(`swaps: ${(f.swapStates ?? []).join('; ')}   rail payments: ${(f.railStates ?? []).join('; ')}`);
  console.log(`workflows: ${JSON.stringify(f.workflowsByStatus)} by type ${JSON.stringify(f.workflowsByType)}`);
  console.log(
    `events: ${f.eventsPublished} published, stream holds ${f.streamMessages}; receipts webhook-dispatcher ${f['receipts_webhook-dispatcher']}, dashboard-projector ${f['receipts_dashboard-projector']}; projector counted ${f.projectorEvents}`,
  );
  console.log(`webhooks: ${f.webhookEvents} events for the webhook, ${f.webhookDeliveries} deliveries, receiver got ${f.receiverDeliveries} (${f.receiverDuplicates} duplicates on the wire)`);
  console.log(`redeliveries: consumers ${JSON.stringify(r.redeliveries.consumersRedelivered)}`);
  console.log(`balances: hot accounts hold ${f.hotAccountsTotal}, expected ${f.expectedTotal}`);
  if (r.violations.length === 0) console.log('violations: none');
  else {
    console.log(`violations (${r.violations.length}):`);
    for (const v of r.violations.slice(0, 40)) console.log(`  - ${v}`);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.once(sig, () => {
      log(`${sig}: stopping`);
      const done = onInterrupt?.() ?? Promise.resolve();
      void Promise.race([done, sleep(30_000)]).finally(() => process.exit(130));
    });
  }
  main()
    .then((code) => process.exit(code))
    .catch((err) => {
      console.error(err);
      process.exit(1);
    });
}
