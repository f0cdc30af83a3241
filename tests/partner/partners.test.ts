import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPool } from '../../domain/db/pool';
import { openSigningSecrets } from '../../domain/webhooks/secrets';
import { forgetPartnerContext } from '../../domain/partner/context';
import { createTestApp, createTestUser, type TestApp, type TestUser } from '../helpers/app';
import { checkOutboxAgainstCatalog } from '../rails/events';

let t: TestApp;
let operator: TestUser;

beforeAll(async () => {
  // The onboarding webhook points at this machine's loopback (never a routable address).
  process.env.WEBHOOK_ALLOW_PRIVATE_URLS = 'true';
  process.env.WEBHOOK_ALLOW_HTTP = 'true';
  t = await createTestApp();
  operator = await createTestUser({ admin: true });
}, 120_000);

afterAll(async () => {
  delete process.env.WEBHOOK_ALLOW_PRIVATE_URLS;
  delete process.env.WEBHOOK_ALLOW_HTTP;
  await t?.close();
});

type Json = Record<string, any>;
const call = (method: 'GET' | 'POST' | 'PUT', url: string, headers: Record<string, string>, payload?: unknown, remoteAddress?: string) =>
  t.app.inject({ method, url, headers, ...(payload !== undefined ? { payload: payload as object } : {}), ...(remoteAddress ? { remoteAddress } : {}) });

const onboardBody = (over: Json = {}) => ({
  organization_name: 'Acme Neobank',
  contact_email: 'ops@acme.example',
  tier: 'growth',
  modules: ['accounts', 'mobile'],
  webhook_url: 'http://127.0.0.1:9/acme-hooks',
  ip_whitelist: ['127.0.0.0/8', '::1/128'],
  rate_limit_override: 120,
  metadata: { region: 'eu' },
  ...over,
});

async function onboard(over: Json = {}): Promise<Json> {
  const r = await call('POST', '/api/v1/partner/onboard', operator.headers, onboardBody(over));
  expect(r.statusCode, r.body).toBe(201);
  return r.json().data;
}

const as = (p: Json, env: 'sandbox' | 'production' = 'sandbox', partnerKey: string | null = p.partner_key) => ({
  authorization: `Bearer ${env === 'sandbox' ? p.api_credentials.sandbox_key : p.api_credentials.api_key}`,
  ...(partnerKey ? { 'x-partner-key': partnerKey } : {}),
});

describe('partner onboarding and credentials', () => {
  it("returns the spec's record with every secret once; the platform keeps hashes only", async () => {
    const p = await onboard();
    expect(p).toMatchObject({
      organization_name: 'Acme Neobank',
      status: 'active',
      tier: 'growth',
      modules_enabled: ['accounts', 'mobile'],
      rate_limits: { requests_per_minute: 120, burst_limit: 40 },
      sdk_packages: [],
      onboarding_checklist: { api_key_generated: true, webhook_configured: true, sdk_generated: false, sandbox_tested: false, compliance_review: 'pending' },
    });
    expect(p.partner_id).toMatch(/^ptn_/);
    expect(p.api_credentials.api_key).toMatch(/^sk_live_/);
    expect(p.api_credentials.sandbox_key).toMatch(/^sk_sandbox_/);
    expect(p.api_credentials.webhook_secret.length).toBeGreaterThanOrEqual(16);
    expect(p.partner_key).toMatch(/^fpk_/);
    const { rows } = await getPool().query(`SELECT partner_key_hash FROM partners WHERE id = $1`, [p.partner_id]);
    expect(rows[0].partner_key_hash).toBe(createHash('sha256').update(p.partner_key).digest('hex'));
    const dump = JSON.stringify((await getPool().query(`SELECT * FROM partners p JOIN api_keys k ON k.partner_id = p.id WHERE p.id = $1`, [p.partner_id])).rows);
    for (const secret of [p.partner_key, p.api_credentials.api_key, p.api_credentials.sandbox_key]) expect(dump).not.toContain(secret);
    // Read back, no secret is shown again.
    const me = await call('GET', '/api/v2/partner', as(p));
    expect(me.statusCode, me.body).toBe(200);
    expect(me.body).not.toContain(p.partner_key);
    expect(me.json().data.api_credentials).toBeUndefined();
    // The sandbox key made a successful call: the checklist says so.
    expect(me.json().data.onboarding_checklist.sandbox_tested).toBe(true);
    const ev = await getPool().query(`SELECT type FROM platform_events WHERE aggregate_id = $1`, [p.partner_id]);
    expect(ev.rows.map((r) => r.type)).toContain('partner.onboarded');
  });

  it('the spec record\'s own names (sandbox_url, dashboard_url), and a webhook_secret even without a webhook_url: it signs the webhook set later', async () => {
    const p = await onboard({ webhook_url: undefined, modules: ['accounts', 'webhooks'] });
    expect(p.sandbox_url).toMatch(/^https?:\/\/.+\/api$/);
    expect(p.dashboard_url).toMatch(/^https?:\/\/.+\/api\/v1\/live-dashboard$/);
    expect(p).not.toHaveProperty('sandboxUrl');
    expect(p.api_credentials.webhook_secret).toMatch(/^whsec_.{16,}/);
    expect(p.onboarding_checklist.webhook_configured).toBe(false);
    // The secret is kept sealed, never readable.
    const stored = JSON.stringify((await getPool().query('SELECT * FROM partners WHERE id = $1', [p.partner_id])).rows);
    expect(stored).not.toContain(p.api_credentials.webhook_secret);
    // Later, the partner registers its webhook: deliveries are signed with the secret onboarding gave.
    const w = await call('POST', '/api/v2/webhooks', as(p), { url: 'http://127.0.0.1:9/later-hooks', events: ['*'] });
    expect(w.statusCode, w.body).toBe(201);
    const row = (await getPool().query('SELECT id, secret_sealed, previous_secret_sealed FROM webhooks WHERE id = $1', [w.json().data.id])).rows[0];
    expect(openSigningSecrets(row)).toEqual([p.api_credentials.webhook_secret]);
    expect((await call('GET', '/api/v2/partner', as(p))).json().data.onboarding_checklist.webhook_configured).toBe(true);
  });

  it('only operators onboard; bad modules, CIDRs and languages are 422 with a pointer and store nothing', async () => {
    expect((await call('POST', '/api/v1/partner/onboard', t.headers, onboardBody())).statusCode).toBe(403);
    const before = (await getPool().query('SELECT count(*)::int AS n FROM partners')).rows[0].n;
    for (const [over, code, pointer] of [
      [{ modules: ['accounts', 'casino'] }, 'UNKNOWN_MODULE', '/modules/1'],
      [{ ip_whitelist: ['10.0.0.0/33'] }, 'INVALID_CIDR', '/ip_whitelist/0'],
      [{ sdk_languages: ['cobol'] }, 'UNSUPPORTED_SDK_LANGUAGE', '/sdk_languages/0'],
      [{ tier: 'platinum' }, 'VALIDATION_ERROR', undefined],
    ] as Array<[Json, string, string | undefined]>) {
      const r = await call('POST', '/api/v1/partner/onboard', operator.headers, onboardBody(over));
      expect(r.statusCode, r.body).toBe(422);
      expect(r.json().errors[0].code).toBe(code);
      if (pointer) expect(r.json().errors[0].source.pointer).toBe(pointer);
    }
    expect((await getPool().query('SELECT count(*)::int AS n FROM partners')).rows[0].n).toBe(before);
  });

  it('partner rows need the partner key: missing or wrong 401, another partner\'s 403; modules bound the keys', async () => {
    const p = await onboard();
    const q = await onboard({ organization_name: 'Other Bank' });
    expect((await call('GET', '/api/v2/partner/tenants', as(p, 'sandbox', null))).json().errors[0].code).toBe('PARTNER_KEY_INVALID');
    expect((await call('GET', '/api/v2/partner/tenants', as(p, 'sandbox', null))).statusCode).toBe(401);
    const wrong = await call('GET', '/api/v2/partner/tenants', as(p, 'sandbox', `fpk_${'x'.repeat(43)}`));
    expect(wrong.statusCode, wrong.body).toBe(401);
    const cross = await call('GET', '/api/v2/partner/tenants', as(p, 'sandbox', q.partner_key));
    expect(cross.statusCode).toBe(403);
    expect(cross.json().errors[0].code).toBe('PARTNER_KEY_MISMATCH');
    // A customer's own key with a real partner key is not the partner.
    expect((await call('GET', '/api/v2/partner/tenants', { ...t.headers, 'x-partner-key': p.partner_key })).statusCode).toBe(403);
    // accounts is enabled; crosschain is not.
    expect((await call('GET', '/api/v2/accounts', as(p, 'sandbox', null))).statusCode).toBe(200);
    const off = await call('GET', '/api/v2/crosschain/portfolio', as(p, 'sandbox', null));
    expect(off.statusCode).toBe(403);
    expect(off.json().errors[0].code).toBe('MODULE_NOT_ENABLED');
  });

  it('a partner without the payments module cannot send SMS through the MCP tool; its enabled areas still answer', async () => {
    const p = await onboard({ modules: ['accounts'] });
    // Stateless Streamable HTTP: one JSON-RPC request, answered with JSON.
    const tool = async (name: string, args: Json) => {
      const r = await call('POST', '/mcp', { ...as(p, 'sandbox', null), accept: 'application/json, text/event-stream', 'content-type': 'application/json' }, {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name, arguments: args },
      });
      expect(r.statusCode, r.body).toBe(200);
      return r.json().result as { isError?: boolean; structuredContent?: Json };
    };
    const send = await tool('send_sms', { to: '+4915123456789', from: 'Acme', message: 'hello' });
    expect(send.isError).toBe(true);
    expect(send.structuredContent).toMatchObject({ error: { code: 'MODULE_NOT_ENABLED' } });
    expect((await tool('get_balances', {})).isError).toBeFalsy();
  });

  it('nor through POST /api/v1/sms/send with its bearer key (403 MODULE_NOT_ENABLED before any price); anonymous callers still get the 402 price', async () => {
    const p = await onboard({ modules: ['accounts'] });
    const body = { to: '+4915123456789', from: 'Acme', message: 'hello' };
    const refused = await call('POST', '/api/v1/sms/send', as(p, 'sandbox', null), body);
    expect(refused.statusCode, refused.body).toBe(403);
    expect(refused.json().errors[0].code).toBe('MODULE_NOT_ENABLED');
    expect(refused.headers['payment-required']).toBeUndefined();
    // A bad bearer credential is refused as on any route, not ignored.
    const bad = await call('POST', '/api/v1/sms/send', { authorization: 'Bearer sk_test_nope' }, body);
    expect(bad.statusCode).toBe(401);
    // Without a credential the route is the public paid one: 402 with the price.
    expect((await call('POST', '/api/v1/sms/send', {}, body)).statusCode).toBe(402);
    // A partner with the payments module reaches the price.
    const payer = await onboard({ organization_name: 'Payments Bank', modules: ['accounts', 'payments'] });
    expect((await call('POST', '/api/v1/sms/send', as(payer, 'sandbox', null), body)).statusCode).toBe(402);
  });

  it('the CIDR allow-list and the rate override bind every request with the partner\'s keys', async () => {
    const p = await onboard({ ip_whitelist: ['203.0.113.0/24'], rate_limit_override: 6 });
    const from = (ip: string) => call('GET', '/api/v2/accounts', as(p, 'sandbox', null), undefined, ip);
    expect((await from('198.51.100.7')).statusCode).toBe(403);
    // Burst: two requests within 10 seconds (6 per minute / 3), then 429.
    const codes = [];
    for (let i = 0; i < 3; i++) codes.push((await from('203.0.113.9')).statusCode);
    expect(codes).toEqual([200, 200, 429]);
  });
});

describe('tenants and white-label', () => {
  it("a tenant's customer cannot see (404) or pay (DESTINATION_NOT_FOUND) another tenant's account", async () => {
    const p = await onboard({ modules: ['accounts', 'mobile', 'defi'], rate_limit_override: 1000 });
    const mk = async (name: string, domain: string) => (await call('POST', '/api/v2/partner/tenants', as(p), { name, plan: 'basic', domain })).json().data;
    const north = await mk('North', 'north.acme.example');
    const south = await mk('South', 'SOUTH.acme.example.');
    expect(north).toMatchObject({ plan: 'basic', domain: 'north.acme.example', limits: { max_accounts: 200 } });
    expect(south.domain).toBe('south.acme.example');
    expect((await call('POST', '/api/v2/partner/tenants', as(p), { name: 'Dup', plan: 'basic', domain: 'north.acme.example' })).json().errors[0]).toMatchObject({ code: 'DOMAIN_TAKEN', source: { pointer: '/domain' } });
    expect((await call('POST', '/api/v2/partner/tenants', as(p), { name: 'X', plan: 'gold', domain: 'x.acme.example' })).json().errors[0].code).toBe('UNKNOWN_PLAN');
    expect((await call('POST', '/api/v2/partner/tenants', as(p), { name: 'X', plan: 'basic', domain: 'not a domain' })).json().errors[0].code).toBe('INVALID_DOMAIN');
    const list = (await call('GET', '/api/v2/partner/tenants?per_page=1', as(p))).json();
    expect(list.meta.total).toBe(2);

    const user = async (tenant: Json, email: string) => {
      const r = await call('POST', `/api/v2/partner/tenants/${tenant.tenant_id}/users`, as(p), { name: email.split('@')[0], email });
      expect(r.statusCode, r.body).toBe(201);
      return { authorization: `Bearer ${r.json().data.api_key}` };
    };
    const ann = await user(north, 'ann@north.example');
    const bob = await user(north, 'bob@north.example');
    const sue = await user(south, 'sue@south.example');
    const open = async (h: Record<string, string>, amount: string) => {
      const id = (await call('POST', '/api/v2/accounts', h, { name: 'main' })).json().data.uuid;
      if (amount !== '0') expect((await call('POST', `/api/v2/accounts/${id}/deposit`, h, { amount, asset_code: 'USD' })).statusCode).toBe(201);
      return id;
    };
    const customers = (await call('GET', `/api/v2/partner/tenants/${north.tenant_id}/users`, as(p))).json();
    expect(customers.data.map((c: Json) => c.email).sort()).toEqual(['ann@north.example', 'bob@north.example']);
    expect((await call('GET', `/api/v2/partner/tenants/${north.tenant_id}/users`, as(await onboard({ organization_name: 'Nosy' })))).statusCode).toBe(404);
    const annAcct = await open(ann, '100.00');
    const bobAcct = await open(bob, '0');
    const sueAcct = await open(sue, '0');
    expect((await call('GET', `/api/v2/accounts/${sueAcct}`, ann)).statusCode).toBe(404);
    const inside = await call('POST', '/api/v2/transfers', ann, { from_account: annAcct, to_account: bobAcct, amount: '5.00', asset_code: 'USD', workflow_enabled: false });
    expect(inside.statusCode, inside.body).toBe(201);
    const outside = await call('POST', '/api/v2/transfers', ann, { from_account: annAcct, to_account: sueAcct, amount: '5.00', asset_code: 'USD', workflow_enabled: false });
    // As for an account that does not exist (a body naming a missing resource is 422 here).
    expect(outside.statusCode).toBe(422);
    expect(outside.json().errors[0].code).toBe('DESTINATION_NOT_FOUND');
    // P2P finds customers of the same tenant only; an outside customer and a platform customer are unknown.
    expect((await call('POST', '/api/v2/mobile/transfers/p2p', ann, { to_user: 'sue@south.example', amount: '1.00', currency: 'USD' })).statusCode).toBe(404);
    expect((await call('POST', '/api/v2/mobile/transfers/p2p', ann, { to_user: t.user.email, amount: '1.00', currency: 'USD' })).statusCode).toBe(404);
    // Another partner's tenant is not found.
    const q = await onboard({ organization_name: 'Q Bank' });
    expect((await call('POST', `/api/v2/partner/tenants/${north.tenant_id}/users`, as(q), { name: 'x', email: 'x@q.example' })).statusCode).toBe(404);

    // White-label: validated, versioned; switching defi off makes the tenants' calls 403 FEATURE_DISABLED.
    for (const [body, code, pointer] of [
      [{ logo_url: 'http://acme.example/logo.png', primary_color: '#112233' }, 'INVALID_LOGO_URL', '/logo_url'],
      [{ logo_url: 'https://acme.example/logo.png', primary_color: 'red' }, 'INVALID_COLOR', '/primary_color'],
      [{ logo_url: 'https://acme.example/logo.png', primary_color: '#112233', features: { casino: true } }, 'UNKNOWN_FEATURE', '/features/casino'],
    ] as Array<[Json, string, string]>) {
      const r = await call('PUT', '/api/v2/partner/config/whitelabel', as(p), body);
      expect(r.json().errors[0]).toMatchObject({ code, source: { pointer } });
    }
    expect((await call('GET', '/api/v2/defi/portfolio', ann)).statusCode).toBe(200);
    const v1 = await call('PUT', '/api/v2/partner/config/whitelabel', as(p), { logo_url: 'https://acme.example/logo.png', primary_color: '#0a84ff', features: { defi: false, crosschain: true } });
    expect(v1.statusCode, v1.body).toBe(200);
    expect(v1.json().data).toMatchObject({ version: 1, primary_color: '#0A84FF', features: { defi: false, crosschain: true, lending: true } });
    const v2 = await call('PUT', '/api/v2/partner/config/whitelabel', as(p), { logo_url: 'https://acme.example/logo2.png', primary_color: '#0A84FF', features: { defi: false } });
    expect(v2.json().data.version).toBe(2);
    expect((await call('GET', '/api/v2/partner/config/whitelabel', as(p))).json().data).toMatchObject({ version: 2, versions: [2, 1], logo_url: 'https://acme.example/logo2.png' });
    forgetPartnerContext();
    const blocked = await call('GET', '/api/v2/defi/portfolio', ann);
    expect(blocked.statusCode).toBe(403);
    expect(blocked.json().errors[0].code).toBe('FEATURE_DISABLED');
    // Customers outside the tenant are not affected.
    expect((await call('GET', '/api/v2/defi/portfolio', t.headers)).statusCode).toBe(200);
  });

  it("a plan's limits hold: customers and accounts past the basic plan's are 422 PLAN_LIMIT_REACHED", async () => {
    const p = await onboard({ rate_limit_override: 1000 });
    const tenant = (await call('POST', '/api/v2/partner/tenants', as(p), { name: 'Tiny', plan: 'basic', domain: 'tiny.acme.example' })).json().data;
    const first = await call('POST', `/api/v2/partner/tenants/${tenant.tenant_id}/users`, as(p), { name: 'first', email: 'first@tiny.example' });
    const key = { authorization: `Bearer ${first.json().data.api_key}` };
    // Filled up to the plan (rows written directly: the limits are what is tested here).
    await getPool().query(
      `INSERT INTO users (id, name, email, password_hash, tenant_id) SELECT 'usr_fill' || g, 'fill', 'fill' || g || '@tiny.example', 'x', $1 FROM generate_series(1, 99) g`,
      [tenant.tenant_id],
    );
    const full = await call('POST', `/api/v2/partner/tenants/${tenant.tenant_id}/users`, as(p), { name: 'late', email: 'late@tiny.example' });
    expect(full.statusCode).toBe(422);
    expect(full.json().errors[0].code).toBe('PLAN_LIMIT_REACHED');
    await getPool().query(
      `INSERT INTO accounts (id, user_id, environment, name, type, status, tenant_id) SELECT 'acct_fill' || g, 'usr_fill1', 'sandbox', 'fill', 'personal', 'active', $1 FROM generate_series(1, 200) g`,
      [tenant.tenant_id],
    );
    const account = await call('POST', '/api/v2/accounts', key, { name: 'one too many' });
    expect(account.statusCode).toBe(422);
    expect(account.json().errors[0].code).toBe('PLAN_LIMIT_REACHED');
  });

  it('partner events match the catalog', async () => {
    const { problems, seen } = await checkOutboxAgainstCatalog(['partner', 'widget']);
    expect(problems).toEqual([]);
    expect([...seen].sort()).toEqual(['partner.onboarded', 'widget.deployed']);
  });
});
