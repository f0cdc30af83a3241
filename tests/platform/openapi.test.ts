import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app';

const root = path.resolve(__dirname, '../..');
const run = promisify(execFile);

type Operation = { security?: unknown[]; responses: Record<string, { content?: Record<string, unknown> }> };
type Document = { openapi: string; paths: Record<string, Record<string, Operation>> };

let t: TestApp;
let doc: Document;
let body: string;
beforeAll(async () => {
  t = await createTestApp();
  const r = await t.app.inject({ method: 'GET', url: '/api/openapi.json' });
  expect(r.statusCode).toBe(200);
  body = r.body;
  doc = r.json();
});
afterAll(async () => t.close());

function operations(): [string, string, Operation][] {
  return Object.entries(doc.paths).flatMap(([p, ops]) => Object.entries(ops).map(([m, op]) => [p, m, op] as [string, string, Operation]));
}

describe('the served OpenAPI document', () => {
  it('passes redocly lint (recommended ruleset, redocly.yaml) with no errors', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'openapi-'));
    try {
      const file = path.join(dir, 'openapi.json');
      writeFileSync(file, body);
      const result = await run(
        path.join(root, 'node_modules/.bin/redocly'),
        ['lint', file, '--config', path.join(root, 'redocly.yaml'), '--format', 'json'],
        { cwd: root, env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' }, maxBuffer: 64 << 20 },
      ).catch((e: { stdout?: string; stderr?: string; code?: number }) => ({ stdout: e.stdout ?? '', stderr: e.stderr ?? '', code: e.code }));
      const report = JSON.parse(result.stdout) as {
        totals: { errors: number; warnings: number };
        problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
      };
      const errors = report.problems
        .filter((p) => p.severity === 'error')
        .map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
      expect(errors).toEqual([]);
      expect(report.totals.errors).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('is OpenAPI 3.0: exclusiveMinimum/exclusiveMaximum only as booleans beside minimum/maximum', () => {
    const bad: string[] = [];
    const walk = (node: unknown, at: string) => {
      if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${at}/${i}`));
      if (!node || typeof node !== 'object') return;
      const o = node as Record<string, unknown>;
      for (const [k, bound] of [['exclusiveMinimum', 'minimum'], ['exclusiveMaximum', 'maximum']] as const) {
        if (k in o && (typeof o[k] !== 'boolean' || !(bound in o))) bad.push(`${at}/${k}`);
      }
      for (const [k, v] of Object.entries(o)) walk(v, `${at}/${k}`);
    };
    walk(doc, '#');
    expect(bad).toEqual([]);
  });

  it('every operation documents the statuses the conventions can return, as the JSON envelope', () => {
    const missing: string[] = [];
    const notJson: string[] = [];
    for (const [p, m, op] of operations()) {
      const isPublic = Array.isArray(op.security) && op.security.length === 0;
      const wanted = ['405', '414', '429', '500', ...(isPublic ? [] : ['401', '403', '404', '422'])];
      for (const s of wanted) if (!op.responses[s]) missing.push(`${m.toUpperCase()} ${p} ${s}`);
      for (const [s, r] of Object.entries(op.responses)) {
        if (Number(s) >= 400 && !r.content?.['application/json']) notJson.push(`${m.toUpperCase()} ${p} ${s}`);
      }
    }
    expect(missing).toEqual([]);
    expect(notJson).toEqual([]);
  });

  it('documents 415 wherever a body is accepted and 409 wherever Idempotency-Key is', () => {
    const missing: string[] = [];
    for (const [p, m, op] of operations()) {
      if (!['post', 'put', 'patch'].includes(m)) continue;
      for (const s of ['409', '413', '415']) if (!op.responses[s]) missing.push(`${m.toUpperCase()} ${p} ${s}`);
    }
    expect(missing).toEqual([]);
  });

  it('/api/metrics answers text on 200 and the JSON envelope on 401', async () => {
    const metrics = doc.paths['/api/metrics'].get;
    expect(Object.keys(metrics.responses['200'].content ?? {})).toEqual(['text/plain']);
    expect(Object.keys(metrics.responses['401'].content ?? {})).toEqual(['application/json']);
    const r = await t.app.inject({ method: 'GET', url: '/api/metrics' });
    expect(r.statusCode).toBe(401);
    expect(r.headers['content-type']).toContain('application/json');
  });
});

/**
 * The spec's census (issue 42): every Method + Path row of the spec's endpoint tables, its address
 * resolved by the spec's own rule ("Placeholders": {api_root} is /api, {base_url} = {api_root}/v2,
 * a path starting with / and no placeholder is relative to {base_url}), is in the served OpenAPI
 * document and is served by the live app (never 404 ROUTE_NOT_FOUND nor 405).
 */
describe('every spec row at its spec address', () => {
  const specFile = process.env.PLATFORM_SPEC_PATH || path.resolve(root, '../shared/spec/platform-api-spec.md');
  const rows = readFileSync(specFile, 'utf8')
    .split('\n')
    .map((line) => /^\|\s*(GET|POST|PUT|PATCH|DELETE)\s*\|\s*([^|\s]+)[^|]*\|/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ method: m[1], path: m[2].startsWith('{api_root}') ? m[2].replace('{api_root}', '/api') : `/api/v2${m[2]}` }));
  // Parameter names differ between the spec and the routes ({messageId}, {message_id}): compare shapes.
  const shape = (p: string) => p.replace(/\{[^}]+\}/g, '{}');

  it('reads the spec (91 rows at the time of writing); the document says where the API lives', () => {
    expect(rows.length).toBeGreaterThanOrEqual(90);
    expect((doc as unknown as { servers: Array<{ description?: string }> }).servers[0].description).toContain('/api/v2');
  });

  it('finds each row in /api/openapi.json', () => {
    const documented = new Set(operations().map(([p, m]) => `${m.toUpperCase()} ${shape(p)}`));
    expect(rows.filter((r) => !documented.has(`${r.method} ${shape(r.path)}`)).map((r) => `${r.method} ${r.path}`)).toEqual([]);
  });

  it('is served: no row answers 404 ROUTE_NOT_FOUND or 405', async () => {
    const missing: string[] = [];
    for (const r of rows) {
      const url = r.path.replace(/\{[^}]+\}/g, '00000000-0000-4000-8000-000000000000');
      const res = await t.app.inject({ method: r.method as 'GET', url, headers: t.headers, ...(r.method === 'GET' ? {} : { payload: {} }) });
      const code = res.headers['content-type']?.toString().includes('json') ? (res.json().errors?.[0]?.code ?? res.json().errors?.[0]?.extensions?.code) : undefined;
      if (res.statusCode === 405 || (res.statusCode === 404 && code === 'ROUTE_NOT_FOUND')) missing.push(`${r.method} ${r.path} -> ${res.statusCode}`);
    }
    expect(missing).toEqual([]);
  });
});
