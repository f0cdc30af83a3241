import { createHash } from 'node:crypto';
import { mkdtemp, mkdir, writeFile, cp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS_DIR, migrate, readMigrations } from '../../domain/db/migrate';
import { readPrismaModels } from '../helpers/prisma-schema';
import { useTestDatabase } from '../helpers/db';

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
