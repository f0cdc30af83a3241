// `npm run api`: the HTTP API alone, against an existing database and Temporal cluster.
import { migrate } from '../domain/db/migrate';
import { closePool } from '../domain/db/pool';
import { loadConfig } from '../domain/platform/config';
import { closeTemporal } from '../domain/temporal/client';
import { warmCaches } from '../domain/platform/maintenance';
import { buildApp } from './app';

const cfg = loadConfig();
if (!cfg.databaseUrl) {
  console.error('DATABASE_URL must be set to run the API alone (npm start embeds a database).');
  process.exit(1);
}
await migrate(cfg.databaseUrl);
await warmCaches();
const app = await buildApp();
await app.listen({ port: cfg.port, host: cfg.host });
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.once(sig, async () => {
    await app.close();
    await closeTemporal();
    await closePool();
  });
}
