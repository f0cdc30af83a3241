/**
 * SDK generation (domain/partner/sdk): the request in both body forms and its refusals, the
 * platform's OpenAPI document as the generators need it, the filtered SDK document, the signed
 * links, and whole generations through the real workflow on the run's Temporal server (TypeScript
 * and Python in parallel), with determinism (a rebuild from scratch gives the same sha256), the
 * cache (a repeat completes at once), the sdk.generated event and the download route.
 *
 * The generators' output is cached by content for the run (SDK_GENERATOR_CACHE_DIR,
 * domain/partner/sdk/generator-cache.ts), shared with sdk-routes and sdk-smoke: the rebuild from
 * scratch turns it off, so both generators run for real there, every run.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statusForCode } from '../../api/error-status';
import { getPool } from '../../domain/db/pool';
import { EVENT_CATALOG } from '../../domain/events/catalog';
import { MODULES } from '../../domain/partner/modules';
import {
  getSdkGeneration,
  normalizeSdkRequest,
  requestSdkGeneration,
  signDownloadLink,
  waitForSdkGeneration,
  type SdkGenerationView,
} from '../../domain/partner/sdk';
import { generateTypescript, SdkGeneratorError, type GeneratedFiles } from '../../domain/partner/sdk/generate';
import { cachedGeneration, generatorCacheKey } from '../../domain/partner/sdk/generator-cache';
import { tarGz, zip } from '../../domain/partner/sdk/package';
import { platformOpenApiDocument, sdkDocument } from '../../domain/partner/sdk/spec';
import { loadConfig } from '../../domain/platform/config';
import { DomainError } from '../../domain/platform/errors';
import { createTestApp, createTestUser, type TestApp } from '../helpers/app';
import { startTestWorker, type TestWorker } from '../helpers/worker';
import { refusal } from '../helpers/refusal';

const run = promisify(execFile);

let t: TestApp;
let w: TestWorker;
beforeAll(async () => {
  process.env.SDK_LINK_SECRET ??= 'test-sdk-link-secret';
  process.env.SDK_GENERATOR_CACHE_DIR ??= '.data/sdk-generator-cache';
  t = await createTestApp();
  w = await startTestWorker();
}, 120_000);
afterAll(async () => {
  await w?.stop();
  await t?.close();
});

const scope = () => ({ userId: t.user.userId, environment: 'sandbox' as const });

describe('the request, in both forms of the spec', () => {
  it('normalizes the single form and the multiple form', () => {
    const single = normalizeSdkRequest({ language: 'TypeScript', branding: { name: 'Acme Bank', color: '#0A84FF' }, modules: ['accounts', 'defi', 'accounts'] });
    expect(single).toEqual({
      languages: ['typescript'],
      api_version: 'v2',
      modules: ['accounts', 'defi'],
      branding: { name: 'Acme Bank', color: '#0a84ff' },
      package_name: 'acme-bank-sdk',
      options: { include_types: true, include_examples: true, include_tests: false },
    });
    const multiple = normalizeSdkRequest({ languages: ['python', 'typescript', 'python'], api_version: 'v2', include_modules: ['webhooks'], options: { include_tests: true } });
    expect(multiple).toMatchObject({ languages: ['python', 'typescript'], api_version: 'v2', modules: ['webhooks'], branding: null, package_name: 'banking-platform-sdk' });
    expect(multiple.options).toEqual({ include_types: true, include_examples: true, include_tests: true });
    // No module list: every module; api_version v1 is the other published version.
    expect(normalizeSdkRequest({ language: 'python', api_version: 'v1' }).modules).toEqual([...MODULES].sort());
    // A brand name of any script still gives a safe package name.
    expect(normalizeSdkRequest({ language: 'python', branding: { name: 'Crédit Coopératif 2', color: '#fff' } })).toMatchObject({ package_name: 'credit-cooperatif-2-sdk', branding: { color: '#ffffff' } });
    expect(normalizeSdkRequest({ language: 'python', branding: { name: '日本銀行', color: '#fff' } }).package_name).toBe('banking-platform-sdk');
  });

  it('any other language is 422 UNSUPPORTED_SDK_LANGUAGE listing the supported ones', () => {
    for (const [body, pointer] of [
      [{ language: 'go' }, '/language'],
      [{ languages: ['python', 'rust'] }, '/languages/1'],
    ] as const) {
      const e = refusal(() => normalizeSdkRequest(body));
      expect(e.code).toBe('UNSUPPORTED_SDK_LANGUAGE');
      expect(statusForCode(e.code)).toBe(422);
      expect(e.pointer).toBe(pointer);
      expect(e.message).toContain('python, typescript');
      expect(e.details).toEqual({ supported: ['python', 'typescript'] });
    }
  });

  it('a hostile package name, module list, brand or option is 422 with a pointer to it', () => {
    const cases: Array<[unknown, string, string]> = [
      [{ language: 'typescript', package_name: '../../etc/passwd' }, 'VALIDATION_ERROR', '/package_name'],
      [{ language: 'typescript', package_name: 'x; rm -rf /' }, 'VALIDATION_ERROR', '/package_name'],
      [{ language: 'typescript', package_name: '@evil/../x' }, 'VALIDATION_ERROR', '/package_name'],
      [{ language: 'typescript', package_name: 'Acme' }, 'VALIDATION_ERROR', '/package_name'],
      [{ language: 'typescript', package_name: '--help' }, 'VALIDATION_ERROR', '/package_name'],
      [{ language: 'python', package_name: 'import' }, 'VALIDATION_ERROR', '/package_name'],
      [{ language: 'typescript', package_name: `a${'b'.repeat(60)}` }, 'VALIDATION_ERROR', '/package_name'],
      [{ language: 'typescript', modules: ['accounts', '../../etc'] }, 'UNKNOWN_SDK_MODULE', '/modules/1'],
      [{ languages: ['typescript'], include_modules: ['accounts', 'defi; rm -rf /'] }, 'UNKNOWN_SDK_MODULE', '/include_modules/1'],
      [{ language: 'typescript', modules: ['accounts', 7] }, 'VALIDATION_ERROR', '/modules/1'],
      [{ language: 'typescript', modules: 'accounts' }, 'VALIDATION_ERROR', '/modules'],
      [{ language: 'typescript', modules: Array.from({ length: 51 }, () => 'accounts') }, 'VALIDATION_ERROR', '/modules'],
      [{ language: 'typescript', branding: { name: 'Acme\nBank', color: '#000000' } }, 'VALIDATION_ERROR', '/branding/name'],
      [{ language: 'typescript', branding: { name: 'Acme', color: 'red; }' } }, 'VALIDATION_ERROR', '/branding/color'],
      [{ language: 'typescript', options: { include_types: 'yes' } }, 'VALIDATION_ERROR', '/options/include_types'],
      [{ language: 'typescript', options: { shell: true } }, 'VALIDATION_ERROR', '/options/shell'],
      [{ language: 'typescript', 'a/b': 1 }, 'VALIDATION_ERROR', '/a~1b'],
      [{ language: 'typescript', languages: ['python'] }, 'VALIDATION_ERROR', '/languages'],
      [{ language: 'typescript', modules: [], include_modules: [] }, 'VALIDATION_ERROR', '/include_modules'],
      [{ languages: [] }, 'VALIDATION_ERROR', '/languages'],
      [{}, 'VALIDATION_ERROR', '/language'],
      [{ language: 'typescript', api_version: 'v3' }, 'UNSUPPORTED_API_VERSION', '/api_version'],
    ];
    for (const [body, code, pointer] of cases) {
      const e = refusal(() => normalizeSdkRequest(body));
      expect([JSON.stringify(body), e.code, e.pointer]).toEqual([JSON.stringify(body), code, pointer]);
      expect(statusForCode(e.code)).toBe(422);
    }
  });
});

describe('the OpenAPI document the SDKs are generated from', () => {
  it('gives every operation a unique operationId, a tag and a success response', async () => {
    const doc = await platformOpenApiDocument();
    const ids = new Set<string>();
    const wrong: string[] = [];
    for (const [p, item] of Object.entries(doc.paths)) {
      for (const [m, op] of Object.entries(item)) {
        const id = op.operationId ?? '';
        if (!/^[a-z][A-Za-z0-9]+$/.test(id) || ids.has(id)) wrong.push(`${m} ${p}: operationId ${id || '(none)'}`);
        ids.add(id);
        if (!op.tags?.length) wrong.push(`${m} ${p}: no tag`);
        if (!Object.keys(op.responses ?? {}).some((s) => /^2\d\d$/.test(s))) wrong.push(`${m} ${p}: no success response`);
      }
    }
    expect(wrong).toEqual([]);
    expect(doc.paths['/api/v2/accounts/{uuid}/balances'].get.operationId).toBe('getAccountsByUuidBalances');
    expect(doc.paths['/api/v1/defi/swap/quote'].post.operationId).toBe('postDefiSwapQuoteV1');
    expect(doc.paths['/api/accounts'].get.operationId).toBe('getAccountsUnversioned');
  });

  it('filters by module and API version, keeps the platform routes and moves the error envelope into one schema', async () => {
    const d = await sdkDocument('v2', ['accounts']);
    const doc = JSON.parse(d.json) as { info: { version: string }; paths: Record<string, Record<string, { tags: string[]; responses: Record<string, any> }>>; components: { schemas: Record<string, unknown> } };
    const paths = Object.keys(doc.paths);
    expect(d.version).toBe('2.0.0');
    expect(paths).toEqual(expect.arrayContaining(['/api/v2/accounts', '/api/v2/accounts/{uuid}/deposit', '/api/v2/transfers', '/api/v2/api-keys', '/api/auth/register', '/api/auth/login']));
    // Unversioned twins of v2 routes, other modules, operator-only routes: not there.
    expect(paths).not.toContain('/api/accounts');
    expect(paths.some((p) => p.startsWith('/api/v2/defi') || p.startsWith('/api/v2/mobile'))).toBe(false);
    expect(paths.some((p) => p.endsWith('/freeze') || p === '/api/metrics')).toBe(false);
    // The ledger and AI transaction queries are published only under v1 (Versioning rule 2): an accounts SDK for v2 has them there.
    expect(paths).toContain('/api/v1/ledger/entries');
    expect(paths).toContain('/api/v1/ai/transactions');
    expect(paths.filter((p) => p.startsWith('/api/v1/') && !p.startsWith('/api/v1/ledger') && !p.startsWith('/api/v1/ai/'))).toEqual([]);
    expect(doc.components.schemas.ErrorEnvelope).toBeDefined();
    expect(doc.paths['/api/v2/accounts'].get.responses['401'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ErrorEnvelope' });
    // Deterministic: the same inputs, the same text; other inputs, another hash.
    expect((await sdkDocument('v2', ['accounts'])).sha256).toBe(d.sha256);
    expect((await sdkDocument('v2', ['accounts', 'webhooks'])).sha256).not.toBe(d.sha256);
    const v1 = await sdkDocument('v1', ['accounts']);
    expect(v1.version).toBe('1.0.0');
    expect(Object.keys(JSON.parse(v1.json).paths)).toContain('/api/v1/ledger/trial-balance');
  });
});

describe('deterministic archives', () => {
  it('tar.gz and zip: same files in any order, same bytes; readable by tar and Python', async () => {
    const files = new Map<string, Buffer>([
      ['package/b.txt', Buffer.from('b')],
      [`package/${'d'.repeat(90)}/${'x'.repeat(90)}.js`, Buffer.from('a path longer than 100 bytes (ustar prefix)')],
      ['package/empty', Buffer.alloc(0)],
    ]);
    const reversed = new Map([...files].reverse());
    expect((await tarGz(reversed)).equals(await tarGz(files))).toBe(true);
    const dir = mkdtempSync(path.join(tmpdir(), 'sdk-archive-'));
    try {
      const tgz = path.join(dir, 'p.tgz');
      writeFileSync(tgz, await tarGz(files));
      const listing = (await run('tar', ['-tvzf', tgz])).stdout;
      expect(listing).toContain('1985-10-26');
      expect(listing).toContain(`${'d'.repeat(90)}/${'x'.repeat(90)}.js`);
      const whl = path.join(dir, 'p.zip');
      writeFileSync(whl, await zip([...files]));
      const py = await run('python3', ['-c', 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); assert z.testzip() is None; print([(i.filename, i.date_time) for i in z.infolist()])', whl]);
      expect(py.stdout).toContain('(1980, 1, 1, 0, 0, 0)');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a generator past its deadline is killed and its temporary folder removed', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'sdk-timeout-'));
    const before = process.env.TMPDIR;
    process.env.TMPDIR = dir;
    try {
      const d = await sdkDocument('v2', []);
      const err = await generateTypescript(d.json, { declarations: true, deadline: Date.now() + 300 }).catch((e) => e);
      expect(err).toBeInstanceOf(SdkGeneratorError);
      expect(err.code).toBe('SDK_GENERATOR_TIMEOUT');
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      if (before === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = before;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the generator cache (tests and CI turn it on)', () => {
  const tsJob = { generator: 'typescript' as const, documentJson: '{"openapi":"3.0.3"}', declarations: true };
  const files = (label: string): GeneratedFiles => new Map([['index.js', Buffer.from(`export const x = '${label}';\n`)], ['a/b.d.ts', Buffer.alloc(0)]]);
  const inFolder = async (fn: (dir: string) => Promise<void>) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'sdk-gen-cache-'));
    try {
      await fn(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  const deadline = () => Date.now() + 30_000;
  const timedOut = () => new SdkGeneratorError('SDK_GENERATOR_TIMEOUT', 'waited');

  it('is keyed by the whole input: a repeat is answered from it, any other input generates', async () => {
    const pyJob = { generator: 'python' as const, documentJson: tsJob.documentJson, python: loadConfig().sdkPython, toolsDir: loadConfig().sdkPythonToolsDir };
    const keys = await Promise.all([
      generatorCacheKey(tsJob),
      generatorCacheKey({ ...tsJob }),
      generatorCacheKey({ ...tsJob, declarations: false }),
      generatorCacheKey({ ...tsJob, documentJson: '{"openapi":"3.0.3" }' }),
      generatorCacheKey(pyJob),
      generatorCacheKey({ ...pyJob, documentJson: '{"openapi":"3.0.3" }' }),
    ]);
    expect(keys.every((k) => /^[0-9a-f]{64}$/.test(k ?? ''))).toBe(true);
    expect(keys[1]).toBe(keys[0]);
    expect(new Set(keys).size).toBe(keys.length - 1);
    // A Python that is not there cannot be fingerprinted: no key, the generator runs (and fails as it would).
    expect(await generatorCacheKey({ ...pyJob, python: '/nonexistent/python3' })).toBeNull();

    await inFolder(async (dir) => {
      let runs = 0;
      const produce = (label: string) => async () => (runs++, files(label));
      const once = await cachedGeneration(dir, tsJob, { deadline: deadline(), timedOut }, produce('first'));
      const again = await cachedGeneration(dir, tsJob, { deadline: deadline(), timedOut }, produce('second'));
      expect(runs).toBe(1);
      expect([...again]).toEqual([...once]);
      expect(again.get('index.js')!.toString()).toContain('first');
      const other = await cachedGeneration(dir, { ...tsJob, declarations: false }, { deadline: deadline(), timedOut }, produce('other'));
      expect(runs).toBe(2);
      expect(other.get('index.js')!.toString()).toContain('other');
      // Without a folder nothing is cached.
      await cachedGeneration(undefined, tsJob, { deadline: deadline(), timedOut }, produce('none'));
      expect(runs).toBe(3);
      expect(readdirSync(dir).sort()).toEqual([`${keys[0]}.json`, `${keys[2]}.json`].sort());
    });
  });

  it('concurrent callers of one key generate once; a failure stores nothing; a damaged entry or a dead holder’s lock is replaced', async () => {
    await inFolder(async (dir) => {
      const key = (await generatorCacheKey(tsJob))!;
      let runs = 0;
      const slow = async () => {
        runs++;
        await new Promise((r) => setTimeout(r, 300));
        return files('slow');
      };
      const all = await Promise.all([1, 2, 3].map(() => cachedGeneration(dir, tsJob, { deadline: deadline(), timedOut }, slow)));
      expect(runs).toBe(1);
      expect(all.map((f) => f.get('index.js')!.toString())).toEqual(Array(3).fill(files('slow').get('index.js')!.toString()));
      expect(readdirSync(dir)).toEqual([`${key}.json`]);

      // A damaged entry is generated again and replaced.
      writeFileSync(path.join(dir, `${key}.json`), '{"format":');
      expect((await cachedGeneration(dir, tsJob, { deadline: deadline(), timedOut }, async () => (runs++, files('fresh')))).get('index.js')!.toString()).toContain('fresh');
      expect(runs).toBe(2);
      rmSync(path.join(dir, `${key}.json`));

      // A failed generation stores nothing and releases its lock: the next caller generates.
      const failure = await cachedGeneration(dir, tsJob, { deadline: deadline(), timedOut }, async () => {
        throw new SdkGeneratorError('SDK_GENERATOR_FAILED', 'boom');
      }).catch((e) => e);
      expect(failure.code).toBe('SDK_GENERATOR_FAILED');
      expect(readdirSync(dir)).toEqual([]);

      // A lock whose process has exited is taken over; one held by a live process is waited for until the deadline.
      const child = execFile(process.execPath, ['-e', '']);
      await new Promise((r) => child.once('exit', r));
      writeFileSync(path.join(dir, `${key}.lock`), JSON.stringify({ pid: child.pid }));
      expect((await cachedGeneration(dir, tsJob, { deadline: deadline(), timedOut }, async () => (runs++, files('after')))).get('index.js')!.toString()).toContain('after');
      expect(runs).toBe(3);
      expect(readdirSync(dir)).toEqual([`${key}.json`]);
      rmSync(path.join(dir, `${key}.json`));
      writeFileSync(path.join(dir, `${key}.lock`), JSON.stringify({ pid: process.pid }));
      const waited = await cachedGeneration(dir, tsJob, { deadline: Date.now() + 250, timedOut }, async () => (runs++, files('never'))).catch((e) => e);
      expect(waited.code).toBe('SDK_GENERATOR_TIMEOUT');
      expect(runs).toBe(3);
    });
  });
});

describe('signed download links', () => {
  it('a fresh link downloads; an expired one is 410, a wrong signature 403, a missing parameter 422', async () => {
    const id = `sdkp_${'1'.repeat(32)}`;
    const expired = signDownloadLink(id, { now: Date.now() - 2 * 3600_000, ttlSeconds: 60 });
    let r = await t.app.inject({ method: 'GET', url: expired.url });
    expect(r.statusCode, r.body).toBe(410);
    expect(r.json().errors[0].code).toBe('LINK_EXPIRED');
    const good = new URL(signDownloadLink(id).url, 'http://x');
    const tampered = new URL(good);
    tampered.searchParams.set('expires', String(Number(good.searchParams.get('expires')) + 3600));
    r = await t.app.inject({ method: 'GET', url: tampered.pathname + tampered.search });
    expect(r.statusCode).toBe(403);
    expect(r.json().errors[0].code).toBe('LINK_INVALID');
    // Another package's signature does not open this one.
    const other = new URL(signDownloadLink('sdkp_other').url, 'http://x');
    r = await t.app.inject({ method: 'GET', url: `${good.pathname}?expires=${other.searchParams.get('expires')}&signature=${other.searchParams.get('signature')}` });
    expect(r.statusCode).toBe(403);
    r = await t.app.inject({ method: 'GET', url: `${good.pathname}?expires=${good.searchParams.get('expires')}` });
    expect(r.statusCode).toBe(422);
    expect(r.json().errors[0].source).toEqual({ parameter: 'signature' });
  });
});

const SDK_BODY = {
  languages: ['typescript', 'python'],
  api_version: 'v2',
  include_modules: ['accounts'],
  options: { include_types: true, include_examples: true, include_tests: true },
  branding: { name: 'Acme <Bank>', color: '#0a84ff' },
};

async function generateAndWait(body: unknown, baseUrl?: string): Promise<SdkGenerationView> {
  const started = await requestSdkGeneration({ ...scope(), partnerId: 'ptn_test', body, baseUrl });
  return waitForSdkGeneration({ ...scope(), id: started.generation_id, baseUrl }, 170_000);
}

describe('a generation through the workflow', () => {
  let first: SdkGenerationView;

  it('builds the TypeScript and Python packages, records them and emits sdk.generated', async () => {
    const started = await requestSdkGeneration({ ...scope(), partnerId: 'ptn_test', body: SDK_BODY });
    expect(started).toMatchObject({ status: 'pending', packages: [], api_version: 'v2', languages: ['python', 'typescript'], modules: ['accounts'], package_name: 'acme-bank-sdk' });
    const { rows: wf } = await getPool().query('SELECT workflow_id FROM sdk_generations WHERE id = $1', [started.generation_id]);
    expect(wf[0].workflow_id).toBe(`sdk-generation-${started.generation_id}`);

    first = await waitForSdkGeneration({ ...scope(), id: started.generation_id }, 170_000);
    expect(first.status, JSON.stringify(first.error)).toBe('completed');
    expect(first.packages.map((p) => [p.language, p.package_name, p.version, p.filename, p.cached])).toEqual([
      ['python', 'acme-bank-sdk', '2.0.0', 'acme_bank_sdk-2.0.0-py3-none-any.whl', false],
      ['typescript', 'acme-bank-sdk', '2.0.0', 'acme-bank-sdk-2.0.0.tgz', false],
    ]);
    for (const p of first.packages) {
      expect(p.download_url).toMatch(new RegExp(`^/api/v2/partner/sdk/packages/${p.package_id}/download\\?expires=\\d+&signature=[A-Za-z0-9_-]{43}$`));
      expect(new Date(p.expires_at).getTime()).toBeGreaterThan(Date.now() + 23 * 3600_000);
      expect(p.install_command).toContain(p.download_url);
      const r = await t.app.inject({ method: 'GET', url: p.download_url });
      expect(r.statusCode).toBe(200);
      expect(r.headers['content-type']).toBe(p.language === 'typescript' ? 'application/gzip' : 'application/zip');
      expect(r.headers['content-disposition']).toBe(`attachment; filename="${p.filename}"`);
      expect(r.rawPayload.length).toBe(p.size);
      expect(createHash('sha256').update(r.rawPayload).digest('hex')).toBe(p.sha256);
      expect(r.headers['x-checksum-sha256']).toBe(p.sha256);
    }

    const { rows: events } = await getPool().query<{ data: any; aggregate_id: string; user_id: string }>(`SELECT data, aggregate_id, user_id FROM platform_events WHERE type = 'sdk.generated'`);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ aggregate_id: first.generation_id, user_id: t.user.userId });
    expect(events[0].data).toMatchObject({ generation_id: first.generation_id, partner_id: 'ptn_test', cached: false, modules: ['accounts'] });
    const ajv = new Ajv({ allErrors: true, strict: false });
    addFormats(ajv);
    const info = EVENT_CATALOG.find((e) => e.type === 'sdk.generated')!;
    expect(info.produced).toBe(true);
    const validate = ajv.compile(info.data_schema);
    expect(validate(events[0].data), JSON.stringify(validate.errors)).toBe(true);
  }, 180_000);

  it('the packages carry the branding; the README lists every operation', async () => {
    const ts = first.packages.find((p) => p.language === 'typescript')!;
    const dir = mkdtempSync(path.join(tmpdir(), 'sdk-branding-'));
    try {
      const r = await t.app.inject({ method: 'GET', url: ts.download_url });
      const tgz = path.join(dir, ts.filename);
      writeFileSync(tgz, r.rawPayload);
      const manifest = JSON.parse((await run('tar', ['-xzOf', tgz, 'package/package.json'])).stdout);
      expect(manifest).toMatchObject({ name: 'acme-bank-sdk', version: '2.0.0', branding: { name: 'Acme <Bank>', color: '#0a84ff' }, type: 'module', types: './dist/index.d.ts' });
      expect(manifest.description).toContain('Acme <Bank>');
      const readme = (await run('tar', ['-xzOf', tgz, 'package/README.md'])).stdout;
      expect(readme).toContain('# Acme \\<Bank\\> SDK for TypeScript');
      expect(readme).toContain('Brand colour: `#0a84ff`');
      expect(readme).toContain('| `postAccountsByUuidDeposit` | `POST /api/v2/accounts/{uuid}/deposit` |');
      const listing = (await run('tar', ['-tzf', tgz])).stdout.split('\n');
      expect(listing).toEqual(expect.arrayContaining(['package/dist/index.js', 'package/dist/index.d.ts', 'package/examples/quickstart.mjs', 'package/test/sdk.test.mjs']));
      const py = first.packages.find((p) => p.language === 'python')!;
      const whl = path.join(dir, py.filename);
      writeFileSync(whl, (await t.app.inject({ method: 'GET', url: py.download_url })).rawPayload);
      const meta = (await run('python3', ['-c', 'import sys, zipfile; print(zipfile.ZipFile(sys.argv[1]).read("acme_bank_sdk-2.0.0.dist-info/METADATA").decode())', whl])).stdout;
      expect(meta).toContain('Name: acme-bank-sdk');
      expect(meta).toContain('Summary: Acme <Bank> API client for Python');
      expect(meta).toContain('(brand colour #0a84ff)');
      expect(meta).toContain('# Acme \\<Bank\\> SDK for Python');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a repeat is a cache hit: completed at once, without a workflow, in at most 100 ms', async () => {
    const timings: number[] = [];
    let again: SdkGenerationView | undefined;
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      again = await requestSdkGeneration({ ...scope(), partnerId: 'ptn_test', body: SDK_BODY });
      timings.push(performance.now() - t0);
    }
    expect(again!.status).toBe('completed');
    expect(again!.packages.map((p) => [p.package_id, p.sha256, p.cached])).toEqual(first.packages.map((p) => [p.package_id, p.sha256, true]));
    expect(Math.min(...timings)).toBeLessThanOrEqual(100);
    expect(timings.sort((a, b) => a - b)[2]).toBeLessThanOrEqual(100);
    const { rows } = await getPool().query('SELECT workflow_id, status FROM sdk_generations WHERE id = $1', [again!.generation_id]);
    expect(rows[0]).toEqual({ workflow_id: null, status: 'completed' });
    const { rows: events } = await getPool().query(`SELECT data FROM platform_events WHERE type = 'sdk.generated' AND aggregate_id = $1`, [again!.generation_id]);
    expect(events[0].data.cached).toBe(true);
  });

  it('identical inputs rebuilt from scratch give byte-identical packages', async () => {
    await getPool().query('DELETE FROM sdk_packages');
    // From scratch: without the generator cache, hey-api, tsc and openapi-python-client run again
    // (the suite's uncached generation of each; the first may have come from the cache).
    const cacheDir = process.env.SDK_GENERATOR_CACHE_DIR;
    process.env.SDK_GENERATOR_CACHE_DIR = '';
    let rebuilt: SdkGenerationView;
    try {
      rebuilt = await generateAndWait(SDK_BODY);
    } finally {
      if (cacheDir === undefined) delete process.env.SDK_GENERATOR_CACHE_DIR;
      else process.env.SDK_GENERATOR_CACHE_DIR = cacheDir;
    }
    expect(rebuilt.status, JSON.stringify(rebuilt.error)).toBe('completed');
    expect(rebuilt.packages.every((p) => !p.cached)).toBe(true);
    expect(rebuilt.packages.map((p) => [p.language, p.sha256, p.size])).toEqual(first.packages.map((p) => [p.language, p.sha256, p.size]));
    expect(rebuilt.packages[0].package_id).not.toBe(first.packages[0].package_id);
  }, 180_000);

  it('other options give other packages; the generation is its caller’s', async () => {
    const other = await requestSdkGeneration({ ...scope(), body: { ...SDK_BODY, languages: ['typescript'], options: { include_tests: false } } });
    expect(other.status).toBe('pending');
    expect((await getSdkGeneration({ ...scope(), id: other.generation_id })).generation_id).toBe(other.generation_id);
    const stranger = await createTestUser();
    for (const s of [
      { userId: stranger.userId, environment: 'sandbox' as const },
      { userId: t.user.userId, environment: 'production' as const },
      { ...scope(), partnerId: 'ptn_other' },
    ]) {
      const e = await getSdkGeneration({ ...s, id: other.generation_id }).catch((err) => err);
      expect(e).toBeInstanceOf(DomainError);
      expect(e.code).toBe('SDK_GENERATION_NOT_FOUND');
    }
    const done = await waitForSdkGeneration({ ...scope(), id: other.generation_id }, 170_000);
    expect(done.status, JSON.stringify(done.error)).toBe('completed');
    const ts = first.packages.find((p) => p.language === 'typescript')!;
    expect(done.packages[0].sha256).not.toBe(ts.sha256);
  }, 180_000);

  it('a generator that is not installed fails the generation with its code, and no event', async () => {
    const before = process.env.SDK_PYTHON;
    process.env.SDK_PYTHON = '/nonexistent/python3';
    try {
      const failed = await generateAndWait({ language: 'python', modules: ['webhooks'], package_name: 'no-python-sdk' });
      expect(failed.status).toBe('failed');
      expect(failed.error?.code).toBe('SDK_GENERATOR_UNAVAILABLE');
      expect(failed.packages).toEqual([]);
      const { rows } = await getPool().query(`SELECT count(*)::int AS n FROM platform_events WHERE type = 'sdk.generated' AND aggregate_id = $1`, [failed.generation_id]);
      expect(rows[0].n).toBe(0);
    } finally {
      if (before === undefined) delete process.env.SDK_PYTHON;
      else process.env.SDK_PYTHON = before;
    }
  }, 60_000);
});
