import Decimal from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPool } from '../../domain/db/pool';
import { exchangeQuote } from '../../domain/microfinance/teller';
import { createTestApp, createTestUser, type TestApp, type TestUser } from '../helpers/app';
import { refusalsOf, tenantCustomers, type Probe } from '../helpers/tenants';

/**
 * Teller cash (docs/microfinance-teller.md): vault funding, cashier sessions with floats, counter
 * deposits, withdrawals and exchanges (rounding by hand), concurrency on the till and the
 * customer's balance, branch isolation and the supervisor's approval of a variance.
 */

const MF = '/api/v1/microfinance';
let t: TestApp;
let operator: TestUser;
let teller: TestUser;
let supervisor: TestUser;
let teller2: TestUser;
let customer: TestUser;
let office: string;
let office2: string;
let session: string;
let session2: string;
let account: string;
let n = 0;

const call = (headers: Record<string, string>, method: 'GET' | 'POST', url: string, payload?: unknown, key?: string) =>
  t.app.inject({ method, url, headers: { ...headers, ...(key ? { 'idempotency-key': key } : {}) }, ...(payload !== undefined ? { payload: payload as object } : {}) });

async function ok(headers: Record<string, string>, method: 'GET' | 'POST', url: string, payload?: unknown): Promise<any> {
  const r = await call(headers, method, url, payload);
  if (r.statusCode >= 300) throw new Error(`${method} ${url}: ${r.statusCode} ${r.body}`);
  return r.json().data;
}

async function ledgerBalance(code: string, asset: string): Promise<string> {
  const { rows } = await getPool().query<{ b: string }>(
    `SELECT round(la.debits_posted - la.credits_posted, a.precision)::text AS b FROM ledger_accounts la JOIN assets a ON a.code = la.asset_code
     WHERE la.environment = 'sandbox' AND la.code = $1 AND la.asset_code = $2`,
    [code, asset],
  );
  return rows[0]?.b ?? 'none';
}

async function customerBalance(accountId: string, asset = 'USD'): Promise<string> {
  const { rows } = await getPool().query<{ b: string }>(
    `SELECT round(la.credits_posted - la.debits_posted, a.precision)::text AS b FROM ledger_accounts la JOIN assets a ON a.code = la.asset_code
     WHERE la.account_id = $1 AND la.asset_code = $2`,
    [accountId, asset],
  );
  return rows[0]?.b ?? '0';
}

async function newCustomerAccount(balance?: string): Promise<string> {
  const id = (await ok(customer.headers, 'POST', '/api/v2/accounts', { name: `counter ${++n}` })).uuid as string;
  if (balance) await ok(customer.headers, 'POST', `/api/v2/accounts/${id}/deposit`, { amount: balance, asset_code: 'USD' });
  return id;
}

const txn = (headers: Record<string, string>, body: Record<string, unknown>, key?: string) => call(headers, 'POST', `${MF}/teller/transactions`, body, key);
const errorCode = (r: { json(): any }) => r.json().errors?.[0]?.code;

beforeAll(async () => {
  t = await createTestApp();
  operator = await createTestUser({ admin: true });
  teller = await createTestUser();
  supervisor = await createTestUser();
  teller2 = await createTestUser();
  customer = t.user;
  office = (await ok(operator.headers, 'POST', `${MF}/offices`, { name: 'Kisumu branch' })).id;
  office2 = (await ok(operator.headers, 'POST', `${MF}/offices`, { name: 'Nakuru branch', fx_spread: '0' })).id;
  await ok(operator.headers, 'POST', `${MF}/offices/${office}/tellers`, { user_id: teller.userId });
  await ok(operator.headers, 'POST', `${MF}/offices/${office}/tellers`, { user_id: supervisor.userId, role: 'supervisor' });
  await ok(operator.headers, 'POST', `${MF}/offices/${office2}/tellers`, { user_id: teller2.userId });
  account = await newCustomerAccount();
}, 120_000);

afterAll(async () => {
  await t?.close();
});

describe('offices and vaults', () => {
  it('only operators create offices; a teller serves one office', async () => {
    const r = await call(teller.headers, 'POST', `${MF}/offices`, { name: 'x' });
    expect(r.statusCode).toBe(403);
    const again = await call(operator.headers, 'POST', `${MF}/offices/${office2}/tellers`, { user_id: teller.userId });
    expect(again.statusCode).toBe(409);
    expect(errorCode(again)).toBe('TELLER_ALREADY_ASSIGNED');
  });

  it('funding a vault posts Dr vault / Cr funding, idempotently', async () => {
    const body = { currency: 'USD', amount: '10000.00' };
    const a = await call(operator.headers, 'POST', `${MF}/offices/${office}/vault/funding`, body, 'fund-usd-1');
    const b = await call(operator.headers, 'POST', `${MF}/offices/${office}/vault/funding`, body, 'fund-usd-1');
    expect(a.statusCode).toBe(201);
    expect(b.json().data.entry_id).toBe(a.json().data.entry_id);
    await ok(operator.headers, 'POST', `${MF}/offices/${office}/vault/funding`, { currency: 'JPY', amount: '1000000' });
    await ok(operator.headers, 'POST', `${MF}/offices/${office2}/vault/funding`, { currency: 'USD', amount: '500.00' });
    expect(await ledgerBalance(`mf:vault:${office}`, 'USD')).toBe('10000.00');
    expect(await ledgerBalance(`mf:vault:${office}`, 'JPY')).toBe('1000000');
    const { rows } = await getPool().query(`SELECT l.direction, la.code FROM ledger_lines l JOIN ledger_accounts la ON la.id = l.ledger_account_id WHERE l.entry_id = $1 ORDER BY l.direction`, [
      a.json().data.entry_id,
    ]);
    expect(rows.map((x) => `${x.direction} ${x.code}`)).toEqual([`credit ${rows[0].code}`, `debit mf:vault:${office}`]);
    expect(rows[0].code).toMatch(/^funding:/);
    // Staff see their offices; others none.
    const mine = await ok(teller.headers, 'GET', `${MF}/offices`);
    expect(mine.map((o: any) => o.id)).toEqual([office]);
    expect(mine[0].vaults.find((v: any) => v.currency === 'USD').balance).toBe('10000.00');
    expect(await ok(customer.headers, 'GET', `${MF}/offices`)).toEqual([]);
  });
});

describe('cashier sessions and counter transactions', () => {
  it('opens a session: the float moves from the vault to the till in one balanced entry', async () => {
    const r = await call(teller.headers, 'POST', `${MF}/teller/sessions`, { office_id: office, allocations: [{ currency: 'USD', amount: '1000.00' }, { currency: 'JPY', amount: '100000' }] });
    expect(r.statusCode).toBe(201);
    const s = r.json().data;
    session = s.id;
    expect(s.status).toBe('open');
    expect(s.tills.map((x: any) => [x.currency, x.allocated, x.balance])).toEqual([
      ['JPY', '100000', '100000'],
      ['USD', '1000.00', '1000.00'],
    ]);
    expect(await ledgerBalance(`mf:vault:${office}`, 'USD')).toBe('9000.00');
    expect(await ledgerBalance(`mf:vault:${office}`, 'JPY')).toBe('900000');
    const { rows } = await getPool().query<{ asset_code: string; net: string }>(
      `SELECT asset_code, sum(CASE direction WHEN 'debit' THEN amount ELSE -amount END)::text AS net FROM ledger_lines WHERE entry_id = $1 GROUP BY asset_code`,
      [s.open_entry_id],
    );
    expect(rows.every((x) => Number(x.net) === 0)).toBe(true);
    expect(rows).toHaveLength(2);
    // One session per teller; a vault short of cash refuses the float.
    const again = await call(teller.headers, 'POST', `${MF}/teller/sessions`, { office_id: office, allocations: [{ currency: 'USD', amount: '1.00' }] });
    expect(again.statusCode).toBe(409);
    expect(errorCode(again)).toBe('TELLER_SESSION_ALREADY_OPEN');
    const short = await call(teller2.headers, 'POST', `${MF}/teller/sessions`, { office_id: office2, allocations: [{ currency: 'USD', amount: '500.01' }] });
    expect(short.statusCode).toBe(422);
    expect(errorCode(short)).toBe('VAULT_INSUFFICIENT_CASH');
  });

  it('a teller of another office cannot open a session there nor use or see its sessions', async () => {
    // Another office is not theirs to see (GET /offices does not list it): 404, as for an office that does not exist.
    const open = await call(teller2.headers, 'POST', `${MF}/teller/sessions`, { office_id: office, allocations: [{ currency: 'USD', amount: '1.00' }] });
    expect([open.statusCode, errorCode(open)]).toEqual([404, 'OFFICE_NOT_FOUND']);
    // Staff of the office who are no teller there: 403.
    const notTeller = await call(supervisor.headers, 'POST', `${MF}/teller/sessions`, { office_id: office, allocations: [{ currency: 'USD', amount: '1.00' }] });
    expect([notTeller.statusCode, errorCode(notTeller)]).toEqual([403, 'TELLER_NOT_IN_OFFICE']);
    session2 = (await ok(teller2.headers, 'POST', `${MF}/teller/sessions`, { office_id: office2, allocations: [{ currency: 'USD', amount: '500.00' }] })).id;
    const use = await txn(teller2.headers, { session_id: session, type: 'cash_deposit', account_id: account, amount: '1.00', currency: 'USD' });
    expect(use.statusCode).toBe(404);
    expect((await call(teller2.headers, 'GET', `${MF}/teller/sessions/${session}`)).statusCode).toBe(404);
    expect((await call(teller2.headers, 'GET', `${MF}/teller/transactions?session_id=${session}`)).statusCode).toBe(404);
    // A supervisor of the office sees it.
    expect((await call(supervisor.headers, 'GET', `${MF}/teller/sessions/${session}`)).statusCode).toBe(200);
  });

  it('no open session: refused', async () => {
    const none = await txn(teller.headers, { session_id: 'tses_missing', type: 'cash_deposit', account_id: account, amount: '1.00', currency: 'USD' });
    expect(none.statusCode).toBe(404);
    expect(errorCode(none)).toBe('TELLER_SESSION_NOT_FOUND');
    // The supervisor has no session of their own: using the teller's is a 404 too.
    const other = await txn(supervisor.headers, { session_id: session, type: 'cash_deposit', account_id: account, amount: '1.00', currency: 'USD' });
    expect(other.statusCode).toBe(404);
  });

  it('cash deposit: Dr till / Cr customer; idempotent', async () => {
    const body = { session_id: session, type: 'cash_deposit', account_id: account, amount: '200.00', currency: 'USD' };
    const a = await txn(teller.headers, body, 'dep-1');
    expect(a.statusCode).toBe(201);
    const b = await txn(teller.headers, body, 'dep-1');
    expect(b.json().data.id).toBe(a.json().data.id);
    expect(await customerBalance(account)).toBe('200.00');
    expect(await ledgerBalance(`mf:till:${session}`, 'USD')).toBe('1200.00');
    const { rows } = await getPool().query(`SELECT txn_type FROM ledger_lines WHERE entry_id = $1 AND account_id = $2`, [a.json().data.entry_id, account]);
    expect(rows[0].txn_type).toBe('deposit');
  });

  it('cash withdrawal: Dr customer / Cr till, refused beyond the balance and beyond the till', async () => {
    const w = await txn(teller.headers, { session_id: session, type: 'cash_withdrawal', account_id: account, amount: '50.00', currency: 'USD' });
    expect(w.statusCode).toBe(201);
    expect(await customerBalance(account)).toBe('150.00');
    expect(await ledgerBalance(`mf:till:${session}`, 'USD')).toBe('1150.00');
    const beyondBalance = await txn(teller.headers, { session_id: session, type: 'cash_withdrawal', account_id: account, amount: '150.01', currency: 'USD' });
    expect(beyondBalance.statusCode).toBe(422);
    expect(errorCode(beyondBalance)).toBe('INSUFFICIENT_FUNDS');
    const rich = await newCustomerAccount('5000.00');
    const beyondTill = await txn(teller.headers, { session_id: session, type: 'cash_withdrawal', account_id: rich, amount: '1150.01', currency: 'USD' });
    expect(beyondTill.statusCode).toBe(422);
    expect(errorCode(beyondTill)).toBe('TILL_INSUFFICIENT_CASH');
    expect(await customerBalance(rich)).toBe('5000.00');
    expect(await ledgerBalance(`mf:till:${session}`, 'USD')).toBe('1150.00');
  });

  it('parallel withdrawals: exactly the affordable ones pass (customer balance, then till cash)', async () => {
    const poor = await newCustomerAccount('500.00');
    const byBalance = await Promise.all(
      Array.from({ length: 10 }, () => txn(teller.headers, { session_id: session, type: 'cash_withdrawal', account_id: poor, amount: '100.00', currency: 'USD' })),
    );
    expect(byBalance.filter((r) => r.statusCode === 201)).toHaveLength(5);
    expect(byBalance.filter((r) => r.statusCode === 422 && errorCode(r) === 'INSUFFICIENT_FUNDS')).toHaveLength(5);
    expect(await customerBalance(poor)).toBe('0.00');
    expect(await ledgerBalance(`mf:till:${session}`, 'USD')).toBe('650.00');
    // The till holds 650.00: of 10 withdrawals of 100.00 by a rich customer, 6 pass.
    const rich = await newCustomerAccount('5000.00');
    const byTill = await Promise.all(
      Array.from({ length: 10 }, () => txn(teller.headers, { session_id: session, type: 'cash_withdrawal', account_id: rich, amount: '100.00', currency: 'USD' })),
    );
    expect(byTill.filter((r) => r.statusCode === 201)).toHaveLength(6);
    expect(byTill.filter((r) => r.statusCode === 422 && errorCode(r) === 'TILL_INSUFFICIENT_CASH')).toHaveLength(4);
    expect(await customerBalance(rich)).toBe('4400.00');
    expect(await ledgerBalance(`mf:till:${session}`, 'USD')).toBe('50.00');
    // Top the till up for what follows.
    await ok(teller.headers, 'POST', `${MF}/teller/transactions`, { session_id: session, type: 'cash_deposit', account_id: rich, amount: '950.00', currency: 'USD' });
    expect(await ledgerBalance(`mf:till:${session}`, 'USD')).toBe('1000.00');
  });

  it('exchange rounding (hand-computed): what the desk pays out rounds down, never above the rate', () => {
    // USD 1, JPY 0.0067: mid 1/0.0067 = 149.253731343283582... -> 149.253731343284 (12 dp);
    // less 1 %: 147.761194029851 (12 dp); 100.00 USD x that = 14776.1194029851 -> 14776 JPY.
    expect(exchangeQuote({ amount: '100.00', fromUsdPrice: '1', toUsdPrice: '0.0067', spread: '0.01', toPrecision: 0 })).toEqual({
      midRate: '149.253731343284',
      appliedRate: '147.761194029851',
      toAmount: '14776',
    });
    // 150 JPY x 0.0067 = 1.005 -> 1.00; 450 JPY = 3.015 -> 3.01 (half-even paid 3.02: more than the rate).
    expect(exchangeQuote({ amount: '150', fromUsdPrice: '0.0067', toUsdPrice: '1', spread: '0', toPrecision: 2 }).toAmount).toBe('1.00');
    expect(exchangeQuote({ amount: '450', fromUsdPrice: '0.0067', toUsdPrice: '1', spread: '0', toPrecision: 2 }).toAmount).toBe('3.01');
    // 10.00 USD: 1477.61194029851 -> 1477 JPY (half-even paid 1478).
    expect(exchangeQuote({ amount: '10.00', fromUsdPrice: '1', toUsdPrice: '0.0067', spread: '0.01', toPrecision: 0 }).toAmount).toBe('1477');
    // 1 JPY at a 1 % spread is worth 0.006633 USD: nothing to pay (half-even paid 0.01, 1.5 x the mid
    // value; ten such exchanges drained 0.033 USD from the desk). The counter refuses a zero payout.
    expect(exchangeQuote({ amount: '1', fromUsdPrice: '0.0067', toUsdPrice: '1', spread: '0.01', toPrecision: 2 }).toAmount).toBe('0.00');
    // Whatever the amount, the payout is never worth more than the amount at the applied rate.
    for (const amount of ['1', '2', '3', '7', '149', '151', '299', '1001']) {
      const q = exchangeQuote({ amount, fromUsdPrice: '0.0067', toUsdPrice: '1', spread: '0.01', toPrecision: 2 });
      expect(new Decimal(q.toAmount).lte(new Decimal(amount).times(q.appliedRate)), amount).toBe(true);
    }
  });

  it('currency exchange: both legs through the FX position, each currency balanced, rate stored', async () => {
    const r = await txn(teller.headers, { session_id: session, type: 'currency_exchange', amount: '100.00', currency: 'USD', to_currency: 'JPY' });
    expect(r.statusCode).toBe(201);
    const x = r.json().data;
    expect(x).toMatchObject({ currency: 'USD', amount: '100.00', to_currency: 'JPY', to_amount: '14776', mid_rate: '149.253731343284', applied_rate: '147.761194029851', spread: '0.01', account_id: null });
    expect(await ledgerBalance(`mf:till:${session}`, 'USD')).toBe('1100.00');
    expect(await ledgerBalance(`mf:till:${session}`, 'JPY')).toBe('85224');
    expect(await ledgerBalance('mf:fx_position', 'USD')).toBe('-100.00');
    expect(await ledgerBalance('mf:fx_position', 'JPY')).toBe('14776');
    // Office 2 takes no spread: 150 JPY -> 1.00 USD (1.005 rounded down). Its till has no JPY: the yen come in.
    const h = await txn(teller2.headers, { session_id: session2, type: 'currency_exchange', amount: '150', currency: 'JPY', to_currency: 'USD' });
    expect(h.statusCode).toBe(201);
    expect(h.json().data.to_amount).toBe('1.00');
    expect(await ledgerBalance(`mf:till:${session2}`, 'JPY')).toBe('150');
    expect(await ledgerBalance(`mf:till:${session2}`, 'USD')).toBe('499.00');
    // Paying out more yen than the till holds is refused.
    const big = await txn(teller.headers, { session_id: session, type: 'currency_exchange', amount: '600.00', currency: 'USD', to_currency: 'JPY' });
    expect(big.statusCode).toBe(422);
    expect(errorCode(big)).toBe('TILL_INSUFFICIENT_CASH');
    const list = await ok(supervisor.headers, 'GET', `${MF}/teller/transactions?session_id=${session}`);
    expect(list[0].type).toBe('currency_exchange');
  });

  it('an exchange worth less than the smallest unit is refused, and nothing moves', async () => {
    const before = await ledgerBalance(`mf:till:${session}`, 'JPY');
    const r = await txn(teller.headers, { session_id: session, type: 'currency_exchange', amount: '1', currency: 'JPY', to_currency: 'USD' });
    expect(r.statusCode, r.body).toBe(422);
    expect(errorCode(r)).toBe('AMOUNT_TOO_SMALL');
    expect(await ledgerBalance(`mf:till:${session}`, 'JPY')).toBe(before);
  });

  it('close short -> variance pending -> the teller cannot approve, the supervisor does -> posted', async () => {
    // Expected: USD 1100.00, JPY 85224. Counted 10.00 USD short.
    const closed = await ok(teller.headers, 'POST', `${MF}/teller/sessions/${session}/close`, {
      counted: [
        { currency: 'USD', amount: '1090.00' },
        { currency: 'JPY', amount: '85224' },
      ],
    });
    expect(closed.status).toBe('variance_pending');
    const usd = closed.tills.find((x: any) => x.currency === 'USD');
    expect(usd).toMatchObject({ expected: '1100.00', counted: '1090.00', variance: '-10.00', balance: '10.00' });
    expect(await ledgerBalance(`mf:vault:${office}`, 'USD')).toBe('10090.00');
    expect(await ledgerBalance(`mf:vault:${office}`, 'JPY')).toBe('985224');
    // No more transactions on it.
    const late = await txn(teller.headers, { session_id: session, type: 'cash_deposit', account_id: account, amount: '1.00', currency: 'USD' });
    expect(late.statusCode).toBe(409);
    expect(errorCode(late)).toBe('TELLER_SESSION_NOT_OPEN');
    const self = await call(teller.headers, 'POST', `${MF}/teller/sessions/${session}/variance/approve`, {});
    expect(self.statusCode).toBe(403);
    expect(errorCode(self)).toBe('VARIANCE_SELF_APPROVAL');
    expect((await call(teller2.headers, 'POST', `${MF}/teller/sessions/${session}/variance/approve`, {})).statusCode).toBe(404);
    const approved = await ok(supervisor.headers, 'POST', `${MF}/teller/sessions/${session}/variance/approve`, {});
    expect(approved.status).toBe('closed');
    expect(approved.variance_approved_by).toBe(supervisor.userId);
    expect(approved.tills.every((x: any) => Number(x.balance) === 0)).toBe(true);
    expect(await ledgerBalance('mf:cash_variance', 'USD')).toBe('10.00');
    const twice = await call(supervisor.headers, 'POST', `${MF}/teller/sessions/${session}/variance/approve`, {});
    expect(twice.statusCode).toBe(409);
    // The teller may open a new session now.
    const next = await call(teller.headers, 'POST', `${MF}/teller/sessions`, { office_id: office, allocations: [{ currency: 'USD', amount: '10.00' }] });
    expect(next.statusCode).toBe(201);
  });

  it('close over: the surplus goes to the vault when approved; an exact count closes at once', async () => {
    const { rows } = await getPool().query<{ id: string }>(`SELECT id FROM mf_teller_sessions WHERE teller_user_id = $1 AND status = 'open'`, [teller.userId]);
    const over = await ok(teller.headers, 'POST', `${MF}/teller/sessions/${rows[0].id}/close`, { counted: [{ currency: 'USD', amount: '12.50' }] });
    expect(over.status).toBe('variance_pending');
    expect(over.tills[0]).toMatchObject({ variance: '2.50', balance: '0.00' });
    await ok(supervisor.headers, 'POST', `${MF}/teller/sessions/${rows[0].id}/variance/approve`, {});
    expect(await ledgerBalance(`mf:vault:${office}`, 'USD')).toBe('10092.50');
    expect(await ledgerBalance('mf:cash_variance', 'USD')).toBe('7.50');
    const missing = await call(teller2.headers, 'POST', `${MF}/teller/sessions/${session2}/close`, { counted: [{ currency: 'USD', amount: '499.00' }] });
    expect(missing.statusCode).toBe(422);
    expect(errorCode(missing)).toBe('COUNT_MISSING');
    const exact = await ok(teller2.headers, 'POST', `${MF}/teller/sessions/${session2}/close`, {
      counted: [
        { currency: 'USD', amount: '499.00' },
        { currency: 'JPY', amount: '150' },
      ],
    });
    expect(exact.status).toBe('closed');
    expect(await ledgerBalance(`mf:vault:${office2}`, 'JPY')).toBe('150');
  });
});

describe('tenant isolation (issue 41)', () => {
  it("customers of a tenant and of another tenant get 404 on the branch's office, sessions and transactions; a platform branch does not serve a tenant's customer; nothing changes", async () => {
    const { a, b, c } = await tenantCustomers(t.user.userId);
    const open = await ok(teller.headers, 'POST', `${MF}/teller/sessions`, { office_id: office, allocations: [{ currency: 'USD', amount: '10.00' }] });
    const own = async (u: TestUser) => (await ok(u.headers, 'POST', '/api/v2/accounts', { name: 'tenant' })).uuid as string;
    const aAccount = await own(a);
    // The tenant's customer is served by the tenant, not at a platform branch (as if the account did not exist).
    const served = await txn(teller.headers, { session_id: open.id, type: 'cash_deposit', account_id: aAccount, amount: '1.00', currency: 'USD' });
    expect([served.statusCode, errorCode(served)]).toEqual([404, 'ACCOUNT_NOT_FOUND']);
    const snapshot = async () => ({
      sessions: (await getPool().query('SELECT id, status, counted_at FROM mf_teller_sessions WHERE id = ANY($1::text[]) ORDER BY id', [[session, open.id]])).rows,
      transactions: (await getPool().query<{ n: number }>('SELECT count(*)::int AS n FROM mf_teller_transactions WHERE session_id = ANY($1::text[])', [[session, open.id]])).rows[0].n,
      vault: await ledgerBalance(`mf:vault:${office}`, 'USD'),
    });
    const before = await snapshot();
    const notFound = { status: 404, code: 'TELLER_SESSION_NOT_FOUND' };
    const wrong: string[] = [];
    for (const [who, u] of [['B (same tenant)', b], ['C (other tenant)', c]] as const) {
      const probes: Probe[] = [
        { method: 'POST', url: `${MF}/teller/sessions`, payload: { office_id: office, allocations: [{ currency: 'USD', amount: '1.00' }] }, expect: { status: 404, code: 'OFFICE_NOT_FOUND' } },
        { method: 'GET', url: `${MF}/teller/sessions/${session}` },
        { method: 'GET', url: `${MF}/teller/sessions/${open.id}` },
        { method: 'POST', url: `${MF}/teller/sessions/${open.id}/close`, payload: { counted: [{ currency: 'USD', amount: '10.00' }] } },
        { method: 'POST', url: `${MF}/teller/sessions/${open.id}/variance/approve`, payload: {} },
        { method: 'GET', url: `${MF}/teller/transactions?session_id=${open.id}` },
        { method: 'POST', url: `${MF}/teller/transactions`, payload: { session_id: open.id, type: 'cash_deposit', account_id: await own(u), amount: '1.00', currency: 'USD' } },
      ];
      wrong.push(...(await refusalsOf(t.app, probes, [[who, u.headers]], notFound, [office, office2, session, open.id])));
      for (const url of [`${MF}/offices`, `${MF}/teller/sessions`]) {
        const list = await call(u.headers, 'GET', url);
        if (list.statusCode !== 200 || list.json().data.length !== 0) wrong.push(`${who} GET ${url} -> ${list.body.slice(0, 120)}`);
      }
    }
    expect(wrong).toEqual([]);
    expect(await snapshot()).toEqual(before);
    expect((await ok(teller.headers, 'POST', `${MF}/teller/sessions/${open.id}/close`, { counted: [{ currency: 'USD', amount: '10.00' }] })).status).toBe('closed');
  });
});
