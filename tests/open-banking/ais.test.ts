/**
 * Berlin Group AIS reads (GET /v1/accounts… under BG_PREFIX, unwrapped bodies) against real PostgreSQL: a sandbox
 * TPP registered with its certificate, a customer with accounts and postings, and consents
 * inserted directly into ob_consents / ob_consent_accounts (the SCA flow has its own tests).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPool } from '../../domain/db/pool';
import { TPP_CERTIFICATE_HEADER } from '../../domain/open-banking/certificates';
import { issueSandboxCertificate } from '../../domain/open-banking/sandbox-ca';
import { registerTpp, type Tpp } from '../../domain/open-banking/tpps';
import type { Psd2Role } from '../../domain/open-banking/certificates';
import { newId } from '../../domain/platform/ids';
import { BG_PREFIX } from '../../api/operations/open-banking/schemas';
import { createTestApp, createTestUser, type TestApp } from '../helpers/app';

const BASE = BG_PREFIX;

let t: TestApp;
let tpp: Tpp;
let cert: string;
let otherTpp: Tpp;
let piOnlyCert: string;
/** The customer's accounts: main (funded, postings), second (funded), third (never in a consent), empty (no asset). */
const acct = { main: '', second: '', third: '', empty: '' };
let strangerAccount = '';

async function sandboxTpp(name: string, roles: Psd2Role[]) {
  const issued = await issueSandboxCertificate({ name, roles });
  const { tpp: registered } = await registerTpp(issued.certificate);
  return { tpp: registered, header: encodeURIComponent(issued.certificate) };
}

async function post(url: string, payload: object, headers = t.headers) {
  const r = await t.app.inject({ method: 'POST', url, headers, payload });
  if (r.statusCode >= 300) throw new Error(`${url}: ${r.statusCode} ${r.body}`);
  return r.json().data;
}

type Grant = { accounts?: boolean; balances?: boolean; transactions?: boolean };

/** A consent inserted as the SCA flow leaves it (valid, the customer known) unless told otherwise. */
async function consent(
  grants: Record<string, Grant>,
  opts: { status?: string; validUntil?: string; frequency?: number; tppId?: string; environment?: string; userId?: string } = {},
): Promise<string> {
  const id = newId('cns');
  await getPool().query(
    `INSERT INTO ob_consents (id, environment, tpp_id, user_id, access, recurring, valid_until, frequency_per_day, status, request_id, workflow_id)
     VALUES ($1, $2, $3, $4, '{}', true, $5, $6, $7, $8, $9)`,
    [id, opts.environment ?? 'sandbox', opts.tppId ?? tpp.id, opts.userId ?? t.user.userId, opts.validUntil ?? '2999-12-31', opts.frequency ?? 4, opts.status ?? 'valid', randomUUID(), `ob-consent-${id}`],
  );
  for (const [accountId, g] of Object.entries(grants)) {
    await getPool().query(
      'INSERT INTO ob_consent_accounts (consent_id, account_id, accounts, balances, transactions) VALUES ($1, $2, $3, $4, $5)',
      [id, accountId, g.accounts ?? true, g.balances ?? true, g.transactions ?? true],
    );
  }
  return id;
}

const FULL: Grant = { accounts: true, balances: true, transactions: true };

function headers(consentId: string | null, extra: Record<string, string> = {}) {
  return {
    'x-request-id': randomUUID(),
    [TPP_CERTIFICATE_HEADER]: cert,
    ...(consentId !== null ? { 'consent-id': consentId } : {}),
    ...extra,
  };
}

const get = (url: string, h: Record<string, string>) => t.app.inject({ method: 'GET', url: `${BASE}${url}`, headers: h });

const sortCounts = <T extends { endpoint: string; account_id: string }>(rows: T[]) =>
  [...rows].sort((a, b) => `${a.endpoint} ${a.account_id}`.localeCompare(`${b.endpoint} ${b.account_id}`));

async function counts(consentId: string) {
  const { rows } = await getPool().query<{ endpoint: string; account_id: string; count: number }>(
    'SELECT endpoint, account_id, count FROM ob_access_counts WHERE consent_id = $1',
    [consentId],
  );
  return sortCounts(rows);
}

function expectRefusal(r: { statusCode: number; json(): any }, status: number, code: string) {
  expect(r.statusCode, JSON.stringify(r.json())).toBe(status);
  expect(r.json().errors[0].code).toBe(code);
  expect(r.json().tppMessages[0]).toMatchObject({ category: 'ERROR', code });
}

async function ibanOf(accountId: string): Promise<string> {
  const { rows } = await getPool().query<{ iban: string }>('SELECT iban FROM account_ibans WHERE account_id = $1', [accountId]);
  return rows[0].iban;
}

beforeAll(async () => {
  t = await createTestApp();
  const ais = await sandboxTpp('AIS Test TPP', ['PSP_AI']);
  tpp = ais.tpp;
  cert = ais.header;
  otherTpp = (await sandboxTpp('Other TPP', ['PSP_AI'])).tpp;
  piOnlyCert = (await sandboxTpp('Payments Only TPP', ['PSP_PI'])).header;

  acct.main = (await post('/api/v2/accounts', { name: 'Everyday' })).uuid;
  acct.second = (await post('/api/v2/accounts', { name: 'Company', type: 'business' })).uuid;
  acct.third = (await post('/api/v2/accounts', { name: 'Not shared' })).uuid;
  acct.empty = (await post('/api/v2/accounts', { name: 'Empty', type: 'savings' })).uuid;
  await post(`/api/v2/accounts/${acct.main}/deposit`, { amount: '100.00', asset_code: 'USD' });
  await post(`/api/v2/accounts/${acct.main}/withdraw`, { amount: '30.00', asset_code: 'USD', reference: 'cash out' });
  await post(`/api/v2/accounts/${acct.second}/deposit`, { amount: '50.00', asset_code: 'USD' });
  await post(`/api/v2/accounts/${acct.second}/deposit`, { amount: '5.00', asset_code: 'EUR' });
  const stranger = await createTestUser();
  strangerAccount = (await post('/api/v2/accounts', { name: 'Stranger' }, stranger.headers)).uuid;
}, 120_000);

afterAll(async () => {
  await t?.close();
});

describe('account list and details', () => {
  it('lists only the consented accounts with account access, with links to only what the consent allows', async () => {
    const id = await consent({
      [acct.main]: FULL,
      [acct.second]: { accounts: true, balances: false, transactions: false },
      [acct.empty]: { accounts: false, balances: true, transactions: false },
    });
    const r = await get('/accounts', headers(id));
    expect(r.statusCode).toBe(200);
    const accounts = r.json().accounts as Array<Record<string, any>>;
    expect(accounts.map((a) => a.resourceId).sort()).toEqual([acct.main, acct.second].sort());
    const main = accounts.find((a) => a.resourceId === acct.main)!;
    expect(main).toEqual({
      resourceId: acct.main,
      iban: await ibanOf(acct.main),
      currency: 'USD',
      name: 'Everyday',
      product: 'personal',
      cashAccountType: 'CACC',
      status: 'enabled',
      usage: 'PRIV',
      _links: { balances: { href: `${BASE}/accounts/${acct.main}/balances` }, transactions: { href: `${BASE}/accounts/${acct.main}/transactions` } },
    });
    const second = accounts.find((a) => a.resourceId === acct.second)!;
    // Two assets: a multi-currency account names no currency; no balances or transactions consented: no links.
    expect(second.currency).toBeUndefined();
    expect(second.usage).toBe('ORGA');
    expect(second._links).toEqual({});
    expect(second.iban).toMatch(/^DE\d{2}00000000\d{10}$/);
  });

  it('withBalance adds balances only where the consent allows them', async () => {
    const id = await consent({ [acct.main]: FULL, [acct.second]: { accounts: true, balances: false, transactions: false } });
    const r = await get('/accounts?withBalance=true', headers(id));
    expect(r.statusCode).toBe(200);
    const byId = Object.fromEntries((r.json().accounts as Array<Record<string, any>>).map((a) => [a.resourceId, a]));
    expect(byId[acct.main].balances).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ balanceType: 'closingBooked', balanceAmount: { currency: 'USD', amount: '70.00' } }),
        expect.objectContaining({ balanceType: 'interimAvailable', balanceAmount: { currency: 'USD', amount: '70.00' } }),
      ]),
    );
    expect(byId[acct.second].balances).toBeUndefined();
    const one = await get(`/accounts/${acct.main}?withBalance=true`, headers(id));
    expect(one.statusCode).toBe(200);
    expect(one.json().account.resourceId).toBe(acct.main);
    expect(one.json().account.balances).toHaveLength(2);
  });

  it('a frozen account is blocked; details need account access', async () => {
    const id = await consent({ [acct.empty]: { accounts: false, balances: true, transactions: false }, [acct.third]: FULL });
    expectRefusal(await get(`/accounts/${acct.empty}`, headers(id)), 401, 'CONSENT_INVALID');
    await getPool().query(`UPDATE accounts SET status = 'frozen' WHERE id = $1`, [acct.third]);
    try {
      const r = await get(`/accounts/${acct.third}`, headers(id));
      expect(r.json().account.status).toBe('blocked');
    } finally {
      await getPool().query(`UPDATE accounts SET status = 'active' WHERE id = $1`, [acct.third]);
    }
  });
});

describe('balances and transactions', () => {
  it('balances: closingBooked (posted) and interimAvailable per asset held', async () => {
    const id = await consent({ [acct.second]: FULL });
    const r = await get(`/accounts/${acct.second}/balances`, headers(id));
    expect(r.statusCode).toBe(200);
    const body = r.json();
    expect(body.account).toEqual({ iban: await ibanOf(acct.second) });
    const today = new Date().toISOString().slice(0, 10);
    expect(body.balances).toEqual([
      { balanceType: 'closingBooked', balanceAmount: { currency: 'EUR', amount: '5.00' }, referenceDate: today },
      { balanceType: 'interimAvailable', balanceAmount: { currency: 'EUR', amount: '5.00' }, referenceDate: today },
      { balanceType: 'closingBooked', balanceAmount: { currency: 'USD', amount: '50.00' }, referenceDate: today },
      { balanceType: 'interimAvailable', balanceAmount: { currency: 'USD', amount: '50.00' }, referenceDate: today },
    ]);
  });

  it('balances and transactions each need their own access', async () => {
    const id = await consent({ [acct.main]: { accounts: true, balances: false, transactions: true }, [acct.second]: { accounts: true, balances: true, transactions: false } });
    const noBalances = await get(`/accounts/${acct.main}/balances`, headers(id));
    expectRefusal(noBalances, 401, 'CONSENT_INVALID');
    expect(noBalances.json().errors[0].detail).toMatch(/balances/);
    const noTransactions = await get(`/accounts/${acct.second}/transactions?bookingStatus=booked`, headers(id));
    expectRefusal(noTransactions, 401, 'CONSENT_INVALID');
    expect(noTransactions.json().errors[0].detail).toMatch(/transactions/);
    expect((await get(`/accounts/${acct.main}/transactions?bookingStatus=booked`, headers(id))).statusCode).toBe(200);
    expect((await get(`/accounts/${acct.second}/balances`, headers(id))).statusCode).toBe(200);
  });

  it('transactions: signed amounts, ISO bank transaction codes (a funding deposit or withdrawal is no counter cash: MCOP/MDOP-OTHR), the platform type, booking dates', async () => {
    const id = await consent({ [acct.main]: FULL });
    const r = await get(`/accounts/${acct.main}/transactions?bookingStatus=booked`, headers(id));
    expect(r.statusCode).toBe(200);
    const body = r.json();
    expect(body.account).toEqual({ iban: await ibanOf(acct.main) });
    expect(body.transactions.pending).toBeUndefined();
    const booked = body.transactions.booked as Array<Record<string, any>>;
    const today = new Date().toISOString().slice(0, 10);
    expect(booked).toHaveLength(2);
    // Newest first: the withdrawal, then the deposit.
    expect(booked[0]).toMatchObject({
      transactionAmount: { currency: 'USD', amount: '-30.00' },
      bankTransactionCode: 'PMNT-MDOP-OTHR',
      proprietaryBankTransactionCode: 'withdrawal',
      bookingDate: today,
      valueDate: today,
    });
    expect(booked[0].transactionId).toMatch(/^txn_/);
    expect(booked[1]).toMatchObject({ transactionAmount: { currency: 'USD', amount: '100.00' }, bankTransactionCode: 'PMNT-MCOP-OTHR', proprietaryBankTransactionCode: 'deposit' });
    expect(body.transactions._links.account).toEqual({ href: `${BASE}/accounts/${acct.main}` });
    expect(body.transactions._links.next).toBeUndefined();

    const both = (await get(`/accounts/${acct.main}/transactions?bookingStatus=both`, headers(id))).json().transactions;
    expect(both.booked).toHaveLength(2);
    expect(both.pending).toEqual([]);
    // Outside the dates: nothing.
    const old = (await get(`/accounts/${acct.main}/transactions?bookingStatus=booked&dateFrom=2020-01-01&dateTo=2020-12-31`, headers(id))).json();
    expect(old.transactions.booked).toEqual([]);
  });

  it('a transfer inside the platform is a book transfer (ICDT/RCDT-BOOK); its return is signed by the side it moves money on', async () => {
    const from = (await post('/api/v2/accounts', { name: 'Return from' })).uuid;
    const to = (await post('/api/v2/accounts', { name: 'Return to' })).uuid;
    await post(`/api/v2/accounts/${from}/deposit`, { amount: '20.00', asset_code: 'USD' });
    await post('/api/v2/transfers', { from_account: from, to_account: to, amount: '10.00', asset_code: 'USD', workflow_enabled: false });
    const incoming = (await t.app.inject({ method: 'GET', url: `/api/v2/accounts/${to}/transactions`, headers: t.headers })).json().data[0];
    await post('/api/transactions/reverse', { transaction_id: incoming.uuid, reason: 'not mine' });
    const id = await consent({ [from]: FULL, [to]: FULL });
    const lines = async (a: string) => (await get(`/accounts/${a}/transactions?bookingStatus=booked`, headers(id))).json().transactions.booked as Array<Record<string, any>>;
    const toLines = await lines(to);
    expect(toLines.map((l) => [l.proprietaryBankTransactionCode, l.transactionAmount.amount, l.bankTransactionCode])).toEqual([
      ['reversal', '-10.00', 'PMNT-RCDT-RRTN'],
      ['transfer_in', '10.00', 'PMNT-RCDT-BOOK'],
    ]);
    const fromLines = await lines(from);
    expect(fromLines[0]).toMatchObject({ proprietaryBankTransactionCode: 'reversal', bankTransactionCode: 'PMNT-ICDT-RRTN' });
    expect(fromLines[0].transactionAmount.amount).not.toMatch(/^-/);
    expect(fromLines.find((l) => l.proprietaryBankTransactionCode === 'transfer_out')).toMatchObject({ transactionAmount: { amount: '-10.00' }, bankTransactionCode: 'PMNT-ICDT-BOOK' });
  });

  it('pages by itemsPerPage with first/previous/next/last links', async () => {
    const id = await consent({ [acct.main]: FULL });
    const q = 'bookingStatus=booked&dateFrom=2024-01-01&itemsPerPage=1';
    const first = (await get(`/accounts/${acct.main}/transactions?${q}`, headers(id, { 'psu-ip-address': '192.0.2.1' }))).json().transactions;
    expect(first.booked).toHaveLength(1);
    expect(first.booked[0].proprietaryBankTransactionCode).toBe('withdrawal');
    expect(first._links.previous).toBeUndefined();
    const next = new URL(first._links.next.href, 'http://x');
    expect(next.pathname).toBe(`${BASE}/accounts/${acct.main}/transactions`);
    expect(next.searchParams.get('pageIndex')).toBe('1');
    expect(next.searchParams.get('bookingStatus')).toBe('booked');
    // The link is followed as it is.
    const page2 = (await t.app.inject({ method: 'GET', url: first._links.next.href, headers: headers(id, { 'psu-ip-address': '192.0.2.1' }) })).json().transactions;
    expect(page2.booked).toHaveLength(1);
    expect(page2.booked[0].proprietaryBankTransactionCode).toBe('deposit');
    expect(page2._links.next).toBeUndefined();
    expect(page2._links.previous.href).toBe(first._links.first.href);
    expect(page2._links.last.href).toBe(first._links.next.href);
  });

  it('a malformed report request is 400 FORMAT_ERROR and is not counted', async () => {
    const id = await consent({ [acct.main]: FULL });
    for (const q of ['', 'bookingStatus=information', 'bookingStatus=booked&dateFrom=2024-02-30', 'bookingStatus=booked&dateFrom=2025-02-01&dateTo=2025-01-01', 'bookingStatus=booked&itemsPerPage=501', 'bookingStatus=booked&pageIndex=-1']) {
      const r = await get(`/accounts/${acct.main}/transactions?${q}`, headers(id));
      expectRefusal(r, 400, 'FORMAT_ERROR');
    }
    expect(await counts(id)).toEqual([]);
  });
});

describe('refusals', () => {
  it('X-Request-ID missing or not a UUID: 400 FORMAT_ERROR; the request id is echoed', async () => {
    const id = await consent({ [acct.main]: FULL });
    const { 'x-request-id': _omit, ...without } = headers(id);
    expectRefusal(await get(`/accounts/${acct.main}/balances`, without), 400, 'FORMAT_ERROR');
    expectRefusal(await get(`/accounts/${acct.main}/balances`, { ...without, 'x-request-id': 'not-a-uuid' }), 400, 'FORMAT_ERROR');
    const h = headers(id);
    const ok = await get(`/accounts/${acct.main}/balances`, h);
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['x-request-id']).toBe(h['x-request-id']);
    const refused = await get(`/accounts/${acct.third}/balances`, h);
    expect(refused.statusCode).toBe(404);
    expect(refused.headers['x-request-id']).toBe(h['x-request-id']);
  });

  it('the certificate: missing 401 CERTIFICATE_MISSING; without PSP_AI 403 ROLE_INVALID', async () => {
    const id = await consent({ [acct.main]: FULL });
    const { [TPP_CERTIFICATE_HEADER]: _omit, ...noCert } = headers(id);
    expectRefusal(await get('/accounts', noCert), 401, 'CERTIFICATE_MISSING');
    expectRefusal(await get('/accounts', { ...noCert, [TPP_CERTIFICATE_HEADER]: piOnlyCert }), 403, 'ROLE_INVALID');
  });

  it('no Consent-ID: 400 FORMAT_ERROR', async () => {
    expectRefusal(await get('/accounts', headers(null)), 400, 'FORMAT_ERROR');
    expectRefusal(await get(`/accounts/${acct.main}/balances`, headers(null)), 400, 'FORMAT_ERROR');
  });

  it("unknown, another TPP's and another environment's consents: 403 CONSENT_UNKNOWN alike", async () => {
    const others = await consent({ [acct.main]: FULL }, { tppId: otherTpp.id });
    const production = await consent({ [acct.main]: FULL }, { environment: 'production' });
    for (const id of ['cns_does_not_exist', others, production]) {
      const r = await get(`/accounts/${acct.main}/balances`, headers(id));
      expectRefusal(r, 403, 'CONSENT_UNKNOWN');
      expect(r.json().errors[0].detail).not.toContain(id);
    }
  });

  it('consent status: received, rejected, revoked, terminated 401 CONSENT_INVALID; expired or past validUntil 401 CONSENT_EXPIRED', async () => {
    const cases: Array<[Parameters<typeof consent>[1], number, string]> = [
      [{ status: 'received' }, 401, 'CONSENT_INVALID'],
      [{ status: 'rejected' }, 401, 'CONSENT_INVALID'],
      [{ status: 'revokedByPsu' }, 401, 'CONSENT_INVALID'],
      [{ status: 'terminatedByTpp' }, 401, 'CONSENT_INVALID'],
      [{ status: 'expired' }, 401, 'CONSENT_EXPIRED'],
      [{ validUntil: new Date(Date.now() - 86_400_000).toISOString().slice(0, 10) }, 401, 'CONSENT_EXPIRED'],
    ];
    for (const [opts, status, code] of cases) {
      const id = await consent({ [acct.main]: FULL }, opts);
      expectRefusal(await get(`/accounts/${acct.main}/balances`, headers(id)), status, code);
      expect(await counts(id)).toEqual([]);
    }
    // validUntil is inclusive: the last day still reads.
    const lastDay = await consent({ [acct.main]: FULL }, { validUntil: new Date().toISOString().slice(0, 10) });
    expect((await get(`/accounts/${acct.main}/balances`, headers(lastDay))).statusCode).toBe(200);
  });

  it("an account outside the consent (the customer's own or a stranger's) is 404 RESOURCE_UNKNOWN, not counted", async () => {
    const id = await consent({ [acct.main]: FULL });
    for (const a of [acct.third, strangerAccount, 'acct_nope']) {
      for (const path of ['', '/balances', '/transactions?bookingStatus=booked']) {
        expectRefusal(await get(`/accounts/${a}${path}`, headers(id)), 404, 'RESOURCE_UNKNOWN');
      }
    }
    expect(await counts(id)).toEqual([]);
    // A consent row naming someone else's account (the SCA flow never writes one) reaches nothing of theirs.
    const crossed = await consent({ [acct.main]: FULL, [strangerAccount]: FULL });
    for (const path of ['', '/balances', '/transactions?bookingStatus=booked']) {
      expectRefusal(await get(`/accounts/${strangerAccount}${path}`, headers(crossed)), 404, 'RESOURCE_UNKNOWN');
    }
    const listed = (await get('/accounts', headers(crossed))).json().accounts as Array<{ resourceId: string }>;
    expect(listed.map((a) => a.resourceId)).toEqual([acct.main]);
  });

  it('a revocation ends access at the next read', async () => {
    const id = await consent({ [acct.main]: FULL });
    expect((await get(`/accounts/${acct.main}/balances`, headers(id))).statusCode).toBe(200);
    await getPool().query(`UPDATE ob_consents SET status = 'revokedByPsu' WHERE id = $1`, [id]);
    expectRefusal(await get(`/accounts/${acct.main}/balances`, headers(id)), 401, 'CONSENT_INVALID');
  });
});

describe('reads a day without the customer (frequencyPerDay)', () => {
  it('8 parallel reads with frequency 4: exactly 4 succeed, 4 are 429 ACCESS_EXCEEDED; with PSU-IP-Address not counted', async () => {
    const id = await consent({ [acct.main]: FULL, [acct.second]: FULL }, { frequency: 4 });
    const results = await Promise.all(Array.from({ length: 8 }, () => get(`/accounts/${acct.main}/balances`, headers(id))));
    const statuses = results.map((r) => r.statusCode).sort();
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429, 429, 429]);
    for (const r of results.filter((x) => x.statusCode === 429)) {
      expectRefusal(r, 429, 'ACCESS_EXCEEDED');
      const retry = Number(r.headers['retry-after']);
      expect(retry).toBeGreaterThan(0);
      expect(retry).toBeLessThanOrEqual(86_400);
    }
    expect(await counts(id)).toEqual([{ endpoint: 'balances', account_id: acct.main, count: 4 }]);

    // The customer present: read, and not counted.
    const present = await Promise.all(Array.from({ length: 3 }, () => get(`/accounts/${acct.main}/balances`, headers(id, { 'psu-ip-address': '192.0.2.10' }))));
    expect(present.map((r) => r.statusCode)).toEqual([200, 200, 200]);
    expectRefusal(await get(`/accounts/${acct.main}/balances`, headers(id)), 429, 'ACCESS_EXCEEDED');

    // Another endpoint on the same account, and the same endpoint on another account, have counts of their own.
    expect((await get(`/accounts/${acct.main}/transactions?bookingStatus=booked`, headers(id))).statusCode).toBe(200);
    expect((await get(`/accounts/${acct.second}/balances`, headers(id))).statusCode).toBe(200);
    expect((await get(`/accounts/${acct.main}`, headers(id))).statusCode).toBe(200);
    expect((await get('/accounts', headers(id))).statusCode).toBe(200);
    expect(await counts(id)).toEqual(sortCounts([
      { endpoint: 'account', account_id: acct.main, count: 1 },
      { endpoint: 'accounts', account_id: '', count: 1 },
      { endpoint: 'balances', account_id: acct.main, count: 4 },
      { endpoint: 'balances', account_id: acct.second, count: 1 },
      { endpoint: 'transactions', account_id: acct.main, count: 1 },
    ]));
  });

  it('counts per consent: another consent on the same account reads on', async () => {
    const a = await consent({ [acct.second]: FULL }, { frequency: 1 });
    const b = await consent({ [acct.second]: FULL }, { frequency: 1 });
    expect((await get(`/accounts/${acct.second}/balances`, headers(a))).statusCode).toBe(200);
    expectRefusal(await get(`/accounts/${acct.second}/balances`, headers(a)), 429, 'ACCESS_EXCEEDED');
    expect((await get(`/accounts/${acct.second}/balances`, headers(b))).statusCode).toBe(200);
  });
});
