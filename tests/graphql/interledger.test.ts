import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getTemporalClient } from '../../domain/temporal/client';
import { createTestApp, createTestUser, type TestApp } from '../helpers/app';
import { startTestWorker, type TestWorker } from '../helpers/worker';
import { balance, openFundedAccount } from '../transfers/helpers';
import { gqlOk, gqlRefused } from './helpers';

let t: TestApp;
let w: TestWorker;
beforeAll(async () => {
  t = await createTestApp();
  w = await startTestWorker();
});
afterAll(async () => {
  await w.stop();
  await t.close();
});

const rest = (method: 'GET' | 'POST', url: string, headers: Record<string, string> = t.headers, payload?: object) =>
  t.app.inject({ method, url: `/api/v1/interledger${url}`, headers, ...(payload ? { payload } : {}) });

const QUOTE_FIELDS = 'id receiver walletAddress sendAmount sendCurrency fee receiveAmount receiveCurrency fxRate expiresAt expired used openPayments { debitAmount { value assetCode assetScale } receiveAmount { value assetCode assetScale } fee { value assetCode assetScale } } createdAt';
const QUOTE = `mutation ($input: InterledgerQuoteInput!) { createInterledgerQuote(input: $input) { ${QUOTE_FIELDS} } }`;
const PAY = `mutation ($q: ID!, $a: ID!) { createInterledgerPayment(quoteId: $q, accountId: $a) { id quoteId accountId status workflowId quote { id used } } }`;
const quoteInput = (extra: Record<string, unknown> = {}) => ({ sendAmount: '100.00', sendCurrency: 'USD', receiveCurrency: 'EUR', receiver: '$wallet.example/alice', ...extra });

const quoteFromRest = (q: Record<string, unknown>) => ({
  id: q.id,
  receiver: q.receiver,
  walletAddress: q.wallet_address,
  sendAmount: q.send_amount,
  sendCurrency: q.send_currency,
  fee: q.fee,
  receiveAmount: q.receive_amount,
  receiveCurrency: q.receive_currency,
  fxRate: q.fx_rate,
  expiresAt: q.expires_at,
  expired: q.expired,
  used: q.used,
  openPayments: q.open_payments,
  createdAt: q.created_at,
});

describe('Interledger over GraphQL', () => {
  it('a quote equals GET /quotes/{id}', async () => {
    const q = (await gqlOk(t, QUOTE, { input: quoteInput() })).createInterledgerQuote;
    expect(q).toMatchObject({ sendAmount: '100.00', fee: '0.50', receiveAmount: '92.12', walletAddress: 'https://wallet.example/alice', used: false });
    const viaRest = (await rest('GET', `/quotes/${q.id}`)).json().data;
    expect((await gqlOk(t, `query ($id: ID!) { interledgerQuote(id: $id) { ${QUOTE_FIELDS} } }`, { id: q.id })).interledgerQuote).toEqual(quoteFromRest(viaRest));
  });

  it('pays a quote through the same workflow: the account is debited and REST sees the completed payment', async () => {
    const acct = await openFundedAccount(t, t.headers, '500.00');
    const q = (await gqlOk(t, QUOTE, { input: quoteInput({ receiver: 'https://wallet.example/bob' }) })).createInterledgerQuote;
    const p = (await gqlOk(t, PAY, { q: q.id, a: acct })).createInterledgerPayment;
    expect(p).toMatchObject({ quoteId: q.id, accountId: acct, quote: { id: q.id, used: true } });
    await (await getTemporalClient()).workflow.getHandle(p.workflowId).result();
    const viaRest = (await rest('GET', `/payments/${p.id}`)).json().data;
    const g = (await gqlOk(t, `query ($id: ID!) { interledgerPayment(id: $id) { id status destination executionCondition fulfillment ilpRejectCode packets { type base64 } failureCode compensationExecuted completedAt } }`, { id: p.id })).interledgerPayment;
    expect(g).toEqual({
      id: viaRest.id,
      status: viaRest.status,
      destination: viaRest.destination,
      executionCondition: viaRest.execution_condition,
      fulfillment: viaRest.fulfillment,
      ilpRejectCode: viaRest.ilp_reject_code,
      packets: viaRest.packets,
      failureCode: viaRest.failure?.code ?? null,
      compensationExecuted: viaRest.compensation_executed,
      completedAt: viaRest.completed_at,
    });
    expect(g.status).toBe('completed');
    expect(await balance(t, t.headers, acct)).toMatchObject({ total_balance: '400.00' });
    // A quote is spent once: the REST refusal.
    await gqlRefused(t, PAY, 'QUOTE_ALREADY_USED', 422, { q: q.id, a: acct });
  });

  it('refusals carry the REST codes: too many decimals, an insecure receiver', async () => {
    const restDecimals = (await rest('POST', '/quotes', t.headers, { send_amount: '1.001', send_currency: 'USD', receive_currency: 'EUR', receiver: '$wallet.example/a' })).json().errors[0];
    await gqlRefused(t, QUOTE, restDecimals.code, Number(restDecimals.status), { input: quoteInput({ sendAmount: '1.001' }) });
    await gqlRefused(t, QUOTE, 'INVALID_RECEIVER', 422, { input: quoteInput({ receiver: 'http://insecure.example/a' }) });
  });

  it("another user's quote and payment are the REST not-found; a read-only key cannot quote or pay", async () => {
    const other = await createTestUser();
    const acct = await openFundedAccount(t, other.headers, '50.00');
    const q = (await gqlOk(t, QUOTE, { input: quoteInput({ sendAmount: '10.00' }) }, other.headers)).createInterledgerQuote;
    const restQuote = await rest('GET', `/quotes/${q.id}`);
    expect(restQuote.statusCode).toBe(404);
    await gqlRefused(t, `query ($id: ID!) { interledgerQuote(id: $id) { id } }`, restQuote.json().errors[0].code, 404, { id: q.id });
    const restPay = (await rest('POST', '/payments', t.headers, { quote_id: q.id, account_id: acct })).json().errors[0];
    await gqlRefused(t, PAY, restPay.code, Number(restPay.status), { q: q.id, a: acct });
    const p = (await gqlOk(t, PAY, { q: q.id, a: acct }, other.headers)).createInterledgerPayment;
    const restPayment = await rest('GET', `/payments/${p.id}`);
    expect(restPayment.statusCode).toBe(404);
    await gqlRefused(t, `query ($id: ID!) { interledgerPayment(id: $id) { id } }`, restPayment.json().errors[0].code, 404, { id: p.id });

    const readOnly = await createTestUser({ permissions: ['read'] });
    await gqlRefused(t, QUOTE, 'INSUFFICIENT_PERMISSIONS', 403, { input: quoteInput() }, readOnly.headers);
    await gqlRefused(t, PAY, 'INSUFFICIENT_PERMISSIONS', 403, { q: q.id, a: acct }, readOnly.headers);
    await (await getTemporalClient()).workflow.getHandle(p.workflowId).result();
  });
});
