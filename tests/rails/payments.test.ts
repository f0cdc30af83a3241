import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildReturnFile, parseNachaFile } from '../../domain/ach/nacha';
import { getPool } from '../../domain/db/pool';
import { getEntry } from '../../domain/ledger';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createTestUser, type TestApp, type TestUser } from '../helpers/app';
import { balance, openFundedAccount } from '../transfers/helpers';
import { checkOutboxAgainstCatalog } from './events';
import { parseWithAchLibrary, startRailsHarness, waitForStatus, type RailsHarness } from './harness';

let h: RailsHarness;
let env: TestWorkflowEnvironment;
let t: TestApp;
/** Transmitting ACH files is an operator action (issue 13 item 3). */
let operator: TestUser;

beforeAll(async () => {
  h = await startRailsHarness('rails-test');
  ({ env, t } = h);
  operator = await createTestUser({ admin: true });
}, 120_000);

afterAll(async () => {
  await h?.close();
});

const us = (extra: Record<string, unknown> = {}) => ({ name: 'Bob Payee', account_number: '123456789', routing_number: '021000021', ...extra });
const de = (extra: Record<string, unknown> = {}) => ({ name: 'Eva Empfänger', iban: 'DE89370400440532013000', bic: 'COBADEFFXXX', ...extra });

async function pay(body: Record<string, unknown>, headers = t.headers) {
  return t.app.inject({ method: 'POST', url: '/api/v1/payment-rails/payments', headers, payload: body });
}

/** Runs the payment's workflow to its end on skipped time, then reads the payment. */
async function finish(id: string, workflowId: string) {
  await env.client.workflow.getHandle(workflowId).result();
  return (await t.app.inject({ method: 'GET', url: `/api/v1/payment-rails/payments/${id}`, headers: t.headers })).json().data;
}

describe('payment rails', () => {
  it('lists every rail with limits, cut-offs, holidays of this and next year, and availability', async () => {
    const r = await t.app.inject({ method: 'GET', url: '/api/v1/payment-rails/rails', headers: t.headers });
    expect(r.statusCode).toBe(200);
    const rails = r.json().data;
    expect(rails.map((x: any) => x.rail)).toEqual(['ach_standard', 'ach_same_day', 'fedwire', 'rtp', 'fednow', 'sepa_ct', 'sepa_instant', 'swift']);
    const sameDay = rails.find((x: any) => x.rail === 'ach_same_day');
    expect(sameDay.cut_off_times.map((w: any) => w.cutoff)).toEqual(['10:30', '14:45', '16:45']);
    expect(sameDay.limits.max_amount).toBe('1000000.00');
    const year = new Date().getUTCFullYear();
    expect(sameDay.holidays.some((h: any) => h.date.startsWith(String(year + 1)) && h.name === 'Thanksgiving Day')).toBe(true);
    expect(rails.find((x: any) => x.rail === 'sepa_ct').holidays.some((h: any) => h.name === 'Good Friday')).toBe(true);
    expect(rails.find((x: any) => x.rail === 'rtp').available_now).toBe(true);
    const swift = rails.find((x: any) => x.rail === 'swift');
    expect(swift.business_days).toBe('Monday-Friday except UK (England and Wales) bank holidays');
    expect(swift.holidays.some((h: any) => h.name === 'Summer bank holiday')).toBe(true);
    expect(swift.settlement_calendars.map((c: any) => [c.currency, c.business_days])).toEqual([
      ['USD', 'Monday-Friday except Federal Reserve holidays'],
      ['EUR', 'Monday-Friday except TARGET2 closing days'],
      ['GBP', 'Monday-Friday except UK (England and Wales) bank holidays'],
      ['CHF', 'Monday-Friday'],
      ['JPY', 'Monday-Friday'],
    ]);
  });

  it('ACH: settles on the effective date, then a return R01 after posting reverses the entry', async () => {
    const acct = await openFundedAccount(t, t.headers, '1000.00');
    const r = await pay({ account_id: acct, amount: '250.00', currency: 'USD', rail: 'ach_standard', creditor_account: us({ name: 'Bob RETURN:R01' }), memo: 'rent' });
    expect(r.statusCode).toBe(201);
    const created = r.json().data;
    expect(created).toMatchObject({ status: 'pending', rail: 'ach_standard', routing: { rail: 'ach_standard' } });
    // The ACH operator settles only entries it received: the entry goes out in the platform operator's file.
    await waitForStatus(created.id, 'submitted');
    expect((await t.app.inject({ method: 'POST', url: '/api/v1/payment-rails/ach/files', headers: operator.headers, payload: { transmit: true } })).json().data.payment_ids).toEqual([created.id]);
    const done = await finish(created.id, created.workflow_id);
    expect(done).toMatchObject({ status: 'returned', failure: { code: 'R01', reason: 'Insufficient funds' }, compensation_executed: true });
    expect(done.rail_message).toHaveLength(94);
    expect(done.trace_number).toMatch(/^12345678\d{7}$/);
    const statuses = done.history.map((h: any) => h.status);
    expect(statuses).toEqual(['pending', 'validated', 'reserved', 'screened', 'message_built', 'submitted', 'settled', 'returned', 'compensation_executed']);
    const { rows } = await getPool().query('SELECT reservation_entry_id, reversal_entry_id FROM rail_payments WHERE id = $1', [created.id]);
    expect((await getEntry(rows[0].reservation_entry_id))!.status).toBe('posted');
    expect((await getEntry(rows[0].reversal_entry_id))!.reversesEntryId).toBe(rows[0].reservation_entry_id);
    expect(await balance(t, t.headers, acct)).toMatchObject({ total_balance: '1000.00', available_balance: '1000.00' });
  });

  it('ACH happy path completes after the return window; the ACH file and a later return file reverse it', async () => {
    const acct = await openFundedAccount(t, t.headers, '500.00');
    const created = (await pay({ account_id: acct, amount: '120.50', currency: 'USD', rail: 'ach_same_day', creditor_account: us({ account_type: 'savings' }) })).json().data;
    // Before the file is built the payment is submitted; the platform operator transmits the file while the workflow waits.
    const handle = env.client.workflow.getHandle(created.workflow_id);
    await waitForStatus(created.id, 'submitted');
    const file = await t.app.inject({ method: 'POST', url: '/api/v1/payment-rails/ach/files', headers: operator.headers, payload: { transmit: true } });
    expect(file.statusCode).toBe(201);
    const f = file.json().data;
    expect(f.payment_ids).toEqual([created.id]);
    expect(f.status).toBe('transmitted');
    const parsed = await parseWithAchLibrary(f.content);
    expect(parsed.batches[0].entries[0]).toMatchObject({ transactionCode: '32', amount: 12050 });
    expect(parsed.file.footer.totalCredit).toBe(12050);
    await handle.result();
    const done = (await t.app.inject({ method: 'GET', url: `/api/v1/payment-rails/payments/${created.id}`, headers: t.headers })).json().data;
    expect(done.status).toBe('completed');
    expect(await balance(t, t.headers, acct)).toMatchObject({ total_balance: '379.50' });

    // A late return file (after completion) reverses directly.
    const original = parseNachaFile(f.content).batches[0].entries[0];
    const ret = buildReturnFile({ rdfi_routing: '021000021', odfi_id: '12345678', odfi_name: 'SANDBOX', created_at: new Date(), effective_date: '2026-11-27', returns: [{ original, reason_code: 'R03' }] });
    const ing = await t.app.inject({ method: 'POST', url: '/api/v1/payment-rails/ach/returns', headers: t.headers, payload: { file: ret } });
    expect(ing.statusCode).toBe(200);
    expect(ing.json().data).toEqual([expect.objectContaining({ payment_id: created.id, return_reason_code: 'R03', action: 'reversed' })]);
    const after = (await t.app.inject({ method: 'GET', url: `/api/v1/payment-rails/payments/${created.id}`, headers: t.headers })).json().data;
    expect(after).toMatchObject({ status: 'returned', failure: { code: 'R03' }, compensation_executed: true });
    expect(await balance(t, t.headers, acct)).toMatchObject({ total_balance: '500.00' });
    // Another user's return file cannot touch this payment.
    const stranger = await createTestUser();
    const other = await t.app.inject({ method: 'POST', url: '/api/v1/payment-rails/ach/returns', headers: stranger.headers, payload: { file: ret } });
    expect(other.json().data[0].action).toBe('unmatched');
  });

  it('the workflow is found by PaymentId and Rail (not TransferId), with account, asset, amount, environment, user and business status', async () => {
    const acct = await openFundedAccount(t, t.headers, '50.00');
    const created = (await pay({ account_id: acct, amount: '12.34', currency: 'USD', rail: 'fednow', creditor_account: us() })).json().data;
    const handle = env.client.workflow.getHandle(created.workflow_id);
    await handle.result();
    const sa = (await handle.describe()).typedSearchAttributes;
    const get = (name: string, type: string) => sa.get({ name, type } as never);
    expect(get('PaymentId', 'KEYWORD')).toBe(created.id);
    expect(get('Rail', 'KEYWORD')).toBe('fednow');
    expect(get('TransferId', 'KEYWORD')).toBeUndefined();
    expect(get('AccountIds', 'KEYWORD_LIST')).toEqual([acct]);
    expect(get('AssetCode', 'KEYWORD')).toBe('USD');
    expect(get('Amount', 'KEYWORD')).toBe('12.34');
    expect(get('Environment', 'KEYWORD')).toBe('sandbox');
    expect(get('UserId', 'KEYWORD')).toBe(t.user.userId);
    expect(get('BusinessStatus', 'KEYWORD')).toBe('completed');
  });

  it('SEPA CT rejected with AC04 voids the reservation; the pacs.002 carries the reason', async () => {
    const acct = await openFundedAccount(t, t.headers, '300.00', 'EUR');
    const created = (await pay({ account_id: acct, amount: '100.00', currency: 'EUR', rail: 'sepa_ct', creditor_account: de(), memo: 'REJECT:AC04' })).json().data;
    const done = await finish(created.id, created.workflow_id);
    expect(done).toMatchObject({ status: 'rejected', failure: { code: 'AC04' }, compensation_executed: true });
    expect(done.rail_message).toContain('pacs.008.001.08');
    expect(done.status_report).toContain('<TxSts>RJCT</TxSts>');
    expect(done.status_report).toContain('<Cd>AC04</Cd>');
    expect(await balance(t, t.headers, acct, 'EUR')).toMatchObject({ total_balance: '300.00', available_balance: '300.00', reserved_balance: '0.00' });
  });

  it('Fedwire, RTP and FedNow complete with the money posted; instant rails settle with ACSC', async () => {
    const acct = await openFundedAccount(t, t.headers, '10000.00');
    for (const [rail, amount] of [['fedwire', '2500.00'], ['rtp', '10.00'], ['fednow', '20.00']] as const) {
      const created = (await pay({ account_id: acct, amount, currency: 'USD', rail, creditor_account: us() })).json().data;
      const done = await finish(created.id, created.workflow_id);
      expect(done.status, rail).toBe('completed');
      expect(done.rail_message).toContain('<ClrSysMmbId>');
      expect(done.status_report).toContain('<TxSts>ACSC</TxSts>');
    }
    expect(await balance(t, t.headers, acct)).toMatchObject({ total_balance: '7470.00' });
  });

  it('auto routing explains its choice; SWIFT settles next business day; TIMEOUT compensates', async () => {
    const acct = await openFundedAccount(t, t.headers, '1000.00', 'EUR');
    const auto = (await pay({ account_id: acct, amount: '10.00', currency: 'EUR', rail: 'auto', urgency: 'instant', creditor_account: de() })).json().data;
    expect(auto.routing.rail).toBe('sepa_instant');
    expect(auto.routing.reason).toMatch(/instant/);
    expect((await finish(auto.id, auto.workflow_id)).status).toBe('completed');

    const swift = (await pay({ account_id: acct, amount: '10.00', currency: 'EUR', rail: 'swift', creditor_account: { name: 'Ana', iban: 'BR1800360305000010009795493C1', bic: 'BRASBRRJXXX' } })).json().data;
    expect((await finish(swift.id, swift.workflow_id)).status).toBe('completed');

    const timeout = (await pay({ account_id: acct, amount: '10.00', currency: 'EUR', rail: 'sepa_ct', creditor_account: de(), memo: 'TIMEOUT' })).json().data;
    expect(await finish(timeout.id, timeout.workflow_id)).toMatchObject({ status: 'failed', failure: { code: 'SETTLEMENT_TIMEOUT' }, compensation_executed: true });
    expect(await balance(t, t.headers, acct, 'EUR')).toMatchObject({ total_balance: '980.00', reserved_balance: '0.00' });
  });

  it("lists the caller's payments newest first with pagination and filters", async () => {
    const u = await createTestUser();
    const usd = await openFundedAccount(t, u.headers, '1000.00');
    const eur = await openFundedAccount(t, u.headers, '1000.00', 'EUR');
    const made: Array<{ id: string; workflow_id: string }> = [];
    for (const body of [
      { account_id: usd, amount: '1.00', currency: 'USD', rail: 'rtp', creditor_account: us() },
      { account_id: usd, amount: '2.00', currency: 'USD', rail: 'fednow', creditor_account: us() },
      { account_id: eur, amount: '3.00', currency: 'EUR', rail: 'sepa_instant', creditor_account: de() },
      { account_id: eur, amount: '4.00', currency: 'EUR', rail: 'sepa_instant', creditor_account: de(), memo: 'REJECT:AC04' },
      { account_id: usd, amount: '5.00', currency: 'USD', rail: 'rtp', creditor_account: us() },
    ]) {
      const c = (await pay(body, u.headers)).json().data;
      await env.client.workflow.getHandle(c.workflow_id).result();
      made.push(c);
    }
    const list = (q: string, headers = u.headers) => t.app.inject({ method: 'GET', url: `/api/v1/payment-rails/payments${q}`, headers });
    const ids = (r: { json(): any }) => r.json().data.map((p: any) => p.id);
    const newestFirst = [...made].reverse().map((p) => p.id);

    const page1 = await list('?per_page=2');
    expect(page1.statusCode).toBe(200);
    expect(ids(page1)).toEqual(newestFirst.slice(0, 2));
    expect(page1.json().meta).toMatchObject({ current_page: 1, last_page: 3, per_page: 2, total: 5, from: 1, to: 2 });
    expect(page1.json().links.next).toBe('/api/v1/payment-rails/payments?per_page=2&page=2');
    const item = page1.json().data[0];
    expect(item).toMatchObject({ id: made[4].id, status: 'completed', rail: 'rtp', amount: '5.00', currency: 'USD', account_id: usd });
    expect(item).not.toHaveProperty('rail_message');
    expect(item).not.toHaveProperty('history');
    expect(ids(await list('?per_page=2&page=3'))).toEqual(newestFirst.slice(4));

    expect(ids(await list('?status=rejected'))).toEqual([made[3].id]);
    expect(ids(await list('?rail=rtp'))).toEqual([made[4].id, made[0].id]);
    expect(ids(await list(`?account_id=${eur}`))).toEqual([made[3].id, made[2].id]);
    expect(ids(await list('?currency=eur&status=completed'))).toEqual([made[2].id]);
    const { rows } = await getPool().query<{ created_at: Date }>('SELECT created_at FROM rail_payments WHERE id = $1', [made[2].id]);
    const from = rows[0].created_at.toISOString();
    expect(ids(await list(`?start_date=${encodeURIComponent(from)}`))).toEqual(newestFirst.slice(0, 3));
    expect(ids(await list(`?end_date=${encodeURIComponent(from)}`))).toEqual(newestFirst.slice(3));
    const badRange = await list(`?start_date=${encodeURIComponent(from)}&end_date=${encodeURIComponent(from)}`);
    expect(badRange.statusCode).toBe(422);
    expect(badRange.json().errors[0].code).toBe('INVALID_DATE_RANGE');
    expect((await list('?per_page=500')).statusCode).toBe(422);
    expect((await list('?rail=carrier_pigeon')).statusCode).toBe(422);
    expect((await list('?colour=blue')).statusCode).toBe(422);

    // Tenant isolation: another user sees none of them, even filtering by this user's account.
    const stranger = await createTestUser();
    expect((await list(`?account_id=${usd}`, stranger.headers)).json()).toMatchObject({ data: [], meta: { total: 0 } });
  });

  it('refuses bad input with 4xx and hides other users\' payments', async () => {
    const acct = await openFundedAccount(t, t.headers, '100.00');
    const bad = async (body: Record<string, unknown>, code: string, status = 422) => {
      const r = await pay({ account_id: acct, amount: '1.00', currency: 'USD', rail: 'ach_standard', creditor_account: us(), ...body });
      expect(r.statusCode, code).toBe(status);
      expect(r.json().errors[0].code).toBe(code);
    };
    await bad({ amount: '1.001' }, 'AMOUNT_PRECISION');
    await bad({ amount: '0' }, 'AMOUNT_NOT_POSITIVE');
    await bad({ amount: 5 }, 'VALIDATION_ERROR');
    await bad({ creditor_account: us({ routing_number: '021000022' }) }, 'INVALID_ROUTING_NUMBER');
    await bad({ rail: 'rtp', amount: '20000000.00' }, 'RAIL_NOT_ELIGIBLE');
    await bad({ rail: 'sepa_ct' }, 'RAIL_NOT_ELIGIBLE');
    await bad({ extra: 1 }, 'VALIDATION_ERROR');
    const stranger = await createTestUser();
    await bad({ account_id: (await openFundedAccount(t, stranger.headers, '0')) }, 'ACCOUNT_NOT_FOUND', 404);
    const mine = (await pay({ account_id: acct, amount: '1.00', currency: 'USD', rail: 'rtp', creditor_account: us() })).json().data;
    expect((await t.app.inject({ method: 'GET', url: `/api/v1/payment-rails/payments/${mine.id}`, headers: stranger.headers })).statusCode).toBe(404);
    await env.client.workflow.getHandle(mine.workflow_id).result();
  });
});

describe('payment_rail events', () => {
  it('every payment_rail.* event written above validates against its catalog schema', async () => {
    const { problems, seen } = await checkOutboxAgainstCatalog(['payment_rail', 'workflow']);
    expect(problems).toEqual([]);
    for (const type of ['pending', 'validated', 'reserved', 'screened', 'message_built', 'submitted', 'rail_rejected', 'settled', 'completed', 'rejected', 'failed', 'returned', 'compensation_executed']) {
      expect(seen).toContain(`payment_rail.${type}`);
    }
    // Rails never write the transfer-shaped workflow.* events.
    expect([...seen].filter((s) => s.startsWith('workflow.'))).toEqual([]);
  });
});
