import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { closePool } from '../../domain/db/pool';
import { closePrisma } from '../../domain/db/prisma';
import { closeEventStream } from '../../domain/events/stream';

/** The test run's master key (id test-1, 32 bytes): SECRETS_MASTER_KEYS unless a test sets its own. */
export const TEST_MASTER_KEYS = `test-1:${Buffer.alloc(32, 7).toString('base64')}`;

export function urlFor(name: string): string {
  const u = new URL(inject('adminDatabaseUrl'));
  u.pathname = `/${name}`;
  return u.toString();
}

/**
 * A fresh, migrated database for this test file (cloned from the run's template), made the
 * process's DATABASE_URL, with an event stream of its own. Dropped by the global teardown.
 */
export async function useTestDatabase(): Promise<string> {
  const name = `${inject('databasePrefix')}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: inject('adminDatabaseUrl') });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}" TEMPLATE "${inject('templateDatabase')}"`);
  } finally {
    await admin.end();
  }
  await closePrisma();
  await closePool();
  await closeEventStream();
  // The file's own event stream on the machine's NATS (deleted by the global teardown): in memory,
  // its subjects under the database's name.
  process.env.EVENTS_STREAM = name;
  process.env.EVENTS_SUBJECT_PREFIX = name;
  process.env.EVENTS_STREAM_STORAGE ??= 'memory';
  // A fixed master key for secrets at rest (domain/platform/secret-box.ts), so no test writes a generated one under .data.
  process.env.SECRETS_MASTER_KEYS ??= TEST_MASTER_KEYS;
  process.env.DATABASE_URL = urlFor(name);
  return process.env.DATABASE_URL;
}
