import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * On Node 20, an object literal that starts with a spread and adds properties after it
 * (`{ ...row, status: 'completed' }`) leaves its objects, and everything they point to, alive
 * through young-generation collections: on the synchronous transfer path such literals promoted a
 * third to a half of the API's short-lived bytes to the old generation, and its scavenges took
 * 8-12 ms every 30-40 ms under load (docs/operations.md, "Object spread on hot paths"). A literal
 * with its own properties first, Object.assign, or an object completed in place does not.
 *
 * Every request passes through the plugins, and every synchronous transfer through the transfer
 * route and the immediate path: none of their files holds such a literal.
 */
const ROOT = resolve(__dirname, '../..');

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = join(dir, d.name);
    return d.isDirectory() ? tsFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

const HOT_PATH = [
  ...tsFiles(join(ROOT, 'api/plugins')),
  ...tsFiles(join(ROOT, 'api/routes/transfers')),
  ...['api/app.ts', 'domain/transfers/immediate.ts', 'domain/transfers/checks.ts', 'domain/transfers/lines.ts', 'domain/transfers/group-commit.ts', 'domain/transfers/records.ts', 'domain/platform/rate-limiter.ts', 'domain/auth/api-keys.ts', 'domain/ledger/entries.ts', 'domain/money/amount.ts', 'domain/db/pipelined.ts'].map((f) => join(ROOT, f)),
];

/** Object literals whose first member is a spread and which have members after it. */
function spreadFirstLiterals(file: string, text: string): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isObjectLiteralExpression(node) && node.properties.length > 1 && ts.isSpreadAssignment(node.properties[0])) {
      found.push(`${relative(ROOT, file)}:${sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

describe('object literals on the synchronous transfer path', () => {
  it('recognises a spread-first literal with members after the spread, and only that', () => {
    const code = `
      const a = { ...row, status: 'completed' };
      const b = { id: 1, ...row };
      const c = { ...row };
      const d = Object.assign({}, row, { status: 'completed' });
      const e = f({ ...x, y: 1, z: 2 });`;
    expect(spreadFirstLiterals(join(ROOT, 'x.ts'), code)).toEqual(['x.ts:2', 'x.ts:6']);
  });

  it('has none in the plugins, the transfer route and the immediate transfer path', () => {
    expect(HOT_PATH.length).toBeGreaterThan(15);
    const found = HOT_PATH.flatMap((f) => spreadFirstLiterals(f, readFileSync(f, 'utf8')));
    expect(found).toEqual([]);
  });
});
