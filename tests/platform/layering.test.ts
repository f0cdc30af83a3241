import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * Routes are thin (docs/architecture.md, "How to add an area"): a handler takes the principal,
 * makes one domain call and presents the result. Rules and persistence live in domain/<area>, so
 * no file under api/routes reaches the database: none imports domain/db/pool or the pg driver, and
 * none holds SQL in a string. A static scan of every route file, every area included.
 */
const ROOT = resolve(__dirname, '../..');
const ROUTES = join(ROOT, 'api/routes');
/** Every transport and the operation layer they share (api/operations): none reaches the database. */
const TRANSPORTS = ['api/routes', 'api/operations', 'api/graphql', 'api/mcp'].map((d) => join(ROOT, d));

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = join(dir, d.name);
    return d.isDirectory() ? tsFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

const files = TRANSPORTS.flatMap(tsFiles);
const source = (file: string) => ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
const at = (sf: ts.SourceFile, node: ts.Node) => `${relative(ROOT, sf.fileName)}:${sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1}`;

/** Module specifiers of static imports, re-exports, dynamic import() and require(). */
function specifiers(sf: ts.SourceFile): { spec: string; node: ts.Node }[] {
  const out: { spec: string; node: ts.Node }[] = [];
  const visit = (node: ts.Node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      out.push({ spec: node.moduleSpecifier.text, node });
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference) && ts.isStringLiteral(node.moduleReference.expression)) {
      out.push({ spec: node.moduleReference.expression.text, node });
    } else if (
      ts.isCallExpression(node) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(node.expression) && node.expression.text === 'require')) &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      out.push({ spec: node.arguments[0].text, node });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** The text of every string literal and template (its literal parts), outside import specifiers. */
function strings(sf: ts.SourceFile): { text: string; node: ts.Node }[] {
  const out: { text: string; node: ts.Node }[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) return;
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) out.push({ text: node.text, node });
    else if (ts.isTemplateExpression(node)) out.push({ text: [node.head.text, ...node.templateSpans.map((s) => s.literal.text)].join(' ? '), node });
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** Every string literal among these files that reads as SQL, with its place (one scan for routes and activities). */
function sqlStrings(among: string[]): string[] {
  return among.flatMap((file) => {
    const sf = source(file);
    return strings(sf)
      .filter((s) => SQL.some((re) => re.test(s.text)))
      .map((s) => `${at(sf, s.node)}: ${s.text.replace(/\s+/g, ' ').slice(0, 80)}`);
  });
}

/** The database layer as a route would name it: the pool module, or the pg driver itself. */
function isDatabaseModule(spec: string): boolean {
  if (spec === 'pg' || spec.startsWith('pg/') || spec === 'pg-pool') return true;
  const path = spec.replace(/\.(ts|js)$/, '');
  return path.startsWith('.') && /(^|\/)domain\/db\/pool$/.test(path);
}

/** SQL as this codebase writes it (keywords in capitals); English prose in descriptions does not match. */
const SQL = [
  /\bSELECT\b[\s\S]*\bFROM\b/,
  /\bSELECT\s+(1|\*|count\(|[a-z_]+\.)/,
  /\bINSERT\s+INTO\b/,
  /\bUPDATE\s+[a-z_."]+\s+SET\b/,
  /\bDELETE\s+FROM\b/,
  /\bFOR\s+UPDATE\b/,
  /\bWHERE\s+[a-z_.]+\s*(=|IN\b|IS\b|<|>)/,
  /\b(LEFT\s+|INNER\s+)?JOIN\s+[a-z_]+\s+(ON|[a-z]+\s+ON)\b/,
  /\$[1-9][0-9]*\b.*\$[1-9]/,
];

describe('layering: routes hold no SQL and no database access', () => {
  it('finds the route files (every area, crosschain and defi included)', () => {
    const areas = new Set(files.map((f) => relative(ROUTES, f).split('/')[0]).filter((a) => !a.endsWith('.ts')));
    for (const area of ['transfers', 'accounts', 'ledger', 'rails', 'interledger', 'system', 'crosschain', 'defi']) expect(areas).toContain(area);
    for (const dir of TRANSPORTS) expect(files.some((f) => f.startsWith(dir + '/'))).toBe(true);
  });

  it('no transport file (api/routes, api/operations, api/graphql, api/mcp) imports domain/db/pool or the pg module', () => {
    const offending = files.flatMap((file) => {
      const sf = source(file);
      return specifiers(sf)
        .filter((s) => isDatabaseModule(s.spec))
        .map((s) => `${at(sf, s.node)} imports ${s.spec}`);
    });
    expect(offending).toEqual([]);
  });

  it('no transport file (api/routes, api/operations, api/graphql, api/mcp) calls getPool or withTransaction', () => {
    const offending = files.flatMap((file) => {
      const sf = source(file);
      const hits: string[] = [];
      const visit = (node: ts.Node) => {
        if (ts.isIdentifier(node) && (node.text === 'getPool' || node.text === 'withTransaction')) hits.push(`${at(sf, node)} uses ${node.text}`);
        ts.forEachChild(node, visit);
      };
      visit(sf);
      return hits;
    });
    expect(offending).toEqual([]);
  });

  it('no string in a transport file is SQL', () => {
    expect(sqlStrings(files)).toEqual([]);
  });

  it('the scan itself recognises SQL and the database modules, and lets prose through', () => {
    expect(SQL.some((re) => re.test('SELECT 1 FROM accounts WHERE id = $1 AND user_id = $2'))).toBe(true);
    expect(SQL.some((re) => re.test('SELECT 1'))).toBe(true);
    expect(SQL.some((re) => re.test('UPDATE transfers SET status = $1'))).toBe(true);
    expect(SQL.some((re) => re.test('INSERT INTO outbox (id) VALUES ($1)'))).toBe(true);
    expect(SQL.some((re) => re.test('SELECT * FROM defi_swap_quotes WHERE id = $1 FOR UPDATE'))).toBe(true);
    for (const prose of [
      'Transfers into or out of an account, newest first',
      'Filters: status, rail, account_id, currency, and created_at from start_date (inclusive) to end_date (exclusive).',
      'Only with a login access token, only while no operator exists, and only once',
      'Select a rail from the catalog; update the webhook, then delete from the list',
    ]) {
      expect(SQL.some((re) => re.test(prose)), prose).toBe(false);
    }
    expect(isDatabaseModule('../../../domain/db/pool')).toBe(true);
    expect(isDatabaseModule('../../../domain/db/pool.ts')).toBe(true);
    expect(isDatabaseModule('pg')).toBe(true);
    expect(isDatabaseModule('../../../domain/transfers')).toBe(false);
  });
});

/**
 * Activities are the workflows' steps: they open a transaction (withTransaction) and call the domain,
 * which owns every statement (issue 43: the last raw queries moved into domain/accounts, crosschain
 * and rails). The same SQL scan over activities/.
 */
describe('layering: activities hold no SQL', () => {
  const activityFiles = tsFiles(resolve(ROOT, 'activities'));

  it('no string in an activity file is SQL', () => {
    expect(activityFiles.length).toBeGreaterThan(10);
    expect(sqlStrings(activityFiles)).toEqual([]);
  });
});
