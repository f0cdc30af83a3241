import path from 'node:path';
import { bundleWorkflowCode, NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { getPool } from '../domain/db/pool';
import { REPO_ROOT, loadConfig } from '../domain/platform/config';
import { provideOpenApiDocumentSource, type OpenApiDocument } from '../domain/partner/sdk/spec';
import { createTransferService } from '../domain/transfers';
import { createActivities, type ActivityDeps } from '../activities';

export interface StartWorkerOptions {
  address?: string;
  namespace?: string;
  taskQueue?: string;
  connection?: NativeConnection;
  /** Pre-bundled workflow code (tests bundle once and share it across workers). */
  workflowBundle?: WorkerOptions['workflowBundle'];
  maxConcurrentActivityTaskExecutions?: number;
  /** The pool and services the activities use; by default built here on the process's pool. */
  services?: ActivityDeps;
}

export const WORKFLOWS_PATH = path.join(REPO_ROOT, 'workflows', 'index.ts');

/**
 * The workflow code bundled once (for WORKFLOW_BUNDLE_PATH, the test run's workers, the chaos run's
 * restarts), with the bundler's progress lines dropped and its warnings and errors kept.
 */
export async function bundleWorkflows(): Promise<string> {
  const logger = { log() {}, trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error };
  return (await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger })).code;
}

/** A worker for every workflow in workflows/ and every activity in activities/. */
/**
 * SDK generation activities read the platform's OpenAPI document; a worker has no API of its own,
 * so it builds one app once, only for its document (domain/partner/sdk/spec.ts).
 */
function provideWorkerOpenApiDocument(): void {
  provideOpenApiDocumentSource(async () => {
    const [{ buildApp }, { MemoryRateLimiter }] = await Promise.all([import('../api/app'), import('../domain/platform/rate-limiter')]);
    const app = await buildApp({ logger: false, rateLimiter: new MemoryRateLimiter() });
    try {
      await app.ready();
      return structuredClone(app.swagger()) as unknown as OpenApiDocument;
    } finally {
      await app.close();
    }
  });
}

export async function createWorker(opts: StartWorkerOptions = {}): Promise<Worker> {
  const cfg = loadConfig();
  provideWorkerOpenApiDocument();
  // Built once per worker and handed to the activities.
  const pool = getPool();
  const services = opts.services ?? { pool, transfers: createTransferService({ pool, config: cfg }) };
  const connection =
    opts.connection ?? (await NativeConnection.connect({ address: opts.address ?? (cfg.temporalAddress || '127.0.0.1:7233') }));
  return Worker.create({
    connection,
    namespace: opts.namespace ?? cfg.temporalNamespace,
    taskQueue: opts.taskQueue ?? cfg.taskQueue,
    activities: createActivities(services),
    ...(opts.workflowBundle
      ? { workflowBundle: opts.workflowBundle }
      : cfg.workflowBundlePath
        ? { workflowBundle: { codePath: path.resolve(cfg.workflowBundlePath) } }
        : { workflowsPath: WORKFLOWS_PATH }),
    stickyQueueScheduleToStartTimeout: cfg.workerStickyTimeoutMs,
    maxConcurrentActivityTaskExecutions: opts.maxConcurrentActivityTaskExecutions ?? 100,
  });
}
