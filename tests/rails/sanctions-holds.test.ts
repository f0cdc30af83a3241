import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPool } from '../../domain/db/pool';
import { getEntry } from '../../domain/ledger';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createTestUser, type TestApp, type TestUser } from '../helpers/app';
import { balance, openFundedAccount } from '../transfers/helpers';
import { checkOutboxAgainstCatalog } from './events';
import { startRailsHarness, waitForWorkflowStep, type RailsHarness } from './harness';

let h: RailsHarness;
let env: TestWorkflowEnvironment;
let t: TestApp;
let operator: TestUser;

beforeAll(async () => {
  h = await startRailsHarness('holds-test');
  ({ env, t } = h);
  operator = await createTestUser({ admin: true });
}, 120_000);

afterAll(async () => {
  await h?.close();
});

// An SDN entry of the real OFAC list (loaded into every test database), written as a customer would.
const LISTED = 'Manuel Antonio Noriega';
const de = (name: string) => ({ name, iban: 'DE89370400440532013000', bic: 'COBADEFFXXX' });
const call = (method: 'GET' | 'POST', url: string, headers: Record<string, string>, payload?: unknown) =>
  t.app.inject({ method, url, headers, ...(payload ? { payload: payload as object } : {}) });

async function pay(acct: string, creditor: string) {
  const r = await call('POST', '/api/v1/payment-rails/payments', t.headers, { account_id: acct, amount: '10.00', currency: 'EUR', rail: 'sepa_instant', creditor_account: de(creditor) });
  expect(r.statusCode).toBe(201);
  return r.json().data as { id: string; workflow_id: string };
}

const waitForStep = (workflowId: string, step: string) => waitForWorkflowStep(env, workflowId, step);

async function finish(id: string, workflowId: string) {
  await env.client.workflow.getHandle(workflowId).result();
  return (await call('GET', `/api/v1/payment-rails/payments/${id}`, t.headers)).json().data;
}

async function openHoldOf(paymentId: string) {
  const r = await call('GET', '/api/v2/regtech/holds?status=open&per_page=100', operator.headers);
  expect(r.statusCode).toBe(200);
  return r.json().data.find((x: any) => x.subject_id === paymentId);
}

describe('sanctions holds on outgoing rail payments', () => {
  it('a clean creditor is screened against the loaded list and paid without a hold', async () => {
    const acct = await openFundedAccount(t, t.headers, '100.00', 'EUR');
    const p = await pay(acct, 'Eva Empfänger');
    const done = await finish(p.id, p.workflow_id);
    expect(done.status).toBe('completed');
    const { rows } = await getPool().query(`SELECT status, detail FROM rail_payment_events WHERE payment_id = $1 ORDER BY seq`, [p.id]);
    const screened = rows.find((r) => r.status === 'screened')!;
    expect(screened.detail).toMatchObject({ sanctions_hit: false });
    expect(screened.detail.list_version).toMatch(/^[0-9a-f]{64}$/);
    expect(rows.map((r) => r.status)).not.toContain('held');
  });

  it('a creditor on the OFAC list is held with its amount reserved, and goes on when an operator releases it', async () => {
    const acct = await openFundedAccount(t, t.headers, '100.00', 'EUR');
    const p = await pay(acct, LISTED);
    await waitForStep(p.workflow_id, 'compliance_review');

    const held = (await call('GET', `/api/v1/payment-rails/payments/${p.id}`, t.headers)).json().data;
    expect(held.status).toBe('reserved');
    expect(await balance(t, t.headers, acct, 'EUR')).toMatchObject({ total_balance: '100.00', reserved_balance: '10.00' });
    const hold = await openHoldOf(p.id);
    expect(hold).toMatchObject({ subject_kind: 'rail_payment', framework: 'sanctions', reason_code: 'SANCTIONS_HIT', party: 'creditor', screened_name: LISTED, status: 'open' });
    expect(hold.matches[0].name).toMatch(/NORIEGA/);
    expect(hold.matches[0].score).toBeGreaterThanOrEqual(0.92);

    // Only operators see and decide holds; the payer cannot release its own payment.
    expect((await call('GET', '/api/v2/regtech/holds', t.headers)).statusCode).toBe(403);
    expect((await call('POST', `/api/v2/regtech/holds/${hold.id}/release`, t.headers, {})).statusCode).toBe(403);
    expect((await call('GET', `/api/v2/regtech/holds/hold_${'0'.repeat(32)}`, operator.headers)).statusCode).toBe(404);

    const released = await call('POST', `/api/v2/regtech/holds/${hold.id}/release`, operator.headers, { note: 'namesake: date of birth differs' });
    expect(released.statusCode).toBe(200);
    expect(released.json().data).toMatchObject({ status: 'released', decided_by: operator.userId, decision_note: 'namesake: date of birth differs' });
    const again = await call('POST', `/api/v2/regtech/holds/${hold.id}/reject`, operator.headers, {});
    expect(again.statusCode).toBe(422);
    expect(again.json().errors[0].code).toBe('HOLD_ALREADY_DECIDED');

    const done = await finish(p.id, p.workflow_id);
    expect(done.status).toBe('completed');
    const { rows } = await getPool().query(`SELECT status FROM rail_payment_events WHERE payment_id = $1 ORDER BY seq`, [p.id]);
    expect(rows.map((r) => r.status)).toEqual(expect.arrayContaining(['screened', 'held', 'released', 'submitted']));
    const ev = await getPool().query(`SELECT data FROM platform_events WHERE type = 'compliance.violation.detected' AND aggregate_id = $1`, [hold.id]);
    expect(ev.rows).toHaveLength(1);
    expect(ev.rows[0].data).toMatchObject({ framework: 'sanctions', code: 'SANCTIONS_HIT', hold_id: hold.id, subject_id: p.id, party: 'creditor' });
  });

  it('an operator rejects a held payment: it fails with SANCTIONS_REJECTED and the reservation is voided', async () => {
    const acct = await openFundedAccount(t, t.headers, '100.00', 'EUR');
    const p = await pay(acct, 'NORIEGA, Manuel Antonio');
    await waitForStep(p.workflow_id, 'compliance_review');
    const hold = await openHoldOf(p.id);
    expect((await call('POST', `/api/v2/regtech/holds/${hold.id}/reject`, operator.headers, { note: 'confirmed match' })).statusCode).toBe(200);
    const done = await finish(p.id, p.workflow_id);
    expect(done).toMatchObject({ status: 'failed', failure: { code: 'SANCTIONS_REJECTED' }, compensation_executed: true });
    expect(await balance(t, t.headers, acct, 'EUR')).toMatchObject({ total_balance: '100.00', reserved_balance: '0.00' });
    const { rows } = await getPool().query(`SELECT reservation_entry_id FROM rail_payments WHERE id = $1`, [p.id]);
    expect((await getEntry(rows[0].reservation_entry_id))!.status).toBe('voided');
  });

  it('no decision within the review window: the hold expires and the payment is compensated (skipped time)', async () => {
    const acct = await openFundedAccount(t, t.headers, '100.00', 'EUR');
    const p = await pay(acct, LISTED);
    const done = await finish(p.id, p.workflow_id);
    expect(done).toMatchObject({ status: 'failed', failure: { code: 'SANCTIONS_REVIEW_TIMEOUT' }, compensation_executed: true });
    const { rows } = await getPool().query(`SELECT status, decided_at FROM compliance_holds WHERE subject_id = $1`, [p.id]);
    expect(rows[0].status).toBe('expired');
    expect(rows[0].decided_at).not.toBeNull();
    // A decision after the end changes nothing.
    const late = await call('POST', `/api/v2/regtech/holds/${(await getPool().query(`SELECT id FROM compliance_holds WHERE subject_id = $1`, [p.id])).rows[0].id}/release`, operator.headers, {});
    expect(late.json().errors[0].code).toBe('HOLD_ALREADY_DECIDED');
    expect(await balance(t, t.headers, acct, 'EUR')).toMatchObject({ total_balance: '100.00', reserved_balance: '0.00' });
  });

  it('every event these payments produced matches the catalog', async () => {
    const { problems, seen } = await checkOutboxAgainstCatalog(['payment_rail', 'compliance']);
    expect(problems).toEqual([]);
    expect([...seen]).toEqual(expect.arrayContaining(['payment_rail.screened', 'payment_rail.held', 'payment_rail.released', 'compliance.violation.detected']));
  });
});
