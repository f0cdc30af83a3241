import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPool } from '../../domain/db/pool';
import { getLedgerAccount, trialBalance } from '../../domain/ledger';
import { DecimalMoney as D } from '../../domain/money/amount';
import { createTestUser, type TestUser } from '../helpers/app';
import { skipTo, startRailsHarness, type RailsHarness } from '../rails/harness';
import { available, get, openAccount, post } from './mf-helpers';

// A year of monthly instalments on the time-skipping test server: the loan's workflow sleeps on
// durable timers until each due date and tolerance deadline.
let h: RailsHarness;
let op: TestUser;
let borrower: TestUser;
let leader: TestUser;
let member: TestUser;
const acct: Record<string, string> = {};
let groupId: string;
let fundId: string;
let productId: string;

beforeAll(async () => {
  h = await startRailsHarness(`mf-loans-${Date.now().toString(36)}`);
  const t = h.t;
  op = await createTestUser({ admin: true });
  borrower = t.user;
  leader = await createTestUser();
  member = await createTestUser();
  acct.borrower = await openAccount(t, borrower, '1200.00');
  acct.leader = await openAccount(t, leader, '20.00');
  acct.member = await openAccount(t, member, '100.00');
  const g = await post(t, leader.headers, '/groups', { name: 'Solidarity', members: [{ user_id: borrower.userId }, member.userId] });
  expect(g.statusCode, g.body).toBe(201);
  groupId = g.json().data.id;
  fundId = g.json().data.guarantee_account_id;
  // Each invited member joins by accepting, with their account.
  expect((await post(t, borrower.headers, `/groups/${groupId}/accept`, { account_id: acct.borrower })).statusCode).toBe(200);
  expect((await post(t, member.headers, `/groups/${groupId}/accept`, { account_id: acct.member })).statusCode).toBe(200);
  const dep = await t.app.inject({ method: 'POST', url: `/api/v2/accounts/${fundId}/deposit`, headers: leader.headers, payload: { amount: '50.00', asset_code: 'USD' } });
  expect(dep.statusCode).toBe(201);
  expect((await post(t, op.headers, `/groups/${groupId}/activate`)).statusCode).toBe(200);
  const p = await post(t, op.headers, '/loan-products', {
    name: 'Monthly 12', currency: 'USD', principal_min: '100.00', principal_max: '2000.00', annual_interest_rate: '0.12',
    interest_method: 'declining_balance', term_instalments: 12, repayment_frequency: 'monthly', arrears_tolerance_days: 5, disbursement_fee: '10.00',
  });
  expect(p.statusCode, p.body).toBe(201);
  productId = p.json().data.id;
}, 120_000);
afterAll(async () => h?.close());

const DAY = 86_400_000;
const usd = (x: string) => new D(x).toFixed(2);

async function ledgerBalance(code: string): Promise<string> {
  const { rows } = await getPool().query<{ id: string }>(`SELECT id FROM ledger_accounts WHERE environment = 'sandbox' AND asset_code = 'USD' AND code = $1`, [code]);
  return rows[0] ? (await getLedgerAccount(rows[0].id))!.totalBalance : '0.00';
}

async function waitFor<T>(what: string, f: () => Promise<T | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

// The write-off runs first: the year's test moves the test server's clock a year past the API's.
describe('group loans', () => {
  it('writes off an active loan: the outstanding principal moves to the write-off expense', async () => {
    const t = h.t;
    const a = await post(t, leader.headers, `/groups/${groupId}/loans`, { product_id: productId, principal: '500.00', user_id: member.userId });
    expect(a.statusCode, a.body).toBe(201);
    const loanId = a.json().data.id;
    expect(a.json().data.user_id).toBe(member.userId);
    await post(t, op.headers, `/loans/${loanId}/approve`);
    expect((await post(t, op.headers, `/loans/${loanId}/disburse`)).statusCode).toBe(200);
    const first = (await get(t, member.headers, `/loans/${loanId}/schedule`)).json().data[0];
    expect((await post(t, member.headers, `/loans/${loanId}/repayments`, { amount: first.total_due })).statusCode).toBe(201);
    const expense0 = await ledgerBalance('mf_write_off_expense');
    const outstanding = new D('500').minus(first.principal_due).toFixed(2);
    const w = await post(t, op.headers, `/loans/${loanId}/write-off`);
    expect(w.statusCode, w.body).toBe(200);
    expect(w.json().data).toMatchObject({ status: 'written_off', write_off_entry_id: expect.any(String) });
    expect(usd(new D(await ledgerBalance('mf_write_off_expense')).minus(expense0).toString())).toBe(outstanding);
    // Polled, not awaited: awaiting a result lets the test server skip time, and the next test needs the clock where it is.
    const handle = h.env.client.workflow.getHandle(`mf-loan-${loanId}`);
    await waitFor('the workflow to end', async () => (await handle.describe()).status.name === 'COMPLETED');
    expect((await post(t, op.headers, `/loans/${loanId}/write-off`)).statusCode).toBe(200);
    expect((await get(t, borrower.headers, `/groups/${groupId}/loans`)).json().data.map((l: { id: string }) => l.id)).toContain(loanId);
    const outsider = await createTestUser();
    expect((await get(t, outsider.headers, `/loans/${loanId}`)).statusCode).toBe(404);
    expect((await trialBalance({ environment: 'sandbox' })).balanced).toBe(true);
  }, 60_000);
  it('disburses, takes repayments, covers a missed instalment by joint liability and closes when paid', async () => {
    const t = h.t;
    const portfolio0 = await ledgerBalance('mf_loan_portfolio');
    const member0 = await available(t, member, acct.member);
    const a = await post(t, borrower.headers, `/groups/${groupId}/loans`, { product_id: productId, principal: '1000.00' });
    expect(a.statusCode, a.body).toBe(201);
    const loanId = a.json().data.id;
    expect(a.json().data).toMatchObject({ status: 'applied', principal: '1000.00', annual_interest_rate: '0.12', arrears_tolerance_days: 5 });
    // Out of range, and another member's application by a non-leader.
    expect((await post(t, borrower.headers, `/groups/${groupId}/loans`, { product_id: productId, principal: '5000.00' })).json().errors[0].code).toBe('MF_PRINCIPAL_OUT_OF_RANGE');
    expect((await post(t, borrower.headers, `/groups/${groupId}/loans`, { product_id: productId, principal: '500.00', user_id: member.userId })).statusCode).toBe(403);

    expect((await post(t, borrower.headers, `/loans/${loanId}/approve`)).statusCode).toBe(403);
    expect((await post(t, op.headers, `/loans/${loanId}/disburse`)).statusCode).toBe(409);
    const ap = await post(t, op.headers, `/loans/${loanId}/approve`);
    expect(ap.statusCode, ap.body).toBe(200);
    const workflowId = `mf-loan-${loanId}`;
    const d = await post(t, op.headers, `/loans/${loanId}/disburse`);
    expect(d.statusCode, d.body).toBe(200);
    expect(d.json().data.status).toBe('active');
    // 1000 lent: 990 to the borrower, 10 fee revenue; the portfolio holds 1000.
    expect(await available(t, borrower, acct.borrower)).toBe('2190.00');
    expect(usd(new D(await ledgerBalance('mf_loan_portfolio')).minus(portfolio0).toString())).toBe('1000.00');

    const view = (await get(t, borrower.headers, `/loans/${loanId}`)).json().data;
    expect(view.schedule).toHaveLength(12);
    expect(view.schedule.slice(0, 11).every((r: { total_due: string }) => r.total_due === '88.85')).toBe(true);
    expect(view.schedule[11].total_due).toBe('88.84');
    expect(view.totals).toMatchObject({ outstanding_principal: '1000.00', outstanding_interest: '66.19', arrears: '0.00' });
    expect((await get(t, member.headers, `/loans/${loanId}/schedule`)).json().data).toHaveLength(12);
    expect((await get(t, op.headers, `/loans/${loanId}`)).statusCode).toBe(200);

    // More than is outstanding is refused.
    const over = await post(t, borrower.headers, `/loans/${loanId}/repayments`, { amount: '1066.20' });
    expect(over.statusCode).toBe(422);
    expect(over.json().errors[0]).toMatchObject({ code: 'MF_REPAYMENT_EXCEEDS_OUTSTANDING' });
    // Only the borrower repays through the API.
    expect((await post(t, member.headers, `/loans/${loanId}/repayments`, { amount: '1.00' })).statusCode).toBe(403);

    const missed = 4;
    for (const row of view.schedule as Array<{ number: number; due_date: string; total_due: string }>) {
      if (row.number !== missed) {
        const headers = { ...borrower.headers, 'idempotency-key': `repay-${loanId}-${row.number}` };
        const r = await t.app.inject({ method: 'POST', url: `/api/v1/microfinance/loans/${loanId}/repayments`, headers, payload: { amount: row.total_due } });
        expect(r.statusCode, r.body).toBe(201);
        if (row.number === 1) {
          // The same Idempotency-Key again: the stored answer, one ledger entry.
          const again = await t.app.inject({ method: 'POST', url: `/api/v1/microfinance/loans/${loanId}/repayments`, headers, payload: { amount: row.total_due } });
          expect(again.statusCode).toBe(201);
          const n = await getPool().query(`SELECT count(*)::int AS n FROM mf_loan_repayments WHERE loan_id = $1`, [loanId]);
          expect(n.rows[0].n).toBe(1);
        }
      }
      if (row.number === 12) break;
      // Past the due date and the 5 days' tolerance (the workflow wakes on the 6th day).
      await skipTo(h.env, new Date(Date.parse(`${row.due_date}T00:00:00Z`) + 7 * DAY));
      if (row.number === missed) {
        await waitFor('joint liability', async () => {
          const { rows } = await getPool().query(`SELECT 1 FROM mf_loan_instalments WHERE loan_id = $1 AND number = $2 AND paid_on IS NOT NULL`, [loanId, missed]);
          return rows.length > 0;
        });
      }
    }
    const result = await h.env.client.workflow.getHandle(workflowId).result();
    expect(result).toEqual({ status: 'closed' });

    const done = (await get(t, borrower.headers, `/loans/${loanId}`)).json().data;
    expect(done.status).toBe('closed');
    expect(done.totals).toMatchObject({ paid: '1066.19', principal_paid: '1000.00', interest_paid: '66.19', outstanding_principal: '0.00', arrears: '0.00' });
    // The guarantee fund first (50.00), then the other members in order: the leader (20.00), then the member (18.85).
    const covers = (v: { repayments: Array<{ source: string; payer_account_id: string | null; amount: string }> }) =>
      v.repayments.filter((r) => r.source !== 'borrower').map((r) => [r.source, r.payer_account_id, r.amount]);
    expect(covers((await get(t, op.headers, `/loans/${loanId}`)).json().data)).toEqual([
      ['guarantee_fund', fundId, '50.00'],
      ['group_member', acct.leader, '20.00'],
      ['group_member', acct.member, '18.85'],
    ]);
    // The borrower sees who covered, not the other members' accounts (nor the fund the leader holds).
    expect(covers(done)).toEqual([
      ['guarantee_fund', null, '50.00'],
      ['group_member', null, '20.00'],
      ['group_member', null, '18.85'],
    ]);
    // The leader sees the fund they hold and their own account.
    expect(covers((await get(t, leader.headers, `/loans/${loanId}`)).json().data).map((x) => x[1])).toEqual([fundId, acct.leader, null]);
    expect(await available(t, leader, fundId)).toBe('0.00');
    // The fund is frozen for life (its leader cannot move money out of it), yet joint liability drew on it, never below zero.
    expect((await getPool().query('SELECT status FROM accounts WHERE id = $1', [fundId])).rows[0].status).toBe('frozen');
    const draw = await getPool().query(`SELECT e.forced_overdraft FROM mf_loan_repayments r JOIN journal_entries e ON e.id = r.entry_id WHERE r.loan_id = $1 AND r.source = 'guarantee_fund'`, [loanId]);
    expect(draw.rows).toEqual([{ forced_overdraft: null }]);
    expect(await available(t, leader, acct.leader)).toBe('0.00');
    expect(await available(t, member, acct.member)).toBe(usd(new D(member0).minus('18.85').toString()));
    // 1200 + 990 − 11 instalments paid by the borrower (10 × 88.85 + 88.84).
    expect(await available(t, borrower, acct.borrower)).toBe(usd(new D('2190').minus(new D('88.85').times(10)).minus('88.84').toString()));
    expect(usd(new D(await ledgerBalance('mf_loan_portfolio')).minus(portfolio0).toString())).toBe('0.00');
    const tb = await trialBalance({ environment: 'sandbox' });
    expect(tb.balanced).toBe(true);
    // Members were told.
    const notes = await getPool().query(`SELECT user_id FROM notifications WHERE event_type = 'microfinance.joint_liability' AND data->>'loan_id' = $1`, [loanId]);
    expect(new Set(notes.rows.map((r) => r.user_id))).toEqual(new Set([borrower.userId, leader.userId, member.userId]));
    expect((await post(t, borrower.headers, `/loans/${loanId}/repayments`, { amount: '1.00' })).statusCode).toBe(409);
  }, 180_000);

});
