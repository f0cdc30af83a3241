import { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildReturnFile, parseNachaFile } from '../../domain/ach/nacha';
import { getPool } from '../../domain/db/pool';
import { getEntry, trialBalance } from '../../domain/ledger';
import { addDays, instantAt, nextBankingDayOnOrAfter, weekday, zoned } from '../../domain/rails/calendar';
import { createTestUser, type TestApp, type TestUser } from '../helpers/app';
import { balance, openFundedAccount } from '../transfers/helpers';
import { checkOutboxAgainstCatalog } from './events';
import { parseWithAchLibrary, skipTo, startRailsHarness, waitForStatus, type RailsHarness } from './harness';

const NY = 'America/New_York';
let h: RailsHarness;
let env: TestWorkflowEnvironment;
let t: TestApp;
let operator: TestUser;

beforeAll(async () => {
  h = await startRailsHarness('rails-ach-files');
  ({ env, t } = h);
  operator = await createTestUser({ admin: true });
}, 120_000);
afterAll(async () => {
  await h?.close();
});

const us = (extra: Record<string, unknown> = {}) => ({ name: 'Bob Payee', account_number: '123456789', routing_number: '021000021', ...extra });

async function pay(body: Record<string, unknown>) {
  const r = await t.app.inject({ method: 'POST', url: '/api/v1/payment-rails/payments', headers: t.headers, payload: body });
  expect(r.statusCode).toBe(201);
  return r.json().data as { id: string; workflow_id: string };
}
const get = async (id: string) => (await t.app.inject({ method: 'GET', url: `/api/v1/payment-rails/payments/${id}`, headers: t.headers })).json().data;
const row = async (id: string) => (await getPool().query('SELECT * FROM rail_payments WHERE id = $1', [id])).rows[0];

/**
 * What a schedule does at its time: start achFileWorkflow for its window (the test server has no
 * schedules). Through a plain client: env.client unlocks time skipping while it waits for a result,
 * and the server could then jump to the payments' own timers (days on, past a weekend) before the
 * file's workflow read its clock. The clock stays where the test put it.
 */
let runs = 0;
function runScheduledFile(window: string) {
  const client = new Client({ connection: env.connection });
  return client.workflow.execute('achFileWorkflow', { taskQueue: h.taskQueue, workflowId: `${window}-run-${++runs}`, args: [{ window }] }) as Promise<Array<{ environment: string; file_id: string | null }>>;
}
const fileRow = async (id: string) => (await getPool().query('SELECT * FROM ach_files WHERE id = $1', [id])).rows[0];

/** The server clock's New York date. */
const today = async () => zoned(new Date(await env.currentTimeMs()), NY).date;

async function expectLedgerBalanced() {
  const tb = await trialBalance({ environment: 'sandbox' });
  expect(tb.balanced).toBe(true);
}

describe('ACH file schedule run (achFileWorkflow)', () => {
  it('collects the submitted ACH payments before the cut-off, transmits the file to the operator, and the payments settle', async () => {
    const day = nextBankingDayOnOrAfter('us_fed', addDays(await today(), 1));
    const next = nextBankingDayOnOrAfter('us_fed', addDays(day, 1));
    await skipTo(env, instantAt(NY, day, '16:00'));
    const acct = await openFundedAccount(t, t.headers, '1000.00');
    const std = await pay({ account_id: acct, amount: '100.00', currency: 'USD', rail: 'ach_standard', creditor_account: us() });
    const same = await pay({ account_id: acct, amount: '40.00', currency: 'USD', rail: 'ach_same_day', creditor_account: us({ name: 'Sam Saver', account_type: 'savings', routing_number: '011000015' }) });
    await waitForStatus(std.id, 'submitted');
    await waitForStatus(same.id, 'submitted');
    // Same-day: the 16:45 window, effective today; standard: the 17:00 file, effective the next banking day.
    expect(await row(same.id)).toMatchObject({ settlement_date: day, ach_file_id: null });
    expect(await row(std.id)).toMatchObject({ settlement_date: next, ach_file_id: null });

    // 16:30 New York: the ach-file-1645 schedule's time, 15 minutes before the cut-off.
    await skipTo(env, instantAt(NY, day, '16:30'));
    const run = await runScheduledFile('ach-file-1645');
    expect(run).toEqual([{ environment: 'sandbox', file_id: expect.stringMatching(/^achf_/) }, { environment: 'production', file_id: null }]);
    const f = await fileRow(run[0].file_id!);
    expect(f).toMatchObject({ status: 'transmitted', entry_count: 2, user_id: null });
    expect(f.summary.acknowledgement).toMatch(/^ACK-[0-9A-F]{20}$/);
    expect(f.summary.payment_ids.sort()).toEqual([std.id, same.id].sort());
    expect((await row(std.id)).ach_file_id).toBe(f.id);
    expect((await row(same.id)).ach_file_id).toBe(f.id);

    // The file, read by an independent NACHA parser: one batch per effective date, the payments' entries and traces, totals.
    const parsed = await parseWithAchLibrary(f.content);
    expect(parsed.batches).toHaveLength(2);
    const yymmdd = (d: string) => d.slice(2).replace(/-/g, '');
    expect(parsed.batches.map((b: any) => b.effectiveDate)).toEqual([yymmdd(day), yymmdd(next)]);
    const entries = parsed.batches.flatMap((b: any) => b.entries);
    expect(entries.map((e: any) => [e.transactionCode, e.amount, String(e.traceNumber)])).toEqual([
      ['32', 4000, (await row(same.id)).trace_number],
      ['22', 10000, (await row(std.id)).trace_number],
    ]);
    expect(parsed.file.footer).toMatchObject({ batchCount: 2, entryAndAddendaCount: 2, totalCredit: 14000, totalDebit: 0 });
    const hash = entries.reduce((s: number, e: any) => s + e.receivingDFIIdentification, 0) % 1e10;
    expect(Number(parsed.file.footer.entryHash)).toBe(hash);

    // A payment submitted after the run waits for the next window's file; nothing is filed twice.
    const late = await pay({ account_id: acct, amount: '5.00', currency: 'USD', rail: 'ach_standard', creditor_account: us({ name: 'Late Larry' }) });
    await waitForStatus(late.id, 'submitted');
    expect((await row(late.id)).ach_file_id).toBeNull();
    await skipTo(env, instantAt(NY, day, '16:45'));
    const run2 = await runScheduledFile('ach-file-1700');
    const f2 = await fileRow(run2[0].file_id!);
    expect(f2.summary.payment_ids).toEqual([late.id]);
    expect(f2.file_id_modifier).not.toBe(f.file_id_modifier);

    // All three move on: settle on their effective dates, then complete after the return window.
    for (const p of [std, same, late]) {
      await env.client.workflow.getHandle(p.workflow_id).result();
      const done = await get(p.id);
      expect(done.status).toBe('completed');
      expect(done.history.map((x: any) => x.status)).toEqual(['pending', 'validated', 'reserved', 'screened', 'message_built', 'submitted', 'settled', 'completed']);
    }
    expect(await balance(t, t.headers, acct)).toMatchObject({ total_balance: '855.00', reserved_balance: '0.00' });
    await expectLedgerBalanced();
  });

  it('files nothing on a weekend; the waiting entry goes out in the next banking day\'s first file', async () => {
    let sat = addDays(await today(), 1);
    while (weekday(sat) !== 6) sat = addDays(sat, 1);
    await skipTo(env, instantAt(NY, sat, '16:30'));
    const acct = await openFundedAccount(t, t.headers, '100.00');
    const p = await pay({ account_id: acct, amount: '10.00', currency: 'USD', rail: 'ach_standard', creditor_account: us() });
    await waitForStatus(p.id, 'submitted');
    expect(await runScheduledFile('ach-file-1645')).toEqual([]);
    expect((await row(p.id)).ach_file_id).toBeNull();

    const monday = nextBankingDayOnOrAfter('us_fed', sat);
    await skipTo(env, instantAt(NY, monday, '10:15'));
    const run = await runScheduledFile('ach-file-1030');
    expect((await fileRow(run[0].file_id!)).summary.payment_ids).toEqual([p.id]);
    await env.client.workflow.getHandle(p.workflow_id).result();
    expect((await get(p.id)).status).toBe('completed');
    expect(await balance(t, t.headers, acct)).toMatchObject({ total_balance: '90.00' });
  });

  it('an entry that never reaches the operator does not settle: SETTLEMENT_TIMEOUT voids the reservation', async () => {
    const acct = await openFundedAccount(t, t.headers, '100.00');
    const p = await pay({ account_id: acct, amount: '30.00', currency: 'USD', rail: 'ach_same_day', creditor_account: us() });
    await env.client.workflow.getHandle(p.workflow_id).result();
    expect(await get(p.id)).toMatchObject({ status: 'failed', failure: { code: 'SETTLEMENT_TIMEOUT' }, compensation_executed: true });
    expect(await balance(t, t.headers, acct)).toMatchObject({ total_balance: '100.00', available_balance: '100.00' });
  });
});

describe('who builds and transmits ACH files', () => {
  const files = (headers: Record<string, string>, payload: Record<string, unknown>) => t.app.inject({ method: 'POST', url: '/api/v1/payment-rails/ach/files', headers, payload });
  const entry = { transaction_code: '22', routing_number: '021000021', account_number: '99887766', amount: '5000.00', name: 'Mallory', effective_date: '2030-01-02' };
  const fileCount = async () => Number((await getPool().query<{ n: string }>('SELECT count(*) AS n FROM ach_files')).rows[0].n);

  it('a customer cannot transmit arbitrary entries (or anything): 403 ADMIN_REQUIRED and nothing recorded', async () => {
    const before = await fileCount();
    const r = await files(t.headers, { entries: [entry], transmit: true });
    expect(r.statusCode, r.body).toBe(403);
    expect(r.json().errors[0]).toMatchObject({ code: 'ADMIN_REQUIRED' });
    for (const payload of [{ entries: [entry] }, { transmit: true }]) {
      const x = await files(t.headers, payload);
      expect([x.statusCode, x.json().errors[0].code], JSON.stringify(payload)).toEqual([403, 'ADMIN_REQUIRED']);
    }
    expect(await fileCount()).toBe(before);
  });

  it('a customer may preview a file of their own queued ACH payments: read-only, nothing claimed or stored', async () => {
    const acct = await openFundedAccount(t, t.headers, '100.00');
    const p = await pay({ account_id: acct, amount: '12.00', currency: 'USD', rail: 'ach_standard', creditor_account: us({ name: 'Pia Preview' }) });
    await waitForStatus(p.id, 'submitted');
    const before = await fileCount();
    const r = await files(t.headers, {});
    expect(r.statusCode, r.body).toBe(201);
    expect(r.json().data).toMatchObject({ id: null, status: 'preview', payment_ids: [p.id], transmitted_at: null });
    expect(parseNachaFile(r.json().data.content).batches[0].entries).toHaveLength(1);
    expect(await fileCount()).toBe(before);
    expect((await row(p.id)).ach_file_id).toBeNull();
    // Another customer's preview does not see it.
    const other = await createTestUser();
    const o = await files(other.headers, {});
    expect([o.statusCode, o.json().errors[0].code]).toEqual([422, 'NO_PENDING_ACH_PAYMENTS']);

    // The operator builds from given entries (a stored preview) and transmits the environment's queue.
    const built = await files(operator.headers, { entries: [entry] });
    expect(built.statusCode, built.body).toBe(201);
    expect(built.json().data).toMatchObject({ status: 'built', payment_ids: [] });
    const sent = await files(operator.headers, { transmit: true });
    expect(sent.statusCode, sent.body).toBe(201);
    expect(sent.json().data).toMatchObject({ status: 'transmitted' });
    expect(sent.json().data.payment_ids).toContain(p.id);
    expect((await row(p.id)).ach_file_id).toBe(sent.json().data.id);
    expect((await fileRow(sent.json().data.id)).summary.built_by).toBe(operator.userId);
    await env.client.workflow.getHandle(p.workflow_id).result();
    expect((await get(p.id)).status).toBe('completed');
  });
});

describe('ACH return while the payment workflow runs', () => {
  it('a return file ingested in the return window signals the workflow: reversing entry, R-code status, ledger back where it started', async () => {
    const acct = await openFundedAccount(t, t.headers, '300.00');
    const p = await pay({ account_id: acct, amount: '75.00', currency: 'USD', rail: 'ach_standard', creditor_account: us({ name: 'Rita Returner' }) });
    await waitForStatus(p.id, 'submitted');
    // Transmitting is the operator's: the environment's queue goes out in one file.
    const file = (await t.app.inject({ method: 'POST', url: '/api/v1/payment-rails/ach/files', headers: operator.headers, payload: { transmit: true } })).json().data;
    expect(file.payment_ids).toEqual([p.id]);

    // Past the effective date's settlement: the workflow posts and waits in the return window.
    await skipTo(env, new Date(new Date((await row(p.id)).expected_settlement_at).getTime() + 60_000));
    await waitForStatus(p.id, 'settled');
    const { reservation_entry_id } = await row(p.id);
    expect((await getEntry(reservation_entry_id))!.status).toBe('posted');
    expect(await balance(t, t.headers, acct)).toMatchObject({ total_balance: '225.00', reserved_balance: '0.00' });
    const progress = await env.client.workflow.getHandle(p.workflow_id).query('progress');
    expect(progress).toMatchObject({ step: 'return_window', status: 'running' });

    // The RDFI returns it (R10); the return file arrives while the workflow is still running.
    const original = parseNachaFile(file.content).batches[0].entries[0];
    const ret = buildReturnFile({ rdfi_routing: '021000021', odfi_id: '12345678', odfi_name: 'SANDBOX', created_at: new Date(await env.currentTimeMs()), effective_date: await today(), returns: [{ original, reason_code: 'R10' }] });
    const ing = await t.app.inject({ method: 'POST', url: '/api/v1/payment-rails/ach/returns', headers: t.headers, payload: { file: ret } });
    expect(ing.statusCode).toBe(200);
    expect(ing.json().data).toEqual([expect.objectContaining({ payment_id: p.id, return_reason_code: 'R10', action: 'signalled' })]);

    expect(await env.client.workflow.getHandle(p.workflow_id).result()).toMatchObject({ status: 'failed', failure: { code: 'R10' } });
    const done = await get(p.id);
    expect(done).toMatchObject({ status: 'returned', failure: { code: 'R10', reason: 'Customer advises not authorized' }, compensation_executed: true });
    expect(done.history.map((x: any) => x.status)).toEqual(['pending', 'validated', 'reserved', 'screened', 'message_built', 'submitted', 'settled', 'returned', 'compensation_executed']);
    const after = await row(p.id);
    const reversal = (await getEntry(after.reversal_entry_id))!;
    expect(reversal.reversesEntryId).toBe(reservation_entry_id);
    expect(await balance(t, t.headers, acct)).toMatchObject({ total_balance: '300.00', available_balance: '300.00', reserved_balance: '0.00' });
    // The rail's settlement account is back to zero for this payment's pair of entries.
    const { rows } = await getPool().query(
      `SELECT coalesce(sum(CASE WHEN l.direction = 'debit' THEN l.amount ELSE -l.amount END), 0)::text AS net FROM ledger_lines l
       JOIN ledger_accounts la ON la.id = l.ledger_account_id WHERE la.code = 'rail_settlement:ach_standard' AND l.entry_id = ANY($1::text[]) AND l.status = 'posted'`,
      [[reservation_entry_id, after.reversal_entry_id]],
    );
    expect(Number(rows[0].net)).toBe(0);
    await expectLedgerBalanced();

    // The same return file again: already compensated, nothing moves.
    const again = await t.app.inject({ method: 'POST', url: '/api/v1/payment-rails/ach/returns', headers: t.headers, payload: { file: ret } });
    expect(again.json().data[0].action).toBe('already_compensated');
    expect(await balance(t, t.headers, acct)).toMatchObject({ total_balance: '300.00' });
  });
});

describe('events', () => {
  it('the ACH flows\' payment_rail.* events validate against the catalog', async () => {
    const { problems, seen } = await checkOutboxAgainstCatalog(['payment_rail']);
    expect(problems).toEqual([]);
    for (const type of ['settled', 'completed', 'returned', 'failed', 'compensation_executed']) expect(seen).toContain(`payment_rail.${type}`);
  });
});
