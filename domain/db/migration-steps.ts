/**
 * JS steps a migration can require (`-- requires-step: <name>` in its header, domain/db/migrate.ts):
 * work SQL cannot do, run inside that migration's transaction on its client, before its SQL. A step
 * must be safe on any database the migration may meet (an empty one included) and must not commit.
 * A step, once a landed migration names it, stays registered under its name.
 */
import type pg from 'pg';
import { sealReadableWebhookSecrets } from '../webhooks/secrets';

export type MigrationStep = (client: Pick<pg.ClientBase, 'query'>) => Promise<void>;

export const MIGRATION_STEPS: Readonly<Record<string, MigrationStep>> = Object.freeze({
  // 20261207093500_webhook_secret_column_dropped: seals secrets still readable before the column goes.
  'seal-webhook-secrets': async (c) => {
    await sealReadableWebhookSecrets(c);
  },
});
