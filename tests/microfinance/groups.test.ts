import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPool } from '../../domain/db/pool';
import { newId } from '../../domain/platform/ids';
import { createTestApp, createTestUser, type TestApp, type TestUser } from '../helpers/app';
import { get, openAccount, post } from './mf-helpers';

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

describe('groups', () => {
  it('the creator leads; members get their oldest active account; a guarantee fund account is opened; operators activate', async () => {
    const second = await openAccount(t, users[1]);
    const r = await post(t, t.headers, '/groups', { name: 'Women of Kibera', liability_type: 'joint', members: [users[1].userId, { user_id: users[2].userId, account_id: accounts[2] }] });
    expect(r.statusCode, r.body).toBe(201);
    const g = r.json().data;
    expect(g).toMatchObject({ status: 'pending', liability_type: 'joint', created_by: t.user.userId });
    expect(g.members).toEqual([
      expect.objectContaining({ user_id: t.user.userId, role: 'leader', account_id: accounts[0] }),
      expect.objectContaining({ user_id: users[1].userId, role: 'member', account_id: accounts[1] }),
      expect.objectContaining({ user_id: users[2].userId, role: 'member', account_id: accounts[2] }),
    ]);
    expect(second).not.toBe(accounts[1]);
    const fund = await getPool().query('SELECT user_id, type, metadata FROM accounts WHERE id = $1', [g.guarantee_account_id]);
    expect(fund.rows[0]).toMatchObject({ user_id: t.user.userId, type: 'savings', metadata: { mf_group_id: g.id, purpose: 'mf_guarantee_fund' } });

    // Members see it; an outsider gets 404; operators see all.
    expect((await get(t, users[1].headers, `/groups/${g.id}`)).statusCode).toBe(200);
    expect((await get(t, users[3].headers, `/groups/${g.id}`)).json().errors[0].code).toBe('MF_GROUP_NOT_FOUND');
    expect((await get(t, users[3].headers, `/groups/${g.id}`)).statusCode).toBe(404);
    expect((await get(t, users[3].headers, '/groups')).json().data.map((x: { id: string }) => x.id)).not.toContain(g.id);
    expect((await get(t, users[2].headers, '/groups')).json().data.map((x: { id: string }) => x.id)).toContain(g.id);

    expect((await post(t, t.headers, `/groups/${g.id}/activate`)).statusCode).toBe(403);
    const a = await post(t, op.headers, `/groups/${g.id}/activate`);
    expect(a.statusCode, a.body).toBe(200);
    expect(a.json().data.status).toBe('active');
    const c = await post(t, op.headers, `/groups/${g.id}/close`);
    expect(c.json().data.status).toBe('closed');
    expect((await post(t, op.headers, `/groups/${g.id}/activate`)).statusCode).toBe(409);
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
    await refuse({ name: 'Foreign acct', members: [users[1].userId, { user_id: users[2].userId, account_id: accounts[3] }] }, 'MF_MEMBER_ACCOUNT_REQUIRED');
    const noAccount = await createTestUser();
    await refuse({ name: 'No account', members: [users[1].userId, noAccount.userId] }, 'MF_MEMBER_ACCOUNT_REQUIRED');

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
