import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { NativeConnection, Runtime, DefaultLogger, Worker, type WorkerOptions } from '@temporalio/worker';
import { inject } from 'vitest';
import { REPO_ROOT } from '../../domain/platform/config';
import { createWorker } from '../../worker';

let runtimeInstalled = false;

/**
 * Expected business failures (insufficient funds, compensations) log at WARN; the run log keeps to
 * errors so the test summary stays readable. TEMPORAL_LOG_LEVEL=WARN brings them back. Once per
 * process, before the first worker of any kind.
 */
export function quietTemporalRuntime(): void {
  retrySlowTimeSkippingStart();
  installHistoryRecorder();
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  try {
    Runtime.install({ logger: new DefaultLogger((process.env.TEMPORAL_LOG_LEVEL as 'ERROR') ?? 'ERROR') });
  } catch {
    // Already installed in this process.
  }
}

export interface TestWorker {
  worker: Worker;
  taskQueue: string;
  stop(): Promise<void>;
}

/**
 * A real worker on the run's Temporal server, polling a task queue of its own (so test files
 * never pick up each other's workflows), with the workflow bundle built once per run.
 * With RECORD_HISTORIES=1, stop() first records the histories of the workflows that closed on
 * that queue as replay fixtures (recordQueueHistories).
 */
export async function startTestWorker(taskQueue = `test-${randomBytes(4).toString('hex')}`): Promise<TestWorker> {
  quietTemporalRuntime();
  process.env.TEMPORAL_TASK_QUEUE = taskQueue;
  const connection = await NativeConnection.connect({ address: inject('temporalAddress') });
  const worker = await createWorker({ connection, taskQueue, workflowBundle: { code: inject('workflowBundleCode') } });
  const running = worker.run();
  return {
    worker,
    taskQueue,
    async stop() {
      // Before the shutdown: the file's last workflows may still be finishing on this worker.
      if (recordingHistories()) await recordQueueHistories(taskQueue);
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
      await connection.close();
    },
  };
}

// ---- Replay fixtures (tests/replay/histories.test.ts replays them with the current code) ----

export const HISTORIES_DIR = path.join(REPO_ROOT, 'tests/replay/histories');

export function recordingHistories(): boolean {
  return !!process.env.RECORD_HISTORIES && process.env.RECORD_HISTORIES !== '0';
}

/** A fixture file: the proto JSON `temporal workflow show --output json` writes, plus where it came from. */
export interface HistoryFixture {
  /** Replays pass it as the workflow id (histories do not carry one). */
  workflowId: string;
  /** The vitest run that recorded it (its database prefix): a later run replaces it, the same run keeps the shorter. */
  recordedIn: string;
  events: Array<Record<string, unknown>>;
}

/**
 * Writes one closed execution's history as tests/replay/histories/<workflowType>-<variant>.json.
 * Several test files record the same type and status in one run: the shortest history wins (fewer
 * events to read when a replay fails); a fixture from an earlier run is replaced, since re-recording
 * is how an intended workflow change is accepted.
 */
export async function writeHistoryFixture(client: Client, workflowId: string, runId: string | undefined, variant: string): Promise<string | undefined> {
  const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
  const events = (JSON.parse(historyToJSON(history)) as { events: Array<Record<string, unknown>> }).events;
  const started = events[0]?.workflowExecutionStartedEventAttributes as { workflowType?: { name?: string } } | undefined;
  const type = started?.workflowType?.name;
  if (!type) return undefined;
  const file = path.join(HISTORIES_DIR, `${type}-${variant}.json`);
  const recordedIn = inject('databasePrefix');
  if (existsSync(file)) {
    const old = JSON.parse(readFileSync(file, 'utf8')) as Partial<HistoryFixture>;
    if (old.recordedIn === recordedIn && (old.events?.length ?? Infinity) <= events.length) return undefined;
  }
  mkdirSync(HISTORIES_DIR, { recursive: true });
  const fixture: HistoryFixture = { workflowId, recordedIn, events };
  writeFileSync(file, `${JSON.stringify(fixture, null, 2)}\n`);
  return file;
}

/**
 * The dev server's visibility lists every execution of the queue; per workflow type and close
 * status the shortest one is recorded. Running executions are left alone: their history is not
 * final, and a test may restart a worker on the same queue to finish them.
 */
export async function recordQueueHistories(taskQueue: string): Promise<string[]> {
  const connection = await Connection.connect({ address: inject('temporalAddress') });
  try {
    const client = new Client({ connection });
    const shortest = new Map<string, { workflowId: string; runId: string; length: number }>();
    for await (const wf of client.workflow.list({ query: `TaskQueue="${taskQueue}" AND ExecutionStatus!="Running"` })) {
      const key = `${wf.type}\u0000${wf.status.name.toLowerCase().replace(/_/g, '-')}`;
      const prev = shortest.get(key);
      if (!prev || wf.historyLength < prev.length) shortest.set(key, { workflowId: wf.workflowId, runId: wf.runId, length: wf.historyLength });
    }
    const written: string[] = [];
    for (const [key, wf] of shortest) {
      const file = await writeHistoryFixture(client, wf.workflowId, wf.runId, key.split('\u0000')[1]);
      if (file) written.push(file);
    }
    return written;
  } finally {
    await connection.close();
  }
}

/**
 * Writes the shortest closed execution per workflow type and close status among `executions`
 * (those a worker ran on a time-skipping server, which has no visibility listing).
 */
async function recordExecutions(client: Client, executions: Map<string, { workflowId: string; runId: string }>): Promise<void> {
  const shortest = new Map<string, { workflowId: string; runId: string; length: number }>();
  for (const e of executions.values()) {
    const d = await client.workflow.getHandle(e.workflowId, e.runId).describe().catch(() => undefined);
    if (!d || d.status.name === 'RUNNING') continue;
    const key = `${d.type}\u0000${d.status.name.toLowerCase().replace(/_/g, '-')}`;
    const prev = shortest.get(key);
    if (!prev || d.historyLength < prev.length) shortest.set(key, { ...e, length: d.historyLength });
  }
  for (const [key, e] of shortest) await writeHistoryFixture(client, e.workflowId, e.runId, key.split('\u0000')[1]);
}

let startRetryInstalled = false;

/**
 * The SDK gives a time-skipping server 5 s to accept connections; on a loaded CI machine (the whole
 * suite's files in parallel) one start in many runs takes longer and the file fails before its first
 * test. A start that timed out is tried again, twice at most; any other error stands.
 */
function retrySlowTimeSkippingStart(): void {
  if (startRetryInstalled) return;
  startRetryInstalled = true;
  const createTimeSkipping = TestWorkflowEnvironment.createTimeSkipping.bind(TestWorkflowEnvironment);
  TestWorkflowEnvironment.createTimeSkipping = async (...args: Parameters<typeof createTimeSkipping>) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await createTimeSkipping(...args);
      } catch (err) {
        if (attempt >= 3 || !/did not start within/.test(String((err as Error)?.message ?? err))) throw err;
      }
    }
  };
}

let recorderInstalled = false;

/**
 * Recording mode for the workers tests build themselves on a time-skipping server (tests/rails/harness.ts,
 * tests/helpers/time-skipping.ts, the chain tests): each test file calls quietTemporalRuntime() before
 * its first environment, so from there on every environment is remembered by its connection and every
 * worker on one notes the executions its activities run for; when the worker's run ends (the file's
 * afterAll, before the environment's teardown) the closed ones are recorded. Workers on the run's dev
 * server are startTestWorker's, which lists its queue instead. Nothing changes unless RECORD_HISTORIES is set.
 */
function installHistoryRecorder(): void {
  if (recorderInstalled || !recordingHistories()) return;
  recorderInstalled = true;
  const envs = new Map<unknown, TestWorkflowEnvironment>();
  const createTimeSkipping = TestWorkflowEnvironment.createTimeSkipping.bind(TestWorkflowEnvironment);
  TestWorkflowEnvironment.createTimeSkipping = async (...args: Parameters<typeof createTimeSkipping>) => {
    const env = await createTimeSkipping(...args);
    envs.set(env.nativeConnection, env);
    return env;
  };
  const create = Worker.create.bind(Worker);
  Worker.create = async (options: WorkerOptions) => {
    const env = envs.get(options.connection);
    if (!env) return create(options);
    const executions = new Map<string, { workflowId: string; runId: string }>();
    const worker = await create({
      ...options,
      interceptors: {
        ...options.interceptors,
        activity: [
          ...(options.interceptors?.activity ?? []),
          (ctx) => {
            const wf = ctx.info.workflowExecution;
            if (wf) executions.set(`${wf.workflowId}/${wf.runId}`, { workflowId: wf.workflowId, runId: wf.runId });
            return {};
          },
        ],
      },
    });
    const run = worker.run.bind(worker);
    worker.run = async () => {
      try {
        return await run();
      } finally {
        await recordExecutions(env.client, executions);
      }
    };
    return worker;
  };
}

/** The run's workflow bundle (built once by the global setup) as a file, as `npm run worker:bundle` writes one. */
export function runBundleFile(): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'workflow-bundle-')), 'workflows.js');
  writeFileSync(file, inject('workflowBundleCode'));
  return file;
}
