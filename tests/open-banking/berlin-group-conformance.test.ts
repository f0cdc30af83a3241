/**
 * A TPP client built from the official Berlin Group NextGenPSD2 1.3.12 OpenAPI document runs the
 * whole flow against the platform: a sandbox certificate from the platform's CA, registration, a
 * consent, the redirect SCA on the platform's page, the account list, details, balances and
 * transactions, a SEPA credit transfer to ACSP and ACSC, and the ends (cancel, delete). EVERY
 * response of the Berlin Group routes is validated against the document (berlin-group-spec.ts:
 * the status is one the operation documents, the body its schema, the headers theirs), and the
 * platform's own choices on top: Location and ASPSP-SCA-Approach on the 201s, ISO 4217 currencies
 * only (the customer also holds USDC), ISO bank transaction codes by what posted the line.
 * Real PostgreSQL and the real workflows on Temporal's time-skipping server (tests/rails/harness).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPool } from '../../domain/db/pool';
import { bankTransactionCode, RAIL_CODES } from '../../domain/open-banking/bank-transaction-codes';
import { TPP_CERTIFICATE_HEADER } from '../../domain/open-banking/certificates';
import type { EntryOrigin } from '../../domain/ledger/transactions';
import { RAILS } from '../../domain/rails/calendar';
import { makeIban } from '../../iso20022/iban';
import { BG_SERVER } from '../../api/operations/open-banking/schemas';
import type { TestApp } from '../helpers/app';
import { startRailsHarness, type RailsHarness } from '../rails/harness';
import { loadBerlinGroupSpec, type BerlinGroupSpec, type InjectedResponse } from './berlin-group-spec';

const BG = `${BG_SERVER}/v1`;
const CREDITOR_IBAN = makeIban('FR', '30006000011234567890189');

let h: RailsHarness;
let t: TestApp;
let spec: BerlinGroupSpec;
let tpp: Record<string, string>;
const account = { id: '', iban: '' };
const seen = new Set<string>();

type Call = { method: 'GET' | 'POST' | 'DELETE'; url: string; headers?: Record<string, string>; payload?: object };

/** A Berlin Group call as the TPP makes it; the response must conform to the document. */
async function bg(c: Call, requestId = randomUUID()): Promise<InjectedResponse & { json(): any }> {
  const r = await t.app.inject({ method: c.method, url: c.url, headers: { ...tpp, 'x-request-id': requestId, ...c.headers }, ...(c.payload ? { payload: c.payload } : {}) });
  const { operationId, problems } = spec.problems(c.method, c.url, r);
  expect(problems, `${c.method} ${c.url} (${operationId}) ${r.statusCode}: ${r.body.slice(0, 600)}`).toEqual([]);
  expect(r.headers['x-request-id']).toBe(requestId);
  seen.add(`${operationId} ${r.statusCode}`);
  return r;
}

/** The 201 of a creation carries the created resource's absolute URL and the SCA approach. */
function expectCreated(r: InjectedResponse, selfPath: string) {
  expect(r.statusCode).toBe(201);
  expect(new URL(String(r.headers.location)).pathname).toBe(selfPath);
  expect(r.headers['aspsp-sca-approach']).toBe('REDIRECT');
}

async function customerDecides(authorisationId: string): Promise<{ sca_status: string; redirect_uri: string | null }> {
  const login = await t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: t.user.email, password: t.user.password } });
  const r = await t.app.inject({
    method: 'POST',
    url: `/api/v1/open-banking/sca/${authorisationId}`,
    headers: { authorization: `Bearer ${login.json().data.access_token}` },
    payload: { decision: 'approve' },
  });
  expect(r.statusCode, r.body).toBe(200);
  return r.json().data;
}

beforeAll(async () => {
  [h, spec] = await Promise.all([startRailsHarness('ob-berlin-group-test'), loadBerlinGroupSpec(BG_SERVER)]);
  t = h.t;
  // The sandbox certificate and registration, as a TPP developer gets them.
  const issued = await t.app.inject({
    method: 'POST',
    url: '/api/v1/open-banking/sandbox/certificates',
    headers: t.headers,
    payload: { name: 'Spec Client TPP', roles: ['PSP_AI', 'PSP_PI'], redirect_domains: ['tpp.example'] },
  });
  expect(issued.statusCode, issued.body).toBe(201);
  const registered = await t.app.inject({ method: 'POST', url: '/api/v1/open-banking/tpps', payload: { certificate: issued.json().data.certificate } });
  expect(registered.statusCode, registered.body).toBe(201);
  tpp = { [TPP_CERTIFICATE_HEADER]: encodeURIComponent(issued.json().data.certificate) };
  // A multi-asset account: euros, and USD Coin the PSD2 view leaves out.
  account.id = (await t.app.inject({ method: 'POST', url: '/api/v2/accounts', headers: t.headers, payload: { name: 'Everyday' } })).json().data.uuid;
  for (const [amount, asset_code] of [['500.00', 'EUR'], ['5.000000', 'USDC']]) {
    const r = await t.app.inject({ method: 'POST', url: `/api/v2/accounts/${account.id}/deposit`, headers: t.headers, payload: { amount, asset_code } });
    expect(r.statusCode, r.body).toBe(201);
  }
  // The owner reads the account's IBAN on the platform's account route.
  account.iban = (await t.app.inject({ method: 'GET', url: `/api/v2/accounts/${account.id}`, headers: t.headers })).json().data.identifiers.iban;
}, 120_000);

afterAll(async () => {
  await h?.close();
});

describe('Berlin Group NextGenPSD2 1.3.12: every response conforms to the official OpenAPI document', () => {
  let consentId = '';

  it('consent, redirect SCA, account list, details, balances and transactions', async () => {
    const body = { access: { accounts: [{ iban: account.iban }], balances: [{ iban: account.iban }], transactions: [{ iban: account.iban }] }, recurringIndicator: true, validUntil: '9999-12-31', frequencyPerDay: 4 };
    const requestId = randomUUID();
    const created = await bg({ method: 'POST', url: `${BG}/consents`, headers: { 'tpp-redirect-uri': 'https://tpp.example/cb', 'psu-ip-address': '192.0.2.10' }, payload: body }, requestId);
    consentId = created.json().consentId;
    expectCreated(created, `${BG}/consents/${consentId}`);
    expect(created.json()).toMatchObject({ consentStatus: 'received', _links: { startAuthorisation: { href: `${created.headers.location}/authorisations` } } });
    // A replayed X-Request-ID: the same 201 and body (the standard has no other success status).
    const replay = await bg({ method: 'POST', url: `${BG}/consents`, headers: { 'tpp-redirect-uri': 'https://tpp.example/cb', 'psu-ip-address': '192.0.2.10' }, payload: body }, requestId);
    expectCreated(replay, `${BG}/consents/${consentId}`);
    expect(replay.json()).toEqual(created.json());

    expect((await bg({ method: 'GET', url: `${BG}/consents/${consentId}` })).json()).toMatchObject({ consentStatus: 'received', access: body.access });
    expect((await bg({ method: 'GET', url: `${BG}/consents/${consentId}/status` })).json()).toEqual({ consentStatus: 'received' });
    const started = await bg({ method: 'POST', url: `${BG}/consents/${consentId}/authorisations` });
    expect(started.statusCode).toBe(201);
    expect(started.headers['aspsp-sca-approach']).toBe('REDIRECT');
    const authorisationId = started.json().authorisationId;
    // The customer follows scaRedirect to the platform's page, signs in and approves; back to the TPP.
    const page = await t.app.inject({ method: 'GET', url: new URL(started.json()._links.scaRedirect.href).pathname });
    expect(page.statusCode).toBe(200);
    expect(await customerDecides(authorisationId)).toMatchObject({ sca_status: 'finalised', redirect_uri: 'https://tpp.example/cb' });
    expect((await bg({ method: 'GET', url: `${BG}/consents/${consentId}/authorisations` })).json()).toEqual({ authorisationIds: [authorisationId] });
    expect((await bg({ method: 'GET', url: `${BG}/consents/${consentId}/authorisations/${authorisationId}` })).json()).toEqual({ scaStatus: 'finalised' });
    expect((await bg({ method: 'GET', url: `${BG}/consents/${consentId}/status` })).json()).toEqual({ consentStatus: 'valid' });

    const ais = { 'consent-id': consentId, 'psu-ip-address': '192.0.2.10' };
    const list = (await bg({ method: 'GET', url: `${BG}/accounts?withBalance=true`, headers: ais })).json();
    expect(list.accounts).toHaveLength(1);
    // USDC is no ISO 4217 currency: the account shows as a euro account, its USDC nowhere.
    expect(list.accounts[0]).toMatchObject({ resourceId: account.id, iban: account.iban, currency: 'EUR' });
    expect(JSON.stringify(list)).not.toContain('USDC');
    const details = (await bg({ method: 'GET', url: `${BG}/accounts/${account.id}`, headers: ais })).json();
    expect(details.account._links.balances.href).toBe(`${BG}/accounts/${account.id}/balances`);
    const balances = (await bg({ method: 'GET', url: `${BG}/accounts/${account.id}/balances`, headers: ais })).json();
    expect(balances.balances.map((b: { balanceAmount: { currency: string; amount: string } }) => b.balanceAmount)).toEqual([
      { currency: 'EUR', amount: '500.00' },
      { currency: 'EUR', amount: '500.00' },
    ]);
    const report = (await bg({ method: 'GET', url: `${BG}/accounts/${account.id}/transactions?bookingStatus=both`, headers: ais })).json();
    expect(report.transactions.booked.map((l: Record<string, unknown>) => [l.proprietaryBankTransactionCode, l.bankTransactionCode, l.transactionAmount])).toEqual([
      ['deposit', 'PMNT-MCOP-OTHR', { currency: 'EUR', amount: '500.00' }],
    ]);
    // The standard's refusals, in its error bodies.
    expect((await bg({ method: 'GET', url: `${BG}/accounts/${account.id}/transactions`, headers: ais })).statusCode).toBe(400);
    expect((await bg({ method: 'GET', url: `${BG}/accounts/acct_nope/balances`, headers: ais })).statusCode).toBe(404);
    expect((await bg({ method: 'GET', url: `${BG}/consents/cns_nope/status` })).statusCode).toBe(403);
    // A body outside the route's schema, or no JSON at all: the standard's 400 FORMAT_ERROR (it has no 422).
    const refusals = [
      await bg({ method: 'POST', url: `${BG}/consents`, headers: { 'psu-ip-address': '192.0.2.10' }, payload: { ...body, frequencyPerDay: 'four' } }),
      await bg({ method: 'GET', url: `${BG}/accounts?withBalance=maybe`, headers: ais }),
      await bg({ method: 'POST', url: `${BG}/consents`, headers: { 'psu-ip-address': '192.0.2.10', 'content-type': 'application/json' }, payload: '{"access":' as never }),
      // The platform's own guard (U+0000 in a parameter, found by the fuzzer): the standard's 400 too.
      await bg({ method: 'GET', url: `${BG}/accounts/${account.id}?withBalance=true&x=%00`, headers: ais }),
    ];
    expect(refusals.map((r) => [r.statusCode, r.json().tppMessages[0].code])).toEqual([[400, 'FORMAT_ERROR'], [400, 'FORMAT_ERROR'], [400, 'FORMAT_ERROR'], [400, 'FORMAT_ERROR']]);
    expect(refusals[0].json().tppMessages[0].path).toBe('/frequencyPerDay');
  });

  it('a SEPA credit transfer: initiation, redirect SCA, ACSP with its line PMNT-ICDT-ESCT, ACSC; the TPP ends the consent', async () => {
    const product = `${BG}/payments/sepa-credit-transfers`;
    const payment = {
      instructedAmount: { currency: 'EUR', amount: '120.00' },
      debtorAccount: { iban: account.iban },
      creditorAccount: { iban: CREDITOR_IBAN },
      creditorName: 'Dupont et Fils SA',
      remittanceInformationUnstructured: 'Invoice 42',
    };
    const requestId = randomUUID();
    const created = await bg({ method: 'POST', url: product, headers: { 'psu-ip-address': '192.0.2.10' }, payload: payment }, requestId);
    const paymentId = created.json().paymentId;
    expectCreated(created, `${product}/${paymentId}`);
    expect(created.json()).toMatchObject({ transactionStatus: 'RCVD', _links: { self: { href: created.headers.location } } });
    const replay = await bg({ method: 'POST', url: product, headers: { 'psu-ip-address': '192.0.2.10' }, payload: payment }, requestId);
    expectCreated(replay, `${product}/${paymentId}`);
    expect(replay.json()).toEqual(created.json());

    expect((await bg({ method: 'GET', url: `${product}/${paymentId}` })).json()).toMatchObject({ ...payment, transactionStatus: 'RCVD' });
    const started = await bg({ method: 'POST', url: `${product}/${paymentId}/authorisations` });
    expect(started.headers['aspsp-sca-approach']).toBe('REDIRECT');
    const authorisationId = started.json().authorisationId;
    expect((await bg({ method: 'GET', url: `${product}/${paymentId}/authorisations` })).json()).toEqual({ authorisationIds: [authorisationId] });
    expect((await customerDecides(authorisationId)).sca_status).toBe('finalised');
    expect((await bg({ method: 'GET', url: `${product}/${paymentId}/authorisations/${authorisationId}` })).json()).toEqual({ scaStatus: 'finalised' });

    // The rail reserves at once and waits for the SEPA window: ACSP; then settles: ACSC.
    let status = '';
    for (const deadline = Date.now() + 15_000; status !== 'ACSP' && Date.now() < deadline; await new Promise((r) => setTimeout(r, 50))) {
      status = (await getPool().query('SELECT transaction_status FROM ob_payments WHERE id = $1', [paymentId])).rows[0].transaction_status;
    }
    expect((await bg({ method: 'GET', url: `${product}/${paymentId}/status` })).json()).toEqual({ transactionStatus: 'ACSP' });
    // Reserved on the rail: a pending line, a SEPA credit transfer the customer issued.
    const ais = { 'consent-id': consentId, 'psu-ip-address': '192.0.2.10' };
    const report = (await bg({ method: 'GET', url: `${BG}/accounts/${account.id}/transactions?bookingStatus=pending`, headers: ais })).json();
    expect(report.transactions.pending).toEqual([expect.objectContaining({ transactionAmount: { currency: 'EUR', amount: '-120.00' }, bankTransactionCode: 'PMNT-ICDT-ESCT' })]);

    // The TPP ends the consent (before the test server's clock runs on and the consent's own timer could end it).
    expect((await bg({ method: 'DELETE', url: `${BG}/consents/${consentId}` })).statusCode).toBe(204);
    expect((await bg({ method: 'GET', url: `${BG}/consents/${consentId}/status` })).json()).toEqual({ consentStatus: 'terminatedByTpp' });
    const refused = await bg({ method: 'GET', url: `${BG}/accounts`, headers: ais });
    expect([refused.statusCode, refused.json().tppMessages[0].code]).toEqual([401, 'CONSENT_INVALID']);

    await h.env.client.workflow.getHandle(`ob-payment-${paymentId}`).result();
    expect((await bg({ method: 'GET', url: `${product}/${paymentId}/status` })).json()).toEqual({ transactionStatus: 'ACSC' });

    // Cancelling before SCA, and a payment of another product the platform does not offer.
    const other = await bg({ method: 'POST', url: product, headers: { 'psu-ip-address': '192.0.2.10' }, payload: payment });
    expect((await bg({ method: 'DELETE', url: `${product}/${other.json().paymentId}` })).statusCode).toBe(204);
    expect((await bg({ method: 'GET', url: `${product}/${other.json().paymentId}/status` })).json()).toEqual({ transactionStatus: 'CANC' });
    expect((await bg({ method: 'POST', url: `${BG}/payments/target-2-payments`, headers: { 'psu-ip-address': '192.0.2.10' }, payload: payment })).statusCode).toBe(404);
  });

  it('covered every operation the platform serves, with the statuses above', () => {
    const operations = new Set([...seen].map((s) => s.split(' ')[0]));
    expect([...operations].sort()).toEqual(
      [
        'createConsent', 'getConsentInformation', 'getConsentStatus', 'deleteConsent', 'startConsentAuthorisation', 'getConsentAuthorisation', 'getConsentScaStatus',
        'getAccountList', 'readAccountDetails', 'getBalances', 'getTransactionList',
        'initiatePayment', 'getPaymentInformation', 'getPaymentInitiationStatus', 'cancelPayment', 'startPaymentAuthorisation', 'getPaymentInitiationAuthorisation', 'getPaymentInitiationScaStatus',
      ].sort(),
    );
  });

  it('bank transaction codes: one table, by what posted the line (teller cash only is counter cash)', () => {
    const origin = (type: string, extra: Partial<EntryOrigin> = {}): EntryOrigin => ({ type, rail: null, interledger: false, reverses: null, ...extra });
    const code = (type: Parameters<typeof bankTransactionCode>[0]['type'], incoming: boolean, o?: EntryOrigin) => bankTransactionCode({ type, incoming }, o);
    const rail = (name: string) => origin('withdrawal', { rail: name });
    expect(Object.keys(RAIL_CODES).sort()).toEqual(Object.keys(RAILS).sort());
    expect([
      code('withdrawal', false, rail('sepa_ct')),
      code('withdrawal', false, rail('sepa_instant')),
      code('deposit', true, rail('sepa_ct')),
      code('withdrawal', false, rail('swift')),
      code('withdrawal', false, rail('ach_same_day')),
      code('withdrawal', false, rail('fednow')),
      code('deposit', true, origin('mf_teller_deposit')),
      code('withdrawal', false, origin('mf_teller_withdrawal')),
      code('deposit', true, origin('deposit')),
      code('withdrawal', false, origin('withdrawal')),
      code('transfer_out', false, origin('transfer')),
      code('transfer_in', true, origin('transfer')),
      code('transfer_out', false, origin('transfer', { interledger: true })),
      code('reversal', true, origin('reversal', { reverses: origin('withdrawal', { rail: 'sepa_ct' }) })),
      code('reversal', false, origin('reversal')),
      code('fee', false, origin('transfer')),
      code('fee', false, origin('x402_payment')),
      code('deposit', true, origin('mf_disbursement')),
      code('withdrawal', false, origin('mf_repayment')),
      code('transfer_out', false, origin('basket_buy')),
      code('transfer_out', false, origin('manual')),
      code('transfer_in', true, origin('manual')),
    ]).toEqual([
      'PMNT-ICDT-ESCT', 'PMNT-ICDT-ESCT', 'PMNT-RCDT-ESCT', 'PMNT-ICDT-XBCT', 'PMNT-ICDT-ACDT', 'PMNT-ICDT-DMCT',
      'PMNT-CNTR-CDPT', 'PMNT-CNTR-CWDL', 'PMNT-MCOP-OTHR', 'PMNT-MDOP-OTHR',
      'PMNT-ICDT-BOOK', 'PMNT-RCDT-BOOK', 'PMNT-ICDT-OTHR', 'PMNT-ICDT-RRTN', 'PMNT-RCDT-RRTN',
      'ACMT-MDOP-CHRG', 'ACMT-MDOP-CHRG', 'LDAS-CSLN-DDWN', 'LDAS-CSLN-PPAY', 'FORX-SPOT-OTHR', 'PMNT-MDOP-OTHR', 'PMNT-MCOP-OTHR',
    ]);
  });
});
