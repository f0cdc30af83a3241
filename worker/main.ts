// `npm run worker`: runs the Temporal worker alone, so API and workers scale apart.
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { migrate } from '../domain/db/migrate';
import { closePool } from '../domain/db/pool';
import { loadConfig } from '../domain/platform/config';
import { startMaintenance, warmCaches } from '../domain/platform/maintenance';
import { ensureSchedules } from './schedules';
import { startReadinessWatch } from '../domain/platform/readiness-watch';
import { rateProviderFor } from '../domain/rates/feed';
import { ensureSanctionsList } from '../domain/regtech/sanctions';
import { startEventDispatcher } from '../domain/events/dispatcher';
import { closeEventStream } from '../domain/events/stream';
import { resealWebhookSecrets } from '../domain/webhooks/secrets';
import { ensureSearchAttributes, getTemporalConnection } from '../domain/temporal/client';
import { createWorker } from './index';

// Bundler output and state changes log at INFO; operators can raise it with TEMPORAL_LOG_LEVEL.
Runtime.install({ logger: new DefaultLogger((process.env.TEMPORAL_LOG_LEVEL as 'INFO') ?? 'WARN') });
const cfg = loadConfig();
if (!cfg.databaseUrl) {
  console.error('DATABASE_URL must be set to run the worker alone (npm start embeds a database).');
  process.exit(1);
}
await migrate(cfg.databaseUrl);
// Webhook secrets at rest: old master keys' values re-sealed under the current one (idempotent; the API does it too).
const sealing = await resealWebhookSecrets();
if (sealing.resealed) console.log(`webhook secrets: ${sealing.resealed} re-sealed under the current master key`);
if (sealing.unreadable.length) console.error(`webhook secrets that do not open (tampered, or their master key is not in SECRETS_MASTER_KEYS): ${sealing.unreadable.join(', ')}`);
// An unknown RATES_PROVIDER stops the worker here rather than at the first valuation.
rateProviderFor();
await warmCaches();
// The OFAC list the screening reads: loaded when its files changed (one transaction, version recorded).
await ensureSanctionsList();
// A worker run alone (npm run worker) registers the search attributes the workflows it starts and
// upserts need, as npm start does; a namespace that refuses (e.g. managed clusters where operators
// register them) is reported, not fatal.
try {
  await ensureSearchAttributes(await getTemporalConnection(), cfg.temporalNamespace);
} catch (err) {
  console.warn(`could not register search attributes (register them on the namespace): ${(err as Error).message}`);
}
const stopMaintenance = startMaintenance();
const worker = await createWorker();
// Every schedule, once per namespace whichever process creates it (worker/schedules.ts).
await ensureSchedules({ ach: cfg.manageAchSchedules, baskets: cfg.manageBasketSchedules, mifid: cfg.manageMifidSchedule });
// Readiness changes (database, Temporal) as system.status_change, once per change.
const stopReadinessWatch = startReadinessWatch();
// The event path (docs/events.md): the outbox relay (one active at a time across workers) and the
// durable stream consumers (webhook dispatcher, dashboard projector), shared by every worker.
const dispatcher = startEventDispatcher();
// The worker finishes its activities within SHUTDOWN_TIMEOUT_MS; past it, what was cut short is
// named and the process exits 1 (Temporal retries those activities elsewhere: they are idempotent).
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.once(sig, () => {
    worker.shutdown();
    setTimeout(() => {
      console.error(`stopped after ${cfg.shutdownTimeoutMs / 1000} s with work cut short: worker (running activities)`);
      process.exit(1);
    }, cfg.shutdownTimeoutMs).unref();
  });
}
console.log(`worker polling task queue "${cfg.taskQueue}" on ${cfg.temporalAddress || '127.0.0.1:7233'}`);
await worker.run();
stopMaintenance();
stopReadinessWatch();
await dispatcher.stop();
await closeEventStream();
await closePool();
process.exit(0);
