import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * One area, one spelling (docs/architecture.md, "Areas and their names"): an area has the same
 * folder name in every layer (domain, activities, api/routes, api/operations, tests) and file names
 * elsewhere (workflows, GraphQL areas, docs) start with that spelling, never a variant of it
 * ("openbanking", "ob-", "payment-rails"). A stranger who finds domain/open-banking finds the rest by
 * the same name.
 */
const ROOT = resolve(__dirname, '../..');

/** The product's areas: the folder names every layer uses. */
const AREAS = [
  'accounts', 'ai', 'api-keys', 'auth', 'baskets', 'crosschain', 'defi', 'gcu', 'governance', 'interledger', 'iso20022',
  'ledger', 'live-dashboard', 'mcp', 'metrics', 'microfinance', 'mobile', 'oauth', 'open-banking', 'operators', 'partner',
  'rails', 'regtech', 'sms', 'system', 'transactions', 'transfers', 'webhooks', 'x402',
];
/** Shared pieces of the domain that are not an area of the API. */
const SHARED = ['ach', 'assets', 'cash', 'chains', 'db', 'events', 'money', 'observability', 'platform', 'rates', 'reversals', 'temporal'];
/** Test-only folders, and the GraphQL/test grouping of several areas ("banking": accounts, transfers, transactions). */
const TEST_ONLY = ['banking', 'chaos', 'graphql', 'helpers', 'replay'];
/** Spellings that were retired for the one above; they must not come back. */
const RETIRED: Record<string, string> = { openbanking: 'open-banking', ob: 'open-banking', mf: 'microfinance', 'payment-rails': 'rails', 'payments-402': 'x402', 'ai-queries': 'ai' };
/** REST-only areas: no other transport calls them, so they have no shared operation module. */
const REST_ONLY = { mcp: 'the MCP transport itself (api/mcp)', oauth: "the OAuth protocol's own endpoints and consent page" };

const dirs = (rel: string) => readdirSync(join(ROOT, rel), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);
const files = (rel: string, ext: string) =>
  readdirSync(join(ROOT, rel), { withFileTypes: true }).filter((d) => d.isFile() && d.name.endsWith(ext)).map((d) => d.name.slice(0, -ext.length));

const FOLDER_LAYERS = ['domain', 'activities', 'api/routes', 'api/operations', 'tests'];
const FILE_LAYERS: [string, string][] = [['workflows', '.ts'], ['api/graphql/areas', '.ts'], ['docs', '.md']];

/** Every name a layer uses: its folders, its files' names and each hyphen-prefix of them ("open-banking-consent" → "open", "open-banking", …). */
function allNames(): Map<string, string[]> {
  const where = new Map<string, string[]>();
  const add = (name: string, at: string) => where.set(name, [...(where.get(name) ?? []), at]);
  for (const layer of FOLDER_LAYERS) for (const d of dirs(layer)) add(d, `${layer}/${d}/`);
  for (const [layer, ext] of FILE_LAYERS) {
    for (const f of files(layer, ext)) {
      const parts = f.split('-');
      for (let i = 1; i <= parts.length; i++) add(parts.slice(0, i).join('-'), `${layer}/${f}${ext}`);
    }
  }
  return where;
}

describe('area names: one spelling per area across the layers', () => {
  it('every folder of domain, activities, api/routes, api/operations and tests is an area, a shared piece or a test-only folder', () => {
    const known = new Set([...AREAS, ...SHARED]);
    const unknown = FOLDER_LAYERS.flatMap((layer) => dirs(layer).filter((d) => !known.has(d) && !(layer === 'tests' && TEST_ONLY.includes(d))).map((d) => `${layer}/${d}`));
    expect(unknown).toEqual([]);
  });

  it('no two names differ only in their hyphens (open-banking and openbanking), and no retired spelling is used', () => {
    const where = allNames();
    const byForm = new Map<string, string[]>();
    for (const name of where.keys()) {
      const form = name.replace(/-/g, '').toLowerCase();
      byForm.set(form, [...(byForm.get(form) ?? []), name]);
    }
    const variants = [...byForm.values()].filter((names) => names.length > 1).map((names) => names.map((n) => `${n} (${where.get(n)![0]})`).join(' vs '));
    expect(variants).toEqual([]);
    const retired = [...where.entries()].filter(([name]) => name in RETIRED).map(([name, at]) => `${at[0]} uses "${name}", spelled "${RETIRED[name]}"`);
    expect(retired).toEqual([]);
  });

  it('workflows, GraphQL areas and docs named after an area use its spelling', () => {
    // A file whose first word is an area's first word ("open" of open-banking, "live" of live-dashboard) continues with the whole area name.
    const multiWord = AREAS.filter((a) => a.includes('-'));
    const wrong = FILE_LAYERS.flatMap(([layer, ext]) =>
      files(layer, ext).flatMap((f) => multiWord.filter((a) => f.split('-')[0] === a.split('-')[0] && !(f === a || f.startsWith(`${a}-`))).map((a) => `${layer}/${f}${ext} (area ${a})`)),
    );
    expect(wrong).toEqual([]);
  });

  it('every REST area another transport calls has its operation module under the same name (api/operations/<area>)', () => {
    const operations = new Set(dirs('api/operations'));
    const missing = dirs('api/routes').filter((area) => !operations.has(area) && !(area in REST_ONLY));
    expect(missing).toEqual([]);
    // and no operation module without its REST area
    const routes = new Set(dirs('api/routes'));
    expect([...operations].filter((area) => !routes.has(area))).toEqual([]);
  });

  it("docs/architecture.md's end-to-end area names only paths that exist", () => {
    const doc = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
    const section = doc.slice(doc.indexOf('## One area end to end'));
    const table = section.slice(0, section.indexOf('\n## ') > 0 ? section.indexOf('\n## ') : undefined);
    const paths = [...table.matchAll(/`((?:domain|activities|api|workflows|worker|tests|prisma|docs)\/[^`]+)`/g)].map((m) => m[1]);
    expect(paths.length).toBeGreaterThan(15);
    expect(paths.filter((p) => !existsSync(join(ROOT, p)))).toEqual([]);
  });

  it('the check sees every layer (a moved folder cannot empty it unnoticed)', () => {
    for (const layer of FOLDER_LAYERS) expect(dirs(layer).length).toBeGreaterThan(5);
    expect(allNames().has('open-banking')).toBe(true);
  });
});
