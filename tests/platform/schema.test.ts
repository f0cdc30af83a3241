import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, mkdir, readFile, writeFile, cp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { MIGRATIONS_DIR, migrate, readMigrations } from '../../domain/db/migrate';
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
    expect((await migrate(url)).applied).toEqual([]);
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

  it('an old database holding a readable webhook secret: the step seals it, then the readable column is dropped', async () => {
    // A database of before this change: every migration up to the one dropping the column.
    const name = `${inject('databasePrefix')}_old_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: inject('adminDatabaseUrl') });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${name}"`).finally(() => admin.end());
    const oldUrl = urlFor(name);
    const dir = await mkdtemp(path.join(tmpdir(), 'migrations-'));
    await cp(MIGRATIONS_DIR, dir, { recursive: true });
    await rm(path.join(dir, DROP), { recursive: true });
    await migrate(oldUrl, dir);
    const old = new pg.Client({ connectionString: oldUrl });
    await old.connect();
    try {
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

      expect((await migrate(oldUrl)).applied).toEqual([DROP]);
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
        WHERE table_schema = 'public' AND table_name <> '_prisma_migrations'
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
