/**
 * An Idempotency-Key must never swap twice: a process that died after the swap's commit and before
 * the middleware stored the answer leaves the key in_flight; a retry past the 60 s lock takes it over
 * and runs the handler again, which answers with the swap the first run recorded.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPool } from '../../domain/db/pool';
import { DecimalMoney as D } from '../../domain/money/amount';
import { getTemporalClient } from '../../domain/temporal/client';
import { createTestApp, createTestUser, type TestApp, type TestUser } from '../helpers/app';
import { crashedAfterCommit, newIdempotencyKey } from '../helpers/idempotency';
import { startTestWorker, type TestWorker } from '../helpers/worker';
import { book, custodyAddress, expectBalancedLedger, fundBook, openAccount, waitSwap } from './helpers';

let t: TestApp;
let worker: TestWorker;
let acct: string;

beforeAll(async () => {
  t = await createTestApp();
  worker = await startTestWorker();
  acct = await openAccount(t, t.headers);
  await fundBook(acct, 'ETH', 'arbitrum', '10');
  await fundBook(acct, 'USDC', 'arbitrum', '10000.000000');
}, 120_000);

afterAll(async () => {
  await worker?.stop();
  await t?.close();
});

const post = (url: string, key: string, payload: Record<string, unknown>, headers = t.headers) =>
  t.app.inject({ method: 'POST', url, headers: { ...headers, 'idempotency-key': key }, payload });

async function swapsOf(userId: string): Promise<string[]> {
  const { rows } = await getPool().query<{ id: string }>('SELECT id FROM defi_swaps WHERE user_id = $1 ORDER BY created_at', [userId]);
  return rows.map((r) => r.id);
}

describe('Idempotency-Key takeover after a crash (swaps)', () => {
  it('POST /api/v2/defi/swap/execute: the retry answers 201 with the same swap; one swap, one workflow, the tokens moved once', async () => {
    const before = await swapsOf(t.user.userId);
    const eth0 = await book(acct, 'ETH', 'arbitrum');
    const key = newIdempotencyKey();
    const body = { from_token: 'ETH', to_token: 'USDC', amount: '0.5', slippage_bps: 100, chain: 'arbitrum', account_id: acct };
    const first = await post('/api/v2/defi/swap/execute', key, body);
    expect(first.statusCode, first.body).toBe(201);
    const s = first.json().data;
    const done = await waitSwap(t, t.headers, s.swap_id);
    expect(done.status).toBe('completed');
    const client = await getTemporalClient();
    const run = (await client.workflow.getHandle(`swap-${s.swap_id}`).describe()).runId;

    await crashedAfterCommit(key);
    const retry = await post('/api/v2/defi/swap/execute', key, body);
    expect(retry.statusCode, retry.body).toBe(201);
    const again = retry.json().data;
    expect(again.swap_id).toBe(s.swap_id);
    expect(again.quote.quote_id).toBe(s.quote.quote_id);
    expect(again.tx_hash).toBe(s.tx_hash);

    expect(await swapsOf(t.user.userId)).toEqual([...before, s.swap_id]);
    expect((await client.workflow.getHandle(`swap-${s.swap_id}`).describe()).runId).toBe(run);
    expect((await book(acct, 'ETH', 'arbitrum')).total).toBe(new D(eth0.total).minus('0.5').toFixed(18));
    await expectBalancedLedger();
  });

  it('POST /api/v1/defi/swap/execute (a quote): the retry answers 201 with the same swap, not QUOTE_ALREADY_USED', async () => {
    const q = await t.app.inject({
      method: 'POST',
      url: '/api/v1/defi/swap/quote',
      headers: t.headers,
      payload: { chain: 'arbitrum', token_in: 'USDC', token_out: 'WETH', amount_in: '100' },
    });
    expect(q.statusCode, q.body).toBe(201);
    const usdc0 = await book(acct, 'USDC', 'arbitrum');
    const key = newIdempotencyKey();
    const body = { quote_id: q.json().data.quote_id, wallet_address: custodyAddress(acct, 'arbitrum'), max_gas_price_gwei: 50, deadline_minutes: 10, account_id: acct };
    const first = await post('/api/v1/defi/swap/execute', key, body);
    expect(first.statusCode, first.body).toBe(201);
    const id = first.json().data.swap_id;
    await waitSwap(t, t.headers, id);

    await crashedAfterCommit(key);
    const retry = await post('/api/v1/defi/swap/execute', key, body);
    expect(retry.statusCode, retry.body).toBe(201);
    expect(retry.json().data.swap_id).toBe(id);
    expect(new D((await book(acct, 'USDC', 'arbitrum')).total).eq(new D(usdc0.total).minus('100'))).toBe(true);
  });

  it('a key reused for another swap once its stored answer is gone is 409, nothing swapped', async () => {
    const key = newIdempotencyKey();
    const body = { from_token: 'ETH', to_token: 'USDC', amount: '0.1', slippage_bps: 100, chain: 'arbitrum', account_id: acct };
    const first = await post('/api/v2/defi/swap/execute', key, body);
    expect(first.statusCode, first.body).toBe(201);
    await waitSwap(t, t.headers, first.json().data.swap_id);
    const before = await swapsOf(t.user.userId);
    await getPool().query('DELETE FROM idempotency_keys WHERE key = $1', [key]); // past the 24 hours answers are kept
    const other = await post('/api/v2/defi/swap/execute', key, { ...body, amount: '0.2' });
    expect(other.statusCode, other.body).toBe(409);
    expect(other.json().errors[0].code).toBe('IDEMPOTENCY_CONFLICT');
    expect(await swapsOf(t.user.userId)).toEqual(before);
  });

  it('runs of one request that overlap (one outlived the key\'s lock) record one swap, each with its own quote', async () => {
    const before = await swapsOf(t.user.userId);
    const { operationRequestKey } = await import('../../api/plugins/idempotency');
    const { quoteAndExecuteFromBody } = await import('../../api/operations/defi/requests');
    const requestKey = operationRequestKey('some-credential', newIdempotencyKey());
    const body = { from_token: 'ETH', to_token: 'USDC', amount: '0.05', slippage_bps: 100, chain: 'arbitrum', account_id: acct };
    const who = { userId: t.user.userId, environment: 'sandbox' as const };
    const runs = await Promise.all([1, 2, 3].map(() => quoteAndExecuteFromBody(who, body, requestKey)));
    const ids = new Set(runs.map((r) => r.swap.id));
    expect(ids.size).toBe(1);
    for (const r of runs) expect(r.quote.id).toBe(r.swap.quoteId);
    expect(await swapsOf(t.user.userId)).toEqual([...before, ...ids]);
    await waitSwap(t, t.headers, [...ids][0]);
  });

  it('two different keys make two swaps; the same key from another user is independent', async () => {
    const before = await swapsOf(t.user.userId);
    const body = { from_token: 'ETH', to_token: 'USDC', amount: '0.1', slippage_bps: 100, chain: 'arbitrum', account_id: acct };
    const a = await post('/api/v2/defi/swap/execute', newIdempotencyKey(), body);
    const key = newIdempotencyKey();
    const b = await post('/api/v2/defi/swap/execute', key, body);
    expect([a.statusCode, b.statusCode]).toEqual([201, 201]);
    expect(a.json().data.swap_id).not.toBe(b.json().data.swap_id);
    expect(await swapsOf(t.user.userId)).toHaveLength(before.length + 2);

    const other: TestUser = await createTestUser();
    const theirs = await openAccount(t, other.headers);
    await fundBook(theirs, 'ETH', 'arbitrum', '1');
    const c = await post('/api/v2/defi/swap/execute', key, { ...body, account_id: theirs }, other.headers);
    expect(c.statusCode, c.body).toBe(201);
    expect(c.json().data.swap_id).not.toBe(b.json().data.swap_id);
    expect(await swapsOf(other.userId)).toEqual([c.json().data.swap_id]);
    for (const r of [a, b, c]) await waitSwap(t, r === c ? other.headers : t.headers, r.json().data.swap_id);
  });
});

describe('Idempotency-Key takeover after a crash (GraphQL swaps)', () => {
  it('quoteAndExecuteDefiSwap: the retried document answers with the same swap; the tokens moved once', async () => {
    const before = await swapsOf(t.user.userId);
    const eth0 = await book(acct, 'ETH', 'arbitrum');
    const key = newIdempotencyKey();
    const payload = {
      query: 'mutation($input: QuoteAndExecuteSwapInput!) { quoteAndExecuteDefiSwap(input: $input) { swapId } }',
      variables: { input: { fromToken: 'ETH', toToken: 'USDC', amount: '0.25', slippageBps: 100, chain: 'arbitrum', accountId: acct } },
    };
    const first = await post('/api/graphql', key, payload);
    expect(first.json().errors, first.body).toBeUndefined();
    const id = first.json().data.quoteAndExecuteDefiSwap.swapId as string;
    expect((await waitSwap(t, t.headers, id)).status).toBe('completed');

    await crashedAfterCommit(key);
    const retry = await post('/api/graphql', key, payload);
    expect(retry.json().errors, retry.body).toBeUndefined();
    expect(retry.json().data.quoteAndExecuteDefiSwap.swapId).toBe(id);
    expect(await swapsOf(t.user.userId)).toEqual([...before, id]);
    expect((await book(acct, 'ETH', 'arbitrum')).total).toBe(new D(eth0.total).minus('0.25').toFixed(18));
    await expectBalancedLedger();
  });
});
