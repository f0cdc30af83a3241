import { quietTemporalRuntime } from '../helpers/worker';
import { createRequire } from 'node:module';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { expect, inject } from 'vitest';
import { createActivities } from '../../activities';
import { getPool } from '../../domain/db/pool';
import { findTemporalTestServer } from '../../domain/temporal/binaries';
import { closeTemporal } from '../../domain/temporal/client';
import { ALL_SEARCH_ATTRIBUTES } from '../../domain/temporal/search-attributes';
import { createTestApp, type TestApp } from '../helpers/app';

// Quiet before any Temporal environment or worker exists (expected failures log at WARN).
quietTemporalRuntime();

/**
 * The rails' tests run on the time-skipping test server (cut-offs, settlement dates and return
 * windows are days away): the API's workflows go there, and a worker for them polls `taskQueue`.
 */
export interface RailsHarness {
  env: TestWorkflowEnvironment;
  t: TestApp;
  taskQueue: string;
  close(): Promise<void>;
}

export async function startRailsHarness(taskQueue: string): Promise<RailsHarness> {
  const env = await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: findTemporalTestServer()! } } });
  // The time-skipping server starts without the platform's search attributes.
  await env.connection.operatorService.addSearchAttributes({
    namespace: 'default',
    searchAttributes: Object.fromEntries(ALL_SEARCH_ATTRIBUTES.map((k) => [k.name, k.type === 'KEYWORD_LIST' ? 7 : 2])),
  });
  const t = await createTestApp();
  process.env.TEMPORAL_ADDRESS = env.address;
  process.env.TEMPORAL_TASK_QUEUE = taskQueue;
  await closeTemporal();
  const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle: { code: inject('workflowBundleCode') }, activities: createActivities() });
  const running = worker.run();
  return {
    env,
    t,
    taskQueue,
    async close() {
      worker.shutdown();
      await running;
      await t.close();
      await env.teardown();
    },
  };
}

/**
 * Waits (real time; the test server's clock only runs while a test awaits a result) until a
 * workflow's `progress` query reports `step`.
 */
export async function waitForWorkflowStep(env: TestWorkflowEnvironment, workflowId: string, step: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  let seen = '';
  while (Date.now() < deadline) {
    seen = (await env.client.workflow.getHandle(workflowId).query<{ step: string }>('progress').catch(() => ({ step: '' }))).step;
    if (seen === step) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  expect(seen).toBe(step);
}

/** Moves the test server's clock forward to `at` (never back). */
export async function skipTo(env: TestWorkflowEnvironment, at: Date): Promise<void> {
  const now = await env.currentTimeMs();
  if (at.getTime() > now) await env.sleep(at.getTime() - now);
}

/** Waits (real time, clock not moving) until the payment's stored status is `status`. */
export async function waitForStatus(id: string, status: string, timeoutMs = 15_000): Promise<void> {
  let s = '';
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    s = (await getPool().query<{ status: string }>('SELECT status FROM rail_payments WHERE id = $1', [id])).rows[0]?.status ?? '';
    if (s === status) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  expect(s, `payment ${id}`).toBe(status);
}

type AchParser = { on(e: string, f: (x: unknown) => void): void; write(x: { string: string }): void };
const achLib = createRequire(import.meta.url)('@ach/ach') as () => { getParser(f: string): AchParser };

/** Parses a NACHA file with the independent @ach/ach parser (not our writer's code). */
export function parseWithAchLibrary(content: string): Promise<any> {
  return new Promise((resolve) => {
    const p = achLib().getParser('ach');
    p.on('data', resolve);
    for (const l of content.split('\n').filter(Boolean)) p.write({ string: l });
  });
}
