import { quietTemporalRuntime } from '../helpers/worker';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createActivities } from '../../activities';
import { getPool } from '../../domain/db/pool';
import { getEntry } from '../../domain/ledger';
import { DecimalMoney as D } from '../../domain/money/amount';
import { findTemporalTestServer } from '../../domain/temporal/binaries';
import { closeTemporal } from '../../domain/temporal/client';
import { ALL_SEARCH_ATTRIBUTES } from '../../domain/temporal/search-attributes';
import { createTestApp, createTestUser, type TestApp } from '../helpers/app';
import { book, expectBalancedLedger, fundBook, openAccount, swapEvents } from './helpers';

// Quiet before any Temporal environment or worker exists (expected failures log at WARN).
quietTemporalRuntime();

// Bridges wait for finality (minutes of blocks) and attestations: the time-skipping server skips
// them. Quotes of both legs are made inside the workflow at its own clock, so the server's clock
// running ahead of the API's does not matter here.
let env: TestWorkflowEnvironment;
let t: TestApp;
let worker: Worker;
let running: Promise<void>;
let acct: string;

beforeAll(async () => {
  env = await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: findTemporalTestServer()! } } });
  await env.connection.operatorService.addSearchAttributes({
    namespace: 'default',
    searchAttributes: Object.fromEntries(ALL_SEARCH_ATTRIBUTES.map((k) => [k.name, k.type === 'KEYWORD_LIST' ? 7 : 2])),
  });
  t = await createTestApp();
  process.env.TEMPORAL_ADDRESS = env.address;
  process.env.TEMPORAL_TASK_QUEUE = 'defi-crosschain-test';
  await closeTemporal();
  worker = await Worker.create({ connection: env.nativeConnection, taskQueue: 'defi-crosschain-test', workflowBundle: { code: inject('workflowBundleCode') }, activities: createActivities() });
  running = worker.run();
  acct = await openAccount(t, t.headers);
  await fundBook(acct, 'USDC', 'ethereum', '20000.000000');
}, 120_000);

afterAll(async () => {
  worker?.shutdown();
  await running;
  await t?.close();
  await env?.teardown();
});

const swap = (payload: Record<string, unknown>, headers = t.headers) =>
  t.app.inject({ method: 'POST', url: '/api/v2/crosschain/swap', headers, payload: { source_chain: 'ethereum', destination_chain: 'arbitrum', from_token: 'USDC', to_token: 'WETH', slippage_bps: 100, ...payload } });

async function run(payload: Record<string, unknown>) {
  const r = await swap(payload);
  expect(r.statusCode, r.body).toBe(201);
  const x = r.json().data;
  expect(x).toMatchObject({ status: 'pending', bridge: null, swap: null, account_id: acct });
  await env.client.workflow.getHandle(x.workflow_id).result();
  return (await t.app.inject({ method: 'GET', url: `/api/v2/crosschain/swap/${x.crosschain_swap_id}`, headers: t.headers })).json().data;
}

describe('cross-chain swap (bridge + swap)', () => {
  it('bridges USDC from ethereum to arbitrum and swaps it for WETH there', async () => {
    const usdc0 = await book(acct, 'USDC', 'ethereum');
    const x = await run({ amount: '5000' });
    expect(x).toMatchObject({ status: 'completed', failure: null, bridge: { status: 'completed', source_chain: 'ethereum', destination_chain: 'arbitrum' }, swap: { status: 'completed', chain: 'arbitrum', token_in: 'USDC', token_out: 'WETH' }, return_bridge: null });
    expect(x.bridged_amount).toBe(new D(x.bridge.estimated_receive_amount).toFixed());
    expect(x.swap.amount_in).toBe(x.bridge.estimated_receive_amount);
    expect(x.output_amount).toBe(new D(x.swap.amount_received).toFixed());
    // The ethereum book paid 5000 USDC; everything that arrived on arbitrum became WETH.
    expect((await book(acct, 'USDC', 'ethereum')).total).toBe(new D(usdc0.total).minus(5000).toFixed(6));
    expect((await book(acct, 'USDC', 'arbitrum')).total).toBe('0.000000');
    expect((await book(acct, 'WETH', 'arbitrum')).total).toBe(new D(x.output_amount).toFixed(18));
    expect((await swapEvents()).map((e) => e.swap_id)).toContain(x.swap.swap_id);
    await expectBalancedLedger();
  });

  it('a swap failing after the bridge is compensated: bridged back, fees refunded, the original amount on the original chain', async () => {
    const usdc0 = await book(acct, 'USDC', 'ethereum');
    const x = await run({ amount: '3000', sandbox_outcome: 'revert' });
    expect(x).toMatchObject({ status: 'failed', compensation_executed: true, failure: { code: 'TX_REVERTED' }, bridge: { status: 'completed' }, swap: { status: 'failed' }, return_bridge: { status: 'completed', source_chain: 'arbitrum', destination_chain: 'ethereum' } });
    expect(x.failure.reason).toMatch(/bridged back and the bridge fees \(\d+(\.\d+)?\) refunded/);
    expect(x.return_bridge.amount).toBe(x.bridge.estimated_receive_amount);
    expect(x.returned_amount).toBe(new D(x.return_bridge.estimated_receive_amount).toFixed());
    // Exactly where it started: 3000 out, the return bridge's delivery and the fee refund back in.
    expect(await book(acct, 'USDC', 'ethereum')).toEqual(usdc0);
    expect((await book(acct, 'USDC', 'arbitrum')).total).toBe('0.000000');
    const { rows } = await getPool().query<{ id: string }>(`SELECT id FROM journal_entries WHERE idempotency_key = $1`, [`wf:${x.workflow_id}:refund-bridge-fees`]);
    const refund = (await getEntry(rows[0].id))!;
    const fees = new D(x.bridge.fee_amount).plus(x.return_bridge.fee_amount);
    expect(refund.lines.find((l) => l.customerAccountId === acct)).toMatchObject({ direction: 'credit', amount: fees.toFixed(6) });
    await expectBalancedLedger();
  });

  it('a bridge that fails refunds itself and the swap never runs', async () => {
    const usdc0 = await book(acct, 'USDC', 'ethereum');
    // Sandbox magic amount: the bridge's source leg reverts (docs/crosschain.md).
    const x = await run({ amount: '1000.0401' });
    expect(x).toMatchObject({ status: 'failed', compensation_executed: true, failure: { code: 'SOURCE_REVERTED' }, swap: null, return_bridge: null, bridge: { status: 'failed' } });
    expect(await book(acct, 'USDC', 'ethereum')).toEqual(usdc0);
  });

  it('checks the route, the swap leg and the funds before anything moves', async () => {
    const bad = async (body: Record<string, unknown>, code: string, pointer: string, headers = t.headers) => {
      const r = await swap({ amount: '100', ...body }, headers);
      expect(r.statusCode, r.body).toBe(422);
      expect(r.json().errors[0]).toMatchObject({ code, source: { pointer } });
    };
    await bad({ destination_chain: 'ethereum' }, 'SAME_CHAIN', '/destination_chain');
    await bad({ source_chain: 'narnia' }, 'UNKNOWN_CHAIN', '/source_chain');
    await bad({ to_token: 'WBTC', destination_chain: 'base' }, 'UNKNOWN_TOKEN', '/to_token');
    await bad({ to_token: 'USDC' }, 'SAME_TOKEN', '/to_token');
    await bad({ amount: '0.01' }, 'AMOUNT_BELOW_MINIMUM', '/amount');
    await bad({ amount: '90000' }, 'INSUFFICIENT_FUNDS', '/amount');
    const stranger = await createTestUser();
    await openAccount(t, stranger.headers);
    await bad({}, 'INSUFFICIENT_FUNDS', '/amount', stranger.headers);
    const { rows } = await getPool().query('SELECT count(*)::int AS n FROM defi_crosschain_swaps');
    expect(rows[0].n).toBe(3);
  });
});
