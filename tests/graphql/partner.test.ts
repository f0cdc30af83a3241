import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, createTestUser, type TestApp, type TestUser } from '../helpers/app';
import { gql, gqlOk, gqlRefused } from './helpers';

let t: TestApp;
let operator: TestUser;
let readOnly: TestUser;
type Json = Record<string, any>;
type Headers = Record<string, string>;
let acme: Json;
let globex: Json;

const call = (method: 'GET' | 'POST' | 'PUT', url: string, headers: Headers, payload?: unknown) => t.app.inject({ method, url, headers, ...(payload !== undefined ? { payload: payload as object } : {}) });

async function onboard(name: string): Promise<Json> {
  const r = await call('POST', '/api/v1/partner/onboard', operator.headers, { organization_name: name, contact_email: 'ops@partner.example', tier: 'growth', modules: ['accounts', 'mobile'] });
  expect(r.statusCode, r.body).toBe(201);
  return r.json().data;
}
const partnerHeaders = (p: Json, partnerKey: string | null = p.partner_key): Headers => ({
  authorization: `Bearer ${p.api_credentials.sandbox_key}`,
  ...(partnerKey ? { 'x-partner-key': partnerKey } : {}),
});

beforeAll(async () => {
  t = await createTestApp();
  operator = await createTestUser({ admin: true });
  readOnly = await createTestUser({ permissions: ['read'] });
  acme = await onboard('Acme Neobank');
  globex = await onboard('Globex Money');
}, 120_000);
afterAll(async () => t?.close());

const CREATE_TENANT = 'mutation ($n: String!, $p: String!, $d: String!) { createTenant(name: $n, plan: $p, domain: $d) { id name plan limits { maxUsers maxAccounts } domain status createdAt } }';

describe('tenants over GraphQL', () => {
  let tenantId: string;

  it('a tenant created over GraphQL is listed by REST with the same fields; the list reads the same both ways', async () => {
    const created = (await gqlOk(t, CREATE_TENANT, { n: 'Acme EU', p: 'basic', d: 'EU.Acme.Example' }, partnerHeaders(acme))).createTenant;
    tenantId = created.id;
    expect(created).toMatchObject({ name: 'Acme EU', plan: 'basic', domain: 'eu.acme.example', limits: { maxUsers: 100, maxAccounts: 200 } });
    const rest = (await call('GET', '/api/v2/partner/tenants', partnerHeaders(acme))).json();
    const q = (await gqlOk(t, '{ tenants { data { id name plan limits { maxUsers maxAccounts } domain status createdAt } paginatorInfo { total } } }', undefined, partnerHeaders(acme))).tenants;
    expect(q.paginatorInfo.total).toBe(rest.meta.total);
    expect(q.data).toEqual(
      rest.data.map((x: Json) => ({ id: x.tenant_id, name: x.name, plan: x.plan, limits: { maxUsers: x.limits.max_users, maxAccounts: x.limits.max_accounts }, domain: x.domain, status: x.status, createdAt: x.created_at })),
    );
    expect(q.data[0]).toEqual(created);
  });

  it('customers created in a tenant over GraphQL are the ones REST lists', async () => {
    const u = (await gqlOk(t, `mutation { createTenantUser(tenantId: "${tenantId}", name: "Jo Customer", email: "jo@acme-eu.example") { userId tenantId email apiKey } }`, undefined, partnerHeaders(acme)))
      .createTenantUser;
    expect(u).toMatchObject({ tenantId, email: 'jo@acme-eu.example' });
    expect(u.apiKey).toBeTruthy();
    const rest = (await call('GET', `/api/v2/partner/tenants/${tenantId}/users`, partnerHeaders(acme))).json().data;
    const q = (await gqlOk(t, `{ tenantUsers(tenantId: "${tenantId}") { data { userId name email accounts createdAt } } }`, undefined, partnerHeaders(acme))).tenantUsers.data;
    expect(q).toEqual(rest.map((x: Json) => ({ userId: x.user_id, name: x.name, email: x.email, accounts: x.accounts, createdAt: x.created_at })));
    expect(q.map((x: Json) => x.userId)).toEqual([u.userId]);
  });

  it("another partner's tenant is REST's not-found; bad input is REST's code", async () => {
    const rest = await call('GET', `/api/v2/partner/tenants/${tenantId}/users`, partnerHeaders(globex));
    expect(rest.statusCode).toBe(404);
    await gqlRefused(t, `{ tenantUsers(tenantId: "${tenantId}") { data { userId } } }`, rest.json().errors[0].code, 404, undefined, partnerHeaders(globex));
    await gqlRefused(t, `mutation { createTenantUser(tenantId: "${tenantId}", name: "X", email: "x@globex.example") { userId } }`, rest.json().errors[0].code, 404, undefined, partnerHeaders(globex));
    const r = await gqlRefused(t, CREATE_TENANT, 'INVALID_DOMAIN', 422, { n: 'Bad', p: 'basic', d: 'not a host' }, partnerHeaders(acme));
    expect(r.errors![0].extensions.pointer).toBe('/domain');
    await gqlRefused(t, CREATE_TENANT, 'UNKNOWN_PLAN', 422, { n: 'Bad', p: 'platinum', d: 'bad.example' }, partnerHeaders(acme));
  });

  it('the X-Partner-Key rules are the REST ones: missing is 401, another partner\'s key a mismatch; read-only keys cannot write', async () => {
    const restMissing = await call('GET', '/api/v2/partner/tenants', partnerHeaders(acme, null));
    expect(restMissing.statusCode).toBe(401);
    await gqlRefused(t, '{ tenants { data { id } } }', restMissing.json().errors[0].code, 401, undefined, partnerHeaders(acme, null));
    const restMismatch = await call('GET', '/api/v2/partner/tenants', partnerHeaders(acme, globex.partner_key));
    await gqlRefused(t, '{ tenants { data { id } } }', restMismatch.json().errors[0].code, restMismatch.statusCode, undefined, partnerHeaders(acme, globex.partner_key));
    // A customer key (no partner) reaches no partner row.
    const restCustomer = await call('GET', '/api/v2/partner/tenants', t.headers);
    await gqlRefused(t, '{ tenants { data { id } } }', restCustomer.json().errors[0].code, restCustomer.statusCode);
    await gqlRefused(t, CREATE_TENANT, 'INSUFFICIENT_PERMISSIONS', 403, { n: 'X', p: 'basic', d: 'x.example' }, readOnly.headers);
  });
});

describe('white-label and SDK generations over GraphQL', () => {
  it('publishes a version through the domain (REST reads it) and refuses a bad colour as REST does', async () => {
    const none = await call('GET', '/api/v2/partner/config/whitelabel', partnerHeaders(globex));
    await gqlRefused(t, '{ whitelabelConfig { version } }', none.json().errors[0].code, none.statusCode, undefined, partnerHeaders(globex));
    const published = (
      await gqlOk(t, 'mutation { publishWhitelabel(logoUrl: "https://acme.example/logo.png", primaryColor: "#0A84FF", features: { defi: false }) { version logoUrl primaryColor features publishedAt } }', undefined, partnerHeaders(acme))
    ).publishWhitelabel;
    const rest = (await call('GET', '/api/v2/partner/config/whitelabel', partnerHeaders(acme))).json().data;
    expect(published).toEqual({ version: rest.version, logoUrl: rest.logo_url, primaryColor: rest.primary_color, features: rest.features, publishedAt: rest.published_at });
    const q = (await gqlOk(t, '{ whitelabelConfig { version primaryColor versions } }', undefined, partnerHeaders(acme))).whitelabelConfig;
    expect(q).toEqual({ version: rest.version, primaryColor: rest.primary_color, versions: rest.versions });
    const bad = await call('PUT', '/api/v2/partner/config/whitelabel', partnerHeaders(acme), { logo_url: 'https://acme.example/logo.png', primary_color: 'blue' });
    expect(bad.statusCode).toBe(422);
    await gqlRefused(t, 'mutation { publishWhitelabel(logoUrl: "https://acme.example/logo.png", primaryColor: "blue") { version } }', bad.json().errors[0].code, 422, undefined, partnerHeaders(acme));
  });

  it('starts a generation that reads back as REST shows it; another partner gets the REST not-found; bad languages are refused', async () => {
    const g = (
      await gqlOk(t, 'mutation ($i: SdkGenerationInput!) { generateSdk(input: $i) { generationId status apiVersion languages modules packageName branding { name color } options { includeTypes } createdAt } }', {
        i: { languages: ['typescript'], includeModules: ['accounts'], branding: { name: 'Acme Neobank', color: '#0a84ff' } },
      }, partnerHeaders(acme))
    ).generateSdk;
    expect(g).toMatchObject({ apiVersion: 'v2', languages: ['typescript'], modules: ['accounts'], branding: { name: 'Acme Neobank' } });
    const rest = (await call('GET', `/api/v2/partner/sdk/generations/${g.generationId}`, partnerHeaders(acme))).json().data;
    const q = (await gqlOk(t, `{ sdkGeneration(id: "${g.generationId}") { generationId status apiVersion languages modules packageName createdAt completedAt packages { packageId downloadUrl } } }`, undefined, partnerHeaders(acme)))
      .sdkGeneration;
    expect(q).toMatchObject({
      generationId: rest.generation_id,
      status: rest.status,
      apiVersion: rest.api_version,
      languages: rest.languages,
      modules: rest.modules,
      packageName: rest.package_name,
      createdAt: rest.created_at,
      completedAt: rest.completed_at,
    });
    expect(q.packages.map((p: Json) => p.packageId)).toEqual(rest.packages.map((p: Json) => p.package_id));
    const other = await call('GET', `/api/v2/partner/sdk/generations/${g.generationId}`, partnerHeaders(globex));
    expect(other.statusCode).toBe(404);
    await gqlRefused(t, `{ sdkGeneration(id: "${g.generationId}") { status } }`, other.json().errors[0].code, 404, undefined, partnerHeaders(globex));
    const badRest = await call('POST', '/api/v2/partner/sdk/generate', partnerHeaders(acme), { languages: ['cobol'] });
    expect(badRest.statusCode).toBe(422);
    const bad = await gql(t, 'mutation { generateSdk(input: { languages: ["cobol"] }) { status } }', undefined, partnerHeaders(acme));
    expect(bad.errors?.[0].extensions).toMatchObject({ code: badRest.json().errors[0].code, status: 422 });
  });
});
