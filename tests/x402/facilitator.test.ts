import { decodePaymentResponseHeader } from '@x402/core/http';
import type { PaymentRequirements } from '@x402/core/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPool, withTransaction } from '../../domain/db/pool';
import { systemBalance } from '../../domain/ledger';
import { getTemporalClient } from '../../domain/temporal/client';
import { authorizationKey, bookOnChainSettlement } from '../../domain/x402/payments';
import { ensureX402ReconcileSchedule, reconcileSettlingPayments, X402_RECONCILE_SCHEDULE_ID } from '../../domain/x402/reconcile';
import { createTestApp, createTestUser, type TestApp, type TestUser } from '../helpers/app';
import { startTestWorker, type TestWorker } from '../helpers/worker';
import { fundUsdc, paymentHeader, payWithClient, registerPayer, requiredFrom, signAuthorization, testPayer } from './helpers';
import { startLoopbackChain, type LoopbackChain } from './loopback-chain';
import { startLoopbackFacilitator, type LoopbackFacilitator } from './loopback-facilitator';

let t: TestApp;
let chain: LoopbackChain;
let mainnetFacilitator: LoopbackFacilitator;
const payer = testPayer();
const PAY_TO = '0x5A4db0B7c9E3ac3f1e8Fa8D8b3e1a4A9c2B7E402';
const requirement = (amount = '25000', network: `${string}:${string}` = 'eip155:84532'): PaymentRequirements => ({
  scheme: 'exact',
  network,
  amount,
  asset: network === 'eip155:8453' ? '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913' : '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
  payTo: PAY_TO,
  maxTimeoutSeconds: 300,
  extra: { name: network === 'eip155:8453' ? 'USD Coin' : 'USDC', version: '2' },
});

beforeAll(async () => {
  t = await createTestApp();
  await fundUsdc(await registerPayer(t, t.headers, payer), 'base', '2.00');
  chain = await startLoopbackChain();
  mainnetFacilitator = await startLoopbackFacilitator({ chain });
}, 60_000);

afterAll(async () => {
  delete process.env.X402_FACILITATOR_URL;
  delete process.env.X402_PAY_TO_ADDRESS;
  delete process.env.X402_RPC_URLS;
  await mainnetFacilitator?.close();
  await chain?.close();
  await t?.close();
});

describe('the sandbox facilitator (x402 v2 protocol over the ledger)', () => {
  it('lists what it settles, verifies without moving money, settles once', async () => {
    const supported = (await t.app.inject({ method: 'GET', url: '/api/v2/x402/facilitator/supported' })).json();
    expect(supported.kinds.map((k: { network: string }) => k.network)).toEqual(['eip155:84532']);
    const req = requirement();
    const payment = await signAuthorization(payer, req, 84532);
    const body = { x402Version: 2, paymentPayload: payment, paymentRequirements: req };
    const before = await systemBalance('sandbox', 'USDC', 'fee_revenue');
    expect((await t.app.inject({ method: 'POST', url: '/api/v2/x402/facilitator/verify', payload: body })).json()).toEqual({ isValid: true, payer: payer.address });
    expect(await systemBalance('sandbox', 'USDC', 'fee_revenue')).toBe(before);
    const settled = (await t.app.inject({ method: 'POST', url: '/api/v2/x402/facilitator/settle', payload: body })).json();
    expect(settled).toMatchObject({ success: true, payer: payer.address, network: 'eip155:84532', amount: '25000' });
    expect(Number(await systemBalance('sandbox', 'USDC', 'fee_revenue')) - Number(before)).toBeCloseTo(0.025, 6);
    expect((await t.app.inject({ method: 'POST', url: '/api/v2/x402/facilitator/settle', payload: body })).json()).toMatchObject({ success: false, errorReason: 'PAYMENT_NONCE_USED' });
    expect((await t.app.inject({ method: 'POST', url: '/api/v2/x402/facilitator/verify', payload: body })).json()).toMatchObject({ isValid: false, invalidReason: 'PAYMENT_NONCE_USED' });
    const elsewhere = { ...req, payTo: payer.address };
    const v = (await t.app.inject({ method: 'POST', url: '/api/v2/x402/facilitator/verify', payload: { ...body, paymentRequirements: elsewhere } })).json();
    expect(v).toMatchObject({ isValid: false, invalidReason: 'PAYMENT_WRONG_PAYEE' });
    const rich = await signAuthorization(payer, requirement('5000000'), 84532);
    expect((await t.app.inject({ method: 'POST', url: '/api/v2/x402/facilitator/verify', payload: { x402Version: 2, paymentPayload: rich, paymentRequirements: requirement('5000000') } })).json()).toMatchObject({
      isValid: false,
      invalidReason: 'PAYMENT_INSUFFICIENT_FUNDS',
    });
  });

  it('refuses authorizations signed for a main network (Base, Ethereum): test networks only, with a clear reason, nothing settled', async () => {
    const before = await systemBalance('sandbox', 'USDC', 'fee_revenue');
    for (const [network, chainId] of [
      ['eip155:8453', 8453],
      ['eip155:1', 1],
    ] as const) {
      const req = { ...requirement('25000', network), asset: network === 'eip155:1' ? '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48' : '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913' };
      const body = { x402Version: 2, paymentPayload: await signAuthorization(payer, req, chainId), paymentRequirements: req };
      const v = (await t.app.inject({ method: 'POST', url: '/api/v2/x402/facilitator/verify', payload: body })).json();
      expect(v).toMatchObject({ isValid: false, invalidReason: 'PAYMENT_NETWORK_NOT_SUPPORTED' });
      expect(v.invalidMessage).toMatch(/main network: the sandbox takes test networks only/);
      expect((await t.app.inject({ method: 'POST', url: '/api/v2/x402/facilitator/settle', payload: body })).json()).toMatchObject({ success: false, errorReason: 'PAYMENT_NETWORK_NOT_SUPPORTED' });
    }
    // Nor can a sandbox key price a route on a main network.
    const op = await createTestUser({ admin: true });
    const r = await t.app.inject({ method: 'POST', url: '/api/v2/x402/endpoints', headers: op.headers, payload: { path: '/api/v2/accounts', price_usd_cents: 2, network: 'eip155:8453', asset: 'USDC', description: 'x' } });
    expect([r.statusCode, r.json().errors[0].code]).toEqual([422, 'PAYMENT_NETWORK_NOT_SUPPORTED']);
    expect(await systemBalance('sandbox', 'USDC', 'fee_revenue')).toBe(before);
  });
});

describe('production payments through an x402 facilitator (the HTTP adapter, here pointed at a main-network facilitator stand-in on loopback)', () => {
  it('without a payee and facilitator configured, production refuses to monetize: 503', async () => {
    const op = await createTestUser({ admin: true, environment: 'production' });
    const r = await t.app.inject({ method: 'POST', url: '/api/v2/x402/endpoints', headers: op.headers, payload: { path: '/api/v2/accounts', price_usd_cents: 2, network: 'eip155:8453', asset: 'USDC', description: 'x' } });
    expect(r.statusCode).toBe(503);
    expect(r.json().errors[0].code).toBe('X402_NOT_CONFIGURED');
  });

  it('verifies and settles with the facilitator, then books the arrival: settlement account to fee revenue', async () => {
    process.env.X402_FACILITATOR_URL = mainnetFacilitator.url;
    process.env.X402_PAY_TO_ADDRESS = PAY_TO;
    const op = await createTestUser({ admin: true, environment: 'production' });
    const live = await createTestUser({ environment: 'production' });
    const reg = await t.app.inject({ method: 'POST', url: '/api/v2/x402/endpoints', headers: op.headers, payload: { path: '/api/v2/accounts', price_usd_cents: 2, network: 'eip155:8453', asset: 'USDC', description: 'Account list' } });
    expect(reg.statusCode, reg.body).toBe(201);
    const status = (await t.app.inject({ method: 'GET', url: '/api/v2/x402/status', headers: live.headers })).json().data;
    expect(status.facilitator).toMatchObject({ name: 'x402-facilitator', url: mainnetFacilitator.url, reachable: true });
    const unpaid = await t.app.inject({ method: 'GET', url: '/api/v2/accounts', headers: live.headers });
    expect(unpaid.statusCode).toBe(402);
    expect(unpaid.headers['x-payment-facilitator']).toBe(mainnetFacilitator.url);
    const before = [await systemBalance('production', 'USDC', 'fee_revenue'), await systemBalance('production', 'USDC', 'settlement')];
    const payment = await payWithClient(payer, requiredFrom(unpaid.headers));
    const paid = await t.app.inject({ method: 'GET', url: '/api/v2/accounts', headers: { ...live.headers, ...paymentHeader(payment) } });
    expect(paid.statusCode, paid.body).toBe(200);
    expect(decodePaymentResponseHeader(String(paid.headers['payment-response']))).toMatchObject({ success: true, network: 'eip155:8453', amount: '20000' });
    expect(Number(await systemBalance('production', 'USDC', 'fee_revenue')) - Number(before[0])).toBeCloseTo(0.02, 6);
    expect(mainnetFacilitator.settled).toBe(1);
    // The facilitator refuses a second settlement of the same authorization; production records it failed and serves nothing.
    const again = await t.app.inject({ method: 'GET', url: '/api/v2/accounts', headers: { ...live.headers, ...paymentHeader(payment) } });
    expect(again.statusCode).toBe(402);
    expect(again.json().errors[0].code).toBe('PAYMENT_NONCE_USED');
  });
});

describe('a production settlement whose outcome is lost (issue 41): pending, never a 500, then reconciled against the chain', () => {
  let live: TestUser;
  let w: TestWorker;
  /** A payer whose daily budget is one payment. */
  const tight = testPayer();
  const ids: { used?: string; unused?: string } = {};

  const row = async (id: string) =>
    (
      await getPool().query(
        `SELECT status, entry_id, transaction_hash, failure_code, last_error, settle_attempted_at, reconciled_at, extract(epoch FROM valid_before)::bigint AS valid_before,
                id, environment, network, asset, payer, nonce, amount::text AS amount, purpose, resource
           FROM x402_payments WHERE id = $1`,
        [id],
      )
    ).rows[0];
  const revenue = () => systemBalance('production', 'USDC', 'fee_revenue');
  const entriesOf = async (p: { network: string; asset: string; payer: string; nonce: string }) =>
    (await getPool().query<{ n: number }>(`SELECT count(*)::int AS n FROM journal_entries WHERE environment = 'production' AND idempotency_key = $1`, [authorizationKey(p.network, p.asset, p.payer, p.nonce)]))
      .rows[0].n;
  /** Reconciles now, every settling payment whatever its age (the threshold is its own case below). */
  const reconcile = () => reconcileSettlingPayments({ afterSeconds: 0 });
  async function pay(who: ReturnType<typeof testPayer>) {
    const unpaid = await t.app.inject({ method: 'GET', url: '/api/v2/accounts', headers: live.headers });
    expect(unpaid.statusCode).toBe(402);
    return t.app.inject({ method: 'GET', url: '/api/v2/accounts', headers: { ...live.headers, ...paymentHeader(await payWithClient(who, requiredFrom(unpaid.headers))) } });
  }

  beforeAll(async () => {
    process.env.X402_FACILITATOR_URL = mainnetFacilitator.url;
    process.env.X402_PAY_TO_ADDRESS = PAY_TO;
    const op = await createTestUser({ admin: true, environment: 'production' });
    const reg = await t.app.inject({ method: 'POST', url: '/api/v2/x402/endpoints', headers: op.headers, payload: { path: '/api/v2/accounts', price_usd_cents: 2, network: 'eip155:8453', asset: 'USDC', description: 'Account list' } });
    expect(reg.statusCode, reg.body).toBe(201);
    live = await createTestUser({ environment: 'production' });
    await registerPayer(t, live.headers, tight);
    const limit = await t.app.inject({ method: 'PUT', url: `/api/v2/x402/spending-limits/payers/${tight.address}`, headers: live.headers, payload: { per_request_max: null, daily_max: '0.02' } });
    expect(limit.statusCode, limit.body).toBe(200);
    w = await startTestWorker();
  });
  afterAll(async () => {
    delete process.env.X402_RECONCILE_AFTER_SECONDS;
    await w?.stop();
  });

  it('a /settle whose answer is lost (connection dropped after submitting, a 502) is 503 PAYMENT_SETTLEMENT_PENDING naming the payment; it stays settling, nothing is booked', async () => {
    const before = await revenue();
    for (const [fault, who, slot] of [
      ['drop-after-submit', payer, 'used'],
      ['bad-gateway', tight, 'unused'],
    ] as const) {
      mainnetFacilitator.failNextSettle(fault);
      const r = await pay(who);
      expect(r.statusCode, `${fault}: ${r.body}`).toBe(503);
      const error = r.json().errors[0];
      expect(error.code, fault).toBe('PAYMENT_SETTLEMENT_PENDING');
      const id = String(r.headers['x-payment-id']);
      expect(error.detail).toContain(id);
      expect(error.detail).toMatch(/do not pay again/);
      // Not a challenge to pay again: the payment may yet settle.
      expect(r.headers['payment-required']).toBeUndefined();
      const p = await row(id);
      expect(p, fault).toMatchObject({ status: 'settling', entry_id: null, failure_code: null });
      expect(p.last_error).toMatch(/outcome unknown/);
      expect(p.settle_attempted_at).toBeInstanceOf(Date);
      ids[slot] = id;
    }
    expect(chain.transactionOf(payer.address, (await row(ids.used!)).nonce)).not.toBeNull();
    expect(chain.transactionOf(tight.address, (await row(ids.unused!)).nonce)).toBeNull();
    expect(await revenue()).toBe(before);
  });

  it('reconciliation (the scheduled workflow) settles the one the chain shows used: the entry a settlement posts, once, with the chain\'s transaction', async () => {
    const p = await row(ids.used!);
    const before = await revenue();
    process.env.X402_RPC_URLS = `eip155:8453=${chain.url}`;
    process.env.X402_RECONCILE_AFTER_SECONDS = '0';
    const client = await getTemporalClient();
    const report = await client.workflow.execute('x402ReconcileWorkflow', { taskQueue: w.taskQueue, workflowId: `x402-reconcile-test-${Date.now()}`, args: [] });
    // The other one (never submitted, still valid) is left for a later run.
    expect(report).toMatchObject({ examined: 2, settled: 1, failed: 0, pending: 1, unconfigured: 0, errors: 0 });
    const settled = await row(ids.used!);
    expect(settled).toMatchObject({ status: 'settled', transaction_hash: chain.transactionOf(payer.address, p.nonce), failure_code: null });
    expect(settled.entry_id).toMatch(/./);
    expect(settled.reconciled_at).toBeInstanceOf(Date);
    expect(Number(await revenue()) - Number(before)).toBeCloseTo(0.02, 6);
    expect(await entriesOf(p)).toBe(1);
    // Again, and the facilitator's answer arriving late: one entry still, the same one.
    expect(await reconcile()).toMatchObject({ settled: 0 });
    const late = await withTransaction((c) => bookOnChainSettlement(c, p, chain.transactionOf(payer.address, p.nonce), null));
    expect(late).toMatchObject({ status: 'settled', entryId: settled.entry_id });
    expect(await entriesOf(p)).toBe(1);
    expect(Number(await revenue()) - Number(before)).toBeCloseTo(0.02, 6);
  });

  it('an unused authorization that is still valid is left as it is: settling, its budget held; so is every payment younger than the threshold, and every one whose network has no RPC URL', async () => {
    const p = await row(ids.unused!);
    process.env.X402_RPC_URLS = `eip155:8453=${chain.url}`;
    // The chain's last block one second before validBefore: the facilitator could still submit it.
    chain.setTime(BigInt(p.valid_before) - 1n);
    try {
      expect(await reconcile()).toMatchObject({ examined: 1, pending: 1, settled: 0, failed: 0 });
      expect(await row(ids.unused!)).toMatchObject({ status: 'settling', entry_id: null, failure_code: null });
      // Claimed seconds ago: not yet the reconciliation's business (X402_RECONCILE_AFTER_SECONDS, 300 by default).
      delete process.env.X402_RECONCILE_AFTER_SECONDS;
      const asked = chain.calls.length;
      expect(await reconcileSettlingPayments()).toMatchObject({ examined: 0 });
      expect(chain.calls.length).toBe(asked);
      // No node for the network: left and reported, never guessed.
      delete process.env.X402_RPC_URLS;
      expect(await reconcile()).toMatchObject({ examined: 1, unconfigured: 1, unconfigured_networks: ['eip155:8453'], settled: 0, failed: 0 });
      const left = await row(ids.unused!);
      expect(left).toMatchObject({ status: 'settling', failure_code: null });
      expect(left.last_error).toMatch(/no JSON-RPC URL for eip155:8453 \(set X402_RPC_URLS\)/);
      // Its budget is still held: tight's next payment is over the day's limit.
      const refused = await pay(tight);
      expect([refused.statusCode, refused.json().errors[0].code]).toEqual([402, 'SPENDING_LIMIT_EXCEEDED']);
    } finally {
      chain.setTime(null);
    }
  });

  it('an unused authorization past its validBefore can never settle: failed PAYMENT_SETTLEMENT_EXPIRED, and its budget is free again', async () => {
    const p = await row(ids.unused!);
    process.env.X402_RPC_URLS = `eip155:8453=${chain.url}`;
    chain.setTime(BigInt(p.valid_before));
    try {
      expect(await reconcile()).toMatchObject({ examined: 1, failed: 1, settled: 0, pending: 0 });
    } finally {
      chain.setTime(null);
    }
    const failed = await row(ids.unused!);
    expect(failed).toMatchObject({ status: 'failed', failure_code: 'PAYMENT_SETTLEMENT_EXPIRED', entry_id: null });
    expect(await entriesOf(p)).toBe(0);
    expect(await reconcile()).toMatchObject({ examined: 0 });
    // The day's budget was held by it alone: tight's next payment now passes.
    const r = await pay(tight);
    expect(r.statusCode, r.body).toBe(200);
  });

  it('runs every 5 minutes from a schedule of its own', async () => {
    const handle = (await getTemporalClient()).schedule.getHandle(X402_RECONCILE_SCHEDULE_ID);
    try {
      await ensureX402ReconcileSchedule();
      const d = await handle.describe();
      expect(d.action).toMatchObject({ type: 'startWorkflow', workflowType: 'x402ReconcileWorkflow' });
      expect(d.spec.intervals?.map((i) => Number(i.every))).toEqual([300_000]);
    } finally {
      // The run's Temporal server is shared by every file: leave no schedule behind.
      await handle.delete().catch(() => undefined);
    }
  });
});
