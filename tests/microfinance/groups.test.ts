import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureCustomerLedgerAccount } from '../../domain/accounts';
import { getPool } from '../../domain/db/pool';
import { postEntry, postGuaranteeFundEntry, trialBalance } from '../../domain/ledger';
import { DecimalMoney as D } from '../../domain/money/amount';
import { newId } from '../../domain/platform/ids';
import { createTestApp, createTestUser, type TestApp, type TestUser } from '../helpers/app';
import { gql } from '../graphql/helpers';
import { available, get, openAccount, post } from './mf-helpers';
import { refusalsOf, tenantCustomers, type Probe } from '../helpers/tenants';

let t: TestApp;
let op: TestUser;
const users: TestUser[] = [];
const accounts: string[] = [];
beforeAll(async () => {
  t = await createTestApp();
  op = await createTestUser({ admin: true });
  users.push(t.user);
  for (let i = 0; i < 4; i++) users.push(await createTestUser());
  for (const u of users) accounts.push(await openAccount(t, u));
});
afterAll(async () => t?.close());

async function deposit(u: TestUser, account: string, amount: string): Promise<void> {
  const r = await t.app.inject({ method: 'POST', url: `/api/v2/accounts/${account}/deposit`, headers: u.headers, payload: { amount, asset_code: 'USD' } });
  expect(r.statusCode, r.body).toBe(201);
}

async function transfer(u: TestUser, from: string, to: string, amount: string) {
  return t.app.inject({ method: 'POST', url: '/api/v2/transfers', headers: u.headers, payload: { from_account: from, to_account: to, amount, asset_code: 'USD', workflow_enabled: false } });
}

describe('groups', () => {
  it('the creator leads and joins; the others are invited and join by accepting with an account they choose; a guarantee fund account is opened; operators activate once every invitation is answered', async () => {
    const second = await openAccount(t, users[1]);
    const r = await post(t, t.headers, '/groups', { name: 'Women of Kibera', liability_type: 'joint', members: [users[1].userId, { user_id: users[2].userId }] });
    expect(r.statusCode, r.body).toBe(201);
    const g = r.json().data;
    expect(g).toMatchObject({ status: 'pending', liability_type: 'joint', created_by: t.user.userId });
    expect(g.members).toEqual([
      expect.objectContaining({ user_id: t.user.userId, role: 'leader', status: 'accepted', account_id: accounts[0] }),
      expect.objectContaining({ user_id: users[1].userId, role: 'member', status: 'invited', account_id: null }),
      expect.objectContaining({ user_id: users[2].userId, role: 'member', status: 'invited', account_id: null }),
    ]);
    const fund = await getPool().query('SELECT user_id, type, status, metadata FROM accounts WHERE id = $1', [g.guarantee_account_id]);
    expect(fund.rows[0]).toMatchObject({ user_id: t.user.userId, type: 'savings', status: 'frozen', metadata: { mf_group_id: g.id, purpose: 'mf_guarantee_fund' } });

    // Invitees see it (to answer); an outsider gets 404; operators see all.
    expect((await get(t, users[1].headers, `/groups/${g.id}`)).statusCode).toBe(200);
    expect((await get(t, users[3].headers, `/groups/${g.id}`)).json().errors[0].code).toBe('MF_GROUP_NOT_FOUND');
    expect((await get(t, users[3].headers, `/groups/${g.id}`)).statusCode).toBe(404);
    expect((await get(t, users[3].headers, '/groups')).json().data.map((x: { id: string }) => x.id)).not.toContain(g.id);
    expect((await get(t, users[2].headers, '/groups')).json().data.map((x: { id: string }) => x.id)).toContain(g.id);

    // Not before everyone answered; an outsider cannot answer for anyone.
    expect((await post(t, op.headers, `/groups/${g.id}/activate`)).json().errors[0].code).toBe('MF_MEMBERS_PENDING');
    expect((await post(t, users[3].headers, `/groups/${g.id}/accept`)).statusCode).toBe(404);
    // users[1] accepts with their second account; users[2] with their oldest (the default).
    const one = await post(t, users[1].headers, `/groups/${g.id}/accept`, { account_id: second });
    expect(one.statusCode, one.body).toBe(200);
    expect(one.json().data.members.find((m: { user_id: string }) => m.user_id === users[1].userId)).toMatchObject({ status: 'accepted', account_id: second });
    expect((await post(t, users[1].headers, `/groups/${g.id}/accept`, { account_id: second })).statusCode).toBe(200);
    expect((await post(t, users[2].headers, `/groups/${g.id}/accept`, { account_id: accounts[3] })).json().errors[0]).toMatchObject({ code: 'MF_MEMBER_ACCOUNT_REQUIRED', source: { pointer: '/account_id' } });
    expect((await post(t, users[2].headers, `/groups/${g.id}/accept`)).statusCode).toBe(200);
    // A member sees their own account and nobody else's; operators see every account.
    const seen = (await get(t, users[2].headers, `/groups/${g.id}`)).json().data.members;
    expect(seen.map((m: { user_id: string; account_id: string | null }) => m.account_id)).toEqual([null, null, accounts[2]]);
    const byOperator = (await get(t, op.headers, `/groups/${g.id}`)).json().data.members;
    expect(byOperator.map((m: { account_id: string | null }) => m.account_id)).toEqual([accounts[0], second, accounts[2]]);

    expect((await post(t, t.headers, `/groups/${g.id}/activate`)).statusCode).toBe(403);
    const a = await post(t, op.headers, `/groups/${g.id}/activate`);
    expect(a.statusCode, a.body).toBe(200);
    expect(a.json().data.status).toBe('active');
    // The group is no longer pending: no answer changes it.
    expect((await post(t, users[2].headers, `/groups/${g.id}/decline`)).json().errors[0].code).toBe('MF_INVALID_STATE');
    const c = await post(t, op.headers, `/groups/${g.id}/close`);
    expect(c.json().data.status).toBe('closed');
    expect((await post(t, op.headers, `/groups/${g.id}/activate`)).statusCode).toBe(409);
  });

  it('nobody is made liable without consent: a declined member is never drawn on, and a group left short cannot be activated', async () => {
    const r = await post(t, t.headers, '/groups', { name: 'Harambee', members: [users[1].userId, users[2].userId] });
    const g = r.json().data;
    expect((await post(t, users[1].headers, `/groups/${g.id}/accept`)).statusCode).toBe(200);
    const declined = await post(t, users[2].headers, `/groups/${g.id}/decline`);
    expect(declined.json().data.members.find((m: { user_id: string }) => m.user_id === users[2].userId)).toMatchObject({ status: 'declined', account_id: null });
    // Declining is final.
    expect((await post(t, users[2].headers, `/groups/${g.id}/accept`)).json().errors[0].code).toBe('MF_INVALID_STATE');
    const short = await post(t, op.headers, `/groups/${g.id}/activate`);
    expect([short.statusCode, short.json().errors[0].code]).toEqual([422, 'MF_GROUP_SIZE']);
    const { rows } = await getPool().query(`SELECT user_id, account_id, status FROM mf_group_members WHERE group_id = $1 ORDER BY joined_at`, [g.id]);
    expect(rows.find((m: { user_id: string }) => m.user_id === users[2].userId)).toMatchObject({ account_id: null, status: 'declined' });
  });

  it('twenty answers at once from one invitee (accepts and declines mixed) end in one answer, recorded once', async () => {
    const g = (await post(t, t.headers, '/groups', { name: 'Twenty', members: [users[1].userId, users[2].userId] })).json().data;
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => post(t, users[1].headers, `/groups/${g.id}/${i % 2 === 0 ? 'accept' : 'decline'}`)));
    const { rows } = await getPool().query(`SELECT status, responded_at FROM mf_group_members WHERE group_id = $1 AND user_id = $2`, [g.id, users[1].userId]);
    expect(['accepted', 'declined']).toContain(rows[0].status);
    // Every answer agreeing with the outcome is 200; every other one is 409 MF_INVALID_STATE (no 5xx, no second answer).
    const agreeing = rows[0].status === 'accepted' ? 'accept' : 'decline';
    answers.forEach((r, i) => {
      const asked = i % 2 === 0 ? 'accept' : 'decline';
      expect([asked, r.statusCode, asked === agreeing ? undefined : r.json().errors[0].code]).toEqual([asked, asked === agreeing ? 200 : 409, asked === agreeing ? undefined : 'MF_INVALID_STATE']);
    });
  });

  it('the guarantee fund moves only by the group’s rules: its leader cannot transfer, withdraw, unfreeze or close it (REST and GraphQL); payments into it still arrive', async () => {
    const g = (await post(t, t.headers, '/groups', { name: 'Locked fund', members: [users[1].userId, users[2].userId] })).json().data;
    const fund = g.guarantee_account_id as string;
    // Members pay in with ordinary transfers; the leader may pay in cash.
    await deposit(users[1], accounts[1], '50.00');
    const pay = await transfer(users[1], accounts[1], fund, '30.00');
    expect(pay.statusCode, pay.body).toBe(201);
    const cash = await t.app.inject({ method: 'POST', url: `/api/v2/accounts/${fund}/deposit`, headers: t.headers, payload: { amount: '10.00', asset_code: 'USD' } });
    expect(cash.statusCode, cash.body).toBe(201);
    expect(await available(t, t.user, fund)).toBe('40.00');

    // The leader owns it as custodian, yet nothing of theirs moves money out of it.
    const out = await transfer(t.user, fund, accounts[0], '20.00');
    expect([out.statusCode, out.json().errors?.[0]?.code], out.body).toEqual([422, 'ACCOUNT_FROZEN']);
    const cashOut = await t.app.inject({ method: 'POST', url: `/api/v2/accounts/${fund}/withdraw`, headers: t.headers, payload: { amount: '1.00', asset_code: 'USD' } });
    expect([cashOut.statusCode, cashOut.json().errors?.[0]?.code]).toEqual([422, 'ACCOUNT_FROZEN']);
    const viaGraph = await gql(t, 'mutation($i: TransferInput!) { createTransfer(input: $i) { id } }', { i: { fromAccount: fund, toAccount: accounts[0], amount: '20.00', assetCode: 'USD', workflowEnabled: false } });
    expect(viaGraph.errors?.[0]?.extensions).toMatchObject({ code: 'ACCOUNT_FROZEN', status: 422 });
    const withdrawGraph = await gql(t, 'mutation { withdraw(accountId: "' + fund + '", amount: "1.00", assetCode: "USD") { entryId } }');
    expect(withdrawGraph.errors?.[0]?.extensions).toMatchObject({ code: 'ACCOUNT_FROZEN', status: 422 });
    // Unfreezing and closing are operators', and not even an operator lifts a group's hold.
    for (const action of ['unfreeze', 'close']) {
      expect((await t.app.inject({ method: 'POST', url: `/api/v2/accounts/${fund}/${action}`, headers: t.headers, payload: {} })).statusCode).toBe(403);
      const byOp = await t.app.inject({ method: 'POST', url: `/api/v2/accounts/${fund}/${action}`, headers: op.headers, payload: {} });
      expect([byOp.statusCode, byOp.json().errors?.[0]?.code], byOp.body).toEqual([422, 'ACCOUNT_HELD_BY_GROUP']);
      const m = action === 'unfreeze' ? 'unfreezeAccount' : 'closeAccount';
      const byOpGraph = await gql(t, `mutation { ${m}(id: "${fund}") { status } }`, undefined, op.headers);
      expect(byOpGraph.errors?.[0]?.extensions).toMatchObject({ code: 'ACCOUNT_HELD_BY_GROUP', status: 422 });
    }
    // The ledger itself refuses a debit of the fund, whatever path asks (no API pre-check here).
    const la = await ensureCustomerLedgerAccount(fund, 'USD');
    const sink = await ensureCustomerLedgerAccount(accounts[0], 'USD');
    await expect(postEntry({ environment: 'sandbox', idempotencyKey: newId('k'), type: 'transfer', lines: [{ accountId: la, direction: 'debit', amount: '1.00' }, { accountId: sink, direction: 'credit', amount: '1.00' }] }))
      .rejects.toMatchObject({ code: 'ACCOUNT_FROZEN' });
    expect(await available(t, t.user, fund)).toBe('40.00');
    expect((await getPool().query('SELECT status FROM accounts WHERE id = $1', [fund])).rows[0].status).toBe('frozen');
  });

  it('twenty concurrent transfers out of the fund by its leader are all refused, while members’ payments in arrive', async () => {
    const g = (await post(t, t.headers, '/groups', { name: 'Race', members: [users[1].userId, users[2].userId] })).json().data;
    const fund = g.guarantee_account_id as string;
    await deposit(users[2], accounts[2], '20.00');
    expect((await transfer(users[2], accounts[2], fund, '5.00')).statusCode).toBe(201);
    await deposit(users[1], accounts[1], '20.00');
    const results = await Promise.all([
      ...Array.from({ length: 20 }, () => transfer(t.user, fund, accounts[0], '1.00')),
      ...Array.from({ length: 5 }, () => transfer(users[1], accounts[1], fund, '1.00')),
    ]);
    expect(results.slice(0, 20).map((r) => [r.statusCode, r.json().errors?.[0]?.code])).toEqual(Array.from({ length: 20 }, () => [422, 'ACCOUNT_FROZEN']));
    expect(results.slice(20).map((r) => r.statusCode)).toEqual([201, 201, 201, 201, 201]);
    expect(await available(t, t.user, fund)).toBe('10.00');
  });

  it('closing the group returns the fund to the members pro rata to what each paid in, in one balanced entry, and closes the fund', async () => {
    const g = (await post(t, t.headers, '/groups', { name: 'Closing', members: [users[1].userId, users[2].userId] })).json().data;
    const fund = g.guarantee_account_id as string;
    expect((await post(t, users[1].headers, `/groups/${g.id}/accept`)).statusCode).toBe(200);
    expect((await post(t, users[2].headers, `/groups/${g.id}/accept`)).statusCode).toBe(200);
    // Paid in: the leader 10.00 in cash, users[1] 30.00 and users[2] 20.00 by transfer; an outsider's
    // 5.00 is nobody's and is shared in the same proportions (65.00 over 10 : 30 : 20).
    const cash = await t.app.inject({ method: 'POST', url: `/api/v2/accounts/${fund}/deposit`, headers: t.headers, payload: { amount: '10.00', asset_code: 'USD' } });
    expect(cash.statusCode).toBe(201);
    for (const [u, amount] of [[1, '30.00'], [2, '20.00'], [3, '5.00']] as const) {
      await deposit(users[u], accounts[u], '40.00');
      expect((await transfer(users[u], accounts[u], fund, amount)).statusCode).toBe(201);
    }
    const before = await Promise.all([0, 1, 2, 3].map((i) => available(t, users[i], accounts[i])));
    const c = await post(t, op.headers, `/groups/${g.id}/close`);
    expect(c.statusCode, c.body).toBe(200);
    expect(c.json().data.status).toBe('closed');
    const gained = await Promise.all([0, 1, 2, 3].map(async (i) => new D(await available(t, users[i], accounts[i])).minus(before[i]).toFixed(2)));
    // 65 × 10/60 = 10.833…, × 30/60 = 32.50, × 20/60 = 21.666…: 10.83, 32.50, 21.66 and the cent left to the largest remainder.
    expect(gained).toEqual(['10.83', '32.50', '21.67', '0.00']);
    const { rows: entries } = await getPool().query(`SELECT id, status FROM journal_entries WHERE type = 'mf_guarantee_return' AND reference = $1`, [g.id]);
    expect(entries).toHaveLength(1);
    const lines = await getPool().query(`SELECT direction, amount::text FROM ledger_lines WHERE entry_id = $1 ORDER BY line_no`, [entries[0].id]);
    expect(lines.rows.map((l) => [l.direction, new D(l.amount).toFixed(2)])).toEqual([['debit', '65.00'], ['credit', '10.83'], ['credit', '32.50'], ['credit', '21.67']]);
    expect((await getPool().query('SELECT status FROM accounts WHERE id = $1', [fund])).rows[0].status).toBe('closed');
    expect(await available(t, t.user, fund)).toBe('0.00');
    // Nothing more goes in; closing again changes nothing.
    expect((await transfer(users[1], accounts[1], fund, '1.00')).json().errors[0].code).toBe('DESTINATION_CLOSED');
    expect((await post(t, op.headers, `/groups/${g.id}/close`)).statusCode).toBe(200);
    expect((await getPool().query(`SELECT count(*)::int AS n FROM journal_entries WHERE type = 'mf_guarantee_return' AND reference = $1`, [g.id])).rows[0].n).toBe(1);
    expect((await trialBalance({ environment: 'sandbox' })).balanced).toBe(true);
  });

  it('when nothing in the fund can be attributed, the accepted members share it equally; a fund posting never debits another account nor takes a fund below zero', async () => {
    const g = (await post(t, t.headers, '/groups', { name: 'Equal', members: [users[1].userId, users[2].userId] })).json().data;
    const fund = g.guarantee_account_id as string;
    expect((await post(t, users[1].headers, `/groups/${g.id}/accept`)).statusCode).toBe(200);
    expect((await post(t, users[2].headers, `/groups/${g.id}/decline`)).statusCode).toBe(200);
    await deposit(users[3], accounts[3], '20.00');
    expect((await transfer(users[3], accounts[3], fund, '10.01')).statusCode).toBe(201);
    const la = await ensureCustomerLedgerAccount(fund, 'USD');
    const sink = await ensureCustomerLedgerAccount(accounts[0], 'USD');
    const entry = (lines: Array<{ accountId: string; direction: 'debit' | 'credit'; amount: string }>) => ({ environment: 'sandbox' as const, idempotencyKey: newId('k'), type: 'mf_guarantee_return', lines });
    // Force lets a frozen fund pay; the fund's posting still refuses an overdraft, and any debit of an account that is not a fund.
    await expect(postGuaranteeFundEntry(entry([{ accountId: la, direction: 'debit', amount: '10.02' }, { accountId: sink, direction: 'credit', amount: '10.02' }]))).rejects.toMatchObject({ code: 'INSUFFICIENT_FUNDS' });
    await expect(postGuaranteeFundEntry(entry([{ accountId: sink, direction: 'debit', amount: '1.00' }, { accountId: la, direction: 'credit', amount: '1.00' }]))).rejects.toMatchObject({ code: 'INVALID_ENTRY' });
    expect(await available(t, t.user, fund)).toBe('10.01');
    const before = await Promise.all([0, 1].map((i) => available(t, users[i], accounts[i])));
    expect((await post(t, op.headers, `/groups/${g.id}/close`)).statusCode).toBe(200);
    // 10.01 between the two accepted members (the one who declined gets nothing): the leader takes the odd cent.
    const gained = await Promise.all([0, 1].map(async (i) => new D(await available(t, users[i], accounts[i])).minus(before[i]).toFixed(2)));
    expect(gained).toEqual(['5.01', '5.00']);
    expect((await getPool().query('SELECT status FROM accounts WHERE id = $1', [fund])).rows[0].status).toBe('closed');
  });

  it('refuses too few or too many members, duplicates, unknown users and other tenants’ users, and accounts not theirs', async () => {
    const refuse = async (body: unknown, code: string) => {
      const r = await post(t, t.headers, '/groups', body);
      expect(r.statusCode, r.body).toBe(422);
      expect(r.json().errors[0].code).toBe(code);
    };
    await refuse({ name: 'Two', members: [users[1].userId] }, 'MF_GROUP_SIZE');
    process.env.MICROFINANCE_GROUP_MAX_MEMBERS = '3';
    try {
      await refuse({ name: 'Four', members: [users[1].userId, users[2].userId, users[3].userId] }, 'MF_GROUP_SIZE');
    } finally {
      delete process.env.MICROFINANCE_GROUP_MAX_MEMBERS;
    }
    await refuse({ name: 'Dup', members: [users[1].userId, { user_id: users[1].userId }] }, 'MF_DUPLICATE_MEMBER');
    await refuse({ name: 'Ghost', members: [users[1].userId, `usr_${'0'.repeat(32)}`] }, 'MF_MEMBER_NOT_FOUND');
    // Another member's account is theirs to choose when accepting (naming one, even their own, is refused);
    // the creator's own account_id must be one of the creator's accounts.
    await refuse({ name: 'Foreign acct', members: [users[1].userId, { user_id: users[2].userId, account_id: accounts[2] }] }, 'VALIDATION_ERROR');
    await refuse({ name: 'Not mine', members: [{ user_id: t.user.userId, account_id: accounts[3] }, users[1].userId, users[2].userId] }, 'MF_MEMBER_ACCOUNT_REQUIRED');

    // A user of a partner tenant is not a customer of the platform's own groups (same answer as unknown).
    const tenant = newId('ten');
    const partner = newId('ptn');
    const partnerUser = await createTestUser();
    await getPool().query(
      `INSERT INTO partners (id, organization_name, contact_email, tier, status, modules, requests_per_minute, burst_limit, user_id, partner_key_hash, partner_key_prefix, created_by)
       VALUES ($1, 'P', 'p@example.test', 'starter', 'active', '{microfinance}', 100, 10, $2, $1, 'fpk_', 'test')`,
      [partner, partnerUser.userId],
    );
    await getPool().query(`INSERT INTO partner_tenants (id, partner_id, name, plan, domain, status) VALUES ($1, $2, 'T', 'basic', $3, 'active')`, [tenant, partner, `${tenant}.example`]);
    const tenanted = await createTestUser();
    await getPool().query(`INSERT INTO accounts (id, user_id, environment, name, type, status) VALUES ($1, $2, 'sandbox', 't', 'personal', 'active')`, [newId('acct'), tenanted.userId]);
    await getPool().query('UPDATE users SET tenant_id = $2 WHERE id = $1', [tenanted.userId, tenant]);
    await refuse({ name: 'Cross tenant', members: [users[1].userId, tenanted.userId] }, 'MF_MEMBER_NOT_FOUND');
  });

  it('validates the body strictly', async () => {
    expect((await post(t, t.headers, '/groups', { name: 'x', members: [], liability_type: 'several' })).statusCode).toBe(422);
    expect((await post(t, t.headers, '/groups', { name: 'x', members: [users[1].userId], extra: 1 })).statusCode).toBe(422);
  });
});

describe('loan products', () => {
  it('operators define products; customers see the active ones', async () => {
    const body = { name: 'Solidarity 12', currency: 'USD', principal_min: '100', principal_max: '5000', annual_interest_rate: '0.24', interest_method: 'declining_balance', term_instalments: 12, repayment_frequency: 'monthly', arrears_tolerance_days: 3, disbursement_fee: '5.00' };
    expect((await post(t, t.headers, '/loan-products', body)).statusCode).toBe(403);
    const r = await post(t, op.headers, '/loan-products', body);
    expect(r.statusCode, r.body).toBe(201);
    expect(r.json().data).toMatchObject({ principal_min: '100.00', principal_max: '5000.00', annual_interest_rate: '0.24', disbursement_fee: '5.00', status: 'active' });
    await getPool().query(`UPDATE mf_loan_products SET status = 'retired' WHERE id = $1`, [r.json().data.id]);
    const r2 = await post(t, op.headers, '/loan-products', { ...body, name: 'Active one' });
    const seen = (await get(t, t.headers, '/loan-products')).json().data.map((p: { id: string }) => p.id);
    expect(seen).toContain(r2.json().data.id);
    expect(seen).not.toContain(r.json().data.id);
    expect((await get(t, op.headers, '/loan-products')).json().data.map((p: { id: string }) => p.id)).toContain(r.json().data.id);
    const bad = await post(t, op.headers, '/loan-products', { ...body, principal_min: '6000' });
    expect(bad.statusCode).toBe(422);
    expect((await post(t, op.headers, '/loan-products', { ...body, currency: 'JPY', principal_min: '100.5' })).json().errors[0].code).toBe('AMOUNT_PRECISION');
  });
});

describe('tenant isolation (issue 41)', () => {
  it("a group of a tenant's customers: another customer of the tenant and a customer of another tenant get 404 on the group, its invitations and its loans; a declined invitee sees no loan; nothing changes", async () => {
    const { t1, a, b, c } = await tenantCustomers(t.user.userId);
    const [d, e, f] = await Promise.all([createTestUser(), createTestUser(), createTestUser()]);
    await getPool().query('UPDATE users SET tenant_id = $2 WHERE id = ANY($1::text[])', [[d.userId, e.userId, f.userId], t1]);
    for (const u of [a, b, c, d, e, f]) await openAccount(t, u);
    const pending = (await post(t, a.headers, '/groups', { name: 'Pending circle', members: [d.userId, e.userId] })).json().data;
    const g = (await post(t, a.headers, '/groups', { name: 'Tenant circle', members: [d.userId, e.userId, f.userId] })).json().data;
    for (const u of [d, e]) expect((await post(t, u.headers, `/groups/${g.id}/accept`)).statusCode).toBe(200);
    expect((await post(t, f.headers, `/groups/${g.id}/decline`)).statusCode).toBe(200);
    expect((await post(t, op.headers, `/groups/${g.id}/activate`)).statusCode).toBe(200);
    const product = (await post(t, op.headers, '/loan-products', {
      name: 'Tenant 6', currency: 'USD', principal_min: '50', principal_max: '500', annual_interest_rate: '0.2', interest_method: 'flat', term_instalments: 6, repayment_frequency: 'monthly',
    })).json().data.id as string;
    const applied = await post(t, a.headers, `/groups/${g.id}/loans`, { product_id: product, principal: '100.00' });
    expect(applied.statusCode, applied.body).toBe(201);
    const loan = applied.json().data.id as string;
    const snapshot = async () => ({
      groups: (await getPool().query('SELECT id, status FROM mf_groups WHERE id = ANY($1::text[]) ORDER BY id', [[pending.id, g.id]])).rows,
      members: (await getPool().query('SELECT group_id, user_id, account_id, status FROM mf_group_members WHERE group_id = ANY($1::text[]) ORDER BY group_id, user_id', [[pending.id, g.id]])).rows,
      loans: (await getPool().query('SELECT id, user_id, status FROM mf_loans WHERE group_id = $1 ORDER BY id', [g.id])).rows,
    });
    const before = await snapshot();
    const groupNotFound = { status: 404, code: 'MF_GROUP_NOT_FOUND' };
    const loanNotFound = { status: 404, code: 'MF_LOAN_NOT_FOUND' };
    const MF = '/api/v1/microfinance';
    const probes: Probe[] = [
      { method: 'GET', url: `${MF}/groups/${pending.id}` },
      { method: 'GET', url: `${MF}/groups/${g.id}` },
      { method: 'POST', url: `${MF}/groups/${pending.id}/accept`, payload: {} },
      { method: 'POST', url: `${MF}/groups/${pending.id}/decline`, payload: {} },
      { method: 'GET', url: `${MF}/groups/${g.id}/loans` },
      { method: 'POST', url: `${MF}/groups/${g.id}/loans`, payload: { product_id: product, principal: '100.00' } },
      { method: 'POST', url: `${MF}/groups/${g.id}/loans`, payload: { product_id: product, principal: '100.00', user_id: a.userId } },
      { method: 'GET', url: `${MF}/loans/${loan}`, expect: loanNotFound },
      { method: 'GET', url: `${MF}/loans/${loan}/schedule`, expect: loanNotFound },
      { method: 'GET', url: `${MF}/loans/${loan}/provision`, expect: loanNotFound },
      { method: 'POST', url: `${MF}/loans/${loan}/repayments`, payload: { amount: '1.00' }, expect: loanNotFound },
    ];
    const secrets = [pending.id, g.id, loan, g.guarantee_account_id];
    const wrong = await refusalsOf(t.app, probes, [['B (same tenant)', b.headers], ['C (other tenant)', c.headers]], groupNotFound, secrets);
    for (const [who, u] of [['B', b], ['C', c]] as const) {
      const list = await get(t, u.headers, '/groups');
      if (secrets.some((x) => list.body.includes(x))) wrong.push(`${who} lists A's groups`);
    }
    // A customer of another tenant cannot invite A (the same answer as an unknown user).
    const invite = await post(t, c.headers, '/groups', { name: 'Across', members: [a.userId, d.userId] });
    if (invite.statusCode !== 422 || invite.json().errors[0].code !== 'MF_MEMBER_NOT_FOUND') wrong.push(`C invites A -> ${invite.statusCode} ${invite.body.slice(0, 120)}`);
    // Whoever declined is no member: the group's loans are none of their business.
    wrong.push(...(await refusalsOf(t.app, probes.slice(4, 5).concat(probes.slice(7, 9)), [['F (declined)', f.headers]], groupNotFound, [loan])));
    // A member sees the group's loans, never another member's account (in the loan or the group);
    // the guarantee fund, which A holds for the group, is the group's to pay into.
    const { rows: accounts } = await getPool().query<{ id: string }>('SELECT id FROM accounts WHERE user_id = $1 AND id <> $2', [a.userId, g.guarantee_account_id]);
    for (const url of [`/groups/${g.id}`, `/groups/${g.id}/loans`, `/loans/${loan}`]) {
      const seen = await get(t, d.headers, url);
      if (seen.statusCode !== 200 || accounts.some((x) => seen.body.includes(x.id))) wrong.push(`D (member) GET ${url} -> ${seen.statusCode} ${seen.body.slice(0, 200)}`);
    }
    expect(wrong).toEqual([]);
    expect(await snapshot()).toEqual(before);
  });
});
