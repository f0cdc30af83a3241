import { createHash, randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { REPO_ROOT } from '../platform/config';
import { MIGRATION_STEPS } from './migration-steps';
import { applySqlFunctions, readSqlFunctions, SQL_FUNCTIONS_DIR } from './sql-functions';

export const MIGRATIONS_DIR = path.join(REPO_ROOT, 'prisma', 'migrations');

// Same table Prisma Migrate keeps, so `prisma migrate deploy` sees our history as its own.
const PRISMA_MIGRATIONS_TABLE = `
CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

// Any constant works; it only has to be the same for every process migrating this database.
const MIGRATION_LOCK_ID = 72707369;

export interface MigrationFile {
  name: string;
  sql: string;
  checksum: string;
  /** Named JS steps (domain/db/migration-steps.ts) run before the SQL, from `-- requires-step: <name>` header lines. */
  steps: string[];
}

/** `-- requires-step: <name>` lines of the leading comment block (a step is part of the file, so of its checksum). */
export function requiredSteps(sql: string): string[] {
  const steps: string[] = [];
  for (const line of sql.split('\n')) {
    const l = line.trim();
    if (l === '') continue;
    if (!l.startsWith('--')) break;
    const m = /^--\s*requires-step:\s*(\S+)\s*$/.exec(l);
    if (m) steps.push(m[1]);
  }
  return steps;
}

export async function readMigrations(dir = MIGRATIONS_DIR): Promise<MigrationFile[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const names = entries.filter((e) => e.isDirectory()).map((e) => e.name).sort();
  const out: MigrationFile[] = [];
  for (const name of names) {
    const sql = await readFile(path.join(dir, name, 'migration.sql'), 'utf8');
    out.push({ name, sql, checksum: createHash('sha256').update(sql).digest('hex'), steps: requiredSteps(sql) });
  }
  return out;
}

export interface MigrateResult {
  applied: string[];
  alreadyApplied: number;
  /** Function files (prisma/sql/functions) applied after the migrations: new, edited, or their function changed. */
  functions: string[];
}

/**
 * Applies pending migrations in name order, each in its own transaction, under an advisory
 * lock so that several processes starting at once migrate only once. A migration whose file
 * changed after it was applied is an error (as with Prisma), never silently re-run. A migration's
 * required steps run first, inside its transaction and on its client (work SQL cannot do, such as
 * sealing secrets); a step name not registered stops everything before any pending migration runs.
 * Then, under the same lock, the SQL function files (domain/db/sql-functions.ts): a migration holds
 * schema, a function's definition is its file.
 */
export async function migrate(databaseUrl: string, dir = MIGRATIONS_DIR, functionsDir = SQL_FUNCTIONS_DIR): Promise<MigrateResult> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
    await client.query(PRISMA_MIGRATIONS_TABLE);
    const done = await client.query<{ migration_name: string; checksum: string; finished_at: Date | null }>(
      'SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL',
    );
    const byName = new Map(done.rows.map((r) => [r.migration_name, r]));
    const pending: MigrationFile[] = [];
    for (const m of await readMigrations(dir)) {
      const prev = byName.get(m.name);
      if (prev?.finished_at) {
        if (prev.checksum !== m.checksum) {
          throw new Error(`Migration ${m.name} was modified after it was applied (checksum mismatch)`);
        }
        continue;
      }
      if (prev) throw new Error(`Migration ${m.name} failed earlier and needs manual resolution`);
      pending.push(m);
    }
    // Checked up front: a half-upgraded database is worse than one not upgraded at all.
    const functionFiles = await readSqlFunctions(functionsDir);
    for (const m of pending) {
      const unknown = m.steps.find((s) => !Object.hasOwn(MIGRATION_STEPS, s));
      if (unknown !== undefined) throw new Error(`Migration ${m.name} requires an unknown step "${unknown}" (known: ${Object.keys(MIGRATION_STEPS).join(', ')})`);
    }
    const applied: string[] = [];
    for (const m of pending) {
      const id = randomUUID();
      await client.query('BEGIN');
      try {
        for (const s of m.steps) await MIGRATION_STEPS[s](client);
        await client.query(m.sql);
        await client.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, finished_at, applied_steps_count)
           VALUES ($1, $2, $3, now(), now(), 1)`,
          [id, m.checksum, m.name],
        );
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK');
        throw new Error(`Migration ${m.name} failed: ${(err as Error).message}`);
      }
      applied.push(m.name);
    }
    const functions = await applySqlFunctions(client, functionFiles);
    return { applied, alreadyApplied: byName.size, functions };
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]).catch(() => undefined);
    await client.end();
  }
}
