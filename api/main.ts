// `npm run api`: the HTTP API alone, against an existing database and Temporal cluster.
import { migrate } from '../domain/db/migrate';
import { closePool } from '../domain/db/pool';
import { closeLiveFeed } from '../domain/events/live-feed';
import { closeEventStream } from '../domain/events/stream';
import { loadConfig } from '../domain/platform/config';
import { runShutdown } from '../domain/platform/shutdown';
import { closeTemporal } from '../domain/temporal/client';
import { warmCaches } from '../domain/platform/maintenance';
import { resealWebhookSecrets } from '../domain/webhooks/secrets';
import { buildApp } from './app';

const cfg = loadConfig();
if (!cfg.databaseUrl) {
  console.error('DATABASE_URL must be set to run the API alone (npm start embeds a database).');
  process.exit(1);
}
await migrate(cfg.databaseUrl);
// Webhook secrets at rest: old master keys' values re-sealed under the current one (idempotent).
reportSealing(await resealWebhookSecrets());
await warmCaches();
const app = await buildApp();
await app.listen({ port: cfg.port, host: cfg.host });
function reportSealing(r: Awaited<ReturnType<typeof resealWebhookSecrets>>) {
  if (r.resealed) console.log(`webhook secrets: ${r.resealed} re-sealed under the current master key`);
  if (r.unreadable.length) console.error(`webhook secrets that do not open (tampered, or their master key is not in SECRETS_MASTER_KEYS): ${r.unreadable.join(', ')}`);
}
// Drain within SHUTDOWN_TIMEOUT_MS; past it, name what was cut short and exit 1.
let stopping = false;
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, async () => {
    if (stopping) return;
    stopping = true;
    const { cutShort, failed } = await runShutdown(
      [
        { name: 'API (in-flight requests)', run: () => app.close() },
        { name: 'live feed', run: () => closeLiveFeed() },
        { name: 'event stream', run: () => closeEventStream() },
        { name: 'Temporal client', run: () => closeTemporal() },
        { name: 'database pool', run: () => closePool() },
      ],
      cfg.shutdownTimeoutMs,
    );
    for (const f of failed) console.error(`could not stop ${f}`);
    if (cutShort.length) console.error(`stopped after ${cfg.shutdownTimeoutMs / 1000} s with work cut short: ${cutShort.join(', ')}`);
    process.exit(cutShort.length ? 1 : 0);
  });
}
