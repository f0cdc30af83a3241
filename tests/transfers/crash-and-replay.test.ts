
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { Worker } from '@temporalio/worker';
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { tmpdir } from 'node:os';
import { inject } from 'vitest';
import { findTemporalCli } from '../../domain/temporal/binaries';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPool } from '../../domain/db/pool';
import { REPO_ROOT } from '../../domain/platform/config';
import { getTemporalClient } from '../../domain/temporal/client';
import { createTestApp, createTestUser, type TestApp, type TestUser } from '../helpers/app';
import { runBundleFile, startTestWorker, type TestWorker } from '../helpers/worker';
import { balance, openFundedAccount, settled, waitForTransfer } from './helpers';

let t: TestApp;
let admin: TestUser;
const workers: TestWorker[] = [];
beforeAll(async () => {
  process.env.TRANSFER_REVIEW_THRESHOLD_USD = '5000';
  t = await createTestApp();
  admin = await createTestUser({ admin: true });
});
afterAll(async () => {
  for (const w of workers) await w.stop();
  await t.close();
});

/**
 * `npm run worker` as a separate process, so the test can kill it like a crash would. It runs the
 * run's workflow bundle (WORKFLOW_BUNDLE_PATH, as `npm run worker:bundle` makes one) rather than
 * bundling workflows/ again, and gives a dead worker's sticky queue up after 1 s instead of 10 s
 * (WORKER_STICKY_TIMEOUT_MS): the replacement worker takes the workflow's next task sooner.
 */
function spawnWorkerProcess(taskQueue: string): Promise<ChildProcess> {
  const bundle = runBundleFile();
  // node itself runs the worker (tsx as a loader), so SIGKILL kills the worker and not a wrapper.
  const child = spawn(process.execPath, ['--import', 'tsx', 'worker/main.ts'], {
    cwd: REPO_ROOT,
    // The run's dev server is shared: the ACH schedules belong to tests/rails/ach-schedule.test.ts.
    // The run's shared Temporal server: the schedules are other tests' to create.
    env: {
      ...process.env,
      TEMPORAL_TASK_QUEUE: taskQueue,
      ACH_SCHEDULES_MANAGED: 'false',
      BASKET_SCHEDULES_MANAGED: 'false',
      MIFID_SCHEDULE_MANAGED: 'false',
      WORKFLOW_BUNDLE_PATH: bundle,
      WORKER_STICKY_TIMEOUT_MS: '1000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (d: Buffer) => {
      out += d.toString();
      if (out.includes('worker polling')) resolve(child);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (d) => (out += d.toString()));
    child.on('exit', (code) => reject(new Error(`worker exited (${code}): ${out}`)));
    setTimeout(() => reject(new Error(`worker did not start: ${out}`)), 60_000);
  });
}

describe('worker crash', () => {
  it('a worker killed after the reserve is replaced and the transfer completes exactly once', async () => {
    const queue = `crash-${randomBytes(4).toString('hex')}`;
    const child = await spawnWorkerProcess(queue);
    process.env.TEMPORAL_TASK_QUEUE = queue;
    const from = await openFundedAccount(t, t.headers, '8000.00');
    const to = await openFundedAccount(t, t.headers, '0');
    const r = await t.app.inject({
      method: 'POST',
      url: '/api/v2/transfers',
      headers: t.headers,
      payload: { from_account: from, to_account: to, amount: '6000.00', asset_code: 'USD' },
    });
    const id = r.json().data.uuid;
    await waitForTransfer(t, t.headers, id, (s) => s === 'pending_review', 60_000);
    expect((await balance(t, t.headers, from)).reserved_balance).toBe('6005.00');

    child.kill('SIGKILL');
    await new Promise((res) => child.once('exit', res));
    expect(() => process.kill(child.pid!, 0)).toThrow(); // really gone, no orphan polling on
    workers.push(await startTestWorker(queue));
    await t.app.inject({ method: 'POST', url: `/api/v2/transfers/${id}/review`, headers: admin.headers, payload: { decision: 'approve' } });
    const done = await waitForTransfer(t, t.headers, id, settled, 30_000);
    expect(done.status).toBe('completed');

    expect(await balance(t, t.headers, from)).toMatchObject({ total_balance: '1995.00', reserved_balance: '0.00' });
    expect(await balance(t, t.headers, to)).toMatchObject({ total_balance: '6000.00' });
    const entries = await getPool().query(`SELECT id, status FROM journal_entries WHERE idempotency_key LIKE $1`, [`wf:transfer-${id}:%`]);
    expect(entries.rows).toHaveLength(1);
    expect(entries.rows[0].status).toBe('posted');
    const completed = await getPool().query(`SELECT count(*)::int AS n FROM platform_events WHERE aggregate_id = $1 AND type = 'transfer.completed'`, [id]);
    expect(completed.rows[0].n).toBe(1);
  });
});

describe('replay', () => {
  const fixture = path.join(REPO_ROOT, 'tests/replay/histories/transferWorkflow-review-approved.json');

  it('the workflow code replays the histories it records (happy, review and compensation paths)', async () => {
    const w = await startTestWorker();
    workers.push(w);
    const from = await openFundedAccount(t, t.headers, '9000.00');
    const to = await openFundedAccount(t, t.headers, '0');
    const ids: string[] = [];
    for (const amount of ['10.00', '7000.00', '99999.00']) {
      const r = await t.app.inject({ method: 'POST', url: '/api/v2/transfers', headers: t.headers, payload: { from_account: from, to_account: to, amount, asset_code: 'USD' } });
      ids.push(r.json().data.uuid);
    }
    await waitForTransfer(t, t.headers, ids[1], (s) => s === 'pending_review');
    await t.app.inject({ method: 'POST', url: `/api/v2/transfers/${ids[1]}/review`, headers: admin.headers, payload: { decision: 'approve' } });
    for (const id of ids) await waitForTransfer(t, t.headers, id, settled);
    const client = await getTemporalClient();
    for (const id of ids) {
      const history = await client.workflow.getHandle(`transfer-${id}`).fetchHistory();
      // The run's bundle of workflows/ (bundling it again per replay costs seconds of CPU each).
      await Worker.runReplayHistory({ workflowBundle: { code: inject('workflowBundleCode') }, replayName: id }, history);
      if (id === ids[1] && !existsSync(fixture)) {
        mkdirSync(path.dirname(fixture), { recursive: true });
        // The CLI writes the canonical proto JSON that `temporal workflow show` and the UI use.
        const json = execFileSync(findTemporalCli()!, ['workflow', 'show', '-w', `transfer-${id}`, '--address', inject('temporalAddress'), '--output', 'json']);
        writeFileSync(fixture, json);
      }
    }
  });

  it('replays the recorded history committed with the code, and catches a history the code would not produce', async () => {
    // A history whose first activity differs from what the code schedules is non-deterministic.
    const history = JSON.parse(readFileSync(fixture, 'utf8'));
    expect(history.events.length).toBeGreaterThan(10);
    const scheduled = history.events.find((e: { activityTaskScheduledEventAttributes?: unknown }) => e.activityTaskScheduledEventAttributes);
    scheduled.activityTaskScheduledEventAttributes.activityType.name = 'somethingElse';
    const tampered = path.join(tmpdir(), `tampered-${Date.now()}.json`);
    writeFileSync(tampered, JSON.stringify(history));
    // In a plain Node process (npm run replay), as an operator would run it.
    // Against the bundle the run's workers run (WORKFLOW_BUNDLE_PATH), as an operator replays against theirs.
    const r = spawnSync(process.execPath, [path.join(REPO_ROOT, 'node_modules/tsx/dist/cli.mjs'), 'scripts/replay-history.ts', fixture, tampered], {
      cwd: REPO_ROOT,
      env: { ...process.env, WORKFLOW_BUNDLE_PATH: runBundleFile() },
      encoding: 'utf8',
    });
    expect(r.stdout).toContain(`ok   ${fixture}`);
    expect(r.stdout).toContain(`FAIL ${tampered}`);
    expect(r.status).toBe(1);
  }, 120_000);
});
