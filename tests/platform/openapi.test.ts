import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
