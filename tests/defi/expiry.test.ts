import { quietTemporalRuntime } from '../helpers/worker';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createActivities } from '../../activities';
import { getPool } from '../../domain/db/pool';
import { findTemporalTestServer } from '../../domain/temporal/binaries';
import { closeTemporal } from '../../domain/temporal/client';
import { ALL_SEARCH_ATTRIBUTES } from '../../domain/temporal/search-attributes';
import { createTestApp, type TestApp } from '../helpers/app';
import { allReserves, book, custodyAddress, expectBalancedLedger, fundBook, openAccount } from './helpers';

// Quiet before any Temporal environment or worker exists (expected failures log at WARN).
quietTemporalRuntime();

// Time-skipping server: the workflow's clock jumps over its sleeps (12 s Ethereum blocks, a
// deadline minutes away, a transaction evicted after 10 minutes) and env.sleep moves it forward.
// Its clock runs ahead of the API's (real) clock by everything skipped, so the quote lifetime is
// an hour here and the test that skips the most runs last.
let env: TestWorkflowEnvironment;
let t: TestApp;
let worker: Worker;
let running: Promise<void>;
let acct: string;

beforeAll(async () => {
  process.env.DEFI_QUOTE_TTL_SECONDS = '3600';
  env = await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: findTemporalTestServer()! } } });
  await env.connection.operatorService.addSearchAttributes({
    namespace: 'default',
    searchAttributes: Object.fromEntries(ALL_SEARCH_ATTRIBUTES.map((k) => [k.name, k.type === 'KEYWORD_LIST' ? 7 : 2])),
  });
  t = await createTestApp();
  process.env.TEMPORAL_ADDRESS = env.address;
  process.env.TEMPORAL_TASK_QUEUE = 'defi-expiry-test';
  await closeTemporal();
  worker = await Worker.create({ connection: env.nativeConnection, taskQueue: 'defi-expiry-test', workflowBundle: { code: inject('workflowBundleCode') }, activities: createActivities() });
  running = worker.run();
  acct = await openAccount(t, t.headers);
  await fundBook(acct, 'USDC', 'ethereum', '100000.000000');
}, 120_000);

afterAll(async () => {
  delete process.env.DEFI_QUOTE_TTL_SECONDS;
  worker?.shutdown();
  await running;
  await t?.close();
  await env?.teardown();
});

async function quoteAndExecute(extra: Record<string, unknown>) {
  const q = await t.app.inject({ method: 'POST', url: '/api/v1/defi/swap/quote', headers: t.headers, payload: { chain: 'ethereum', token_in: 'USDC', token_out: 'WETH', amount_in: '2500' } });
  expect(q.statusCode, q.body).toBe(201);
  const r = await t.app.inject({ method: 'POST', url: '/api/v1/defi/swap/execute', headers: t.headers, payload: { quote_id: q.json().data.quote_id, wallet_address: custodyAddress(acct, 'ethereum'), account_id: acct, ...extra } });
  expect(r.statusCode, r.body).toBe(201);
  return r.json().data;
}

/**
 * Moves the server's clock forward in steps until the swap is settled or failed. (Awaiting the
 * workflow's result would let the server skip to its next far-away timer once the workflow is
 * done: years ahead of the API's clock, which would expire every later quote.)
 */
async function finish(s: { swap_id: string }, stepMs: number) {
  for (let i = 0; i < 200; i++) {
    const cur = (await t.app.inject({ method: 'GET', url: `/api/v2/defi/swaps/${s.swap_id}`, headers: t.headers })).json().data;
    if (cur.status === 'completed' || cur.status === 'failed') return cur;
    await env.sleep(stepMs);
  }
  throw new Error(`swap ${s.swap_id} did not finish`);
}

describe('swaps on skipped time', () => {
  it('an Ethereum swap waits for its 12 s block and settles', async () => {
    const s = await quoteAndExecute({ deadline_minutes: 5 });
    expect(s).toMatchObject({ status: 'submitted' });
    const done = await finish(s, 4_000);
    expect(done.status).toBe('completed');
    expect(typeof done.block_number).toBe('number');
    expect((await book(acct, 'USDC', 'ethereum')).total).toBe('97500.000000');
  });

  it('deadline passed: a transaction still pending at the deadline is given up and refunded', async () => {
    const [pools0, usdc0] = [await allReserves(), await book(acct, 'USDC', 'ethereum')];
    const s = await quoteAndExecute({ deadline_minutes: 2, sandbox_outcome: 'drop' });
    expect(s.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    const done = await finish(s, 20_000);
    expect(done).toMatchObject({ status: 'failed', compensation_executed: true, failure: { code: 'DEADLINE_PASSED' } });
    expect(await book(acct, 'USDC', 'ethereum')).toEqual(usdc0);
    expect(await allReserves()).toEqual(pools0);
  });

  it('dropped: a transaction evicted from the mempool before the deadline fails and refunds', async () => {
    const usdc0 = await book(acct, 'USDC', 'ethereum');
    const done = await finish(await quoteAndExecute({ deadline_minutes: 30, sandbox_outcome: 'drop' }), 60_000);
    expect(done).toMatchObject({ status: 'failed', compensation_executed: true, failure: { code: 'TX_DROPPED' } });
    expect(done.failure.reason).toMatch(/evicted from the mempool/);
    expect(await book(acct, 'USDC', 'ethereum')).toEqual(usdc0);
    await expectBalancedLedger();
  });

  it('quote expiry: a quote that expired by the time the workflow runs is refused there, nothing reserved', async () => {
    const usdc0 = await book(acct, 'USDC', 'ethereum');
    const q = await t.app.inject({ method: 'POST', url: '/api/v1/defi/swap/quote', headers: t.headers, payload: { chain: 'ethereum', token_in: 'USDC', token_out: 'WETH', amount_in: '100' } });
    const quote = q.json().data;
    // The workflow's clock moves past the quote's expiry (the API's still sees it valid).
    await env.sleep(3_700_000);
    const r = await t.app.inject({ method: 'POST', url: '/api/v1/defi/swap/execute', headers: t.headers, payload: { quote_id: quote.quote_id, wallet_address: custodyAddress(acct, 'ethereum'), account_id: acct, deadline_minutes: 1440 } });
    expect(r.statusCode, r.body).toBe(201);
    const done = await finish(r.json().data, 1_000);
    expect(done).toMatchObject({ status: 'failed', tx_hash: null, failure: { code: 'QUOTE_EXPIRED' }, compensation_executed: false });
    expect(done.failure.reason).toContain(quote.quote_expires_at);
    const { rows } = await getPool().query('SELECT reservation_entry_id FROM defi_swaps WHERE id = $1', [done.swap_id]);
    expect(rows[0].reservation_entry_id).toBeNull();
    expect(await book(acct, 'USDC', 'ethereum')).toEqual(usdc0);
    // And the API itself refuses a quote past its expiry by its own clock.
    process.env.DEFI_QUOTE_TTL_SECONDS = '1';
    const short = (await t.app.inject({ method: 'POST', url: '/api/v1/defi/swap/quote', headers: t.headers, payload: { chain: 'ethereum', token_in: 'USDC', token_out: 'WETH', amount_in: '100' } })).json().data;
    await new Promise((res) => setTimeout(res, 1100));
    const late = await t.app.inject({ method: 'POST', url: '/api/v1/defi/swap/execute', headers: t.headers, payload: { quote_id: short.quote_id, wallet_address: custodyAddress(acct, 'ethereum'), account_id: acct } });
    expect(late.statusCode).toBe(422);
    expect(late.json().errors[0]).toMatchObject({ code: 'QUOTE_EXPIRED', source: { pointer: '/quote_id' } });
  });
});
