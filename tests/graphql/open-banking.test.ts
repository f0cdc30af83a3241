import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BG_PREFIX } from '../../api/operations/open-banking/schemas';
import { getPool } from '../../domain/db/pool';
import { issueSandboxCertificate } from '../../domain/open-banking/sandbox-ca';
import { registerTpp } from '../../domain/open-banking/tpps';
import { createTestApp, createTestUser, type TestApp, type TestUser } from '../helpers/app';
import { startTestWorker, type TestWorker } from '../helpers/worker';
import { gqlOk, gqlRefused } from './helpers';

/**
 * Open banking over GraphQL, the customer's side (api/graphql/areas/open-banking.ts): the consents
 * the customer gave, as GET /my/consents shows them, and revoking one as DELETE /my/consents/{id}.
 */
let t: TestApp;
let worker: TestWorker;
let other: TestUser;
let tpp: Record<string, string>;
let tpp2: Record<string, string>;
let iban: string;

const OB = '/api/v1/open-banking';
const CONSENT = 'consentId tppName status access recurring validUntil frequencyPerDay authorisedAt createdAt';
/** A Berlin Group call (under BG_PREFIX, unwrapped bodies). */
const call = (method: string, url: string, headers: Record<string, string>, payload?: object) =>
  t.app.inject({ method: method as 'GET', url: `${BG_PREFIX}${url}`, headers: { 'x-request-id': randomUUID(), ...headers }, ...(payload ? { payload } : {}) });
const camel = (v: Record<string, unknown>) => Object.fromEntries(Object.entries(v).map(([k, x]) => [k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()), x]));
const daysFromNow = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);

/** A consent of a TPP (one valid consent per TPP and customer) for the test user's account, authorised by the user (SCA with their login session). */
async function validConsent(by = tpp): Promise<string> {
  const r = await call('POST', '/consents', by, { access: { balances: [{ iban }] }, recurringIndicator: true, validUntil: daysFromNow(30), frequencyPerDay: 4 });
  expect(r.statusCode, r.body).toBe(201);
  const consentId = r.json().consentId as string;
  const start = await call('POST', `/consents/${consentId}/authorisations`, by);
  expect(start.statusCode, start.body).toBe(201);
  const login = await t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: t.user.email, password: t.user.password } });
  const session = { authorization: `Bearer ${login.json().data.access_token}` };
  const d = await t.app.inject({ method: 'POST', url: `${OB}/sca/${start.json().authorisationId}`, headers: session, payload: { decision: 'approve' } });
  expect(d.statusCode, d.body).toBe(200);
  return consentId;
}
const tppStatus = async (consentId: string) => (await call('GET', `/consents/${consentId}/status`, tpp)).json().consentStatus;

beforeAll(async () => {
  t = await createTestApp();
  worker = await startTestWorker();
  other = await createTestUser();
  const cert = await issueSandboxCertificate({ name: 'Budget Buddy Ltd', roles: ['PSP_AI'] });
  await registerTpp(cert.certificate);
  tpp = { 'x-ssl-client-cert': encodeURIComponent(cert.certificate) };
  const cert2 = await issueSandboxCertificate({ name: 'Ledger Lens GmbH', roles: ['PSP_AI'] });
  await registerTpp(cert2.certificate);
  tpp2 = { 'x-ssl-client-cert': encodeURIComponent(cert2.certificate) };
  const id = (await t.app.inject({ method: 'POST', url: '/api/v2/accounts', headers: t.headers, payload: { name: 'main' } })).json().data.uuid as string;
  iban = (await getPool().query<{ iban: string }>('SELECT iban FROM account_ibans WHERE account_id = $1', [id])).rows[0].iban;
}, 60_000);

afterAll(async () => {
  await worker?.stop();
  await t?.close();
});

describe('open banking consents over GraphQL (the customer)', () => {
  it('myOpenBankingConsents and myOpenBankingConsent equal GET /my/consents (expired past the last day, as REST shows)', async () => {
    const expired = await validConsent(tpp2);
    const valid = await validConsent();
    await getPool().query('UPDATE ob_consents SET valid_until = current_date - 1 WHERE id = $1', [expired]);

    const rest = (await t.app.inject({ method: 'GET', url: `${OB}/my/consents`, headers: t.headers })).json().data as Array<Record<string, unknown>>;
    const g = (await gqlOk(t, `{ myOpenBankingConsents { data { ${CONSENT} } paginatorInfo { total } } }`)).myOpenBankingConsents;
    expect(g.data).toEqual(rest.map(camel));
    expect(g.paginatorInfo.total).toBe(rest.length);
    expect(g.data.find((c: { consentId: string }) => c.consentId === expired).status).toBe('expired');

    const one = (await gqlOk(t, `query ($id: ID!) { myOpenBankingConsent(id: $id) { ${CONSENT} } }`, { id: valid })).myOpenBankingConsent;
    expect(one).toEqual(camel(rest.find((c) => c.consent_id === valid)!));
    expect(one).toMatchObject({ tppName: 'Budget Buddy Ltd', status: 'valid', access: { balances: [{ iban }] } });
  });

  it("revokes through the domain: the TPP sees revokedByPsu; another customer's consent is the REST 404; rights as on DELETE", async () => {
    const id = await validConsent();
    const REVOKE = `mutation ($id: ID!) { revokeOpenBankingConsent(id: $id) { consentId status tppName } }`;

    // Another customer: the REST code for the same resource, and nothing changes.
    const restOther = await t.app.inject({ method: 'DELETE', url: `${OB}/my/consents/${id}`, headers: other.headers });
    expect(restOther.statusCode).toBe(404);
    await gqlRefused(t, REVOKE, restOther.json().errors[0].code, 404, { id }, other.headers);
    await gqlRefused(t, `query ($id: ID!) { myOpenBankingConsent(id: $id) { status } }`, restOther.json().errors[0].code, 404, { id }, other.headers);
    const otherList = (await gqlOk(t, `{ myOpenBankingConsents { data { consentId } } }`, undefined, other.headers)).myOpenBankingConsents.data;
    expect(otherList).toEqual([]);

    // Revoking is a DELETE on REST: a key without the delete permission is refused.
    const readOnly = await createTestUser({ permissions: ['read'] });
    await gqlRefused(t, REVOKE, 'INSUFFICIENT_PERMISSIONS', 403, { id }, readOnly.headers);
    const noDelete = await createTestUser({ permissions: ['read', 'write'] });
    const restNoDelete = await t.app.inject({ method: 'DELETE', url: `${OB}/my/consents/${id}`, headers: noDelete.headers });
    await gqlRefused(t, REVOKE, restNoDelete.json().errors[0].code, restNoDelete.statusCode, { id }, noDelete.headers);
    expect(restNoDelete.statusCode).toBe(403);
    await gqlRefused(t, REVOKE, 'NOT_FOUND', 404, { id: 'cns_unknown' });
    expect(await tppStatus(id)).toBe('valid');

    const revoked = (await gqlOk(t, REVOKE, { id })).revokeOpenBankingConsent;
    expect(revoked).toEqual({ consentId: id, status: 'revokedByPsu', tppName: null });
    expect(await tppStatus(id)).toBe('revokedByPsu');
    expect((await call('GET', '/accounts', { ...tpp, 'consent-id': id })).json().errors[0].code).toBe('CONSENT_INVALID');
    // Again: the consent as it stands (final), as REST answers.
    const again = (await t.app.inject({ method: 'DELETE', url: `${OB}/my/consents/${id}`, headers: t.headers })).json().data;
    expect((await gqlOk(t, REVOKE, { id })).revokeOpenBankingConsent).toEqual({ consentId: again.consent_id, status: again.status, tppName: null });
  });
});
