import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { getPool } from '../../domain/db/pool';
import { getEntry } from '../../domain/ledger';
import { addDays, instantAt, isBankingDay, zoned } from '../../domain/rails/calendar';
import { createTestUser, type TestApp } from '../helpers/app';
import { balance, openFundedAccount } from '../transfers/helpers';
import { refusalsOf, tenantCustomers, type Probe } from '../helpers/tenants';
import { checkOutboxAgainstCatalog } from './events';
import { skipTo, startRailsHarness, waitForStatus, type RailsHarness } from './harness';

let h: RailsHarness;
let env: TestWorkflowEnvironment;
let t: TestApp;

beforeAll(async () => {
  h = await startRailsHarness('rails-inbound');
  ({ env, t } = h);
}, 120_000);
// Each test starts on a day both TARGET2 and the Fed are open, 10:00 in Frankfurt (04:00 in New
// York: Fedwire opened the evening before). The server clock only moves forward (and a finished
// result() may leave it far ahead), so every test picks its own next such morning.
beforeEach(async () => {
  let day = addDays(zoned(new Date(await env.currentTimeMs()), 'Europe/Berlin').date, 1);
  while (!isBankingDay('target2', day) || !isBankingDay('us_fed', day)) day = addDays(day, 1);
  await skipTo(env, instantAt('Europe/Berlin', day, '10:00'));
});
afterAll(async () => {
  await h?.close();
});

const de = (extra: Record<string, unknown> = {}) => ({ name: 'Eva Empfänger', iban: 'DE89370400440532013000', bic: 'COBADEFFXXX', ...extra });
const us = (extra: Record<string, unknown> = {}) => ({ name: 'Bob Payee', account_number: '123456789', routing_number: '021000021', ...extra });

async function pay(body: Record<string, unknown>) {
  const r = await t.app.inject({ method: 'POST', url: '/api/v1/payment-rails/payments', headers: t.headers, payload: body });
  expect(r.statusCode).toBe(201);
  return r.json().data as { id: string; workflow_id: string };
}
const get = async (id: string) => (await t.app.inject({ method: 'GET', url: `/api/v1/payment-rails/payments/${id}`, headers: t.headers })).json().data;
const report = (message: string, headers = t.headers) => t.app.inject({ method: 'POST', url: '/api/v1/payment-rails/status-reports', headers, payload: { message } });

let reportSeq = 0;
/** A pacs.002.001.10 as a clearing house sends it (hand-written here, not made by our ISO module). */
function pacs002(o: { msgId: string | null; e2e: string; status: string; reason?: string; info?: string }) {
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pacs.002.001.10">
  <FIToFIPmtStsRpt>
    <GrpHdr>
      <MsgId>CSM-STS-${String(++reportSeq).padStart(6, '0')}</MsgId>
      <CreDtTm>2026-11-23T10:05:00Z</CreDtTm>
    </GrpHdr>
    <TxInfAndSts>${o.msgId ? `
      <OrgnlGrpInf>
        <OrgnlMsgId>${o.msgId}</OrgnlMsgId>
        <OrgnlMsgNmId>pacs.008.001.08</OrgnlMsgNmId>
      </OrgnlGrpInf>` : ''}
      <OrgnlEndToEndId>${o.e2e}</OrgnlEndToEndId>
      <TxSts>${o.status}</TxSts>${o.reason ? `
      <StsRsnInf>
        <Rsn><Cd>${o.reason}</Cd></Rsn>${o.info ? `
        <AddtlInf>${o.info}</AddtlInf>` : ''}
      </StsRsnInf>` : ''}
    </TxInfAndSts>
  </FIToFIPmtStsRpt>
</Document>`;
}

/** The ids the rail knows the payment by: pacs.008 MsgId and EndToEndId. */
async function sent(id: string) {
  const { rows } = await getPool().query<{ rail_message: string; end_to_end_id: string; expected_settlement_at: Date }>('SELECT rail_message, end_to_end_id, expected_settlement_at FROM rail_payments WHERE id = $1', [id]);
  return { msgId: /<MsgId>([^<]+)<\/MsgId>/.exec(rows[0].rail_message)![1], e2e: rows[0].end_to_end_id, settleAt: rows[0].expected_settlement_at };
}

describe('inbound rail status reports (pacs.002)', () => {
  it('ACSC from the rail settles a SEPA credit transfer through its workflow, before the timetable would', async () => {
    const acct = await openFundedAccount(t, t.headers, '500.00', 'EUR');
    const p = await pay({ account_id: acct, amount: '120.00', currency: 'EUR', rail: 'sepa_ct', creditor_account: de() });
    await waitForStatus(p.id, 'submitted');
    const s = await sent(p.id);
    const r = await report(pacs002({ msgId: s.msgId, e2e: s.e2e, status: 'ACSC' }));
    expect(r.statusCode).toBe(200);
    expect(r.json().data).toEqual([{ original_end_to_end_id: s.e2e, status: 'ACSC', reason_code: null, payment_id: p.id, action: 'signalled' }]);
    await env.client.workflow.getHandle(p.workflow_id).result();
    // Completed on the signal, at the server time of the report: no timer fired, long before the timetable's 16:00.
    const { events } = await env.client.workflow.getHandle(p.workflow_id).fetchHistory();
    const at = (e: { eventTime?: { seconds?: unknown } | null }) => Number(e.eventTime!.seconds) * 1000;
    expect(events!.filter((e) => e.workflowExecutionSignaledEventAttributes).map((e) => e.workflowExecutionSignaledEventAttributes!.signalName)).toEqual(['railSettlement']);
    expect(events!.some((e) => e.timerFiredEventAttributes)).toBe(false);
    expect(at(events!.at(-1)!)).toBeLessThan(new Date(s.settleAt).getTime());
    const done = await get(p.id);
    expect(done.status).toBe('completed');
    expect(done.status_report).toContain('<MsgId>CSM-STS-');
    expect(done.history.map((x: any) => x.status)).toEqual(['pending', 'validated', 'reserved', 'screened', 'message_built', 'submitted', 'status_report_received', 'settled', 'completed']);
    expect(done.history.find((x: any) => x.status === 'status_report_received').detail).toMatchObject({ tx_status: 'ACSC', reason_code: null, report_message_id: expect.stringMatching(/^CSM-STS-/) });
    expect(await balance(t, t.headers, acct, 'EUR')).toMatchObject({ total_balance: '380.00', reserved_balance: '0.00' });
    // The same report again: the payment has ended.
    expect((await report(pacs002({ msgId: s.msgId, e2e: s.e2e, status: 'ACSC' }))).json().data[0].action).toBe('already_final');
  });

  it('RJCT from the rail rejects a Fedwire payment with the ISO reason code and voids the reservation', async () => {
    const acct = await openFundedAccount(t, t.headers, '5000.00');
    const p = await pay({ account_id: acct, amount: '2500.00', currency: 'USD', rail: 'fedwire', creditor_account: us() });
    await waitForStatus(p.id, 'submitted');
    const s = await sent(p.id);
    // An interim status is only recorded.
    expect((await report(pacs002({ msgId: s.msgId, e2e: s.e2e, status: 'ACSP' }))).json().data[0]).toMatchObject({ action: 'recorded', payment_id: p.id });
    expect((await get(p.id)).status).toBe('submitted');
    const r = await report(pacs002({ msgId: s.msgId, e2e: s.e2e, status: 'RJCT', reason: 'AC04', info: 'Account closed at the creditor agent' }));
    expect(r.json().data).toEqual([{ original_end_to_end_id: s.e2e, status: 'RJCT', reason_code: 'AC04', payment_id: p.id, action: 'signalled' }]);
    await env.client.workflow.getHandle(p.workflow_id).result();
    const done = await get(p.id);
    expect(done).toMatchObject({ status: 'rejected', failure: { code: 'AC04', reason: 'Account closed at the creditor agent' }, compensation_executed: true });
    expect(done.status_report).toContain('<Cd>AC04</Cd>');
    const { rows } = await getPool().query('SELECT reservation_entry_id FROM rail_payments WHERE id = $1', [p.id]);
    expect((await getEntry(rows[0].reservation_entry_id))!.status).toBe('voided');
    expect(await balance(t, t.headers, acct)).toMatchObject({ total_balance: '5000.00', available_balance: '5000.00', reserved_balance: '0.00' });
  });

  it('matches only the caller\'s payment and the message it was sent in; refuses what is not a valid pacs.002', async () => {
    const acct = await openFundedAccount(t, t.headers, '100.00', 'EUR');
    const p = await pay({ account_id: acct, amount: '10.00', currency: 'EUR', rail: 'sepa_ct', creditor_account: de() });
    await waitForStatus(p.id, 'submitted');
    const s = await sent(p.id);
    const stranger = await createTestUser();
    expect((await report(pacs002({ msgId: s.msgId, e2e: s.e2e, status: 'RJCT', reason: 'AC04' }), stranger.headers)).json().data[0]).toMatchObject({ action: 'unmatched', payment_id: null });
    expect((await report(pacs002({ msgId: 'SOME-OTHER-MESSAGE', e2e: s.e2e, status: 'RJCT', reason: 'AC04' }))).json().data[0].action).toBe('unmatched');
    expect((await report(pacs002({ msgId: null, e2e: 'NOSUCHPAYMENT', status: 'ACSC' }))).json().data[0].action).toBe('unmatched');
    expect((await get(p.id)).status).toBe('submitted');

    const pacs008 = (await get(p.id)).rail_message as string;
    const wrongType = await report(pacs008);
    expect(wrongType.statusCode).toBe(422);
    expect(wrongType.json().errors[0].code).toBe('NOT_A_STATUS_REPORT');
    const broken = await report(pacs002({ msgId: s.msgId, e2e: s.e2e, status: 'ACSC' }).replace('<TxSts>ACSC</TxSts>', '<TxSts>ACSC</TxSts><Bogus/>'));
    expect(broken.statusCode).toBe(422);
    expect(broken.json().errors[0].code).toBe('INVALID_MESSAGE');
    expect((await report('not xml at all, but long enough to pass the length check of fifty')).statusCode).toBe(422);

    // Production: customers never feed rail messages for their own payments (only operators may).
    const prod = await createTestUser({ environment: 'production' });
    const refused = await report(pacs002({ msgId: s.msgId, e2e: s.e2e, status: 'RJCT', reason: 'AC04' }), prod.headers);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().errors[0].code).toBe('ADMIN_REQUIRED');
    const returns = await t.app.inject({ method: 'POST', url: '/api/v1/payment-rails/ach/returns', headers: prod.headers, payload: { file: '1'.repeat(94) } });
    expect(returns.statusCode).toBe(403);
    const operator = await createTestUser({ environment: 'production', admin: true });
    // An operator's production scope does not reach sandbox payments.
    expect((await report(pacs002({ msgId: s.msgId, e2e: s.e2e, status: 'RJCT', reason: 'AC04' }), operator.headers)).json().data[0].action).toBe('unmatched');

    expect((await report(pacs002({ msgId: s.msgId, e2e: s.e2e, status: 'ACSC' }))).json().data[0].action).toBe('signalled');
    await env.client.workflow.getHandle(p.workflow_id).result();
    expect((await get(p.id)).status).toBe('completed');
  });
});

describe('tenant isolation (issue 41)', () => {
  it("another customer of the tenant and a customer of another tenant: A's payment and account are 404, A's payments are in no list, their rail messages match nothing; nothing changes", async () => {
    const { a, b, c } = await tenantCustomers(t.user.userId);
    const acct = await openFundedAccount(t, a.headers, '500.00', 'EUR');
    const created = await t.app.inject({ method: 'POST', url: '/api/v1/payment-rails/payments', headers: a.headers, payload: { account_id: acct, amount: '120.00', currency: 'EUR', rail: 'sepa_ct', creditor_account: de() } });
    expect(created.statusCode, created.body).toBe(201);
    const p = created.json().data as { id: string; workflow_id: string };
    await waitForStatus(p.id, 'submitted');
    const s = await sent(p.id);
    const snapshot = async () => ({
      payment: (await getPool().query('SELECT status, status_report, updated_at FROM rail_payments WHERE id = $1', [p.id])).rows[0],
      payments: (await getPool().query<{ n: number }>('SELECT count(*)::int AS n FROM rail_payments WHERE account_id = $1', [acct])).rows[0].n,
      balance: await balance(t, a.headers, acct, 'EUR'),
    });
    const before = await snapshot();
    const wrong: string[] = [];
    for (const [who, headers] of [['B (same tenant)', b.headers], ['C (other tenant)', c.headers]] as const) {
      await openFundedAccount(t, headers, '500.00', 'EUR');
      const probes: Probe[] = [
        { method: 'GET', url: `/api/v1/payment-rails/payments/${p.id}` },
        { method: 'POST', url: '/api/v1/payment-rails/payments', payload: { account_id: acct, amount: '1.00', currency: 'EUR', rail: 'sepa_ct', creditor_account: de() }, expect: { status: 404, code: 'ACCOUNT_NOT_FOUND' } },
      ];
      wrong.push(...(await refusalsOf(t.app, probes, [[who, headers]], { status: 404, code: 'NOT_FOUND' }, [p.id, acct])));
      const list = await t.app.inject({ method: 'GET', url: `/api/v1/payment-rails/payments?account_id=${acct}`, headers });
      if (list.json().meta?.total !== 0 || list.body.includes(p.id)) wrong.push(`${who} list -> ${list.body.slice(0, 160)}`);
      // Playing the rail in the sandbox reaches only one's own payments: A's is unknown, as a payment that does not exist.
      const rejected = await report(pacs002({ msgId: s.msgId, e2e: s.e2e, status: 'RJCT', reason: 'AC04' }), headers);
      if (JSON.stringify(rejected.json().data) !== JSON.stringify([{ original_end_to_end_id: s.e2e, status: 'RJCT', reason_code: 'AC04', payment_id: null, action: 'unmatched' }])) wrong.push(`${who} pacs.002 -> ${rejected.body.slice(0, 200)}`);
    }
    expect(wrong).toEqual([]);
    expect(await snapshot()).toEqual(before);
    // A (the sandbox's rail for A's own payments) settles it.
    expect((await report(pacs002({ msgId: s.msgId, e2e: s.e2e, status: 'ACSC' }), a.headers)).json().data[0].action).toBe('signalled');
    await env.client.workflow.getHandle(p.workflow_id).result();
    expect((await t.app.inject({ method: 'GET', url: `/api/v1/payment-rails/payments/${p.id}`, headers: a.headers })).json().data.status).toBe('completed');
  });
});

describe('events', () => {
  it('status_report_received and the other payment_rail.* events validate against the catalog', async () => {
    const { problems, seen } = await checkOutboxAgainstCatalog(['payment_rail']);
    expect(problems).toEqual([]);
    expect(seen).toContain('payment_rail.status_report_received');
  });
});
