import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPool } from '../../domain/db/pool';
import { createTestApp, createTestUser, type TestApp, type TestUser } from '../helpers/app';

let t: TestApp;
let admin: TestUser;
beforeAll(async () => {
  t = await createTestApp();
  admin = await createTestUser({ admin: true });
});
afterAll(async () => t.close());

const post = (url: string, payload: unknown, headers = t.headers) => t.app.inject({ method: 'POST', url, headers, payload: payload as object });
const get = (url: string, headers = t.headers) => t.app.inject({ method: 'GET', url, headers });

async function openAccount(headers = t.headers, name = 'Main') {
  const r = await post('/api/v2/accounts', { name, type: 'personal', metadata: { purpose: 'test' } }, headers);
  expect(r.statusCode).toBe(201);
  return r.json().data.uuid as string;
}

describe('accounts', () => {
  it('opens, lists and reads accounts; another user sees a 404', async () => {
    const r = await post('/api/v2/accounts', { name: 'Savings', metadata: { a: 1 } });
    expect(r.statusCode).toBe(201);
    const acct = r.json().data;
    expect(acct).toMatchObject({ name: 'Savings', type: 'personal', status: 'active', metadata: { a: 1 } });
    expect(acct.uuid).toMatch(/^acct_/);
    const list = await get('/api/v2/accounts');
    expect(list.json().data.map((a: { uuid: string }) => a.uuid)).toContain(acct.uuid);
    expect(list.json().meta.total).toBeGreaterThanOrEqual(1);
    expect((await get(`/api/accounts/${acct.uuid}/balances`)).statusCode).toBe(200);
    const other = await createTestUser();
    expect((await get(`/api/v2/accounts/${acct.uuid}`, other.headers)).statusCode).toBe(404);
    expect((await get(`/api/v2/accounts/${acct.uuid}/balances`, other.headers)).statusCode).toBe(404);
    const prod = await createTestUser({ environment: 'production' });
    expect((await get('/api/v2/accounts', prod.headers)).json().data).toEqual([]);
    const bad = await post('/api/v2/accounts', { name: 'x', type: 'offshore' });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors[0].source.pointer).toBe('/type');
  });

  it("the owner sees the account's IBAN (identifiers) on create, read, list and rename; another customer reaches none of it", async () => {
    const created = (await post('/api/v2/accounts', { name: 'Receives SEPA' })).json().data;
    const { rows } = await getPool().query<{ iban: string }>('SELECT iban FROM account_ibans WHERE account_id = $1', [created.uuid]);
    expect(rows[0].iban).toMatch(/^DE\d{2}00000000\d{10}$/);
    expect(created.identifiers).toEqual({ iban: rows[0].iban });
    expect((await get(`/api/v2/accounts/${created.uuid}`)).json().data.identifiers).toEqual({ iban: rows[0].iban });
    expect((await get(`/api/accounts/${created.uuid}`)).json().data.identifiers).toEqual({ iban: rows[0].iban });
    const listed = (await get('/api/v2/accounts?per_page=100')).json().data as Array<{ uuid: string; identifiers: { iban: string } }>;
    expect(listed.find((a) => a.uuid === created.uuid)!.identifiers).toEqual({ iban: rows[0].iban });
    expect(listed.every((a) => /^DE\d{20}$/.test(a.identifiers.iban))).toBe(true);
    const renamed = await t.app.inject({ method: 'PATCH', url: `/api/v2/accounts/${created.uuid}`, headers: t.headers, payload: { name: 'Main EUR' } });
    expect(renamed.json().data.identifiers).toEqual({ iban: rows[0].iban });
    const other = await createTestUser();
    const theirs = await get(`/api/v2/accounts/${created.uuid}`, other.headers);
    expect(theirs.statusCode).toBe(404);
    expect(theirs.body).not.toContain(rows[0].iban);
    expect((await get('/api/v2/accounts', other.headers)).body).not.toContain(rows[0].iban);
  });

  it('events are written in the same transaction as the change', async () => {
    const id = await openAccount();
    const { rows } = await getPool().query(`SELECT type FROM platform_events WHERE aggregate_id = $1`, [id]);
    expect(rows.map((r) => r.type)).toEqual(['account.created']);
  });
});

describe('deposits and withdrawals (sandbox settles at once)', () => {
  it('deposits and withdraws, with balances, transactions and balance_after', async () => {
    const id = await openAccount();
    const dep = await post(`/api/v2/accounts/${id}/deposit`, { amount: '100.50', asset_code: 'USD', reference: 'salary' });
    expect(dep.statusCode).toBe(201);
    expect(dep.json().data.transaction).toMatchObject({ type: 'deposit', amount: '100.50', status: 'completed', balance_after: '100.50', reference: 'salary' });
    expect(dep.json().data.settlement).toBe('settled');
    await post(`/api/v2/accounts/${id}/deposit`, { amount: '0.5', asset_code: 'BTC' });
    const wd = await post(`/api/v2/accounts/${id}/withdraw`, { amount: '40.25', asset_code: 'USD' });
    expect(wd.json().data.transaction).toMatchObject({ type: 'withdrawal', amount: '40.25', balance_after: '60.25' });

    const bal = (await get(`/api/v2/accounts/${id}/balances`)).json().data;
    expect(bal.account_uuid).toBe(id);
    const usd = bal.balances.find((b: { asset_code: string }) => b.asset_code === 'USD');
    expect(usd).toEqual({ asset_code: 'USD', available_balance: '60.25', reserved_balance: '0.00', total_balance: '60.25' });
    expect(bal.summary.total_assets).toBe(2);
    // 60.25 USD + 0.5 BTC at the seeded 95,000 USD
    expect(bal.summary.total_usd_equivalent).toBe('47560.25');

    const txns = (await get(`/api/v2/accounts/${id}/transactions?sort=created_at`)).json();
    expect(txns.data.map((x: { type: string }) => x.type)).toEqual(['deposit', 'deposit', 'withdrawal']);
    expect(txns.meta.total).toBe(3);
    const onlyUsd = (await get(`/api/v2/transactions?asset_code=BTC`)).json();
    expect(onlyUsd.data.every((x: { asset_code: string }) => x.asset_code === 'BTC')).toBe(true);
    const deposits = (await get(`/api/v2/accounts/${id}/transactions?type=withdrawal&limit=1`)).json();
    expect(deposits.data).toHaveLength(1);
    expect(deposits.meta.per_page).toBe(1);
  });

  it('refuses bad amounts and unknown assets with 422, and insufficient funds without writing', async () => {
    const id = await openAccount();
    for (const [amount, code] of [
      ['1.001', 'AMOUNT_PRECISION'],
      ['0', 'AMOUNT_NOT_POSITIVE'],
      ['-5', 'VALIDATION_ERROR'],
      ['1e3', 'VALIDATION_ERROR'],
      ['abc', 'VALIDATION_ERROR'],
    ]) {
      const r = await post(`/api/v2/accounts/${id}/deposit`, { amount, asset_code: 'USD' });
      expect(r.statusCode, amount).toBe(422);
      expect(r.json().errors[0].code, amount).toBe(code);
      expect(r.json().errors[0].source.pointer).toBe('/amount');
    }
    const num = await post(`/api/v2/accounts/${id}/deposit`, { amount: 10, asset_code: 'USD' });
    expect(num.statusCode).toBe(422);
    const jpy = await post(`/api/v2/accounts/${id}/deposit`, { amount: '1.5', asset_code: 'JPY' });
    expect(jpy.json().errors[0].code).toBe('AMOUNT_PRECISION');
    const unknown = await post(`/api/v2/accounts/${id}/deposit`, { amount: '1', asset_code: 'DOGE' });
    expect(unknown.json().errors[0].code).toBe('UNKNOWN_ASSET');
    const before = (await getPool().query('SELECT count(*)::int AS n FROM journal_entries')).rows[0].n;
    const broke = await post(`/api/v2/accounts/${id}/withdraw`, { amount: '1.00', asset_code: 'USD' });
    expect(broke.statusCode).toBe(422);
    expect(broke.json().errors[0].code).toBe('INSUFFICIENT_FUNDS');
    expect((await getPool().query('SELECT count(*)::int AS n FROM journal_entries')).rows[0].n).toBe(before);
  });

  it('a retried deposit with the same Idempotency-Key moves money once', async () => {
    const id = await openAccount();
    const h = { ...t.headers, 'idempotency-key': `dep-${id}` };
    const a = await post(`/api/v2/accounts/${id}/deposit`, { amount: '5.00', asset_code: 'EUR' }, h);
    const b = await post(`/api/v2/accounts/${id}/deposit`, { amount: '5.00', asset_code: 'EUR' }, h);
    expect(b.headers['idempotent-replayed']).toBe('true');
    expect(b.json().data.transaction.uuid).toBe(a.json().data.transaction.uuid);
    const bal = (await get(`/api/v2/accounts/${id}/balances`)).json().data.balances[0];
    expect(bal.total_balance).toBe('5.00');
  });
});

describe('production settles only on confirmation', () => {
  it('a production deposit is pending until an operator posts it; a withdrawal reserves until voided', async () => {
    const prodAdmin = await createTestUser({ environment: 'production', admin: true });
    const user = await createTestUser({ environment: 'production' });
    const id = await openAccount(user.headers);
    const dep = await post(`/api/v2/accounts/${id}/deposit`, { amount: '250.00', asset_code: 'USD' }, user.headers);
    expect(dep.json().data.settlement).toBe('awaiting_confirmation');
    expect(dep.json().data.transaction.status).toBe('pending');
    let bal = (await get(`/api/v2/accounts/${id}/balances`, user.headers)).json().data.balances[0];
    expect(bal.available_balance).toBe('0.00');
    // Unsettled money cannot be spent.
    expect((await post(`/api/v2/accounts/${id}/withdraw`, { amount: '1.00', asset_code: 'USD' }, user.headers)).statusCode).toBe(422);
    const entryId = dep.json().data.entry_id;
    expect((await post(`/api/v1/ledger/entries/${entryId}/post`, {}, user.headers)).statusCode).toBe(403);
    const settled = await post(`/api/v1/ledger/entries/${entryId}/post`, {}, prodAdmin.headers);
    expect(settled.statusCode).toBe(200);
    expect(settled.json().data.status).toBe('posted');
    expect((await post(`/api/v1/ledger/entries/${entryId}/post`, {}, prodAdmin.headers)).json().data.status).toBe('posted');
    bal = (await get(`/api/v2/accounts/${id}/balances`, user.headers)).json().data.balances[0];
    expect(bal.total_balance).toBe('250.00');

    const wd = await post(`/api/v2/accounts/${id}/withdraw`, { amount: '100.00', asset_code: 'USD' }, user.headers);
    bal = (await get(`/api/v2/accounts/${id}/balances`, user.headers)).json().data.balances[0];
    expect(bal).toMatchObject({ available_balance: '150.00', reserved_balance: '100.00', total_balance: '250.00' });
    const voided = await post(`/api/v1/ledger/entries/${wd.json().data.entry_id}/void`, { reason: 'bank rejected' }, prodAdmin.headers);
    expect(voided.json().data.status).toBe('voided');
    bal = (await get(`/api/v2/accounts/${id}/balances`, user.headers)).json().data.balances[0];
    expect(bal).toMatchObject({ available_balance: '250.00', reserved_balance: '0.00' });
    const again = await post(`/api/v1/ledger/entries/${wd.json().data.entry_id}/post`, {}, prodAdmin.headers);
    expect(again.statusCode).toBe(422);
  });
});

describe('operator actions', () => {
  it('freeze stops sending but not receiving; close needs an empty account; customers cannot do either', async () => {
    const id = await openAccount();
    await post(`/api/v2/accounts/${id}/deposit`, { amount: '10.00', asset_code: 'USD' });
    expect((await post(`/api/v2/accounts/${id}/freeze`, {})).statusCode).toBe(403);
    const frozen = await post(`/api/v2/accounts/${id}/freeze`, { reason: 'kyc review' }, admin.headers);
    expect(frozen.json().data.status).toBe('frozen');
    const w = await post(`/api/v2/accounts/${id}/withdraw`, { amount: '1.00', asset_code: 'USD' });
    expect(w.statusCode).toBe(422);
    expect(w.json().errors[0].code).toBe('ACCOUNT_FROZEN');
    expect((await post(`/api/v2/accounts/${id}/deposit`, { amount: '1.00', asset_code: 'USD' })).statusCode).toBe(201);
    const closeFull = await post(`/api/v2/accounts/${id}/close`, {}, admin.headers);
    expect(closeFull.statusCode).toBe(422);
    expect(closeFull.json().errors[0].code).toBe('ACCOUNT_NOT_EMPTY');
    await post(`/api/v2/accounts/${id}/unfreeze`, {}, admin.headers);
    await post(`/api/v2/accounts/${id}/withdraw`, { amount: '11.00', asset_code: 'USD' });
    const closed = await post(`/api/v2/accounts/${id}/close`, {}, admin.headers);
    expect(closed.json().data.status).toBe('closed');
    expect((await post(`/api/v2/accounts/${id}/deposit`, { amount: '1.00', asset_code: 'USD' })).json().errors[0].code).toBe('ACCOUNT_CLOSED');
    const events = await getPool().query(`SELECT type FROM platform_events WHERE aggregate_id = $1 ORDER BY occurred_at`, [id]);
    expect(events.rows.map((r) => r.type)).toEqual(expect.arrayContaining(['account.frozen', 'account.unfrozen', 'account.closed']));
  });
});

describe('ledger API', () => {
  it('chart of accounts, balanced manual entries, 422 for unbalanced, and the trial balance', async () => {
    const id = await openAccount();
    await post(`/api/v2/accounts/${id}/deposit`, { amount: '20.00', asset_code: 'USD' });
    const mine = (await get('/api/v1/ledger/accounts')).json().data;
    expect(mine.every((a: { account_uuid: string | null }) => a.account_uuid !== null)).toBe(true);
    const chart = (await get('/api/v1/ledger/accounts?asset_code=USD', admin.headers)).json().data;
    const customer = chart.find((a: { account_uuid: string }) => a.account_uuid === id);
    const suspense = chart.find((a: { kind: string }) => a.kind === 'suspense');
    expect(customer.total_balance).toBe('20.00');

    const unbalanced = await post(
      '/api/v1/ledger/entries',
      { lines: [{ account_id: suspense.id, direction: 'debit', amount: '5.00' }, { account_id: customer.id, direction: 'credit', amount: '4.00' }] },
      admin.headers,
    );
    expect(unbalanced.statusCode).toBe(422);
    expect(unbalanced.json().errors[0].code).toBe('UNBALANCED');
    const unknown = await post(
      '/api/v1/ledger/entries',
      { lines: [{ account_id: 'la_nope', direction: 'debit', amount: '5.00' }, { account_id: customer.id, direction: 'credit', amount: '5.00' }] },
      admin.headers,
    );
    expect(unknown.statusCode).toBe(422);
    const btc = (await get('/api/v1/ledger/accounts?asset_code=BTC&kind=suspense', admin.headers)).json().data[0];
    const mismatch = await post(
      '/api/v1/ledger/entries',
      { lines: [{ account_id: btc.id, direction: 'debit', amount: '5.00' }, { account_id: customer.id, direction: 'credit', amount: '5.00' }] },
      admin.headers,
    );
    expect(mismatch.statusCode).toBe(422);
    const ok = await post(
      '/api/v1/ledger/entries',
      { description: 'goodwill credit', lines: [{ account_id: suspense.id, direction: 'debit', amount: '5.00' }, { account_id: customer.id, direction: 'credit', amount: '5.00' }] },
      admin.headers,
    );
    expect(ok.statusCode).toBe(201);
    expect((await get(`/api/v2/accounts/${id}/balances`)).json().data.balances[0].total_balance).toBe('25.00');
    expect((await post('/api/v1/ledger/entries', { lines: [] }, t.headers)).statusCode).toBe(403);

    const tb = (await get('/api/v1/ledger/trial-balance', admin.headers)).json().data;
    expect(tb.balanced).toBe(true);
    const usd = tb.assets.find((a: { asset_code: string }) => a.asset_code === 'USD');
    expect(usd.total_debits).toBe(usd.total_credits);
    const ranged = await get(`/api/v1/ledger/trial-balance?from=2000-01-01T00:00:00Z&to=2000-01-02T00:00:00Z`, admin.headers);
    expect(ranged.json().data.assets).toEqual([]);
    expect((await get('/api/v1/ledger/trial-balance?from=2001-01-01T00:00:00Z&to=2000-01-01T00:00:00Z', admin.headers)).statusCode).toBe(422);
  });
});
