// The chaos test's slice in `npm test` (docs/operations.md "Chaos test"): scripts/chaos/run.ts in a
// child process with its own database, Temporal dev server and nats-server, the API and the worker
// as its children. While 50 transfers (plus swaps and rail payments) run for 20 s, the worker is
// killed on a clock (every 6 s, so at least three kills whatever the worker's start-up time), the
// API and NATS are restarted once and a PostgreSQL connection is terminated; afterwards money,
// workflows and events must be exactly right. CI also runs the bounded form (600 transfers, kills
// 10 s after each worker starts polling) as its own step: `npm run chaos -- --transfers 600`.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, inject } from 'vitest';
import { runBundleFile } from '../helpers/worker';
import { REPO_ROOT } from '../../domain/platform/config';

const TRANSFERS = process.env.CHAOS_TEST_TRANSFERS ?? '50';
const SLICE = ['--duration', '20', '--kill-mode', 'clock', '--kill-every', '6'];

function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  // The run makes its own database, stream and Temporal; nothing of this test process's carries over.
  for (const k of Object.keys(env)) if (k.startsWith('VITEST') || k === 'NODE_ENV' || k === 'DATABASE_URL' || k.startsWith('EVENTS_') || k.startsWith('TEMPORAL_')) delete env[k];
  // The suite's PostgreSQL server (embedded or TEST_DATABASE_URL): the run creates its database there.
  env.CHAOS_DATABASE_URL ??= inject('adminDatabaseUrl');
  // The run's workflow bundle (built once by the global setup), not a second webpack build.
  env.WORKFLOW_BUNDLE_PATH = runBundleFile();
  // A killed worker's workflows move to its successor after 2 s rather than the default 10 s (the
  // sticky queue's timeout): the same faults, less time waiting out each kill. CI's bounded run keeps 10 s.
  env.WORKER_STICKY_TIMEOUT_MS ??= '2000';
  return env;
}

describe('chaos (bounded)', () => {
  it(
    `${TRANSFERS} transfers with swaps and rail payments under worker kills, an API restart, a NATS restart and a killed PostgreSQL connection`,
    async () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'chaos-test-'));
      const out = path.join(dir, 'report.json');
      const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/chaos/run.ts', '--transfers', TRANSFERS, ...SLICE, '--out', out], {
        cwd: REPO_ROOT,
        env: childEnv(),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      const keep = (d: Buffer) => {
        output = (output + d.toString('utf8')).slice(-20_000);
      };
      child.stdout!.on('data', keep);
      child.stderr!.on('data', keep);
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      try {
        const code = await exited;
        expect(existsSync(out), `no report; the run's output:\n${output}`).toBe(true);
        const report = JSON.parse(readFileSync(out, 'utf8'));
        expect(report.violations, `the run's output:\n${output.slice(-8000)}`).toEqual([]);
        expect(code).toBe(0);
        expect(report.settle.settled).toBe(true);
        expect(report.faults.workerKills).toBeGreaterThanOrEqual(3);
        expect(report.faults.apiRestarts).toBe(1);
        expect(report.faults.natsRestarts).toBe(1);
        expect(report.faults.pgConnectionsKilled).toBe(1);
        expect(report.load.transfersDone + report.load.transfersRefused).toBe(Number(TRANSFERS));
      } finally {
        if (child.exitCode === null && child.signalCode === null) {
          // A timed-out run still stops its processes and servers and drops its database (its SIGINT handler).
          child.kill('SIGINT');
          await Promise.race([exited, new Promise((r) => setTimeout(r, 40_000))]);
          if (child.exitCode === null) child.kill('SIGKILL');
        }
        rmSync(dir, { recursive: true, force: true });
      }
    },
    8 * 60_000,
  );
});
