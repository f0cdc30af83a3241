import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { getPool } from '../../domain/db/pool';
import { getEntry } from '../../domain/ledger';
import { railAdapter } from '../../domain/rails/adapters';
import { createTestUser, type TestApp, type TestUser } from '../helpers/app';
import { balance, openFundedAccount } from '../transfers/helpers';
import { startRailsHarness, waitForStatus, type RailsHarness } from './harness';

// Production rails through the rail-gateway contract (docs/rails.md), selected by
// configuration. The gateway here is a plain HTTP server speaking that contract.
let h: RailsHarness;
let env: TestWorkflowEnvironment;
let t: TestApp;
let prod: TestUser;
let operator: TestUser;
let gateway: Server;
let gatewayUrl: string;
const received: Array<{ method: string; path: string; headers: IncomingHttpHeaders; body: string }> = [];

/** A pacs.002 as the bridge would relay it from the network (hand-written, not from our ISO module). */
const pacs002 = (msgId: string, e2e: string, status: string) => `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pacs.002.001.10">
  <FIToFIPmtStsRpt>
    <GrpHdr><MsgId>GW-${e2e.slice(0, 20)}</MsgId><CreDtTm>2026-11-23T10:05:00Z</CreDtTm></GrpHdr>
    <TxInfAndSts>
      <OrgnlGrpInf><OrgnlMsgId>${msgId}</OrgnlMsgId><OrgnlMsgNmId>pacs.008.001.08</OrgnlMsgNmId></OrgnlGrpInf>
      <OrgnlEndToEndId>${e2e}</OrgnlEndToEndId>
      <TxSts>${status}</TxSts>
    </TxInfAndSts>
  </FIToFIPmtStsRpt>
</Document>`;

beforeAll(async () => {
  h = await startRailsHarness('rails-production');
  ({ env, t } = h);
  prod = await createTestUser({ environment: 'production' });
  operator = await createTestUser({ environment: 'production', admin: true });
  gateway = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ method: req.method!, path: req.url!, headers: req.headers, body });
      if (req.headers.authorization !== 'Bearer gw-secret') return res.writeHead(401).end('bad token');
      if (req.url === '/rails/rtp/submit') {
        const msgId = /<MsgId>([^<]+)<\/MsgId>/.exec(body)![1];
        const e2e = /<EndToEndId>([^<]+)<\/EndToEndId>/.exec(body)![1];
        return res.writeHead(200, { 'content-type': 'application/xml' }).end(pacs002(msgId, e2e, 'ACSC'));
      }
      if (req.url === '/rails/fednow/submit') return res.writeHead(403, { 'content-type': 'text/plain' }).end('participant not enabled for FedNow');
      if (req.url === '/rails/ach_standard/submit') return res.writeHead(200, { 'content-type': 'text/plain' }).end(`BRIDGE-${body.slice(79, 94)}\n`);
      if (req.url === '/rails/ach/files') return res.writeHead(200, { 'content-type': 'text/plain' }).end('FEDACH-ACK-0001\n');
      if (req.url === '/rails/ach_standard/status') {
        const q = JSON.parse(body) as { trace_number: string; ach_file_transmitted: boolean };
        // FedACH settled the entry once its file went out: the bridge answers with a pacs.002 ACSC.
        return res.writeHead(200, { 'content-type': 'application/xml' }).end(q.ach_file_transmitted ? pacs002('FEDACH', q.trace_number, 'ACSC') : '');
      }
      if (req.url === '/rails/ach/returns') return res.writeHead(200).end('');
      res.writeHead(404).end();
    });
  });
  await new Promise<void>((r) => gateway.listen(0, '127.0.0.1', r));
  gatewayUrl = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`;
}, 120_000);
afterAll(async () => {
  await new Promise((r) => gateway?.close(r));
  await h?.close();
});
afterEach(() => {
  delete process.env.RAILS_GATEWAY_URL;
  delete process.env.RAILS_GATEWAY_TOKEN;
  received.length = 0;
});

const us = (extra: Record<string, unknown> = {}) => ({ name: 'Bob Payee', account_number: '123456789', routing_number: '021000021', ...extra });
async function pay(headers: Record<string, string>, body: Record<string, unknown>) {
  const r = await t.app.inject({ method: 'POST', url: '/api/v1/payment-rails/payments', headers, payload: body });
  expect(r.statusCode).toBe(201);
  return r.json().data as { id: string; workflow_id: string };
}
const get = async (id: string, headers: Record<string, string>) => (await t.app.inject({ method: 'GET', url: `/api/v1/payment-rails/payments/${id}`, headers })).json().data;
/** A production account with money: the deposit is pending until an operator confirms its settlement. */
async function fundedProductionAccount(amount: string): Promise<string> {
  const acct = (await t.app.inject({ method: 'POST', url: '/api/v2/accounts', headers: prod.headers, payload: { name: 'prod' } })).json().data.uuid as string;
  const d = await t.app.inject({ method: 'POST', url: `/api/v2/accounts/${acct}/deposit`, headers: prod.headers, payload: { amount, asset_code: 'USD' } });
  expect(d.json().data.settlement).toBe('awaiting_confirmation');
  expect((await t.app.inject({ method: 'POST', url: `/api/v1/ledger/entries/${d.json().data.entry_id}/post`, headers: operator.headers, payload: {} })).statusCode).toBe(200);
  expect(await balance(t, prod.headers, acct)).toMatchObject({ available_balance: amount });
  return acct;
}
const configure = () => {
  process.env.RAILS_GATEWAY_URL = gatewayUrl;
  process.env.RAILS_GATEWAY_TOKEN = 'gw-secret';
};

describe('production rail adapter selection', () => {
  it('selects by environment and configuration', () => {
    expect(railAdapter('sandbox', 'rtp').name).toBe('sandbox-iso20022');
    expect(railAdapter('sandbox', 'ach_standard').name).toBe('sandbox-ach');
    expect(railAdapter('production', 'rtp').name).toBe('not-configured');
    process.env.RAILS_GATEWAY_URL = gatewayUrl;
    expect(railAdapter('production', 'rtp').name).toBe('not-configured'); // a URL without its token is not a configuration
    process.env.RAILS_GATEWAY_TOKEN = 'gw-secret';
    expect(railAdapter('production', 'rtp').name).toBe('rail-gateway');
    expect(railAdapter('sandbox', 'rtp').name).toBe('sandbox-iso20022');
  });

  it('without configuration a production payment fails at once with RAIL_NOT_CONFIGURED and its reservation is voided; sandbox is unaffected', async () => {
    const acct = await fundedProductionAccount('100.00');
    const p = await pay(prod.headers, { account_id: acct, amount: '25.00', currency: 'USD', rail: 'rtp', creditor_account: us() });
    await env.client.workflow.getHandle(p.workflow_id).result();
    const done = await get(p.id, prod.headers);
    expect(done).toMatchObject({ status: 'failed', failure: { code: 'RAIL_NOT_CONFIGURED' }, compensation_executed: true });
    expect(done.failure.reason).toMatch(/RAILS_GATEWAY_URL and RAILS_GATEWAY_TOKEN/);
    // Not retried: a missing configuration does not fix itself.
    const { events } = await env.client.workflow.getHandle(p.workflow_id).fetchHistory();
    expect(events!.filter((e) => (e.activityTaskStartedEventAttributes?.attempt ?? 1) > 1)).toEqual([]);
    expect(await balance(t, prod.headers, acct)).toMatchObject({ total_balance: '100.00', available_balance: '100.00' });
    expect(received).toEqual([]);

    const sandboxAcct = await openFundedAccount(t, t.headers, '100.00');
    const s = await pay(t.headers, { account_id: sandboxAcct, amount: '25.00', currency: 'USD', rail: 'rtp', creditor_account: us() });
    await env.client.workflow.getHandle(s.workflow_id).result();
    expect((await get(s.id, t.headers)).status).toBe('completed');
  });

  it('configured: the payment goes through the gateway (bearer token, idempotency key, the pacs.008) and its pacs.002 settles it', async () => {
    configure();
    const acct = await fundedProductionAccount('100.00');
    const p = await pay(prod.headers, { account_id: acct, amount: '25.00', currency: 'USD', rail: 'rtp', creditor_account: us() });
    await env.client.workflow.getHandle(p.workflow_id).result();
    const done = await get(p.id, prod.headers);
    expect(done.status).toBe('completed');
    const submits = received.filter((r) => r.path === '/rails/rtp/submit');
    expect(submits).toHaveLength(1);
    expect(submits[0].headers).toMatchObject({ authorization: 'Bearer gw-secret', 'content-type': 'application/xml', 'idempotency-key': `submit:${p.id}` });
    expect(submits[0].body).toBe(done.rail_message);
    expect(done.status_report).toContain('<TxSts>ACSC</TxSts>');
    expect(done.history.find((x: any) => x.status === 'submitted').detail.adapter).toBe('rail-gateway');
    expect(await balance(t, prod.headers, acct)).toMatchObject({ total_balance: '75.00' });
  });

  it('configured: a gateway refusal (4xx) fails the payment without retries and voids the reservation', async () => {
    configure();
    const acct = await fundedProductionAccount('100.00');
    const p = await pay(prod.headers, { account_id: acct, amount: '10.00', currency: 'USD', rail: 'fednow', creditor_account: us() });
    await env.client.workflow.getHandle(p.workflow_id).result();
    expect(await get(p.id, prod.headers)).toMatchObject({ status: 'failed', failure: { code: 'RAIL_GATEWAY_REFUSED' }, compensation_executed: true });
    expect(received.filter((r) => r.path === '/rails/fednow/submit')).toHaveLength(1);
    expect(await balance(t, prod.headers, acct)).toMatchObject({ total_balance: '100.00', available_balance: '100.00' });
  });

  it('configured ACH: entry queued at the gateway, the file transmitted through it, settled on its pacs.002, completed after the return window', async () => {
    configure();
    const acct = await fundedProductionAccount('100.00');
    const p = await pay(prod.headers, { account_id: acct, amount: '40.00', currency: 'USD', rail: 'ach_standard', creditor_account: us() });
    await waitForStatus(p.id, 'submitted');
    const file = await t.app.inject({ method: 'POST', url: '/api/v1/payment-rails/ach/files', headers: operator.headers, payload: { transmit: true } });
    expect(file.json().data).toMatchObject({ status: 'transmitted', acknowledgement: 'FEDACH-ACK-0001', payment_ids: [p.id] });
    const sent = received.find((r) => r.path === '/rails/ach/files')!;
    expect(sent.body).toBe(file.json().data.content);
    expect(sent.headers['idempotency-key']).toMatch(/^file:[0-9a-f]{64}$/);
    await env.client.workflow.getHandle(p.workflow_id).result();
    const done = await get(p.id, prod.headers);
    expect(done.status).toBe('completed');
    expect(done.network_reference).toBe(`BRIDGE-${done.trace_number}`);
    expect(received.some((r) => r.path === '/rails/ach/returns' && JSON.parse(r.body).trace_number === done.trace_number)).toBe(true);
    const { rows } = await getPool().query('SELECT reservation_entry_id FROM rail_payments WHERE id = $1', [p.id]);
    expect((await getEntry(rows[0].reservation_entry_id))!.status).toBe('posted');
    expect(await balance(t, prod.headers, acct)).toMatchObject({ total_balance: '60.00' });
  });
});
