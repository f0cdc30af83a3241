import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, createTestUser, type TestApp } from '../helpers/app';
import { openFundedAccount } from '../transfers/helpers';
import { gqlOk, gqlRefused } from './helpers';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

const rest = (method: 'GET' | 'POST', url: string, headers: Record<string, string> = t.headers, payload?: object) =>
  t.app.inject({ method, url: `/api/v1/payment-rails${url}`, headers, ...(payload ? { payload } : {}) });

const FIELDS = 'id status rail requestedRail accountId amount currency creditorAccount { name accountNumber routingNumber iban } memo urgency routing workflowId traceNumber endToEndId failureCode compensationExecuted railMessage history { status at detail } createdAt updatedAt';
const PAY = `mutation ($input: RailPaymentInput!) { createRailPayment(input: $input) { ${FIELDS} } }`;
const us = { name: 'Bob Payee', accountNumber: '123456789', routingNumber: '021000021' };
const input = (accountId: string, extra: Record<string, unknown> = {}) => ({ accountId, amount: '25.00', currency: 'usd', rail: 'ach_standard', creditorAccount: us, memo: 'invoice 7', ...extra });

describe('payment rails over GraphQL', () => {
  it('the rails catalog is the REST one', async () => {
    const g = (await gqlOk(t, `{ paymentRails { data { rail name currencies minAmount maxAmount businessDays cutOffTimes availability } paginatorInfo { total } } }`)).paymentRails;
    const r = (await rest('GET', '/rails')).json().data;
    expect(g.data.map((x: { rail: string }) => x.rail)).toEqual(r.map((x: { rail: string }) => x.rail));
    const sameDay = g.data.find((x: { rail: string }) => x.rail === 'ach_same_day');
    const restSameDay = r.find((x: { rail: string }) => x.rail === 'ach_same_day');
    expect(sameDay).toMatchObject({ name: restSameDay.name, minAmount: restSameDay.limits.min_amount, maxAmount: restSameDay.limits.max_amount, businessDays: restSameDay.business_days });
    expect(sameDay.cutOffTimes.map((w: { cutoff: string }) => w.cutoff)).toEqual(restSameDay.cut_off_times.map((w: { cutoff: string }) => w.cutoff));
  });

  it('pays out over ACH through the same domain call; railPayment and railPayments equal the REST answers', async () => {
    const acct = await openFundedAccount(t, t.headers, '100.00');
    const p = (await gqlOk(t, PAY, { input: input(acct) })).createRailPayment;
    expect(p).toMatchObject({ rail: 'ach_standard', requestedRail: 'ach_standard', accountId: acct, amount: '25.00', currency: 'USD', memo: 'invoice 7' });
    expect(p.creditorAccount).toEqual({ ...us, iban: null });
    expect(p.history.length).toBeGreaterThan(0);

    const viaRest = (await rest('GET', `/payments/${p.id}`)).json().data;
    const g = (await gqlOk(t, `query ($id: ID!) { railPayment(id: $id) { ${FIELDS} } }`, { id: p.id })).railPayment;
    expect(g).toEqual({
      id: viaRest.id,
      status: viaRest.status,
      rail: viaRest.rail,
      requestedRail: viaRest.requested_rail,
      accountId: viaRest.account_id,
      amount: viaRest.amount,
      currency: viaRest.currency,
      creditorAccount: { name: viaRest.creditor_account.name, accountNumber: viaRest.creditor_account.account_number, routingNumber: viaRest.creditor_account.routing_number, iban: null },
      memo: viaRest.memo,
      urgency: viaRest.urgency,
      routing: viaRest.routing,
      workflowId: viaRest.workflow_id,
      traceNumber: viaRest.trace_number,
      endToEndId: viaRest.end_to_end_id,
      failureCode: viaRest.failure?.code ?? null,
      compensationExecuted: viaRest.compensation_executed,
      railMessage: viaRest.rail_message,
      history: viaRest.history,
      createdAt: viaRest.created_at,
      updatedAt: viaRest.updated_at,
    });
    const list = (await gqlOk(t, `{ railPayments(rail: "ach_standard") { data { id amount } paginatorInfo { total } } }`)).railPayments;
    const restList = (await rest('GET', '/payments?rail=ach_standard')).json();
    expect(list.data).toEqual(restList.data.map((x: { id: string; amount: string }) => ({ id: x.id, amount: x.amount })));
    expect(list.data.map((x: { id: string }) => x.id)).toContain(p.id);
  });

  it("a customer's ACH file preview answers as REST does; building from entries is the REST ADMIN_REQUIRED", async () => {
    // Nothing submitted yet (no worker runs the payments here): both transports refuse alike.
    const r = await rest('POST', '/ach/files', t.headers, {});
    expect(r.json().errors[0].code).toBe('NO_PENDING_ACH_PAYMENTS');
    await gqlRefused(t, `mutation { buildAchFile { id status content summary paymentIds } }`, 'NO_PENDING_ACH_PAYMENTS', r.statusCode);
    const entry = { transactionCode: '22', routingNumber: '021000021', accountNumber: '123', amount: '1.00', name: 'X', effectiveDate: '2030-01-02' };
    const restRefusal = (await rest('POST', '/ach/files', t.headers, { transmit: true })).json().errors[0];
    expect(restRefusal.code).toBe('ADMIN_REQUIRED');
    await gqlRefused(t, `mutation ($e: [AchEntryInput!]) { buildAchFile(input: { entries: $e }) { id } }`, 'ADMIN_REQUIRED', 403, { e: [entry] });

    // An operator builds from entries: the NACHA file itself is the content String.
    const op = await createTestUser({ admin: true });
    const built = (await gqlOk(t, `mutation ($e: [AchEntryInput!]) { buildAchFile(input: { entries: $e, companyName: "GQL CO" }) { id status content summary paymentIds } }`, { e: [entry] }, op.headers)).buildAchFile;
    expect(built).toMatchObject({ status: 'built', paymentIds: [] });
    expect(built.id).toEqual(expect.any(String));
    const records = built.content.split(/\r?\n/).filter((l: string) => l !== '');
    expect(records.length % 10).toBe(0);
    expect(records.every((l: string) => l.length === 94)).toBe(true);
    expect(records.filter((l: string) => l.startsWith('6'))).toHaveLength(1);
    expect(built.summary).toMatchObject({ entry_count: 1, total_credit: '1.00' });
  });

  it('refusals carry the REST codes: too many decimals, a bad routing number, a short status report, a read-only key', async () => {
    const acct = await openFundedAccount(t, t.headers, '10.00');
    const restDecimals = (await rest('POST', '/payments', t.headers, { account_id: acct, amount: '1.001', currency: 'USD', rail: 'ach_standard', creditor_account: { name: 'B', account_number: '123456789', routing_number: '021000021' } })).json().errors[0];
    await gqlRefused(t, PAY, restDecimals.code, Number(restDecimals.status), { input: input(acct, { amount: '1.001' }) });
    // The REST body schema holds: an account number NACHA cannot carry is 422 VALIDATION_ERROR at its pointer.
    const long = await gqlRefused(t, PAY, 'VALIDATION_ERROR', 422, { input: input(acct, { creditorAccount: { ...us, accountNumber: '1'.repeat(30) } }) });
    expect(long.errors![0].extensions.pointer).toBe('/creditor_account/account_number');
    const badRouting = await gqlRefused(t, PAY, 'INVALID_ROUTING_NUMBER', 422, { input: input(acct, { creditorAccount: { ...us, routingNumber: '021000022' } }) });
    expect(badRouting.errors![0].extensions.pointer).toBe('/creditor_account/routing_number');
    await gqlRefused(t, `mutation { ingestRailStatusReport(message: "<x/>") { action } }`, 'VALIDATION_ERROR', 422);

    const readOnly = await createTestUser({ permissions: ['read'] });
    await gqlRefused(t, PAY, 'INSUFFICIENT_PERMISSIONS', 403, { input: input(acct) }, readOnly.headers);
    expect((await rest('GET', `/payments?account_id=${acct}`)).json().data).toEqual([]);
  });

  it("another user's payment is the REST not-found, and so is paying from their account", async () => {
    const other = await createTestUser();
    const theirAcct = await openFundedAccount(t, other.headers, '50.00');
    const theirs = (await gqlOk(t, PAY, { input: input(theirAcct) }, other.headers)).createRailPayment;
    const restOther = await rest('GET', `/payments/${theirs.id}`);
    expect(restOther.statusCode).toBe(404);
    await gqlRefused(t, `query ($id: ID!) { railPayment(id: $id) { id } }`, restOther.json().errors[0].code, 404, { id: theirs.id });
    const restPay = (await rest('POST', '/payments', t.headers, { account_id: theirAcct, amount: '1.00', currency: 'USD', rail: 'ach_standard', creditor_account: { name: 'B', account_number: '123456789', routing_number: '021000021' } })).json().errors[0];
    await gqlRefused(t, PAY, restPay.code, Number(restPay.status), { input: input(theirAcct, { amount: '1.00' }) });
  });
});
