import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPool } from '../../domain/db/pool';
import {
  ALLOWANCE_ACCOUNT_CODE,
  PROVISION_EXPENSE_ACCOUNT_CODE,
  allowanceBalance,
  runProvisioning,
  todayUtc,
} from '../../domain/microfinance/provisioning';
import { newId } from '../../domain/platform/ids';
import type { Environment } from '../../domain/platform/environment';
import { getTemporalClient } from '../../domain/temporal/client';
import { createTestApp, createTestUser, type TestApp, type TestUser } from '../helpers/app';
import { startTestWorker, type TestWorker } from '../helpers/worker';

let t: TestApp;
let w: TestWorker;
let operator: TestUser;
let other: TestUser;
let accountId: string;
let groupId: string;
const productIds = new Map<string, string>();

const addDays = (date: string, days: number) => new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

async function asset(code: string, precision = 2) {
  await getPool().query(`INSERT INTO assets (code, name, type, precision) VALUES ($1, $1, 'fiat', $2) ON CONFLICT DO NOTHING`, [code, precision]);
}

interface Inst { due: string; principal: string; interest: string; paid?: boolean }

/** An active loan row with its schedule (inserted directly: provisioning reads the tables). */
async function seedLoan(o: { currency: string; environment?: Environment; userId?: string; disbursedOn: string; schedule: Inst[] }): Promise<string> {
  const pool = getPool();
  const environment = o.environment ?? 'sandbox';
  const key = `${environment}:${o.currency}`;
  if (!productIds.has(key)) {
    const id = newId('mfprod');
    await pool.query(
      `INSERT INTO mf_loan_products (id, environment, name, currency, principal_min, principal_max, annual_interest_rate, interest_method, term_instalments, repayment_frequency)
       VALUES ($1, $2, 'test', $3, 1, 1000000, 0.12, 'flat', 4, 'monthly')`,
      [id, environment, o.currency],
    );
    productIds.set(key, id);
  }
  const id = newId('loan');
  const principal = o.schedule.reduce((s, i) => s + Number(i.principal), 0);
  await pool.query(
    `INSERT INTO mf_loans (id, environment, group_id, user_id, account_id, product_id, currency, principal, annual_interest_rate, interest_method,
       term_instalments, repayment_frequency, status, workflow_id, disbursed_on)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 0.12, 'flat', $9, 'monthly', 'active', $1, $10)`,
    [id, environment, groupId, o.userId ?? t.user.userId, accountId, productIds.get(key), o.currency, principal, o.schedule.length, o.disbursedOn],
  );
  for (const [n, i] of o.schedule.entries()) {
    await pool.query(
      `INSERT INTO mf_loan_instalments (loan_id, number, due_date, principal_due, interest_due, principal_paid, interest_paid, paid_on)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [id, n + 1, i.due, i.principal, i.interest, i.paid ? i.principal : 0, i.paid ? i.interest : 0, i.paid ? i.due : null],
    );
  }
  return id;
}

/** A four-instalment monthly loan of 1000 (250 + 10 interest each), first due `firstDue`, the first `paid` instalments paid. */
function monthly(firstDue: string, paid = 0): { disbursedOn: string; schedule: Inst[] } {
  const due = (k: number) => {
    const d = new Date(`${firstDue}T00:00:00Z`);
    d.setUTCMonth(d.getUTCMonth() + k);
    return d.toISOString().slice(0, 10);
  };
  return { disbursedOn: due(-1), schedule: [0, 1, 2, 3].map((k) => ({ due: due(k), principal: '250', interest: '10', paid: k < paid })) };
}

async function provisionsSum(environment: Environment, currency: string): Promise<string> {
  const { rows } = await getPool().query<{ s: string }>(
    `SELECT COALESCE(sum(p.ecl), 0)::numeric(38,2)::text AS s FROM mf_loan_provisions p JOIN mf_loans l ON l.id = p.loan_id
     WHERE l.environment = $1 AND l.currency = $2 AND l.status = 'active'`,
    [environment, currency],
  );
  return rows[0].s;
}

async function provisionEntries(environment: Environment, currency: string): Promise<number> {
  const { rows } = await getPool().query<{ n: number }>(
    `SELECT count(DISTINCT je.id)::int AS n FROM journal_entries je JOIN ledger_lines ll ON ll.entry_id = je.id
     WHERE je.environment = $1 AND je.type = 'provision' AND ll.asset_code = $2`,
    [environment, currency],
  );
  return rows[0].n;
}

async function stageOf(loanId: string) {
  const { rows } = await getPool().query('SELECT stage, days_past_due, ead::numeric(38,2)::text AS ead, ecl::numeric(38,2)::text AS ecl, policy_version FROM mf_loan_provisions WHERE loan_id = $1', [loanId]);
  return rows[0];
}

beforeAll(async () => {
  t = await createTestApp();
  operator = await createTestUser({ admin: true });
  other = await createTestUser();
  const r = await t.app.inject({ method: 'POST', url: '/api/v2/accounts', headers: t.headers, payload: { name: 'borrower' } });
  accountId = r.json().data.uuid;
  groupId = newId('mfgrp');
  await getPool().query(`INSERT INTO mf_groups (id, environment, name, liability_type, status, created_by) VALUES ($1, 'sandbox', 'g', 'joint', 'active', $2)`, [groupId, t.user.userId]);
  for (const c of ['MFA', 'MFB', 'MFC', 'MFD', 'MFE']) await asset(c);
}, 120_000);

afterAll(async () => {
  await w?.stop();
  await t?.close();
});

describe('provisioning run', () => {
  it('stages change at 31 and 91 days past due, ECL exact to the cent', async () => {
    const runDate = '2026-06-15';
    // Oldest unpaid instalment due 30, 31, 90, 91 days before the run date.
    const ids: Record<number, string> = {};
    for (const dpd of [0, 30, 31, 90, 91]) {
      const due = addDays(runDate, -dpd);
      ids[dpd] = await seedLoan({ currency: 'MFA', disbursedOn: addDays(due, -30), schedule: [{ due: dpd === 0 ? addDays(runDate, 10) : due, principal: '1000', interest: '0' }] });
    }
    const run = await runProvisioning({ environment: 'sandbox', currency: 'MFA', runDate });
    expect(run.loans).toBe(5);
    expect((await stageOf(ids[0])).stage).toBe(1);
    expect(await stageOf(ids[30])).toMatchObject({ stage: 1, days_past_due: 30, ead: '1000.00', ecl: '9.00' });
    expect(await stageOf(ids[31])).toMatchObject({ stage: 2, days_past_due: 31, ecl: '112.50' });
    expect(await stageOf(ids[90])).toMatchObject({ stage: 2, days_past_due: 90 });
    expect(await stageOf(ids[91])).toMatchObject({ stage: 3, days_past_due: 91, ecl: '650.00' });
    // 9 + 9 + 112.50 + 112.50 + 650
    expect(run.totalEcl).toBe('893.00');
    expect(run.allowanceAfter).toBe('893.00');
    expect(await allowanceBalance('sandbox', 'MFA')).toBe('893.00');
  });

  it('EAD includes overdue and pro-rata interest (the documented accrual rule)', async () => {
    // Paid Jan; Feb and Mar unpaid; run 5 days into the Mar 10 -> Apr 10 period.
    const loan = await seedLoan({ currency: 'MFB', ...monthly('2026-01-10', 1) });
    const run = await runProvisioning({ environment: 'sandbox', currency: 'MFB', runDate: '2026-03-15' });
    // 750 + 20 + 10 x 5/31 = 771.61; stage 2 (33 dpd): 0.25 x 0.45 x 771.61 = 86.806125 -> 86.81
    expect(await stageOf(loan)).toMatchObject({ stage: 2, days_past_due: 33, ead: '771.61', ecl: '86.81', policy_version: 1 });
    expect(run.totalEcl).toBe('86.81');
  });

  it('posts one entry per change: allowance = sum of ECLs, same day posts nothing, cure and worsening post the difference', async () => {
    const env: Environment = 'production';
    const good = await seedLoan({ currency: 'MFC', environment: env, ...monthly('2026-01-10', 0) });
    const late = await seedLoan({ currency: 'MFC', environment: env, ...monthly('2026-01-10', 0) });
    await getPool().query(`UPDATE mf_loan_instalments SET principal_paid = principal_due, interest_paid = interest_due WHERE loan_id = $1 AND number <= 2`, [good]);

    const r1 = await runProvisioning({ environment: env, currency: 'MFC', runDate: '2026-03-05' });
    expect(r1.allowanceBefore).toBe('0.00');
    expect(r1.allowanceAfter).toBe(r1.totalEcl);
    expect(await allowanceBalance(env, 'MFC')).toBe(r1.totalEcl);
    expect(await provisionsSum(env, 'MFC')).toBe(r1.totalEcl);
    expect(r1.entryId).not.toBeNull();
    expect(await provisionEntries(env, 'MFC')).toBe(1);
    const { rows: lines } = await getPool().query(
      `SELECT la.code, ll.direction, ll.amount::numeric(38,2)::text AS amount FROM ledger_lines ll JOIN ledger_accounts la ON la.id = ll.ledger_account_id WHERE ll.entry_id = $1 ORDER BY la.code`,
      [r1.entryId],
    );
    expect(lines).toEqual([
      { code: ALLOWANCE_ACCOUNT_CODE, direction: 'credit', amount: r1.totalEcl },
      { code: PROVISION_EXPENSE_ACCOUNT_CODE, direction: 'debit', amount: r1.totalEcl },
    ]);

    // Same day again: the first run's summary, nothing posted.
    const again = await runProvisioning({ environment: env, currency: 'MFC', runDate: '2026-03-05' });
    expect(again.id).toBe(r1.id);
    expect(await provisionEntries(env, 'MFC')).toBe(1);
    // An earlier day after a later one is refused.
    await expect(runProvisioning({ environment: env, currency: 'MFC', runDate: '2026-03-01' })).rejects.toMatchObject({ code: 'PROVISION_RUN_DATE_STALE' });

    // Worsening: 'late' passes 91 days past due -> increase (Dr expense / Cr allowance).
    const r2 = await runProvisioning({ environment: env, currency: 'MFC', runDate: '2026-04-15' });
    expect((await stageOf(late)).stage).toBe(3);
    expect(Number(r2.change)).toBeGreaterThan(0);
    expect(r2.allowanceBefore).toBe(r1.totalEcl);
    expect(await allowanceBalance(env, 'MFC')).toBe(r2.totalEcl);
    expect(await provisionsSum(env, 'MFC')).toBe(r2.totalEcl);
    expect(await provisionEntries(env, 'MFC')).toBe(2);

    // Cure: 'late' pays everything due; 'good' closes -> decrease (Dr allowance / Cr expense), its provision dropped.
    await getPool().query(`UPDATE mf_loan_instalments SET principal_paid = principal_due, interest_paid = interest_due WHERE loan_id = $1 AND due_date <= '2026-04-20'`, [late]);
    await getPool().query(`UPDATE mf_loans SET status = 'closed' WHERE id = $1`, [good]);
    const r3 = await runProvisioning({ environment: env, currency: 'MFC', runDate: '2026-04-20' });
    expect(Number(r3.change)).toBeLessThan(0);
    expect(r3.loans).toBe(1);
    expect(await stageOf(good)).toBeUndefined();
    expect(await stageOf(late)).toMatchObject({ stage: 1, days_past_due: 0 });
    expect(await allowanceBalance(env, 'MFC')).toBe(r3.totalEcl);
    expect(await provisionsSum(env, 'MFC')).toBe(r3.totalEcl);
    const { rows: rev } = await getPool().query(
      `SELECT la.code, ll.direction FROM ledger_lines ll JOIN ledger_accounts la ON la.id = ll.ledger_account_id WHERE ll.entry_id = $1 ORDER BY la.code`,
      [r3.entryId],
    );
    expect(rev).toEqual([
      { code: ALLOWANCE_ACCOUNT_CODE, direction: 'debit' },
      { code: PROVISION_EXPENSE_ACCOUNT_CODE, direction: 'credit' },
    ]);
  });
});

describe('provisioning routes', () => {
  it('the loan provision: borrower sees theirs, another user 404, operator any', async () => {
    const today = todayUtc();
    const loan = await seedLoan({ currency: 'MFD', disbursedOn: addDays(today, -60), schedule: [{ due: addDays(today, -40), principal: '500', interest: '0' }] });
    const url = `/api/v1/microfinance/loans/${loan}/provision`;
    const mine = await t.app.inject({ method: 'GET', url, headers: t.headers });
    expect(mine.statusCode).toBe(200);
    // stage 2: 0.25 x 0.45 x 500 = 56.25
    expect(mine.json().data).toEqual({ loan_id: loan, currency: 'MFD', stage: 2, days_past_due: 40, ead: '500.00', pd: '0.25', lgd: '0.45', ecl: '56.25', policy_version: 1, as_of: today });
    expect((await t.app.inject({ method: 'GET', url, headers: other.headers })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/microfinance/loans/loan_nope/provision', headers: t.headers })).statusCode).toBe(404);
    const op = await t.app.inject({ method: 'GET', url, headers: operator.headers });
    expect(op.statusCode).toBe(200);
    expect(op.json().data.ecl).toBe('56.25');
  });

  it('operators run, list and report; customers are refused', async () => {
    const today = todayUtc();
    await seedLoan({ currency: 'MFE', disbursedOn: addDays(today, -120), schedule: [{ due: addDays(today, -95), principal: '300', interest: '0' }] });
    await seedLoan({ currency: 'MFE', disbursedOn: addDays(today, -10), schedule: [{ due: addDays(today, 20), principal: '700', interest: '0' }] });
    expect((await t.app.inject({ method: 'POST', url: '/api/v1/microfinance/provisioning/runs', headers: t.headers, payload: {} })).statusCode).toBe(403);
    const run = await t.app.inject({ method: 'POST', url: '/api/v1/microfinance/provisioning/runs', headers: operator.headers, payload: {} });
    expect(run.statusCode).toBe(200);
    const mfe = run.json().data.find((r: { currency: string }) => r.currency === 'MFE');
    // 1 x 0.65 x 300 + 0.02 x 0.45 x 700 (10/30 of zero interest) = 195 + 6.30
    expect(mfe).toMatchObject({ run_date: today, loans: 2, total_ecl: '201.30', allowance_before: '0.00', allowance_after: '201.30', change: '201.30' });
    const list = await t.app.inject({ method: 'GET', url: '/api/v1/microfinance/provisioning/runs?currency=MFE', headers: operator.headers });
    expect(list.json().data).toHaveLength(1);
    const report = await t.app.inject({ method: 'GET', url: '/api/v1/microfinance/reports/portfolio', headers: operator.headers });
    expect(report.statusCode).toBe(200);
    expect(report.json().data.find((r: { currency: string }) => r.currency === 'MFE')).toMatchObject({
      gross_portfolio: '1000.00',
      par30: '0.300000',
      par90: '0.300000',
      allowance_balance: '201.30',
      allowance_by_stage: { '1': '6.30', '2': '0.00', '3': '195.00' },
      loans_by_stage: { '1': 1, '2': 0, '3': 1 },
    });
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/microfinance/reports/portfolio', headers: t.headers })).statusCode).toBe(403);
  });

  it('the policy version in force on the run date is used', async () => {
    const bad = await t.app.inject({
      method: 'POST',
      url: '/api/v1/microfinance/provision-policies',
      headers: operator.headers,
      payload: { effective_from: '2030-01-01', stages: [{ stage: 1, pd: '0.1', lgd: '0.5' }, { stage: 1, pd: '0.3', lgd: '0.5' }, { stage: 3, pd: '1', lgd: '0.8' }] },
    });
    expect(bad.statusCode).toBe(422);
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v1/microfinance/provision-policies',
      headers: operator.headers,
      payload: { effective_from: '2030-01-01', stages: [{ stage: 1, pd: '0.1', lgd: '0.5' }, { stage: 2, pd: '0.3', lgd: '0.5' }, { stage: 3, pd: '1', lgd: '0.8' }] },
    });
    expect(created.statusCode).toBe(201);
    const version = created.json().data.version as number;
    expect(version).toBe(2);
    const loan = await seedLoan({ currency: 'MFA', disbursedOn: '2029-12-01', schedule: [{ due: '2030-02-01', principal: '1000', interest: '0' }] });
    // Before 2030-01-01: version 1 (MFA was last run on 2026-06-15).
    await runProvisioning({ environment: 'sandbox', currency: 'MFA', runDate: '2029-12-31' });
    expect(await stageOf(loan)).toMatchObject({ policy_version: 1, ecl: '9.00' });
    const r = await runProvisioning({ environment: 'sandbox', currency: 'MFA', runDate: '2030-01-01' });
    expect(r.policyVersion).toBe(2);
    expect(await stageOf(loan)).toMatchObject({ policy_version: 2, ecl: '50.00' });
    expect(await allowanceBalance('sandbox', 'MFA')).toBe(r.totalEcl);
    const policies = await t.app.inject({ method: 'GET', url: '/api/v1/microfinance/provision-policies', headers: operator.headers });
    expect(policies.json().data.map((p: { version: number }) => p.version)).toEqual([2, 1]);
  });

  it('the daily workflow runs every environment and currency once per run date', async () => {
    w = await startTestWorker();
    const client = await getTemporalClient();
    const run = () => client.workflow.execute('mfProvisioningWorkflow', { taskQueue: w.taskQueue, workflowId: newId('mfprov-test'), args: [{ runDate: '2031-01-01' }] });
    const first = await run();
    expect(first.runDate).toBe('2031-01-01');
    const scopes = first.runs.map((r: { environment: string; currency: string }) => `${r.environment}:${r.currency}`).sort();
    expect(scopes).toEqual(['production:MFC', 'sandbox:MFA', 'sandbox:MFB', 'sandbox:MFD', 'sandbox:MFE']);
    for (const r of first.runs) expect(await allowanceBalance(r.environment, r.currency)).toBe(r.totalEcl);
    const second = await run();
    expect(second.runs.map((r: { id: string }) => r.id)).toEqual(first.runs.map((r: { id: string }) => r.id));
  });
});
