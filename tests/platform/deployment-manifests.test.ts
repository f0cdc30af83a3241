import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';

/**
 * The reference Kubernetes manifests (deploy/kubernetes, docs/deployment.md) against the code they
 * deploy: every environment variable they set is a setting the code reads, the probes hit routes
 * the API registers, the grace periods outlast the shutdown budget, and the guide names every file.
 * Schema validity is scripts/ci/validate-manifests.sh's job (kubernetes-validate, in CI).
 */
const ROOT = resolve(__dirname, '../..');
const MANIFEST_DIR = join(ROOT, 'deploy/kubernetes');
/** Where settings are read: the processes' code and the scripts operators run. */
const SOURCE_DIRS = ['api', 'domain', 'worker', 'scripts', 'activities', 'workflows', 'iso20022'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = join(dir, d.name);
    if (d.isDirectory()) return d.name === 'node_modules' || d.name === 'generated' ? [] : sourceFiles(p);
    return /\.(ts|mts|js|mjs)$/.test(d.name) && !d.name.endsWith('.d.ts') ? [p] : [];
  });
}

const isProcessEnv = (e: ts.Node): boolean => ts.isPropertyAccessExpression(e) && e.name.text === 'env' && ts.isIdentifier(e.expression) && e.expression.text === 'process';
const literal = (e: ts.Node | undefined): string | undefined => (e && (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e)) ? e.text : undefined);
const SETTING = /^[A-Z][A-Z0-9_]*$/;

/** The name a function is called by: `function f(…)`, `const f = (…) => …`, `const f = function (…)`. */
function functionName(fn: ts.SignatureDeclaration): string | undefined {
  if (ts.isFunctionDeclaration(fn)) return fn.name?.text;
  const parent = fn.parent;
  if (parent && ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  return undefined;
}

/**
 * The settings one file reads: `process.env.NAME`, `process.env['NAME']`, a `{ NAME?: string } =
 * process.env` parameter, and the names passed to a local helper that reads `process.env[param]`
 * (config.ts's int('PORT', …), bool(…), …) or mapped over a constant list (`LIST.map((v) => process.env[v])`).
 */
function settingsReadIn(file: string): Set<string> {
  const text = readFileSync(file, 'utf8');
  const names = new Set<string>();
  if (!text.includes('process.env')) return names;
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('ts') ? ts.ScriptKind.TS : ts.ScriptKind.JS);
  const helpers = new Map<string, number>(); // helper name -> index of the parameter used as the variable name
  const constLists = new Map<string, string[]>();
  const mappedLists: string[] = [];

  const visit = (node: ts.Node): void => {
    if (ts.isPropertyAccessExpression(node) && isProcessEnv(node.expression)) names.add(node.name.text);
    if (ts.isElementAccessExpression(node) && isProcessEnv(node.expression)) {
      const key = literal(node.argumentExpression);
      if (key !== undefined) names.add(key);
      else if (ts.isIdentifier(node.argumentExpression)) {
        // process.env[p]: p is a parameter of the nearest enclosing function that declares it.
        for (let fn: ts.Node | undefined = node.parent; fn; fn = fn.parent) {
          if (!ts.isFunctionLike(fn)) continue;
          const index = fn.parameters.findIndex((p) => ts.isIdentifier(p.name) && p.name.text === (node.argumentExpression as ts.Identifier).text);
          if (index < 0) continue;
          const name = functionName(fn);
          if (name) helpers.set(name, index);
          // LIST.map((v) => process.env[v])
          const call = fn.parent;
          if (ts.isCallExpression(call) && ts.isPropertyAccessExpression(call.expression) && ts.isIdentifier(call.expression.expression)) {
            mappedLists.push(call.expression.expression.text);
          }
          break;
        }
      }
    }
    // settings: { NAME?: string } = process.env
    if (ts.isParameter(node) && node.initializer && isProcessEnv(node.initializer) && node.type && ts.isTypeLiteralNode(node.type)) {
      for (const m of node.type.members) if (m.name && ts.isIdentifier(m.name)) names.add(m.name.text);
    }
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer && ts.isArrayLiteralExpression(node.initializer)) {
      const items = node.initializer.elements.map((e) => literal(e));
      if (items.every((i) => i !== undefined)) constLists.set(node.name.text, items as string[]);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);

  const calls = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && helpers.has(node.expression.text)) {
      const name = literal(node.arguments[helpers.get(node.expression.text)!]);
      if (name !== undefined) names.add(name);
    }
    ts.forEachChild(node, calls);
  };
  calls(sf);
  for (const list of mappedLists) for (const name of constLists.get(list) ?? []) names.add(name);
  return new Set([...names].filter((n) => SETTING.test(n)));
}

function settingsTheCodeReads(): Set<string> {
  const all = new Set<string>();
  for (const dir of SOURCE_DIRS) for (const file of sourceFiles(join(ROOT, dir))) for (const n of settingsReadIn(file)) all.add(n);
  return all;
}

interface Manifest {
  file: string;
  doc: any;
}

function manifests(): Manifest[] {
  return readdirSync(MANIFEST_DIR)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort()
    .flatMap((file) =>
      parseAllDocuments(readFileSync(join(MANIFEST_DIR, file), 'utf8')).map((d) => {
        expect(d.errors, file).toEqual([]);
        return { file, doc: d.toJS() };
      }),
    )
    .filter((m) => m.doc);
}

const podSpec = (doc: any): any => (doc.kind === 'Deployment' || doc.kind === 'Job' ? doc.spec.template.spec : undefined);

/** Every variable name the manifests set: containers' env entries and the ConfigMaps' keys (loaded with envFrom). */
function envNamesSet(all: Manifest[]): { name: string; where: string }[] {
  const out: { name: string; where: string }[] = [];
  for (const { file, doc } of all) {
    if (doc.kind === 'ConfigMap') for (const name of Object.keys(doc.data ?? {})) out.push({ name, where: `${file} (ConfigMap ${doc.metadata.name})` });
    for (const c of podSpec(doc)?.containers ?? []) for (const e of c.env ?? []) out.push({ name: e.name, where: `${file} (container ${c.name})` });
  }
  return out;
}

/** SHUTDOWN_TIMEOUT_MS's default, as domain/platform/config.ts writes it. */
function shutdownBudgetDefaultMs(): number {
  const m = /int\('SHUTDOWN_TIMEOUT_MS',\s*([\d_]+)\)/.exec(readFileSync(join(ROOT, 'domain/platform/config.ts'), 'utf8'));
  expect(m, 'SHUTDOWN_TIMEOUT_MS default in domain/platform/config.ts').not.toBeNull();
  return Number(m![1].replace(/_/g, ''));
}

describe('deployment manifests (deploy/kubernetes)', () => {
  const all = manifests();
  const read = settingsTheCodeReads();
  const deployment = (component: string) => all.find((m) => m.doc.kind === 'Deployment' && m.doc.metadata.labels?.['app.kubernetes.io/component'] === component)!.doc;

  it('the scan finds the settings read each way (config helpers, process.env reads, settings parameters)', () => {
    // int('PORT'), bool('ACH_SCHEDULES_MANAGED'), process.env.DATABASE_URL, process.env.NATS_URL (domain/events/stream.ts),
    // { RATES_PROVIDER?: string } = process.env, iso20022/config.ts, a local arrow helper (domain/microfinance/groups.ts)
    for (const n of ['PORT', 'SHUTDOWN_TIMEOUT_MS', 'ACH_SCHEDULES_MANAGED', 'DATABASE_URL', 'NATS_URL', 'EVENTS_STREAM_REPLICAS', 'RATES_PROVIDER', 'ISO20022_XSD_DIR', 'SECRETS_MASTER_KEYS', 'MICROFINANCE_GROUP_MIN_MEMBERS', 'TRAVEL_RULE_THRESHOLDS']) {
      expect(read, n).toContain(n);
    }
    expect(read).not.toContain('PASSKEYS_NOT_CONFIGURED');
  });

  it('sets only variables the code reads', () => {
    const unknown = envNamesSet(all).filter((e) => !read.has(e.name));
    expect(unknown, 'variables no code reads (misspelt, or the setting was renamed)').toEqual([]);
  });

  it('keeps secret values out of the repository: secrets only by reference to banking-platform-secrets', () => {
    expect(all.filter((m) => m.doc.kind === 'Secret').map((m) => m.file)).toEqual([]);
    const secretRefs = all.flatMap(({ doc }) => (podSpec(doc)?.containers ?? []).flatMap((c: any) => (c.env ?? []).filter((e: any) => e.valueFrom?.secretKeyRef)));
    expect(secretRefs.length).toBeGreaterThan(0);
    for (const e of secretRefs) expect(e.valueFrom.secretKeyRef.name).toBe('banking-platform-secrets');
  });

  it('probes the routes the API registers', () => {
    const apiSource = sourceFiles(join(ROOT, 'api')).map((f) => readFileSync(f, 'utf8')).join('\n');
    const paths = all.flatMap(({ doc }) =>
      (podSpec(doc)?.containers ?? []).flatMap((c: any) => [c.livenessProbe, c.readinessProbe, c.startupProbe].filter(Boolean).map((p: any) => p.httpGet?.path).filter(Boolean)),
    );
    expect(paths).toEqual(expect.arrayContaining(['/api/health', '/api/ready']));
    for (const p of paths) {
      const route = new RegExp(`\\.(get|route)\\(\\s*['"\`]${p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}['"\`]`);
      expect(route.test(apiSource), `GET ${p} registered under api/`).toBe(true);
    }
  });

  it('gives the API and the worker a grace period longer than the shutdown budget (plus preStop)', () => {
    const configured = all.find((m) => m.doc.kind === 'ConfigMap')?.doc.data?.SHUTDOWN_TIMEOUT_MS;
    const budgetS = Math.max(shutdownBudgetDefaultMs(), Number(configured ?? 0)) / 1000;
    for (const component of ['api', 'worker']) {
      const spec = deployment(component).spec.template.spec;
      const preStop = spec.containers[0].lifecycle?.preStop?.sleep?.seconds ?? 0;
      expect(spec.terminationGracePeriodSeconds, component).toBeGreaterThan(budgetS + preStop);
    }
  });

  it('runs the npm scripts\' entry points with the process counts of docs/deployment.md', () => {
    const scripts = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts;
    const entry = (doc: any) => podSpec(doc).containers[0].command.at(-1);
    expect(`tsx ${entry(deployment('api'))}`).toBe(scripts.api);
    expect(`tsx ${entry(deployment('worker'))}`).toBe(scripts.worker);
    expect(`tsx ${entry(all.find((m) => m.doc.kind === 'Job')!.doc)}`).toBe(scripts.migrate);
    expect(deployment('api').spec.replicas).toBe(2);
    expect(deployment('worker').spec.replicas).toBe(3);
  });

  it('is described file by file in docs/deployment.md', () => {
    const doc = readFileSync(join(ROOT, 'docs/deployment.md'), 'utf8');
    const missing = [...new Set(all.map((m) => m.file))].filter((f) => !doc.includes(f));
    expect(missing).toEqual([]);
  });
});
