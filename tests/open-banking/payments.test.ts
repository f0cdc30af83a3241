/**
 * Berlin Group payment initiation (POST /v1/payments/{payment-product} under BG_PREFIX) end to end: real PostgreSQL,
 * the real workflows on Temporal's time-skipping test server (SEPA cut-offs and the SCA deadline
 * pass in seconds), a sandbox TPP registered with its certificate, and a customer with an EUR
 * balance. Every SCA goes through the routes: the TPP starts an authorisation, the customer's login
 * session decides it on POST /sca/{id}.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPool } from '../../domain/db/pool';
import { TPP_CERTIFICATE_HEADER, type Psd2Role } from '../../domain/open-banking/certificates';
import { issueSandboxCertificate } from '../../domain/open-banking/sandbox-ca';
import { registerTpp } from '../../domain/open-banking/tpps';
import { BG_PREFIX } from '../../api/operations/open-banking/schemas';
import { generateMessage } from '../../iso20022/index';
import { makeIban } from '../../iso20022/iban';
import type { TestApp, TestUser } from '../helpers/app';
import { startRailsHarness, type RailsHarness } from '../rails/harness';
import { balance, openFundedAccount } from '../transfers/helpers';
import { refusalsOf, tenantCustomers, type Probe } from '../helpers/tenants';

/** The platform's open-banking routes (the customer's SCA decision, the enveloped POST /payments). */
const OB = '/api/v1/open-banking';
/** The Berlin Group routes: /v1/payments/{payment-product}… under BG_PREFIX, unwrapped bodies. */
const BASE = BG_PREFIX;
const CREDITOR_IBAN = makeIban('FR', '30006000011234567890189');

let h: RailsHarness;
let t: TestApp;
let tpp: Record<string, string>;
let otherTpp: Record<string, string>;
let aisOnlyTpp: Record<string, string>;
let account = '';
let iban = '';

async function sandboxTpp(name: string, roles: Psd2Role[]) {
  const issued = await issueSandboxCertificate({ name, roles });
  await registerTpp(issued.certificate);
  return { [TPP_CERTIFICATE_HEADER]: encodeURIComponent(issued.certificate) };
}

beforeAll(async () => {
  h = await startRailsHarness('ob-payments-test');
  t = h.t;
  tpp = await sandboxTpp('Payments TPP', ['PSP_PI']);
  otherTpp = await sandboxTpp('Other TPP', ['PSP_PI', 'PSP_AI']);
  aisOnlyTpp = await sandboxTpp('AIS only TPP', ['PSP_AI']);
  account = await openFundedAccount(t, t.headers, '1000.00', 'EUR');
  iban = (await getPool().query<{ iban: string }>('SELECT iban FROM account_ibans WHERE account_id = $1', [account])).rows[0].iban;
}, 120_000);

afterAll(async () => {
  await h?.close();
});

const headersOf = (who: Record<string, string>, requestId = randomUUID()) => ({ ...who, 'x-request-id': requestId });
const codeOf = (r: { json(): { errors?: { code: string }[] } }) => r.json().errors?.[0]?.code;

function body(extra: Record<string, unknown> = {}) {
  return {
    instructedAmount: { currency: 'EUR', amount: '100.00' },
    debtorAccount: { iban },
    creditorAccount: { iban: CREDITOR_IBAN },
    creditorName: 'Dupont et Fils SA',
    creditorAgent: 'BNPAFRPPXXX',
    remittanceInformationUnstructured: 'Invoice 42',
    ...extra,
  };
}

function initiate(product: string, payload: object | string, who = tpp, requestId = randomUUID()) {
  const xml = typeof payload === 'string';
  return t.app.inject({
    method: 'POST',
    url: `${BASE}/payments/${product}`,
    headers: { ...headersOf(who, requestId), ...(xml ? { 'content-type': 'application/xml' } : {}) },
    payload,
  });
}

const get = (url: string, who = tpp) => t.app.inject({ method: 'GET', url: `${BASE}${url}`, headers: headersOf(who) });

/** Runs the payment's workflow to its end on skipped time; the payment's row after it. */
async function finish(paymentId: string) {
  await h.env.client.workflow.getHandle(`ob-payment-${paymentId}`).result();
  return (await getPool().query('SELECT * FROM ob_payments WHERE id = $1', [paymentId])).rows[0];
}

async function sessionOf(user: TestUser): Promise<Record<string, string>> {
  const r = await t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: user.email, password: user.password } });
  return { authorization: `Bearer ${r.json().data.access_token}` };
}

/** The TPP starts an authorisation of the payment (REDIRECT); its response. */
async function startAuthorisation(paymentId: string) {
  const { rows } = await getPool().query<{ product: string }>('SELECT product FROM ob_payments WHERE id = $1', [paymentId]);
  return t.app.inject({ method: 'POST', url: `${BASE}/payments/${rows[0].product}/${paymentId}/authorisations`, headers: headersOf(tpp) });
}

/** The customer's session decides an authorisation on the platform's SCA route. */
async function decide(authorisationId: string, decision: 'approve' | 'deny', user: TestUser = t.user) {
  return t.app.inject({ method: 'POST', url: `${OB}/sca/${authorisationId}`, headers: await sessionOf(user), payload: { decision } });
}

/** The TPP starts an SCA and the customer decides it, as on the platform's page. */
async function authorise(paymentId: string, decision: 'approve' | 'deny' = 'approve', user: TestUser = t.user) {
  const started = await startAuthorisation(paymentId);
  expect(started.statusCode, started.body).toBe(201);
  const r = await decide(started.json().authorisationId, decision, user);
  expect(r.statusCode, r.body).toBe(200);
  return r.json().data as { sca_status: string; reason?: string };
}

async function waitForTransactionStatus(paymentId: string, status: string) {
  let seen = '';
  for (const deadline = Date.now() + 15_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 50))) {
    seen = (await getPool().query('SELECT transaction_status FROM ob_payments WHERE id = $1', [paymentId])).rows[0].transaction_status;
    if (seen === status) return;
  }
  expect(seen).toBe(status);
}


/** Journal entries of the rail payment that executed an open banking payment, with their lines' totals. */
async function entriesOf(railPaymentId: string) {
  const { rows } = await getPool().query<{ id: string; status: string; debits: string; credits: string; customer_debit: string | null }>(
    `SELECT e.id, e.status,
            sum(l.amount) FILTER (WHERE l.direction = 'debit')::text AS debits,
            sum(l.amount) FILTER (WHERE l.direction = 'credit')::text AS credits,
            sum(l.amount) FILTER (WHERE l.direction = 'debit' AND l.account_id = $2)::text AS customer_debit
       FROM journal_entries e JOIN ledger_lines l ON l.entry_id = e.id
      WHERE e.metadata->>'rail_payment_id' = $1 GROUP BY e.id, e.status`,
    [railPaymentId, account],
  );
  return rows;
}

describe('open banking payment initiation', () => {
  it('SEPA credit transfer (JSON): RCVD, SCA, ACTC, the rail settles it: ACSC with one balanced posted entry debiting the customer', async () => {
    const before = await balance(t, t.headers, account, 'EUR');
    const r = await initiate('sepa-credit-transfers', body({ endToEndIdentification: 'E2E-OB-1' }));
    expect(r.statusCode).toBe(201);
    const created = r.json();
    expect(created).toMatchObject({ transactionStatus: 'RCVD', paymentId: expect.stringMatching(/^obp_/) });
    const self = `${BASE}/payments/sepa-credit-transfers/${created.paymentId}`;
    expect(created._links.self.href).toMatch(new RegExp(`${self}$`));
    expect(created._links.status.href).toMatch(new RegExp(`${self}/status$`));
    expect(created._links.startAuthorisation.href).toMatch(new RegExp(`${self}/authorisations$`));

    // The TPP starts the SCA; the customer is redirected to the platform's page.
    const auth = await t.app.inject({ method: 'POST', url: `${self}/authorisations`, headers: headersOf(tpp) });
    expect(auth.statusCode).toBe(201);
    expect(auth.json()).toMatchObject({ scaStatus: 'received', scaApproach: 'REDIRECT', _links: { scaRedirect: { href: expect.any(String) } } });
    const authId = auth.json().authorisationId;
    expect((await get(`/payments/sepa-credit-transfers/${created.paymentId}/authorisations`)).json()).toEqual({ authorisationIds: [authId] });
    expect((await get(`/payments/sepa-credit-transfers/${created.paymentId}/authorisations/${authId}`)).json()).toEqual({ scaStatus: 'received' });

    // The customer signs in on the page (a password session; an API key may not decide) and approves.
    const login = await t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: t.user.email, password: t.user.password } });
    const decided = await t.app.inject({ method: 'POST', url: `${OB}/sca/${authId}`, headers: { authorization: `Bearer ${login.json().data.access_token}` }, payload: { decision: 'approve' } });
    expect(decided.json().data).toMatchObject({ sca_status: 'finalised' });
    expect((await get(`/payments/sepa-credit-transfers/${created.paymentId}/authorisations/${authId}`)).json()).toEqual({ scaStatus: 'finalised' });
    expect((await get(`/payments/sepa-credit-transfers/${created.paymentId}/status`)).json().transactionStatus).toMatch(/^(ACTC|ACSP)$/);
    // Deciding again is refused, a second authorisation cannot start; a payment no longer awaiting SCA cannot be cancelled.
    const again = await t.app.inject({ method: 'POST', url: `${OB}/sca/${authId}`, headers: { authorization: `Bearer ${login.json().data.access_token}` }, payload: { decision: 'deny' } });
    expect([again.statusCode, codeOf(again)]).toEqual([409, 'STATUS_INVALID']);
    const second = await startAuthorisation(created.paymentId);
    expect([second.statusCode, codeOf(second)]).toEqual([409, 'STATUS_INVALID']);
    const late = await t.app.inject({ method: 'DELETE', url: self, headers: headersOf(tpp) });
    expect(late.statusCode).toBe(405);
    expect(codeOf(late)).toBe('CANCELLATION_INVALID');

    // The rail reserves at once, then waits for the SEPA window: the TPP sees ACSP meanwhile.
    await waitForTransactionStatus(created.paymentId, 'ACSP');

    const row = await finish(created.paymentId);
    expect(row).toMatchObject({ transaction_status: 'ACSC', status_reason: null, account_id: account, user_id: t.user.userId, end_to_end_id: 'E2E-OB-1' });
    // Both workflows are found by their own PaymentId, with the platform's attributes.
    const attributes = async (workflowId: string) => {
      const sa = (await h.env.client.workflow.getHandle(workflowId).describe()).typedSearchAttributes;
      return (name: string, type = 'KEYWORD') => sa.get({ name, type } as never);
    };
    const ob = await attributes(`ob-payment-${created.paymentId}`);
    expect([ob('PaymentId'), ob('Rail'), ob('AssetCode'), ob('Amount'), ob('Environment'), ob('UserId'), ob('BusinessStatus')]).toEqual([
      created.paymentId, 'sepa_ct', 'EUR', '100.00', 'sandbox', t.user.userId, 'ACSC',
    ]);
    expect(ob('AccountIds', 'KEYWORD_LIST')).toEqual([account]);
    const railWf = await attributes(`rail-payment-${row.rail_payment_id}`);
    expect([railWf('PaymentId'), railWf('Rail'), railWf('UserId'), railWf('BusinessStatus')]).toEqual([row.rail_payment_id, 'sepa_ct', t.user.userId, 'completed']);
    const rail = (await getPool().query('SELECT status, rail, amount::text, memo, account_id FROM rail_payments WHERE id = $1', [row.rail_payment_id])).rows[0];
    expect(rail).toMatchObject({ status: 'completed', rail: 'sepa_ct', account_id: account, memo: 'Invoice 42' });
    expect(Number(rail.amount)).toBe(100);
    const entries = await entriesOf(row.rail_payment_id);
    expect(entries).toHaveLength(1);
    expect(entries[0].status).toBe('posted');
    expect(Number(entries[0].debits)).toBe(100);
    expect(entries[0].credits).toBe(entries[0].debits);
    expect(Number(entries[0].customer_debit)).toBe(100);
    expect(Number((await balance(t, t.headers, account, 'EUR')).total_balance)).toBe(Number(before.total_balance) - 100);

    const read = await get(`/payments/sepa-credit-transfers/${created.paymentId}`);
    expect(read.statusCode).toBe(200);
    expect(read.json()).toEqual({
      endToEndIdentification: 'E2E-OB-1',
      debtorAccount: { iban },
      instructedAmount: { currency: 'EUR', amount: '100.00' },
      creditorAccount: { iban: CREDITOR_IBAN },
      creditorAgent: 'BNPAFRPPXXX',
      creditorName: 'Dupont et Fils SA',
      remittanceInformationUnstructured: 'Invoice 42',
      transactionStatus: 'ACSC',
    });
    expect((await get(`/payments/sepa-credit-transfers/${created.paymentId}/status`)).json()).toEqual({ transactionStatus: 'ACSC' });
    expect((await get(`/payments/sepa-credit-transfers/${created.paymentId}/authorisations/${authId}`)).json()).toEqual({ scaStatus: 'finalised' });
  });

  it('instant SEPA from a pain.001 document goes through the same steps to ACSC', async () => {
    const xml = generateMessage({
      type: 'pain.001',
      debtor: { name: 'Customer', account: { iban } },
      transactions: [{ amount: '25.50', currency: 'EUR', end_to_end_id: 'E2E-XML-1', creditor: { name: 'Dupont et Fils SA', account: { iban: CREDITOR_IBAN }, agent: { bic: 'BNPAFRPPXXX' } }, remittance_information: 'Order 7' }],
    }).xml as string;
    const r = await initiate('instant-sepa-credit-transfers', xml);
    expect(r.statusCode).toBe(201);
    const id = r.json().paymentId;
    await authorise(id);
    const row = await finish(id);
    expect(row).toMatchObject({ transaction_status: 'ACSC', end_to_end_id: 'E2E-XML-1', remittance: 'Order 7', rail: 'sepa_instant' });
    expect(row.creditor).toMatchObject({ iban: CREDITOR_IBAN, name: 'Dupont et Fils SA', bic: 'BNPAFRPPXXX' });
    expect((await getPool().query('SELECT status, rail FROM rail_payments WHERE id = $1', [row.rail_payment_id])).rows[0]).toEqual({ status: 'completed', rail: 'sepa_instant' });
    expect(await entriesOf(row.rail_payment_id)).toEqual([expect.objectContaining({ status: 'posted', customer_debit: '25.500000000000000000' })]);
  });

  it('insufficient funds: the rail refuses to reserve, RJCT AM04, nothing posted, the balance unchanged', async () => {
    const before = await balance(t, t.headers, account, 'EUR');
    const r = await initiate('instant-sepa-credit-transfers', body({ instructedAmount: { currency: 'EUR', amount: '50000.00' } }));
    const id = r.json().paymentId;
    await authorise(id);
    const row = await finish(id);
    expect(row).toMatchObject({ transaction_status: 'RJCT', status_reason: 'AM04' });
    expect((await getPool().query('SELECT status, failure_code FROM rail_payments WHERE id = $1', [row.rail_payment_id])).rows[0]).toEqual({ status: 'failed', failure_code: 'INSUFFICIENT_FUNDS' });
    expect((await entriesOf(row.rail_payment_id)).filter((e) => e.status === 'posted')).toEqual([]);
    expect(await balance(t, t.headers, account, 'EUR')).toEqual(before);
    const status = (await get(`/payments/instant-sepa-credit-transfers/${id}/status`)).json();
    expect(status).toEqual({ transactionStatus: 'RJCT', tppMessages: [{ category: 'ERROR', code: 'PAYMENT_FAILED', text: 'AM04: Insufficient funds' }] });
  });

  it("the rail's own rejection code is passed on (pacs.002 RJCT AC04)", async () => {
    const id = (await initiate('instant-sepa-credit-transfers', body({ remittanceInformationUnstructured: 'REJECT:AC04' }))).json().paymentId;
    await authorise(id);
    expect(await finish(id)).toMatchObject({ transaction_status: 'RJCT', status_reason: 'AC04' });
  });

  it('SCA not completed in time: RJCT AB05, nothing created on the rails; authorising afterwards is refused', async () => {
    const id = (await initiate('sepa-credit-transfers', body())).json().paymentId;
    const auth = await t.app.inject({ method: 'POST', url: `${BASE}/payments/sepa-credit-transfers/${id}/authorisations`, headers: headersOf(tpp) });
    const row = await finish(id);
    expect(row).toMatchObject({ transaction_status: 'RJCT', status_reason: 'AB05', rail_payment_id: null });
    expect((await get(`/payments/sepa-credit-transfers/${id}/authorisations/${auth.json().authorisationId}`)).json()).toEqual({ scaStatus: 'failed' });
    const late = await decide(auth.json().authorisationId, 'approve');
    expect([late.statusCode, codeOf(late)]).toEqual([409, 'STATUS_INVALID']);
    const another = await startAuthorisation(id);
    expect([another.statusCode, codeOf(another)]).toEqual([409, 'STATUS_INVALID']);
    expect((await getPool().query('SELECT transaction_status FROM ob_payments WHERE id = $1', [id])).rows[0].transaction_status).toBe('RJCT');
  });

  it('an extra, late or concurrent authorisation never moves an authorised payment back: one ACTC, the others fail, the money leaves once', async () => {
    const before = await balance(t, t.headers, account, 'EUR');
    const id = (await initiate('instant-sepa-credit-transfers', body({ instructedAmount: { currency: 'EUR', amount: '10.00' } }))).json().paymentId;
    // Six authorisations started while the payment awaits SCA, decided by the customer at once.
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push((await startAuthorisation(id)).json().authorisationId);
    const session = await sessionOf(t.user);
    const decided = await Promise.all(
      ids.map((a, i) => t.app.inject({ method: 'POST', url: `${OB}/sca/${a}`, headers: session, payload: { decision: i % 2 === 0 ? 'approve' : 'deny' } })),
    );
    expect(decided.map((r) => r.statusCode)).toEqual(ids.map(() => 200));
    const statuses = decided.map((r) => r.json().data.sca_status);
    // Exactly one decision took effect (an approval or a denial, whichever locked the payment first).
    const row = await finish(id);
    if (row.transaction_status === 'ACSC') {
      expect(statuses.filter((s) => s === 'finalised')).toHaveLength(1);
      expect(Number((await balance(t, t.headers, account, 'EUR')).total_balance)).toBe(Number(before.total_balance) - 10);
    } else {
      expect(row).toMatchObject({ transaction_status: 'RJCT', status_reason: 'MS02', rail_payment_id: null });
      expect(statuses.every((s) => s === 'failed')).toBe(true);
      expect(await balance(t, t.headers, account, 'EUR')).toEqual(before);
    }
    const late = decided.filter((r) => /there is nothing to authorise/.test(r.json().data.reason ?? ''));
    expect(late).toHaveLength(5);

    // After the rail settled it: an authorisation cannot start, and a payment sent stays ACSC.
    const after = await startAuthorisation(id);
    expect([after.statusCode, codeOf(after)]).toEqual([409, 'STATUS_INVALID']);
  });

  it('approved, then a second authorisation denied: the payment stays authorised and completes (never RJCT after its money moved)', async () => {
    const before = await balance(t, t.headers, account, 'EUR');
    const id = (await initiate('instant-sepa-credit-transfers', body({ instructedAmount: { currency: 'EUR', amount: '10.00' } }))).json().paymentId;
    const first = (await startAuthorisation(id)).json().authorisationId;
    const second = (await startAuthorisation(id)).json().authorisationId;
    expect((await decide(first, 'approve')).json().data).toMatchObject({ sca_status: 'finalised' });
    const denied = (await decide(second, 'deny')).json().data;
    expect(denied).toMatchObject({ sca_status: 'failed', reason: expect.stringMatching(/^The payment is (ACTC|ACSP|ACSC): there is nothing to authorise$/) });
    expect(await finish(id)).toMatchObject({ transaction_status: 'ACSC' });
    expect((await get(`/payments/instant-sepa-credit-transfers/${id}/status`)).json().transactionStatus).toBe('ACSC');
    expect(Number((await balance(t, t.headers, account, 'EUR')).total_balance)).toBe(Number(before.total_balance) - 10);
  });

  it('the customer denies: RJCT MS02', async () => {
    const id = (await initiate('sepa-credit-transfers', body())).json().paymentId;
    expect(await authorise(id, 'deny')).toMatchObject({ sca_status: 'failed', reason: 'the customer denied the payment' });
    expect(await finish(id)).toMatchObject({ transaction_status: 'RJCT', status_reason: 'MS02', rail_payment_id: null });
  });

  it('cancelled before SCA: CANC (DS02), the workflow ends, cancelling again is the same, no new authorisation', async () => {
    const id = (await initiate('sepa-credit-transfers', body())).json().paymentId;
    const url = `${BASE}/payments/sepa-credit-transfers/${id}`;
    const del = await t.app.inject({ method: 'DELETE', url, headers: headersOf(tpp) });
    expect(del.statusCode).toBe(204);
    expect(await finish(id)).toMatchObject({ transaction_status: 'CANC', status_reason: 'DS02', rail_payment_id: null });
    expect((await t.app.inject({ method: 'DELETE', url, headers: headersOf(tpp) })).statusCode).toBe(204);
    const auth = await t.app.inject({ method: 'POST', url: `${url}/authorisations`, headers: headersOf(tpp) });
    expect(auth.statusCode).toBe(409);
    expect(codeOf(auth)).toBe('STATUS_INVALID');
    const { rows } = await getPool().query('SELECT count(*)::int AS n FROM ob_authorisations WHERE subject_id = $1', [id]);
    expect(rows[0].n).toBe(0);
  });

  it('a debtor IBAN that is no account here is accepted, then rejected at SCA (AC02); another customer cannot authorise', async () => {
    const unknown = makeIban('DE', '000000009999999999');
    const r = await initiate('sepa-credit-transfers', body({ debtorAccount: { iban: unknown } }));
    expect(r.statusCode).toBe(201);
    const id = r.json().paymentId;
    expect(await authorise(id)).toMatchObject({ sca_status: 'failed', reason: 'The debtor account of this payment is not an account of this customer' });
    expect(await finish(id)).toMatchObject({ transaction_status: 'RJCT', status_reason: 'AC02', account_id: null, user_id: null });

    // The authorisation of t.user's payment is t.user's from its start: another customer's session
    // neither approves nor denies it (404, as any resource of another customer), and the payment waits.
    const mine = (await initiate('sepa-credit-transfers', body())).json().paymentId;
    const { createTestUser } = await import('../helpers/app');
    const stranger = await createTestUser();
    const started = (await startAuthorisation(mine)).json().authorisationId;
    for (const decision of ['approve', 'deny'] as const) {
      const r = await decide(started, decision, stranger);
      expect([r.statusCode, codeOf(r)]).toEqual([404, 'NOT_FOUND']);
    }
    expect((await getPool().query('SELECT transaction_status FROM ob_payments WHERE id = $1', [mine])).rows[0].transaction_status).toBe('RCVD');
    expect((await get(`/payments/sepa-credit-transfers/${mine}/authorisations/${started}`)).json()).toEqual({ scaStatus: 'received' });
    await t.app.inject({ method: 'DELETE', url: `${BASE}/payments/sepa-credit-transfers/${mine}`, headers: headersOf(tpp) });
  });

  it('an X-Request-ID replay answers the same payment again (201, same body and Location) and creates nothing', async () => {
    const requestId = randomUUID();
    const first = await initiate('sepa-credit-transfers', body(), tpp, requestId);
    const again = await initiate('sepa-credit-transfers', body(), tpp, requestId);
    expect(first.statusCode).toBe(201);
    expect(first.headers.location).toMatch(new RegExp(`^https?://[^/]+${BASE}/payments/sepa-credit-transfers/${first.json().paymentId}$`));
    expect(first.headers['aspsp-sca-approach']).toBe('REDIRECT');
    expect([again.statusCode, again.headers.location]).toEqual([201, first.headers.location]);
    expect(again.json()).toEqual(first.json());
    // The platform's extension (product in the body, enveloped) with the same X-Request-ID is the same request too.
    const spec = await t.app.inject({ method: 'POST', url: `${OB}/payments`, headers: headersOf(tpp, requestId), payload: { paymentProduct: 'sepa-credit-transfers', ...body() } });
    expect(spec.json().data.paymentId).toBe(first.json().paymentId);
    expect((await getPool().query('SELECT count(*)::int AS n FROM ob_payments WHERE request_id = $1', [requestId])).rows[0].n).toBe(1);
    // Another TPP's X-Request-ID space is its own.
    const other = await initiate('sepa-credit-transfers', body(), otherTpp, requestId);
    expect(other.statusCode).toBe(201);
    expect(other.json().paymentId).not.toBe(first.json().paymentId);
    for (const [who, id] of [[tpp, first.json().paymentId], [otherTpp, other.json().paymentId]] as const) {
      await t.app.inject({ method: 'DELETE', url: `${BASE}/payments/sepa-credit-transfers/${id}`, headers: headersOf(who) });
    }
  });

  it("another TPP's payment is 404 RESOURCE_UNKNOWN on every route", async () => {
    const id = (await initiate('sepa-credit-transfers', body())).json().paymentId;
    const url = `${BASE}/payments/sepa-credit-transfers/${id}`;
    for (const [method, path] of [['GET', url], ['GET', `${url}/status`], ['DELETE', url], ['POST', `${url}/authorisations`], ['GET', `${url}/authorisations`]] as const) {
      const r = await t.app.inject({ method, url: path, headers: headersOf(otherTpp) });
      expect(r.statusCode, `${method} ${path}`).toBe(404);
      expect(codeOf(r)).toBe('RESOURCE_UNKNOWN');
      expect(r.body).not.toContain(iban);
    }
    // The right id under another product is unknown too.
    const wrongProduct = await get(`/payments/instant-sepa-credit-transfers/${id}`);
    expect(codeOf(wrongProduct)).toBe('RESOURCE_UNKNOWN');
    expect((await get(`/payments/sepa-credit-transfers/${id}/status`)).json().transactionStatus).toBe('RCVD');
    await t.app.inject({ method: 'DELETE', url, headers: headersOf(tpp) });
  });

  it('unknown product: 404 PRODUCT_UNKNOWN (initiation and reads); no PSP_PI role: 403 ROLE_INVALID', async () => {
    const r = await initiate('target-2-payments', body());
    expect(r.statusCode).toBe(404);
    expect(codeOf(r)).toBe('PRODUCT_UNKNOWN');
    expect(r.json().tppMessages?.[0]).toMatchObject({ category: 'ERROR', code: 'PRODUCT_UNKNOWN' });
    const spec = await t.app.inject({ method: 'POST', url: `${OB}/payments`, headers: headersOf(tpp), payload: { paymentProduct: 'pain.001-sepa-credit-transfers', ...body() } });
    expect(codeOf(spec)).toBe('PRODUCT_UNKNOWN');
    expect(codeOf(await get('/payments/target-2-payments/obp_x/status'))).toBe('PRODUCT_UNKNOWN');

    const role = await initiate('sepa-credit-transfers', body(), aisOnlyTpp);
    expect(role.statusCode).toBe(403);
    expect(codeOf(role)).toBe('ROLE_INVALID');
    const noCert = await t.app.inject({ method: 'POST', url: `${BASE}/payments/sepa-credit-transfers`, headers: { 'x-request-id': randomUUID() }, payload: body() });
    expect(noCert.statusCode).toBe(401);
    expect(codeOf(noCert)).toBe('CERTIFICATE_MISSING');
    expect((await getPool().query('SELECT count(*)::int AS n FROM ob_payments WHERE tpp_id IN (SELECT id FROM ob_tpps WHERE name = $1)', ['AIS only TPP'])).rows[0].n).toBe(0);
  });

  it('refuses bodies the product cannot take: 400 FORMAT_ERROR / PAYMENT_FAILED with the field', async () => {
    const cases: Array<[string, object | string, string, string | undefined]> = [
      ['sepa-credit-transfers', body({ instructedAmount: { currency: 'EUR', amount: '10.005' } }), 'FORMAT_ERROR', '/instructedAmount/amount'],
      ['sepa-credit-transfers', body({ instructedAmount: { currency: 'EUR', amount: '1e3' } }), 'FORMAT_ERROR', '/instructedAmount/amount'],
      ['sepa-credit-transfers', body({ instructedAmount: { currency: 'USD', amount: '10.00' } }), 'FORMAT_ERROR', '/instructedAmount/currency'],
      ['sepa-credit-transfers', body({ creditorAccount: { iban: 'FR7630006000011234567890188' } }), 'FORMAT_ERROR', '/creditorAccount/iban'],
      ['sepa-credit-transfers', body({ creditorAgent: 'NOTABIC' }), 'FORMAT_ERROR', '/creditorAgent'],
      // A creditor outside SEPA: the SEPA rail cannot reach it.
      ['sepa-credit-transfers', body({ creditorAccount: { iban: makeIban('BR', '00360305000010009795493P1') } }), 'PAYMENT_FAILED', undefined],
      ['cross-border-credit-transfers', '<Document/>', 'FORMAT_ERROR', undefined],
      ['sepa-credit-transfers', '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e "e">]><Document/>', 'FORMAT_ERROR', undefined],
    ];
    for (const [product, payload, code, pointer] of cases) {
      const r = await initiate(product, payload);
      expect(r.statusCode, JSON.stringify(payload).slice(0, 120)).toBe(400);
      expect(r.json().errors[0]).toMatchObject({ code, ...(pointer ? { source: { pointer } } : {}) });
    }
    // Two transfers in one pain.001: one payment initiation is one transfer.
    const two = generateMessage({
      type: 'pain.001',
      debtor: { name: 'Customer', account: { iban } },
      transactions: [1, 2].map((n) => ({ amount: `${n}.00`, currency: 'EUR', creditor: { name: 'C', account: { iban: CREDITOR_IBAN } } })),
    }).xml as string;
    const r = await initiate('sepa-credit-transfers', two);
    expect(r.statusCode).toBe(400);
    expect(r.json().errors[0].detail).toMatch(/exactly one credit transfer/);
    // Cross-border takes other currencies the SWIFT rail carries.
    const gbp = await initiate('cross-border-credit-transfers', body({ instructedAmount: { currency: 'GBP', amount: '10.00' }, creditorAccount: { iban: makeIban('GB', 'NWBK60161331926819') } }));
    expect(gbp.statusCode).toBe(201);
    await t.app.inject({ method: 'DELETE', url: `${BASE}/payments/cross-border-credit-transfers/${gbp.json().paymentId}`, headers: headersOf(tpp) });
    expect((await getPool().query("SELECT count(*)::int AS n FROM ob_payments WHERE currency = 'USD'")).rows[0].n).toBe(0);
  });
});

describe('tenant isolation (issue 41)', () => {
  it("A's payment and its authorisation: other customers of the tenant and of another tenant cannot decide it (404), another TPP finds neither (404 RESOURCE_UNKNOWN); nothing changes", async () => {
    const { a, b, c } = await tenantCustomers(t.user.userId);
    const acct = await openFundedAccount(t, a.headers, '300.00', 'EUR');
    const debtor = (await getPool().query<{ iban: string }>('SELECT iban FROM account_ibans WHERE account_id = $1', [acct])).rows[0].iban;
    const id = (await initiate('sepa-credit-transfers', body({ debtorAccount: { iban: debtor } }))).json().paymentId as string;
    const auth = (await startAuthorisation(id)).json().authorisationId as string;
    const theirs = (await initiate('sepa-credit-transfers', body(), otherTpp)).json().paymentId as string;
    const snapshot = async () => ({
      payment: (await getPool().query('SELECT transaction_status, user_id, updated_at FROM ob_payments WHERE id = $1', [id])).rows,
      authorisation: (await getPool().query('SELECT sca_status, user_id FROM ob_authorisations WHERE id = $1', [auth])).rows,
      balance: await balance(t, a.headers, acct, 'EUR'),
    });
    const before = await snapshot();
    const secrets = [id, auth, acct, debtor, a.userId];
    const wrong: string[] = [];
    for (const [who, u] of [['B (same tenant)', b], ['C (other tenant)', c]] as const) {
      const session = await sessionOf(u);
      const probes: Probe[] = (['approve', 'deny'] as const).map((decision) => ({ method: 'POST', url: `${OB}/sca/${auth}`, payload: { decision }, headers: session }));
      wrong.push(...(await refusalsOf(t.app, probes, [[who, {}]], { status: 404, code: 'NOT_FOUND' }, secrets)));
    }
    const url = `${BASE}/payments/sepa-credit-transfers/${id}`;
    const tppProbes: Probe[] = [
      { method: 'GET', url },
      { method: 'GET', url: `${url}/status` },
      { method: 'GET', url: `${url}/authorisations` },
      { method: 'GET', url: `${url}/authorisations/${auth}` },
      { method: 'POST', url: `${url}/authorisations` },
      { method: 'DELETE', url },
      // Its own payment naming A's authorisation.
      { method: 'GET', url: `${BASE}/payments/sepa-credit-transfers/${theirs}/authorisations/${auth}` },
    ];
    for (const p of tppProbes) p.headers = { 'x-request-id': randomUUID() };
    wrong.push(...(await refusalsOf(t.app, tppProbes, [['another TPP', otherTpp]], { status: 404, code: 'RESOURCE_UNKNOWN' }, secrets)));
    expect(wrong).toEqual([]);
    expect(await snapshot()).toEqual(before);
    for (const [who, pid] of [[tpp, id], [otherTpp, theirs]] as const) {
      await t.app.inject({ method: 'DELETE', url: `${BASE}/payments/sepa-credit-transfers/${pid}`, headers: headersOf(who) });
    }
  });
});
