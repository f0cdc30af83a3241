/**
 * The partner's SDK routes over HTTP (bearer key and X-Partner-Key): both body forms of
 * POST /api/v2/partner/sdk/generate answered with packages, the generation read back, the download
 * link working, hostile input refused; and onboarding with sdk_languages starting a generation that
 * the onboarding checklist then reports. Generation itself is covered in sdk.test.ts; here the
 * generators' output comes from the run's cache when another file generated the same document.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, createTestUser, type TestApp, type TestUser } from '../helpers/app';
import { startTestWorker, type TestWorker } from '../helpers/worker';

let t: TestApp;
let w: TestWorker;
let operator: TestUser;
let partner: Record<string, any>;

beforeAll(async () => {
  // Generator output by content, shared with the other SDK files and runs (domain/partner/sdk/generator-cache.ts).
  process.env.SDK_GENERATOR_CACHE_DIR ??= '.data/sdk-generator-cache';
  t = await createTestApp();
  w = await startTestWorker();
  operator = await createTestUser({ admin: true });
  const r = await t.app.inject({
    method: 'POST',
    url: '/api/v1/partner/onboard',
    headers: operator.headers,
    payload: { organization_name: 'Kite Money', contact_email: 'dev@kite.example', tier: 'starter', modules: ['accounts'], sdk_languages: ['typescript'] },
  });
  expect(r.statusCode, r.body).toBe(201);
  partner = r.json().data;
}, 180_000);

afterAll(async () => {
  await w?.stop();
  await t?.close();
});

const headers = () => ({ authorization: `Bearer ${partner.api_credentials.sandbox_key}`, 'x-partner-key': partner.partner_key });
const generate = (payload: object) => t.app.inject({ method: 'POST', url: '/api/v2/partner/sdk/generate', headers: headers(), payload });

describe('partner SDK routes', () => {
  it('onboarding with sdk_languages starts a generation; once done the checklist says sdk_generated', async () => {
    expect(partner.sdk_generation).toMatchObject({ status: expect.stringMatching(/^(pending|completed)$/) });
    const id = partner.sdk_generation.generation_id;
    let g: Record<string, any> = {};
    const deadline = Date.now() + 120_000;
    // Polled once a second: the partner key's burst limit (a third of its minute per 10 s) must not be
    // spent by the poll when a loaded machine makes the generation slow.
    while (Date.now() < deadline) {
      g = (await t.app.inject({ method: 'GET', url: `/api/v2/partner/sdk/generations/${id}`, headers: headers() })).json().data;
      if (g.status !== 'pending') break;
      await new Promise((r) => setTimeout(r, 1000));
    }
    expect(g).toMatchObject({ status: 'completed', languages: ['typescript'], modules: ['accounts'], package_name: 'kite-money-sdk' });
    const me = (await t.app.inject({ method: 'GET', url: '/api/v2/partner', headers: headers() })).json().data;
    expect(me.onboarding_checklist.sdk_generated).toBe(true);
  }, 150_000);

  it('both body forms answer with packages whose signed links download the bytes of their sha256', async () => {
    const single = await generate({ language: 'python', branding: { name: 'Kite Money', color: '#0a84ff' }, modules: ['accounts'] });
    expect(single.statusCode, single.body).toBe(201);
    const pkg = single.json().data.packages[0];
    expect(pkg).toMatchObject({ language: 'python', package_name: 'kite-money-sdk', install_command: expect.stringContaining('pip install') });
    const url = new URL(pkg.download_url);
    const file = await t.app.inject({ method: 'GET', url: url.pathname + url.search });
    expect(file.statusCode).toBe(200);
    expect(createHash('sha256').update(file.rawPayload).digest('hex')).toBe(pkg.sha256);

    // The other form, the same package again: from cache, the same bytes.
    const multiple = await generate({ languages: ['typescript', 'python'], api_version: 'v2', include_modules: ['accounts'], branding: { name: 'Kite Money', color: '#0a84ff' }, options: { include_types: true, include_examples: true, include_tests: false } });
    expect(multiple.statusCode, multiple.body).toBe(201);
    const again = multiple.json().data.packages.find((p: any) => p.language === 'python');
    expect(again).toMatchObject({ sha256: pkg.sha256, cached: true });
    expect(multiple.json().data.packages.map((p: any) => p.language).sort()).toEqual(['python', 'typescript']);
  }, 150_000);

  it('hostile or unsupported input is 422 with a pointer; another partner cannot read the generation', async () => {
    for (const [body, pointer] of [
      [{ language: 'cobol', modules: ['accounts'] }, '/language'],
      [{ languages: ['typescript'], include_modules: ['accounts; rm -rf /'] }, '/include_modules/0'],
      [{ language: 'typescript', modules: ['accounts'], package_name: '../../etc/passwd' }, '/package_name'],
    ] as Array<[object, string]>) {
      const r = await generate(body);
      expect(r.statusCode, r.body).toBe(422);
      expect(r.json().errors[0].source?.pointer).toBe(pointer);
    }
    const other = (
      await t.app.inject({ method: 'POST', url: '/api/v1/partner/onboard', headers: operator.headers, payload: { organization_name: 'Other', contact_email: 'o@other.example', tier: 'starter', modules: ['accounts'] } })
    ).json().data;
    const id = partner.sdk_generation.generation_id;
    const r = await t.app.inject({ method: 'GET', url: `/api/v2/partner/sdk/generations/${id}`, headers: { authorization: `Bearer ${other.api_credentials.sandbox_key}`, 'x-partner-key': other.partner_key } });
    expect(r.statusCode).toBe(404);
  });
});
