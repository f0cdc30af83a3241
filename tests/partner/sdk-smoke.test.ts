/**
 * The generated SDKs work against the running platform: a real HTTP server on 127.0.0.1 (no other
 * address), a generation through the workflow (the generators' output from the run's cache when
 * another file generated the same input), the packages downloaded over HTTP through their signed
 * links, then
 * - TypeScript: the tarball installed into a temporary project with `npm install --offline` (the
 *   package has no dependencies: nothing is fetched) and a scenario run in a child Node process:
 *   register, log in, create an API key, create two accounts, deposit, transfer, read balances;
 * - Python: the wheel installed with `pip install --no-index --no-deps --target` and imported with
 *   httpx and attrs from .data/tools/python (installed with openapi-python-client), making one call
 *   authenticated with the key the TypeScript scenario created.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestSdkGeneration, waitForSdkGeneration, type SdkGenerationView } from '../../domain/partner/sdk';
import { loadConfig } from '../../domain/platform/config';
import { createTestApp, type TestApp } from '../helpers/app';
import { startTestWorker, type TestWorker } from '../helpers/worker';

const run = promisify(execFile);

let t: TestApp;
let w: TestWorker;
let base: string;
let dir: string;
let generation: SdkGenerationView;
let apiKey: string;
let email: string;

beforeAll(async () => {
  process.env.SDK_LINK_SECRET ??= 'test-sdk-link-secret';
  // Generator output by content, shared with the other SDK files and runs (domain/partner/sdk/generator-cache.ts).
  process.env.SDK_GENERATOR_CACHE_DIR ??= '.data/sdk-generator-cache';
  t = await createTestApp();
  w = await startTestWorker();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const address = t.app.server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  base = `http://127.0.0.1:${address.port}`;
  dir = mkdtempSync(path.join(tmpdir(), 'sdk-smoke-'));
  email = `smoke.${Date.now()}@example.test`;
}, 120_000);

afterAll(async () => {
  await w?.stop();
  await t?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Downloads a package through its signed link, over HTTP, into the work folder. */
async function download(language: string): Promise<string> {
  const p = generation.packages.find((x) => x.language === language)!;
  expect(p.download_url.startsWith(`${base}/api/v2/partner/sdk/packages/`)).toBe(true);
  const r = await fetch(p.download_url);
  expect(r.status).toBe(200);
  const file = path.join(dir, p.filename);
  writeFileSync(file, Buffer.from(await r.arrayBuffer()));
  return file;
}

const SCENARIO = `
import { client, getAccountsByUuidBalances, postAccounts, postAccountsByUuidDeposit, postApiKeys, postAuthLogin, postAuthRegister, postTransfers } from 'smoke-bank-sdk';

const [baseUrl, email] = process.argv.slice(2);
const password = 'a-long-smoke-test-password';
client.setConfig({ baseUrl, throwOnError: true });

await postAuthRegister({ body: { name: 'Smoke Test', email, password, password_confirmation: password } });
const login = await postAuthLogin({ body: { email, password } });
client.setConfig({ auth: login.data.access_token });
const key = (await postApiKeys({ body: { name: 'sdk smoke key' } })).data.data.key;
client.setConfig({ auth: key });

const a = (await postAccounts({ body: { name: 'Smoke A' } })).data.data.uuid;
const b = (await postAccounts({ body: { name: 'Smoke B' } })).data.data.uuid;
await postAccountsByUuidDeposit({ path: { uuid: a }, body: { amount: '100.00', asset_code: 'USD' } });
const transfer = (await postTransfers({ body: { from_account: a, to_account: b, amount: '25.00', asset_code: 'USD', workflow_enabled: false } })).data.data;
const balances = async (uuid) => (await getAccountsByUuidBalances({ path: { uuid } })).data.data.balances;
console.log(JSON.stringify({ key, transfer: transfer.status, a: await balances(a), b: await balances(b) }));
`;

const PYTHON_CALL = `
import json, sys
from smoke_bank_sdk import AuthenticatedClient
from smoke_bank_sdk.api.authentication import get_auth_user

base_url, key = sys.argv[1], sys.argv[2]
with AuthenticatedClient(base_url=base_url, token=key) as client:
    response = get_auth_user.sync_detailed(client=client)
    print(json.dumps({"status": int(response.status_code), "email": json.loads(response.content)["data"]["email"], "parsed": type(response.parsed).__name__}))
`;

describe('the generated SDKs against the running platform', () => {
  it('generates both packages with links to this server', async () => {
    const started = await requestSdkGeneration({
      userId: t.user.userId,
      environment: 'sandbox',
      baseUrl: base,
      body: { languages: ['typescript', 'python'], api_version: 'v2', include_modules: ['accounts'], package_name: 'smoke-bank-sdk', branding: { name: 'Smoke Bank', color: '#123456' } },
    });
    generation = await waitForSdkGeneration({ id: started.generation_id, userId: t.user.userId, environment: 'sandbox', baseUrl: base }, 170_000);
    expect(generation.status, JSON.stringify(generation.error)).toBe('completed');
    expect(generation.packages.map((p) => p.language)).toEqual(['python', 'typescript']);
  }, 180_000);

  it('TypeScript: installs offline and runs register, key, accounts, deposit, transfer, balances', async () => {
    const tgz = await download('typescript');
    const project = path.join(dir, 'ts');
    mkdirSync(project);
    writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'sdk-smoke-consumer', private: true, type: 'module' }));
    const npmEnv = { ...process.env, npm_config_cache: path.join(dir, 'npm-cache'), npm_config_update_notifier: 'false' };
    await run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', tgz], { cwd: project, env: npmEnv, timeout: 120_000 });
    writeFileSync(path.join(project, 'smoke.mjs'), SCENARIO);
    const { stdout } = await run(process.execPath, ['smoke.mjs', base, email], { cwd: project, timeout: 60_000 });
    const out = JSON.parse(stdout.trim().split('\n').at(-1)!);
    apiKey = out.key;
    expect(apiKey).toMatch(/^sk_sandbox_/);
    expect(out.transfer).toBe('completed');
    const usd = (rows: Array<{ asset_code: string; available_balance: string }>) => rows.find((r) => r.asset_code === 'USD')?.available_balance;
    expect(Number(usd(out.b))).toBe(25);
    expect(Number(usd(out.a))).toBeLessThanOrEqual(75);
    const manifest = JSON.parse(readFileSync(path.join(project, 'node_modules/smoke-bank-sdk/package.json'), 'utf8'));
    expect(manifest).toMatchObject({ name: 'smoke-bank-sdk', branding: { name: 'Smoke Bank', color: '#123456' }, types: './dist/index.d.ts' });
  }, 120_000);

  it('Python: the wheel installs without an index and makes an authenticated call', async () => {
    expect(apiKey).toBeDefined();
    const whl = await download('python');
    const target = path.join(dir, 'py');
    await run('python3', ['-m', 'pip', 'install', '--quiet', '--no-deps', '--no-index', '--disable-pip-version-check', '--target', target, whl], { timeout: 120_000 });
    const env = { ...process.env, PYTHONPATH: [target, loadConfig().sdkPythonToolsDir].join(path.delimiter), PYTHONDONTWRITEBYTECODE: '1' };
    const { stdout } = await run('python3', ['-c', PYTHON_CALL, base, apiKey], { env, timeout: 60_000 });
    expect(JSON.parse(stdout)).toEqual({ status: 200, email, parsed: expect.stringMatching(/^GetAuthUser/) });
  }, 120_000);
});
