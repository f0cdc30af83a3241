import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPool } from '../../domain/db/pool';
import { issueSandboxCertificate } from '../../domain/open-banking/sandbox-ca';
import { registerTpp } from '../../domain/open-banking/tpps';
import { createTestApp, createTestUser, type TestApp, type TestUser } from '../helpers/app';
import { startTestWorker, type TestWorker } from '../helpers/worker';
import { refusalsOf, tenantCustomers, type Probe } from '../helpers/tenants';
import { BG_PREFIX } from '../../api/operations/open-banking/schemas';

let t: TestApp;
let worker: TestWorker;
let other: TestUser;
let aisTpp: Record<string, string>;
let otherTpp: Record<string, string>;
let piOnly: Record<string, string>;
let main: { id: string; iban: string };
let second: { id: string; iban: string };
let othersAccount: { id: string; iban: string };

async function tppHeaders(name: string, roles: Array<'PSP_AI' | 'PSP_PI'>, redirectDomains: string[] = []) {
  const cert = await issueSandboxCertificate({ name, roles, redirectDomains });
  await registerTpp(cert.certificate);
  return { 'x-ssl-client-cert': encodeURIComponent(cert.certificate) };
}

/** A Berlin Group call (the 1.3.12 paths under BG_PREFIX, unwrapped bodies). */
const call = (method: string, url: string, headers: Record<string, string>, payload?: object) =>
  t.app.inject({ method: method as 'GET', url: `${BG_PREFIX}${url}`, headers: { 'x-request-id': randomUUID(), ...headers }, ...(payload ? { payload } : {}) });

async function openAccount(user: TestUser, name: string, deposit?: string) {
  const id = (await t.app.inject({ method: 'POST', url: '/api/v2/accounts', headers: user.headers, payload: { name } })).json().data.uuid as string;
  if (deposit) await t.app.inject({ method: 'POST', url: `/api/v2/accounts/${id}/deposit`, headers: user.headers, payload: { amount: deposit, asset_code: 'EUR' } });
  const { rows } = await getPool().query<{ iban: string }>('SELECT iban FROM account_ibans WHERE account_id = $1', [id]);
  return { id, iban: rows[0].iban };
}

async function sessionOf(user: TestUser): Promise<Record<string, string>> {
  const r = await t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: user.email, password: user.password } });
  return { authorization: `Bearer ${r.json().data.access_token}` };
}

const today = () => new Date().toISOString().slice(0, 10);
const daysFromNow = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);

async function newConsent(access: object, extra: object = {}, headers = aisTpp) {
  const r = await call('POST', '/consents', headers, { access, recurringIndicator: true, validUntil: daysFromNow(30), frequencyPerDay: 4, ...extra });
  expect(r.statusCode, r.body).toBe(201);
  return r.json() as { consentId: string; consentStatus: string; validUntil: string; frequencyPerDay: number; _links: Record<string, { href: string }> };
}

async function decide(authId: string, decision: 'approve' | 'deny', body: object = {}, session?: Record<string, string>) {
  return t.app.inject({ method: 'POST', url: `/api/v1/open-banking/sca/${authId}`, headers: session ?? (await sessionOf(t.user)), payload: { decision, ...body } });
}

async function authorise(consentId: string, decision: 'approve' | 'deny' = 'approve', session?: Record<string, string>, body: object = {}) {
  const start = await call('POST', `/consents/${consentId}/authorisations`, aisTpp);
  expect(start.statusCode, start.body).toBe(201);
  const authId = start.json().authorisationId as string;
  const r = await t.app.inject({ method: 'POST', url: `/api/v1/open-banking/sca/${authId}`, headers: session ?? (await sessionOf(t.user)), payload: { decision, ...body } });
  return { start: start.json(), decision: r };
}

const status = async (consentId: string, headers = aisTpp) => (await call('GET', `/consents/${consentId}/status`, headers)).json()?.consentStatus;

beforeAll(async () => {
  t = await createTestApp();
  worker = await startTestWorker();
  other = await createTestUser();
  aisTpp = await tppHeaders('Account Insight Ltd', ['PSP_AI'], ['tpp.example']);
  otherTpp = await tppHeaders('Other Aggregator', ['PSP_AI']);
  piOnly = await tppHeaders('Payments Only', ['PSP_PI']);
  main = await openAccount(t.user, 'main', '250.00');
  second = await openAccount(t.user, 'second');
  othersAccount = await openAccount(other, 'theirs');
}, 60_000);

afterAll(async () => {
  await worker?.stop();
  await t?.close();
});

describe('establishing a consent', () => {
  it('is received with the granted terms, links to start SCA, and an X-Request-ID replay answers it again (201), on the Berlin Group route and the platform\'s enveloped one alike', async () => {
    const requestId = randomUUID();
    const body = { access: { balances: [{ iban: main.iban }] }, recurringIndicator: true, validUntil: '9999-12-31', frequencyPerDay: 10 };
    const r = await t.app.inject({ method: 'POST', url: `${BG_PREFIX}/consents`, headers: { ...aisTpp, 'x-request-id': requestId }, payload: body });
    expect(r.statusCode, r.body).toBe(201);
    expect(r.headers['x-request-id']).toBe(requestId);
    const d = r.json();
    // 180 days of validity at most, and at most 4 reads a day without the customer.
    expect(d).toMatchObject({ consentStatus: 'received', validUntil: daysFromNow(180), frequencyPerDay: 4 });
    expect(r.headers.location).toMatch(new RegExp(`^https?://[^/]+${BG_PREFIX}/consents/${d.consentId}$`));
    expect(r.headers['aspsp-sca-approach']).toBe('REDIRECT');
    expect(d._links.startAuthorisation.href).toBe(`${r.headers.location}/authorisations`);
    const again = await t.app.inject({ method: 'POST', url: `${BG_PREFIX}/consents`, headers: { ...aisTpp, 'x-request-id': requestId }, payload: body });
    expect([again.statusCode, again.headers.location]).toEqual([201, r.headers.location]);
    expect(again.json()).toEqual(d);
    // The platform spec's row: the same consent for the same X-Request-ID, in the envelope.
    const platform = await t.app.inject({ method: 'POST', url: '/api/v1/open-banking/consents', headers: { ...aisTpp, 'x-request-id': requestId }, payload: body });
    expect([platform.statusCode, platform.headers.location]).toEqual([201, r.headers.location]);
    expect(platform.json().data).toEqual(d);
    expect((await getPool().query('SELECT count(*)::int AS n FROM ob_consents WHERE request_id = $1', [requestId])).rows[0].n).toBe(1);
    const info = (await call('GET', `/consents/${d.consentId}`, aisTpp)).json();
    expect(info).toMatchObject({ access: { balances: [{ iban: main.iban }] }, recurringIndicator: true, consentStatus: 'received' });
  });

  it('refuses what the standard refuses, with its codes', async () => {
    const ok = { access: { allPsd2: 'allAccounts' }, recurringIndicator: true, validUntil: daysFromNow(10), frequencyPerDay: 4 };
    const codeOf = async (payload: object, headers: Record<string, string> = aisTpp) => {
      const r = await call('POST', '/consents', headers, payload);
      return [r.statusCode, r.json().errors?.[0]?.code, r.json().tppMessages?.[0]?.code];
    };
    expect(await codeOf({ ...ok, recurringIndicator: false })).toEqual([400, 'FORMAT_ERROR', 'FORMAT_ERROR']);
    expect(await codeOf({ ...ok, validUntil: '2020-01-01' })).toEqual([400, 'FORMAT_ERROR', 'FORMAT_ERROR']);
    expect(await codeOf({ ...ok, access: { accounts: [{ iban: 'DE00123' }] } })).toEqual([400, 'FORMAT_ERROR', 'FORMAT_ERROR']);
    expect(await codeOf({ ...ok, access: { allPsd2: 'allAccounts', accounts: [{ iban: main.iban }] } })).toEqual([400, 'FORMAT_ERROR', 'FORMAT_ERROR']);
    expect(await codeOf({ ...ok, access: {} })).toEqual([400, 'FORMAT_ERROR', 'FORMAT_ERROR']);
    expect(await codeOf(ok, piOnly)).toEqual([403, 'ROLE_INVALID', 'ROLE_INVALID']);
    expect(await codeOf(ok, {})).toEqual([401, 'CERTIFICATE_MISSING', 'CERTIFICATE_MISSING']);
    const noId = await t.app.inject({ method: 'POST', url: `${BG_PREFIX}/consents`, headers: aisTpp, payload: ok });
    expect([noId.statusCode, noId.json().errors[0].code]).toEqual([400, 'FORMAT_ERROR']);
    // A one-off consent is read once a day.
    const once = await newConsent(ok.access, { recurringIndicator: false, frequencyPerDay: 1 });
    expect(once.frequencyPerDay).toBe(1);
  });

  it("another TPP's consent is unknown to this one (403 CONSENT_UNKNOWN), for reads, status and deletion", async () => {
    const c = await newConsent({ allPsd2: 'allAccounts' });
    for (const [method, url] of [['GET', `/consents/${c.consentId}`], ['GET', `/consents/${c.consentId}/status`], ['DELETE', `/consents/${c.consentId}`]] as const) {
      const r = await call(method, url, otherTpp);
      expect([r.statusCode, r.json().errors[0].code], `${method} ${url}`).toEqual([403, 'CONSENT_UNKNOWN']);
    }
    expect(await status(c.consentId)).toBe('received');
  });
});

describe('SCA: redirect', () => {
  it('the customer signs in on the platform and approves; the consent is valid for the named accounts only', async () => {
    const c = await newConsent({ balances: [{ iban: main.iban }], transactions: [{ iban: main.iban }] }, {}, aisTpp);
    const start = await call('POST', `/consents/${c.consentId}/authorisations`, { ...aisTpp, 'tpp-redirect-uri': 'https://tpp.example/cb' });
    expect(start.statusCode).toBe(201);
    const a = start.json();
    expect(a).toMatchObject({ scaStatus: 'received', scaApproach: 'REDIRECT' });
    expect(a._links.scaRedirect.href).toMatch(new RegExp(`/open-banking/sca/${a.authorisationId}$`));
    // The page the customer is sent to, and what it shows.
    const page = await t.app.inject({ method: 'GET', url: `/open-banking/sca/${a.authorisationId}` });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.headers['content-security-policy']).toMatch(/script-src 'nonce-/);
    const asked = (await t.app.inject({ method: 'GET', url: `/api/v1/open-banking/sca/${a.authorisationId}` })).json().data;
    expect(asked).toMatchObject({ subject: 'consent', sca_status: 'received', tpp: { name: 'Account Insight Ltd' }, environment: 'sandbox' });
    // An API key is a developer's credential, not the customer authenticating.
    const withKey = await t.app.inject({ method: 'POST', url: `/api/v1/open-banking/sca/${a.authorisationId}`, headers: t.headers, payload: { decision: 'approve' } });
    expect([withKey.statusCode, withKey.json().errors[0].code]).toEqual([403, 'LOGIN_SESSION_REQUIRED']);
    const ok = await t.app.inject({ method: 'POST', url: `/api/v1/open-banking/sca/${a.authorisationId}`, headers: await sessionOf(t.user), payload: { decision: 'approve' } });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().data).toMatchObject({ sca_status: 'finalised' });
    expect((await call('GET', `/consents/${c.consentId}/authorisations/${a.authorisationId}`, aisTpp)).json().scaStatus).toBe('finalised');
    expect((await call('GET', `/consents/${c.consentId}/authorisations`, aisTpp)).json().authorisationIds).toEqual([a.authorisationId]);
    expect(await status(c.consentId)).toBe('valid');
    const again = await t.app.inject({ method: 'POST', url: `/api/v1/open-banking/sca/${a.authorisationId}`, headers: await sessionOf(t.user), payload: { decision: 'approve' } });
    expect([again.statusCode, again.json().errors[0].code]).toEqual([409, 'STATUS_INVALID']);
    const accounts = await call('GET', '/accounts', { ...aisTpp, 'consent-id': c.consentId, 'psu-ip-address': '192.0.2.10' });
    expect(accounts.statusCode, accounts.body).toBe(200);
    expect(accounts.json().accounts.map((x: { iban: string }) => x.iban)).toEqual([main.iban]);
    const balances = await call('GET', `/accounts/${main.id}/balances`, { ...aisTpp, 'consent-id': c.consentId, 'psu-ip-address': '192.0.2.10' });
    expect(balances.statusCode, balances.body).toBe(200);
    expect(JSON.stringify(balances.json().balances)).toContain('250');
    const notCovered = await call('GET', `/accounts/${second.id}/balances`, { ...aisTpp, 'consent-id': c.consentId });
    expect(notCovered.statusCode).toBe(404);
    // Without the customer present: 4 reads a day of this endpoint and account, however many arrive at once.
    const parallel = await Promise.all(Array.from({ length: 8 }, () => call('GET', `/accounts/${main.id}/balances`, { ...aisTpp, 'consent-id': c.consentId })));
    expect(parallel.map((r) => r.statusCode).sort()).toEqual([200, 200, 200, 200, 429, 429, 429, 429]);
    expect(parallel.find((r) => r.statusCode === 429)!.json().tppMessages[0].code).toBe('ACCESS_EXCEEDED');
    // Another endpoint has its own count; the customer present is not counted.
    expect((await call('GET', `/accounts/${main.id}/transactions?bookingStatus=both`, { ...aisTpp, 'consent-id': c.consentId })).statusCode).toBe(200);
    expect((await call('GET', `/accounts/${main.id}/balances`, { ...aisTpp, 'consent-id': c.consentId, 'psu-ip-address': '192.0.2.10' })).statusCode).toBe(200);
  });

  it("a consent naming another customer's account is theirs to decide (404 to anyone else); one naming accounts of two customers fails its SCA and is rejected; a denial rejects it too", async () => {
    const others = await newConsent({ accounts: [{ iban: othersAccount.iban }] });
    const { decision: notMine } = await authorise(others.consentId);
    expect([notMine.statusCode, notMine.json().errors[0].code]).toEqual([404, 'NOT_FOUND']);
    expect(await status(others.consentId)).toBe('received');
    const c = await newConsent({ accounts: [{ iban: main.iban }, { iban: othersAccount.iban }] });
    const { decision } = await authorise(c.consentId);
    expect(decision.json().data).toMatchObject({ sca_status: 'failed' });
    expect(decision.json().data.reason).toContain(othersAccount.iban);
    expect(await status(c.consentId)).toBe('rejected');
    const d = await newConsent({ allPsd2: 'allAccounts' });
    expect((await authorise(d.consentId, 'deny')).decision.json().data).toMatchObject({ sca_status: 'failed' });
    expect(await status(d.consentId)).toBe('rejected');
    // Final statuses never change.
    expect((await call('DELETE', `/consents/${d.consentId}`, aisTpp)).statusCode).toBe(204);
    expect(await status(d.consentId)).toBe('rejected');
    const read = await call('GET', '/accounts', { ...aisTpp, 'consent-id': d.consentId });
    expect([read.statusCode, read.json().errors[0].code]).toEqual([401, 'CONSENT_INVALID']);
  });

  it('allPsd2 covers the accounts the customer picks among theirs; a new recurring consent ends the older one', async () => {
    const first = await newConsent({ allPsd2: 'allAccounts' });
    expect((await authorise(first.consentId, 'approve', undefined, { account_ids: [second.id] })).decision.json().data.sca_status).toBe('finalised');
    const listed = await call('GET', '/accounts', { ...aisTpp, 'consent-id': first.consentId, 'psu-ip-address': '192.0.2.10' });
    expect(listed.json().accounts.map((x: { resourceId: string }) => x.resourceId)).toEqual([second.id]);
    const next = await newConsent({ allPsd2: 'allAccounts' });
    await authorise(next.consentId);
    expect(await status(next.consentId)).toBe('valid');
    expect(await status(first.consentId)).toBe('terminatedByTpp');
    const picked = await newConsent({ allPsd2: 'allAccounts' });
    expect((await authorise(picked.consentId, 'approve', undefined, { account_ids: [othersAccount.id] })).decision.json().data.sca_status).toBe('failed');
  });
});

describe('redirect URIs', () => {
  it("TPP-Redirect-URI and TPP-Nok-Redirect-URI: only https URLs on the TPP certificate's domains (400 FORMAT_ERROR otherwise, nothing stored)", async () => {
    const access = { balances: [{ iban: main.iban }] };
    const create = (headers: Record<string, string>, who = aisTpp) =>
      call('POST', '/consents', { ...who, ...headers }, { access, recurringIndicator: true, validUntil: daysFromNow(30), frequencyPerDay: 4 });
    const before = (await getPool().query('SELECT count(*)::int AS n FROM ob_consents')).rows[0].n;
    const refused: Array<[Record<string, string>, string, typeof aisTpp?]> = [
      [{ 'tpp-redirect-uri': 'javascript:alert(document.cookie)' }, 'tpp-redirect-uri'],
      [{ 'tpp-redirect-uri': 'http://tpp.example/cb' }, 'tpp-redirect-uri'],
      [{ 'tpp-redirect-uri': 'https://evil.example/cb' }, 'tpp-redirect-uri'],
      [{ 'tpp-redirect-uri': 'https://tpp.example.evil.test/cb' }, 'tpp-redirect-uri'],
      [{ 'tpp-redirect-uri': 'https://eviltpp.example/cb' }, 'tpp-redirect-uri'],
      [{ 'tpp-redirect-uri': 'https://user:pw@tpp.example/cb' }, 'tpp-redirect-uri'],
      [{ 'tpp-redirect-uri': 'https://tpp.example/cb', 'tpp-nok-redirect-uri': 'data:text/html,hi' }, 'tpp-nok-redirect-uri'],
      // A TPP whose certificate names no domain has none to send customers to.
      [{ 'tpp-redirect-uri': 'https://tpp.example/cb' }, 'tpp-redirect-uri', otherTpp],
    ];
    for (const [headers, pointer, who] of refused) {
      const r = await create(headers, who);
      expect({ headers, status: r.statusCode, code: r.json().errors?.[0]?.code, pointer: r.json().errors?.[0]?.source?.pointer }).toEqual({
        headers,
        status: 400,
        code: 'FORMAT_ERROR',
        pointer: `/headers/${pointer}`,
      });
    }
    expect((await getPool().query('SELECT count(*)::int AS n FROM ob_consents')).rows[0].n).toBe(before);

    // The TPP's domain and its subdomains are accepted; the customer's browser goes back there.
    const ok = await create({ 'tpp-redirect-uri': 'https://app.tpp.example/cb?state=1', 'tpp-nok-redirect-uri': 'https://tpp.example/nok' });
    expect(ok.statusCode, ok.body).toBe(201);
    const start = await call('POST', `/consents/${ok.json().consentId}/authorisations`, aisTpp);
    const decided = await decide(start.json().authorisationId, 'approve');
    expect(decided.json().data).toMatchObject({ sca_status: 'finalised', redirect_uri: 'https://app.tpp.example/cb?state=1' });
  });
});

describe('SCA: the authorisation is its customer\'s from the start', () => {
  it('a redirect authorisation of a consent naming the customer\'s account: another customer\'s session can neither approve nor deny it (404); the consent stays received', async () => {
    const c = await newConsent({ balances: [{ iban: main.iban }] });
    const a = (await call('POST', `/consents/${c.consentId}/authorisations`, aisTpp)).json();
    expect(a.scaApproach).toBe('REDIRECT');
    for (const decision of ['approve', 'deny'] as const) {
      const r = await decide(a.authorisationId, decision, {}, await sessionOf(other));
      expect([r.statusCode, r.json().errors?.[0]?.code]).toEqual([404, 'NOT_FOUND']);
    }
    expect(await status(c.consentId)).toBe('received');
    const ok = await decide(a.authorisationId, 'approve');
    expect(ok.json().data.sca_status).toBe('finalised');
    expect(await status(c.consentId)).toBe('valid');
  });

  it('a PSU-ID naming another customer than the account\'s owner: no push to them, and they cannot decide it', async () => {
    const c = await newConsent({ balances: [{ iban: main.iban }] });
    const start = await call('POST', `/consents/${c.consentId}/authorisations`, { ...aisTpp, 'tpp-decoupled-preferred': 'true', 'psu-id': other.email });
    expect(start.statusCode).toBe(201);
    const a = start.json();
    const { rows } = await getPool().query("SELECT count(*)::int AS n FROM platform_events WHERE type = 'open_banking.sca_requested' AND aggregate_id = $1", [a.authorisationId]);
    expect(rows[0].n).toBe(0);
    const r = await decide(a.authorisationId, 'approve', {}, await sessionOf(other));
    expect(r.statusCode).toBe(404);
    expect(await status(c.consentId)).toBe('received');
  });
});

describe('SCA: decoupled', () => {
  it('the customer named by PSU-ID is asked in the app and approves there; nobody else can decide it', async () => {
    const c = await newConsent({ balances: [{ iban: main.iban }] });
    const start = await call('POST', `/consents/${c.consentId}/authorisations`, { ...aisTpp, 'tpp-decoupled-preferred': 'true', 'psu-id': t.user.email });
    expect(start.statusCode).toBe(201);
    const a = start.json();
    expect(a).toMatchObject({ scaApproach: 'DECOUPLED', scaStatus: 'started', psuMessage: expect.any(String) });
    expect(a._links.scaRedirect).toBeUndefined();
    const { rows } = await getPool().query("SELECT user_id, data FROM platform_events WHERE type = 'open_banking.sca_requested' AND aggregate_id = $1", [a.authorisationId]);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ user_id: t.user.userId, data: { authorisation_id: a.authorisationId, tpp_name: 'Account Insight Ltd', subject_kind: 'consent' } });
    const stranger = await t.app.inject({ method: 'POST', url: `/api/v1/open-banking/sca/${a.authorisationId}`, headers: await sessionOf(other), payload: { decision: 'approve' } });
    expect(stranger.statusCode).toBe(404);
    const ok = await t.app.inject({ method: 'POST', url: `/api/v1/open-banking/sca/${a.authorisationId}`, headers: await sessionOf(t.user), payload: { decision: 'approve' } });
    expect(ok.json().data.sca_status).toBe('finalised');
    expect(await status(c.consentId)).toBe('valid');
  });
});

describe('ending a consent', () => {
  it('the TPP deletes it (terminatedByTpp) and the customer revokes theirs (revokedByPsu); reads stop', async () => {
    const a = await newConsent({ allPsd2: 'allAccounts' }, {}, otherTpp);
    const start = await call('POST', `/consents/${a.consentId}/authorisations`, otherTpp);
    await t.app.inject({ method: 'POST', url: `/api/v1/open-banking/sca/${start.json().authorisationId}`, headers: await sessionOf(t.user), payload: { decision: 'approve' } });
    expect(await status(a.consentId, otherTpp)).toBe('valid');
    const mine = (await t.app.inject({ method: 'GET', url: '/api/v1/open-banking/my/consents', headers: t.headers })).json().data;
    expect(mine.find((x: { consent_id: string }) => x.consent_id === a.consentId)).toMatchObject({ tpp_name: 'Other Aggregator', status: 'valid' });
    // Another customer cannot revoke it.
    expect((await t.app.inject({ method: 'DELETE', url: `/api/v1/open-banking/my/consents/${a.consentId}`, headers: other.headers })).statusCode).toBe(404);
    const revoked = await t.app.inject({ method: 'DELETE', url: `/api/v1/open-banking/my/consents/${a.consentId}`, headers: t.headers });
    expect(revoked.json().data.status).toBe('revokedByPsu');
    expect(await status(a.consentId, otherTpp)).toBe('revokedByPsu');
    expect((await call('GET', '/accounts', { ...otherTpp, 'consent-id': a.consentId })).json().errors[0].code).toBe('CONSENT_INVALID');

    const b = await newConsent({ allPsd2: 'allAccounts' }, {}, otherTpp);
    expect((await call('DELETE', `/consents/${b.consentId}`, otherTpp)).statusCode).toBe(204);
    expect(await status(b.consentId, otherTpp)).toBe('terminatedByTpp');
    const late = await call('POST', `/consents/${b.consentId}/authorisations`, otherTpp);
    expect([late.statusCode, late.json().errors[0].code]).toEqual([409, 'STATUS_INVALID']);
  });

  it('a consent past its last day reads as expired (401 CONSENT_EXPIRED) before its timer runs', async () => {
    const c = await newConsent({ allPsd2: 'allAccounts' });
    await authorise(c.consentId);
    await getPool().query("UPDATE ob_consents SET valid_until = current_date - 1 WHERE id = $1", [c.consentId]);
    expect(await status(c.consentId)).toBe('expired');
    const r = await call('GET', '/accounts', { ...aisTpp, 'consent-id': c.consentId });
    expect([r.statusCode, r.json().errors[0].code]).toEqual([401, 'CONSENT_EXPIRED']);
  });

  it('an unauthorised consent is rejected by its timer; a valid one expires by its timer', async () => {
    process.env.OPEN_BANKING_SCA_TIMEOUT_SECONDS = '1';
    try {
      const c = await newConsent({ allPsd2: 'allAccounts' });
      const deadline = Date.now() + 20_000;
      while ((await status(c.consentId)) === 'received' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
      expect(await status(c.consentId)).toBe('rejected');
      expect((await getPool().query('SELECT status FROM ob_consents WHERE id = $1', [c.consentId])).rows[0].status).toBe('rejected');
    } finally {
      delete process.env.OPEN_BANKING_SCA_TIMEOUT_SECONDS;
    }
    // Valid until today: the timer ends it at midnight UTC. Moved to yesterday, the timer (woken by a
    // change signal) finds its end passed and expires it in the database.
    const v = await newConsent({ allPsd2: 'allAccounts' }, { validUntil: today() });
    await authorise(v.consentId);
    expect(await status(v.consentId)).toBe('valid');
    await getPool().query("UPDATE ob_consents SET valid_until = current_date - 1 WHERE id = $1", [v.consentId]);
    const { signalWorkflow } = await import('../../domain/temporal/signals');
    await signalWorkflow(`ob-consent-${v.consentId}`, 'consentChanged', 'valid');
    const deadline = Date.now() + 20_000;
    const stored = async () => (await getPool().query('SELECT status FROM ob_consents WHERE id = $1', [v.consentId])).rows[0].status;
    while ((await stored()) === 'valid' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    expect(await stored()).toBe('expired');
  });
});

describe('tenant isolation (issue 41)', () => {
  it("A's consents and authorisations: another customer of the tenant and a customer of another tenant get 404 on the customer routes; another TPP gets the standard's unknown (403 CONSENT_UNKNOWN for a consent, 404 RESOURCE_UNKNOWN for an authorisation); nothing changes", async () => {
    const { a, b, c } = await tenantCustomers(t.user.userId);
    const acct = await openAccount(a, 'tenant A', '50.00');
    // A valid consent of A's, and one waiting for A's SCA.
    const valid = await newConsent({ balances: [{ iban: acct.iban }] });
    const first = await authorise(valid.consentId, 'approve', await sessionOf(a));
    expect(first.decision.statusCode, first.decision.body).toBe(200);
    const waiting = await newConsent({ balances: [{ iban: acct.iban }] });
    const auth = (await call('POST', `/consents/${waiting.consentId}/authorisations`, aisTpp)).json().authorisationId as string;
    const own = await newConsent({ allPsd2: 'allAccounts' }, {}, otherTpp);
    const snapshot = async () => ({
      consents: (await getPool().query('SELECT id, status, user_id, status_changed_at FROM ob_consents WHERE id = ANY($1::text[]) ORDER BY id', [[valid.consentId, waiting.consentId]])).rows,
      authorisations: (await getPool().query('SELECT id, sca_status, user_id FROM ob_authorisations WHERE subject_id = ANY($1::text[]) ORDER BY id', [[valid.consentId, waiting.consentId]])).rows,
    });
    const before = await snapshot();
    const secrets = [valid.consentId, waiting.consentId, acct.id, acct.iban, a.userId];
    const wrong: string[] = [];
    // Customers of the tenant and of another one, with their login sessions and keys.
    for (const [who, u] of [['B (same tenant)', b], ['C (other tenant)', c]] as const) {
      const session = await sessionOf(u);
      const probes: Probe[] = [
        { method: 'DELETE', url: `/api/v1/open-banking/my/consents/${valid.consentId}`, headers: u.headers },
        { method: 'DELETE', url: `/api/v1/open-banking/my/consents/${waiting.consentId}`, headers: session },
        { method: 'POST', url: `/api/v1/open-banking/sca/${auth}`, payload: { decision: 'approve' }, headers: session },
        { method: 'POST', url: `/api/v1/open-banking/sca/${auth}`, payload: { decision: 'deny' }, headers: session },
      ];
      wrong.push(...(await refusalsOf(t.app, probes, [[who, {}]], { status: 404, code: 'NOT_FOUND' }, secrets)));
      const mine = await t.app.inject({ method: 'GET', url: '/api/v1/open-banking/my/consents', headers: u.headers });
      if (secrets.some((x) => mine.body.includes(x))) wrong.push(`${who} my/consents shows A's`);
    }
    // Another TPP: A's consents are unknown to it, and so are the authorisations under them.
    const tppProbes: Probe[] = [
      ...[`/consents/${valid.consentId}`, `/consents/${valid.consentId}/status`, `/consents/${waiting.consentId}/authorisations`, `/consents/${waiting.consentId}/authorisations/${auth}`].map(
        (url): Probe => ({ method: 'GET', url: `${BG_PREFIX}${url}` }),
      ),
      { method: 'POST', url: `${BG_PREFIX}/consents/${waiting.consentId}/authorisations` },
      { method: 'DELETE', url: `${BG_PREFIX}/consents/${valid.consentId}` },
      { method: 'GET', url: `${BG_PREFIX}/accounts`, headers: { 'consent-id': valid.consentId } },
      { method: 'GET', url: '/api/v1/open-banking/accounts', headers: { 'consent-id': valid.consentId } },
      { method: 'GET', url: `${BG_PREFIX}/accounts/${acct.id}/balances`, headers: { 'consent-id': valid.consentId } },
      // Its own consent naming A's authorisation.
      { method: 'GET', url: `${BG_PREFIX}/consents/${own.consentId}/authorisations/${auth}`, expect: { status: 404, code: 'RESOURCE_UNKNOWN' } },
    ];
    for (const p of tppProbes) p.headers = { 'x-request-id': randomUUID(), ...p.headers };
    wrong.push(...(await refusalsOf(t.app, tppProbes, [['another TPP', otherTpp]], { status: 403, code: 'CONSENT_UNKNOWN' }, secrets)));
    expect(wrong).toEqual([]);
    expect(await snapshot()).toEqual(before);
  });
});
