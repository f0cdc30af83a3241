import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, mkdir, readFile, writeFile, cp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { MIGRATIONS_DIR, migrate, readMigrations } from '../../domain/db/migrate';
import { readSqlFunctions, SQL_FUNCTIONS_DIR } from '../../domain/db/sql-functions';
import { secretBox } from '../../domain/platform/secret-box';
import { openSigningSecrets } from '../../domain/webhooks/secrets';
import { readPrismaModels } from '../helpers/prisma-schema';
import { urlFor, useTestDatabase } from '../helpers/db';

let url: string;
let client: pg.Client;
beforeAll(async () => {
  url = await useTestDatabase();
  client = new pg.Client({ connectionString: url });
  await client.connect();
});
afterAll(async () => client.end());

describe('migrations', () => {
  it('are recorded in _prisma_migrations as Prisma records them, with sha256 checksums', async () => {
    const files = await readMigrations();
    const { rows } = await client.query(
      'SELECT migration_name, checksum, finished_at, applied_steps_count, rolled_back_at FROM _prisma_migrations ORDER BY migration_name',
    );
    expect(rows.map((r) => r.migration_name)).toEqual(files.map((f) => f.name));
    for (const [i, r] of rows.entries()) {
      expect(r.checksum).toBe(files[i].checksum);
      expect(r.checksum).toBe(createHash('sha256').update(files[i].sql).digest('hex'));
      expect(r.finished_at).not.toBeNull();
      expect(r.rolled_back_at).toBeNull();
    }
  });

  it('applying again is a no-op; an edited applied migration is refused; a new one is applied', async () => {
    expect(await migrate(url)).toMatchObject({ applied: [], functions: [] });
    const dir = await mkdtemp(path.join(tmpdir(), 'migrations-'));
    await cp(MIGRATIONS_DIR, dir, { recursive: true });
    await mkdir(path.join(dir, '29990101000000_extra'));
    await writeFile(path.join(dir, '29990101000000_extra', 'migration.sql'), 'CREATE TABLE "zz_extra" ("id" INTEGER);');
    expect((await migrate(url, dir)).applied).toEqual(['29990101000000_extra']);
    await writeFile(path.join(dir, '29990101000000_extra', 'migration.sql'), 'CREATE TABLE "zz_other" ("id" INTEGER);');
    await expect(migrate(url, dir)).rejects.toThrow(/modified after it was applied/);
    await client.query('DROP TABLE "zz_extra"');
    await client.query(`DELETE FROM _prisma_migrations WHERE migration_name = '29990101000000_extra'`);
  });

  it('a failing migration leaves nothing behind', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'migrations-'));
    await cp(MIGRATIONS_DIR, dir, { recursive: true });
    await mkdir(path.join(dir, '29990101000001_broken'));
    await writeFile(path.join(dir, '29990101000001_broken', 'migration.sql'), 'CREATE TABLE "zz_half" ("id" INTEGER); SELECT no_such_function();');
    await expect(migrate(url, dir)).rejects.toThrow(/29990101000001_broken failed/);
    const t = await client.query(`SELECT to_regclass('zz_half') AS t`);
    expect(t.rows[0].t).toBeNull();
    const m = await client.query(`SELECT count(*)::int AS n FROM _prisma_migrations WHERE migration_name LIKE '%broken'`);
    expect(m.rows[0].n).toBe(0);
  });
});

describe('migration steps (a JS step run before a migration, in its transaction)', () => {
  const DROP = '20261207093500_webhook_secret_column_dropped';

  it('an unknown step name fails the migration and leaves nothing applied, not even the pending migration before it', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'migrations-'));
    await cp(MIGRATIONS_DIR, dir, { recursive: true });
    await mkdir(path.join(dir, '29990101000002_fine'));
    await writeFile(path.join(dir, '29990101000002_fine', 'migration.sql'), 'CREATE TABLE "zz_fine" ("id" INTEGER);');
    await mkdir(path.join(dir, '29990101000003_stepped'));
    await writeFile(path.join(dir, '29990101000003_stepped', 'migration.sql'), '-- Needs a step nobody registered.\n-- requires-step: no-such-step\nCREATE TABLE "zz_stepped" ("id" INTEGER);');
    await expect(migrate(url, dir)).rejects.toThrow(/29990101000003_stepped requires an unknown step "no-such-step"/);
    const t = await client.query(`SELECT to_regclass('zz_fine') AS a, to_regclass('zz_stepped') AS b`);
    expect(t.rows[0]).toEqual({ a: null, b: null });
    const m = await client.query(`SELECT count(*)::int AS n FROM _prisma_migrations WHERE migration_name LIKE '2999%'`);
    expect(m.rows[0].n).toBe(0);
  });

  it('an old database holding a readable webhook secret: the step seals it, then the readable column is dropped; it gets every function file', async () => {
    // A database of before this change: every migration up to the one dropping the column, and
    // migrated before the function files existed (no _sql_functions), so it gets them all and the
    // functions of a fresh database.
    const name = `${inject('databasePrefix')}_old_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: inject('adminDatabaseUrl') });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${name}"`).finally(() => admin.end());
    const oldUrl = urlFor(name);
    const dir = await mkdtemp(path.join(tmpdir(), 'migrations-'));
    await cp(MIGRATIONS_DIR, dir, { recursive: true });
    await rm(path.join(dir, DROP), { recursive: true });
    await migrate(oldUrl, dir, await mkdtemp(path.join(tmpdir(), 'no-sql-functions-')));
    const old = new pg.Client({ connectionString: oldUrl });
    await old.connect();
    try {
      await old.query('DROP TABLE _sql_functions');
      const legacy = `whsec_legacy_${randomBytes(8).toString('hex')}`;
      await old.query(`INSERT INTO users (id, name, email, password_hash) VALUES ('usr_old', 'Old', 'old@example.test', 'x')`);
      await old.query(`INSERT INTO webhooks (id, user_id, environment, url, events, secret) VALUES ('wh_old', 'usr_old', 'sandbox', 'https://old.example.test/hook', '{*}', $1)`, [legacy]);

      // The step runs in the migration's transaction: a migration failing after it leaves the secret as it was.
      await mkdir(path.join(dir, DROP));
      await writeFile(path.join(dir, DROP, 'migration.sql'), '-- requires-step: seal-webhook-secrets\nSELECT no_such_function();');
      await expect(migrate(oldUrl, dir)).rejects.toThrow(/failed/);
      expect((await old.query('SELECT secret, secret_sealed FROM webhooks')).rows[0]).toEqual({ secret: legacy, secret_sealed: null });
      // Without the step, the migration's own guard refuses rather than drop a secret nobody sealed.
      const real = await readFile(path.join(MIGRATIONS_DIR, DROP, 'migration.sql'), 'utf8');
      await writeFile(path.join(dir, DROP, 'migration.sql'), real.replace(/^-- requires-step: .*$/m, '--'));
      await expect(migrate(oldUrl, dir)).rejects.toThrow(/1 webhook\(s\) still hold a readable secret/);
      expect((await old.query('SELECT secret FROM webhooks')).rows[0].secret).toBe(legacy);

      const upgraded = await migrate(oldUrl);
      expect(upgraded.applied).toEqual([DROP]);
      expect([...upgraded.functions].sort()).toEqual((await readSqlFunctions()).map((f) => f.name).sort());
      expect(await functionDefinitions(old)).toEqual(await functionDefinitions(client));
      const cols = await old.query(`SELECT column_name FROM information_schema.columns WHERE table_name = 'webhooks' AND column_name LIKE '%secret%' ORDER BY 1`);
      expect(cols.rows.map((r) => r.column_name)).toEqual(['previous_secret_expires_at', 'previous_secret_sealed', 'secret_rotated_at', 'secret_sealed']);
      const { rows } = await old.query('SELECT id, secret_sealed, previous_secret_sealed, row_to_json(w)::text AS text FROM webhooks w');
      expect(rows[0].text).not.toContain(legacy);
      expect(secretBox().open(rows[0].secret_sealed, 'wh_old')).toBe(legacy);
      // What a delivery signs with.
      expect(openSigningSecrets(rows[0])).toEqual([legacy]);
      // A row without a sealed secret cannot be written any more.
      await expect(old.query(`UPDATE webhooks SET secret_sealed = NULL`)).rejects.toThrow(/secret_sealed/);
    } finally {
      await old.end();
    }
  });
});

describe('schema.prisma matches the migrated database', () => {
  it('has the same tables, columns, types and nullability', async () => {
    const models = readPrismaModels();
    const { rows } = await client.query<{ table_name: string; column_name: string; udt_name: string; is_nullable: string }>(
      `SELECT table_name, column_name, udt_name, is_nullable FROM information_schema.columns
        WHERE table_schema = 'public' AND table_name NOT IN ('_prisma_migrations', '_sql_functions')
          -- Tables only: views (platform_events) are SQL-side reads Prisma does not model.
          AND table_name IN (SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE')`,
    );
    const db = new Map<string, Map<string, { udt: string; nullable: boolean }>>();
    for (const r of rows) {
      if (!db.has(r.table_name)) db.set(r.table_name, new Map());
      db.get(r.table_name)!.set(r.column_name, { udt: r.udt_name, nullable: r.is_nullable === 'YES' });
    }
    expect([...models.keys()].sort()).toEqual([...db.keys()].sort());
    const mismatches: string[] = [];
    for (const [table, columns] of models) {
      const actual = db.get(table)!;
      const expectedNames = columns.map((c) => c.column).sort();
      if (JSON.stringify(expectedNames) !== JSON.stringify([...actual.keys()].sort())) {
        mismatches.push(`${table}: schema.prisma has [${expectedNames}] but the database has [${[...actual.keys()].sort()}]`);
        continue;
      }
      for (const c of columns) {
        const a = actual.get(c.column)!;
        if (a.udt !== c.udt) mismatches.push(`${table}.${c.column}: type ${c.udt} in schema.prisma, ${a.udt} in the database`);
        if (a.nullable !== c.nullable) mismatches.push(`${table}.${c.column}: nullable ${c.nullable} in schema.prisma, ${a.nullable} in the database`);
      }
    }
    expect(mismatches).toEqual([]);
  });
});

/** pg_get_functiondef of every function of the schema not from an extension, by name (overloads joined in argument order). */
async function functionDefinitions(db: pg.Client, names?: string[]): Promise<Record<string, string>> {
  const { rows } = await db.query<{ name: string; def: string }>(
    `SELECT p.proname AS name, string_agg(pg_get_functiondef(p.oid), E'\\n' ORDER BY pg_get_function_identity_arguments(p.oid)) AS def
       FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
      WHERE n.nspname = 'public' AND ($1::text[] IS NULL OR p.proname = ANY ($1))
        AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
      GROUP BY p.proname ORDER BY p.proname`,
    [names ?? null],
  );
  return Object.fromEntries(rows.map((r) => [r.name, r.def]));
}

async function functionsCopy(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'sql-functions-'));
  await cp(SQL_FUNCTIONS_DIR, dir, { recursive: true });
  return dir;
}

describe('SQL function files (prisma/sql/functions, applied after the migrations)', () => {
  it('every function of the schema has its file, and has exactly the definition its file gives (the file applied again changes nothing)', async () => {
    const files = await readSqlFunctions();
    const db = await functionDefinitions(client);
    expect(Object.keys(db).sort(), 'a function without a file, or a file without a function').toEqual(files.map((f) => f.name).sort());
    const recorded = await client.query<{ name: string; checksum: string }>('SELECT name, checksum FROM _sql_functions ORDER BY name');
    expect(recorded.rows).toEqual([...files].sort((a, b) => a.name.localeCompare(b.name)).map((f) => ({ name: f.name, checksum: f.checksum })));
    await client.query('BEGIN');
    try {
      for (const f of files) await client.query(f.sql);
      expect(await functionDefinitions(client)).toEqual(db);
    } finally {
      await client.query('ROLLBACK');
    }
  });

  it('no migration after the files took over redefines a function (CREATE OR REPLACE): its file does', async () => {
    const CUT_OVER = '20261207141000_x402_settlement_reconcile';
    const later = (await readMigrations()).filter((m) => m.name > CUT_OVER && /CREATE\s+OR\s+REPLACE\s+FUNCTION/i.test(m.sql));
    expect(later.map((m) => m.name)).toEqual([]);
  });

  it('an edited file is applied alone; a removed file leaves its function; a function changed by hand gets its file back', async () => {
    const dir = await functionsCopy();
    const file = path.join(dir, 'ledger__rule_balanced.sql');
    const original = await readFile(file, 'utf8');
    const before = await client.query<{ name: string; applied_at: Date }>(`SELECT name, applied_at FROM _sql_functions WHERE name <> 'ledger__rule_balanced' ORDER BY name`);
    await writeFile(file, original.replace(`THEN 'UNBALANCED' END`, `THEN 'UNBALANCED' END -- edited`));
    expect((await migrate(url, MIGRATIONS_DIR, dir)).functions).toEqual(['ledger__rule_balanced']);
    expect((await functionDefinitions(client, ['ledger__rule_balanced'])).ledger__rule_balanced).toContain(`'UNBALANCED' END -- edited`);
    expect((await migrate(url, MIGRATIONS_DIR, dir)).functions).toEqual([]);
    // Untouched files were not run again.
    const after = await client.query(`SELECT name, applied_at FROM _sql_functions WHERE name <> 'ledger__rule_balanced' ORDER BY name`);
    expect(after.rows).toEqual(before.rows);

    // Dropping a function is a schema migration's work: a file gone only stops being applied.
    await rm(path.join(dir, 'ledger__txn_status.sql'));
    expect((await migrate(url, MIGRATIONS_DIR, dir)).functions).toEqual([]);
    expect(Object.keys(await functionDefinitions(client, ['ledger__txn_status']))).toEqual(['ledger__txn_status']);
    expect((await client.query(`SELECT count(*)::int AS n FROM _sql_functions WHERE name = 'ledger__txn_status'`)).rows[0].n).toBe(0);

    // Back to the repository's files: the edited one and the one put back.
    expect([...(await migrate(url)).functions].sort()).toEqual(['ledger__rule_balanced', 'ledger__txn_status']);
    const fresh = await functionDefinitions(client, ['ledger__rule_balanced']);
    expect(fresh.ledger__rule_balanced).not.toContain('edited');

    // Redefined outside its file (by hand, or by a migration breaking the rule): the file wins at the next start.
    await client.query(`CREATE OR REPLACE FUNCTION ledger__rule_balanced(p_sum numeric) RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT NULL::text $$`);
    expect((await migrate(url)).functions).toEqual(['ledger__rule_balanced']);
    expect(await functionDefinitions(client, ['ledger__rule_balanced'])).toEqual(fresh);
  });

  it('new files are created callee first; a failing file applies none and names itself; a malformed one stops the migrations', async () => {
    const dir = await functionsCopy();
    // zz_a is a SQL function: its body is checked when it is created, so zz_b must exist by then.
    await writeFile(path.join(dir, 'zz_a.sql'), 'CREATE OR REPLACE FUNCTION zz_a() RETURNS integer LANGUAGE sql AS $$ SELECT zz_b() + 1 $$;\n');
    await writeFile(path.join(dir, 'zz_b.sql'), 'CREATE OR REPLACE FUNCTION zz_b() RETURNS integer LANGUAGE sql AS $$ SELECT 41 $$;\n');
    await writeFile(path.join(dir, 'zz_c.sql'), 'CREATE OR REPLACE FUNCTION zz_c() RETURNS integer LANGUAGE sql AS $$ SELECT no_such_function() $$;\n');
    await expect(migrate(url, MIGRATIONS_DIR, dir)).rejects.toThrow(/SQL function file zz_c\.sql failed: .*no_such_function/);
    expect(await functionDefinitions(client, ['zz_a', 'zz_b'])).toEqual({});
    await rm(path.join(dir, 'zz_c.sql'));
    // A file must define its own name; one that does not is refused before any pending migration runs.
    await writeFile(path.join(dir, 'zz_d.sql'), 'CREATE OR REPLACE FUNCTION zz_other() RETURNS integer LANGUAGE sql AS $$ SELECT 1 $$;\n');
    const migrations = await mkdtemp(path.join(tmpdir(), 'migrations-'));
    await cp(MIGRATIONS_DIR, migrations, { recursive: true });
    await mkdir(path.join(migrations, '29990101000004_pending'));
    await writeFile(path.join(migrations, '29990101000004_pending', 'migration.sql'), 'CREATE TABLE "zz_pending" ("id" INTEGER);');
    await expect(migrate(url, migrations, dir)).rejects.toThrow(/zz_d\.sql must define zz_d/);
    expect((await client.query(`SELECT to_regclass('zz_pending') AS t`)).rows[0].t).toBeNull();
    await rm(path.join(dir, 'zz_d.sql'));
    try {
      expect((await migrate(url, MIGRATIONS_DIR, dir)).functions).toEqual(['zz_b', 'zz_a']);
      expect((await client.query('SELECT zz_a() AS n')).rows[0].n).toBe(42);
    } finally {
      await client.query('DROP FUNCTION IF EXISTS zz_a(); DROP FUNCTION IF EXISTS zz_b()');
      await migrate(url);
    }
    expect((await client.query(`SELECT count(*)::int AS n FROM _sql_functions WHERE name LIKE 'zz%'`)).rows[0].n).toBe(0);
  });
});
