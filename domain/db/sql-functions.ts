import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type pg from 'pg';
import { REPO_ROOT } from '../platform/config';

/** One file per SQL function (all overloads of a name), its current definition (docs/architecture.md "Changing a SQL function"). */
export const SQL_FUNCTIONS_DIR = path.join(REPO_ROOT, 'prisma', 'sql', 'functions');

const SQL_FUNCTIONS_TABLE = `
CREATE TABLE IF NOT EXISTS "_sql_functions" (
  "name"           TEXT PRIMARY KEY,
  "checksum"       VARCHAR(64) NOT NULL,
  "definition_md5" TEXT NOT NULL,
  "applied_at"     TIMESTAMPTZ NOT NULL DEFAULT now()
)`;

export interface SqlFunctionFile {
  /** The function's name, and the file's: `<name>.sql`. */
  name: string;
  sql: string;
  /** sha256 of the file, as recorded in _sql_functions when applied. */
  checksum: string;
  /** Other function files this one calls (a SQL-language body is checked against them when created). */
  calls: string[];
}

const CREATED = /^\s*CREATE\s+OR\s+REPLACE\s+FUNCTION\s+(?:public\.)?"?([A-Za-z_][A-Za-z0-9_]*)"?\s*\(/gim;
const DECLARED = /^\s*CREATE\s+(?:OR\s+REPLACE\s+)?(?:FUNCTION|PROCEDURE)\s+(?:public\.)?"?([A-Za-z_][A-Za-z0-9_]*)"?\s*\(/gim;

/**
 * The function files in the order they are applied: a function after those it calls (found by
 * name in its text), ties and cycles (plpgsql bodies calling each other, which PostgreSQL does not
 * resolve at CREATE time) in name order. A file must create its own name, only, with CREATE OR REPLACE.
 */
export async function readSqlFunctions(dir = SQL_FUNCTIONS_DIR): Promise<SqlFunctionFile[]> {
  // A missing directory is an error, not "no functions": a deployment without it would keep stale ones.
  const entries = await readdir(dir);
  const files: SqlFunctionFile[] = [];
  for (const file of entries.filter((e) => e.endsWith('.sql')).sort()) {
    const name = file.slice(0, -'.sql'.length);
    const sql = await readFile(path.join(dir, file), 'utf8');
    const declared = [...sql.matchAll(DECLARED)].map((m) => m[1]);
    const created = [...sql.matchAll(CREATED)].map((m) => m[1]);
    if (!/^[a-z_][a-z0-9_]*$/.test(name) || declared.length === 0 || declared.some((n) => n !== name) || created.length !== declared.length) {
      throw new Error(`SQL function file ${file} must define ${name} (and nothing else) with CREATE OR REPLACE FUNCTION ${name}(...)`);
    }
    files.push({ name, sql, checksum: createHash('sha256').update(sql).digest('hex'), calls: [] });
  }
  const names = new Set(files.map((f) => f.name));
  for (const f of files) {
    f.calls = [...new Set([...f.sql.matchAll(/\b([a-z_][a-z0-9_]*)\s*\(/gi)].map((m) => m[1].toLowerCase()))]
      .filter((n) => n !== f.name && names.has(n))
      .sort();
  }
  const ordered: SqlFunctionFile[] = [];
  const left = new Map(files.map((f) => [f.name, f]));
  while (left.size) {
    const ready = [...left.values()].find((f) => f.calls.every((c) => !left.has(c))) ?? left.values().next().value!;
    ordered.push(ready);
    left.delete(ready.name);
  }
  return ordered;
}

/** md5 of pg_get_functiondef of every function of each name (overloads in argument order), by name. */
async function definitions(client: pg.Client, names: string[]): Promise<Map<string, string>> {
  const { rows } = await client.query<{ name: string; md5: string }>(
    `SELECT p.proname AS name, md5(string_agg(pg_get_functiondef(p.oid), E'\\n' ORDER BY pg_get_function_identity_arguments(p.oid))) AS md5
       FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
      WHERE n.nspname = current_schema() AND p.proname = ANY ($1)
      GROUP BY p.proname`,
    [names],
  );
  return new Map(rows.map((r) => [r.name, r.md5]));
}

/**
 * Applies, after the schema migrations and in one transaction (the caller holds the migration
 * lock), every function file that changed since it was last applied, and every one whose function
 * is no longer what its file made (dropped, or redefined by a migration or by hand): the file is
 * the definition. Returns the names applied. A file removed leaves its function (dropping one is a
 * schema migration's job) and only its row goes.
 */
export async function applySqlFunctions(client: pg.Client, files: SqlFunctionFile[]): Promise<string[]> {
  await client.query('BEGIN');
  try {
    await client.query(SQL_FUNCTIONS_TABLE);
    const done = await client.query<{ name: string; checksum: string; definition_md5: string }>('SELECT name, checksum, definition_md5 FROM "_sql_functions"');
    const recorded = new Map(done.rows.map((r) => [r.name, r]));
    const current = await definitions(client, files.map((f) => f.name));
    const pending = files.filter((f) => {
      const r = recorded.get(f.name);
      return r?.checksum !== f.checksum || r.definition_md5 !== current.get(f.name);
    });
    for (const f of pending) {
      try {
        await client.query(f.sql);
      } catch (err) {
        throw new Error(`SQL function file ${f.name}.sql failed: ${(err as Error).message}`);
      }
    }
    if (pending.length) {
      const made = await definitions(client, pending.map((f) => f.name));
      const none = pending.find((f) => !made.has(f.name));
      if (none) throw new Error(`SQL function file ${none.name}.sql defines no function ${none.name}`);
      await client.query(
        `INSERT INTO "_sql_functions" (name, checksum, definition_md5, applied_at)
         SELECT u.name, u.checksum, u.md5, now() FROM unnest($1::text[], $2::text[], $3::text[]) AS u(name, checksum, md5)
         ON CONFLICT (name) DO UPDATE SET checksum = EXCLUDED.checksum, definition_md5 = EXCLUDED.definition_md5, applied_at = now()`,
        [pending.map((f) => f.name), pending.map((f) => f.checksum), pending.map((f) => made.get(f.name)!)],
      );
    }
    await client.query('DELETE FROM "_sql_functions" WHERE NOT (name = ANY ($1))', [files.map((f) => f.name)]);
    await client.query('COMMIT');
    return pending.map((f) => f.name);
  } catch (err) {
    await client.query('ROLLBACK');
    throw err;
  }
}
