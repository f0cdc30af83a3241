// One-off (issue 43): writes prisma/sql/functions/<name>.sql, each function's latest definition
// taken from the migrations (read in order, statement by statement), then proves the files right on
// a scratch cluster: a database built from the migrations alone and the same database with every
// file applied again have the same pg_get_functiondef for every function, and every function has a file.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { migrate, readMigrations } from '../domain/db/migrate';
import { REPO_ROOT } from '../domain/platform/config';
import { startScratchPostgres } from '../domain/platform/embedded-postgres';

const OUT = path.join(REPO_ROOT, 'prisma', 'sql', 'functions');

interface Statement {
  /** The `--` lines right above the statement (no blank line between). */
  comment: string;
  text: string;
}

/** Top-level statements of a SQL script: quotes, quoted identifiers, dollar quotes and comments skipped. */
function statements(sql: string): Statement[] {
  const out: Statement[] = [];
  let i = 0;
  let start = 0;
  const push = (end: number) => {
    const chunk = sql.slice(start, end);
    // Leading comments and blank lines belong to the gap, not the statement.
    const lines = chunk.split('\n');
    let k = 0;
    while (k < lines.length && (lines[k].trim() === '' || lines[k].trim().startsWith('--'))) k++;
    const gap = lines.slice(0, k);
    const text = lines.slice(k).join('\n').trim();
    let c = gap.length;
    while (c > 0 && gap[c - 1].trim().startsWith('--')) c--;
    if (text) out.push({ comment: gap.slice(c).join('\n'), text });
  };
  while (i < sql.length) {
    const ch = sql[i];
    if (ch === '-' && sql[i + 1] === '-') {
      const nl = sql.indexOf('\n', i);
      i = nl < 0 ? sql.length : nl + 1;
    } else if (ch === '/' && sql[i + 1] === '*') {
      i = sql.indexOf('*/', i + 2) + 2;
    } else if (ch === "'" || ch === '"') {
      let j = i + 1;
      for (;;) {
        j = sql.indexOf(ch, j);
        if (sql[j + 1] === ch) j += 2;
        else break;
      }
      i = j + 1;
    } else if (ch === '$' && !/[A-Za-z0-9_]/.test(sql[i - 1] ?? '')) {
      const m = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(i));
      if (m) {
        const end = sql.indexOf(m[0], i + m[0].length);
        if (end < 0) throw new Error(`unterminated ${m[0]}`);
        i = end + m[0].length;
      } else i++;
    } else if (ch === ';') {
      push(i);
      start = i + 1;
      i++;
    } else i++;
  }
  push(sql.length);
  return out;
}

const NAME = String.raw`(?:public\.)?"?([a-z_][a-z0-9_]*)"?\s*\(`;
const CREATE = new RegExp(String.raw`^CREATE\s+(?:OR\s+REPLACE\s+)?FUNCTION\s+${NAME}`, 'i');
const DROP = new RegExp(String.raw`^DROP\s+FUNCTION\s+(?:IF\s+EXISTS\s+)?${NAME}`, 'i');
const ALTER = new RegExp(String.raw`^(?:ALTER\s+FUNCTION|COMMENT\s+ON\s+FUNCTION|GRANT\s+.*\s+ON\s+FUNCTION|REVOKE\s+.*\s+ON\s+FUNCTION)\s+${NAME}`, 'is');

interface Definition {
  migration: string;
  comment: string;
  create: string;
  after: string[];
}

async function latestDefinitions(): Promise<Map<string, Definition>> {
  const defs = new Map<string, Definition>();
  for (const m of await readMigrations()) {
    for (const s of statements(m.sql)) {
      let r: RegExpExecArray | null;
      if ((r = CREATE.exec(s.text))) {
        // An overload would need all of a name's CREATEs; there is none today (the check below would say).
        defs.set(r[1], { migration: m.name, comment: s.comment, create: s.text, after: [] });
      } else if ((r = DROP.exec(s.text))) {
        defs.delete(r[1]);
      } else if ((r = ALTER.exec(s.text))) {
        const d = defs.get(r[1]);
        if (!d) throw new Error(`${m.name}: ${s.text.slice(0, 60)} before any CREATE`);
        d.after.push(s.text);
      }
    }
  }
  return defs;
}

/** `ALTER FUNCTION f(..) SET x = y` folded into the CREATE, before its AS (a CREATE OR REPLACE without SET would clear it). */
function fold(d: Definition): string {
  let create = d.create.replace(/^CREATE\s+FUNCTION/i, 'CREATE OR REPLACE FUNCTION');
  const rest: string[] = [];
  for (const a of d.after) {
    const set = /^ALTER\s+FUNCTION\s+[^)]*\)\s+(SET\s+[a-z_]+\s*(?:=|TO)\s*\S+)$/i.exec(a);
    if (!set) {
      rest.push(`${a};`);
      continue;
    }
    const as = /\sAS\s+\$/i.exec(create);
    if (!as) throw new Error(`no AS in ${create.slice(0, 80)}`);
    create = `${create.slice(0, as.index)} ${set[1]}${create.slice(as.index)}`;
  }
  return [d.comment, `${create};`, ...rest].filter(Boolean).join('\n') + '\n';
}

const FUNCTIONS_SQL = `
  SELECT p.proname AS name, pg_get_function_identity_arguments(p.oid) AS args, pg_get_functiondef(p.oid) AS def
    FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
   WHERE n.nspname = 'public'
     AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
   ORDER BY 1, 2`;

async function main() {
  const defs = await latestDefinitions();
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  const files = new Map<string, string>();
  for (const [name, d] of [...defs].sort(([a], [b]) => a.localeCompare(b))) {
    files.set(name, fold(d));
    writeFileSync(path.join(OUT, `${name}.sql`), files.get(name)!);
  }

  const cluster = await startScratchPostgres();
  try {
    const admin = new pg.Client({ connectionString: cluster.url() });
    await admin.connect();
    await admin.query('CREATE DATABASE extract');
    await admin.end();
    const u = new URL(cluster.url());
    u.pathname = '/extract';
    // The migrations alone, as every database had them before the files.
    await migrate(u.toString());
    const db = new pg.Client({ connectionString: u.toString() });
    await db.connect();
    const before = (await db.query<{ name: string; args: string; def: string }>(FUNCTIONS_SQL)).rows;
    const missing = before.filter((r) => !files.has(r.name)).map((r) => r.name);
    const extra = [...files.keys()].filter((n) => !before.some((r) => r.name === n));
    if (missing.length || extra.length) throw new Error(`no file for [${missing}]; a file for no function: [${extra}]`);
    await db.query('BEGIN');
    for (const [name, sql] of files) {
      await db.query(sql).catch((err: Error) => {
        throw new Error(`${name}.sql: ${err.message}`);
      });
    }
    await db.query('COMMIT');
    const after = (await db.query<{ name: string; args: string; def: string }>(FUNCTIONS_SQL)).rows;
    const differ = before.filter((r, i) => after[i]?.name !== r.name || after[i].args !== r.args || after[i].def !== r.def).map((r) => r.name);
    if (differ.length || after.length !== before.length) throw new Error(`pg_get_functiondef differs after applying the files: [${differ}]`);
    await db.end();
    console.log(`${files.size} files, every one defining what the migrations defined (${before.length} functions)`);
  } finally {
    await cluster.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
