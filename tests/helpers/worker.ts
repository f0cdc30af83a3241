import { randomBytes } from 'node:crypto';
import { NativeConnection, Runtime, DefaultLogger, Worker } from '@temporalio/worker';
import { inject } from 'vitest';
import { createWorker } from '../../worker';

let runtimeInstalled = false;

/**
 * Expected business failures (insufficient funds, compensations) log at WARN; the run log keeps to
 * errors so the test summary stays readable. TEMPORAL_LOG_LEVEL=WARN brings them back. Once per
 * process, before the first worker of any kind.
 */
export function quietTemporalRuntime(): void {
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
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
      await connection.close();
    },
  };
}
