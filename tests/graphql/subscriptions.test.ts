/**
 * Subscriptions over a real WebSocket (graphql-ws client, protocol graphql-transport-ws) on a
 * listening app, fed by the outbox dispatcher's commits: one transactionCreated per transaction,
 * ownership refused at subscribe, transferCompleted when the workflow completes, orderMatched for
 * a swap, accountUpdated for balances and details; the protocol's close codes for a subscribe
 * before the ack (4401), a duplicate id (4409) and a refused credential (4403).
 */
import { createClient, type Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { getPool } from '../../domain/db/pool';
import { startEventDispatcher, type EventDispatcher } from '../../domain/events/dispatcher';
import { closeLiveFeed } from '../../domain/events/live-feed';
import { eventStream } from '../../domain/events/stream';
import { AckPolicy, DeliverPolicy } from '@nats-io/jetstream';
import { createTestApp, createTestUser, type TestApp } from '../helpers/app';
import { startTestWorker, type TestWorker } from '../helpers/worker';
import { fundBook, openAccount, waitSwap } from '../defi/helpers';
import { gqlOk } from './helpers';

let t: TestApp;
let worker: TestWorker;
let dispatcher: EventDispatcher;
let url: string;
let acct: string;
let other: string;
const clients: Client[] = [];

beforeAll(async () => {
  t = await createTestApp();
  worker = await startTestWorker();
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const addr = t.app.server.address() as { port: number };
  url = `ws://127.0.0.1:${addr.port}/api/graphql`;
  dispatcher = startEventDispatcher({ intervalMs: 50, taskQueue: worker.taskQueue });
  acct = (await gqlOk(t, 'mutation { createAccount(input: { name: "sub" }) { id } }')).createAccount.id;
  other = (await gqlOk(t, 'mutation { createAccount(input: { name: "other" }) { id } }')).createAccount.id;
}, 120_000);

afterAll(async () => {
  for (const c of clients) await c.dispose();
  await dispatcher?.stop();
  await closeLiveFeed();
  await worker?.stop();
  await t?.close();
});

function client(headers: Record<string, string> = t.headers): Client {
  const c = createClient({ url, webSocketImpl: WebSocket, connectionParams: { Authorization: headers.authorization }, lazy: false, retryAttempts: 0 });
  clients.push(c);
  return c;
}

interface Stream {
  events: any[];
  errors: unknown[];
  completed: boolean;
  stop: () => void;
}

/** Subscribes and collects; resolves once the server acknowledged the subscription (its first poll of nothing). */
async function subscribe(c: Client, query: string, variables: Record<string, unknown>): Promise<Stream> {
  const s: Stream = { events: [], errors: [], completed: false, stop: () => undefined };
  s.stop = c.subscribe(
    { query, variables },
    {
      next: (v) => (v.errors ? s.errors.push(...v.errors) : s.events.push(v.data)),
      error: (e) => s.errors.push(e),
      complete: () => (s.completed = true),
    },
  );
  // The subscribe resolver (ownership, LISTEN) runs before events can flow: give it a moment.
  await new Promise((r) => setTimeout(r, 300));
  return s;
}

async function until(cond: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('transactionCreated', () => {
  it('delivers exactly one event per transaction of the account, after commit', async () => {
    const s = await subscribe(client(), 'subscription($a: ID!) { transactionCreated(accountId: $a) { id accountId type amount assetCode status account { id name } } }', { a: acct });
    for (let i = 0; i < 5; i++) await gqlOk(t, 'mutation($a: ID!) { deposit(accountId: $a, amount: "10.00", assetCode: "USD") { entryId } }', { a: acct });
    // Another account's postings are not this subscription's.
    await gqlOk(t, 'mutation($a: ID!) { deposit(accountId: $a, amount: "3.00", assetCode: "USD") { entryId } }', { a: other });
    await gqlOk(t, 'mutation($i: TransferInput!) { createTransfer(input: $i) { id status } }', { i: { fromAccount: acct, toAccount: other, amount: '7.00', assetCode: 'USD', workflowEnabled: false } });

    const rest = (await t.app.inject({ method: 'GET', url: `/api/v2/accounts/${acct}/transactions?per_page=100`, headers: t.headers })).json().data.map((x: { uuid: string }) => x.uuid);
    await until(() => s.events.length >= rest.length);
    await new Promise((r) => setTimeout(r, 500)); // anything extra (a duplicate) would have come by now
    const got = s.events.map((e) => e.transactionCreated);
    expect(got.map((x) => x.id).sort()).toEqual([...rest].sort());
    expect(new Set(got.map((x) => x.id)).size).toBe(got.length);
    expect(got.every((x) => x.accountId === acct && x.account.id === acct && x.account.name === 'sub')).toBe(true);
    expect(got.filter((x) => x.type === 'deposit').map((x) => x.amount)).toEqual(['10.00', '10.00', '10.00', '10.00', '10.00']);
    expect(s.errors).toEqual([]);
    s.stop();
  });

  it("refuses another user's account at subscribe: an error with the REST code, and no events", async () => {
    const stranger = await createTestUser();
    const s = await subscribe(client(stranger.headers), 'subscription($a: ID!) { transactionCreated(accountId: $a) { id } }', { a: acct });
    await until(() => s.errors.length > 0 || s.completed);
    await gqlOk(t, 'mutation($a: ID!) { deposit(accountId: $a, amount: "1.00", assetCode: "USD") { entryId } }', { a: acct });
    await new Promise((r) => setTimeout(r, 500));
    expect(s.events).toEqual([]);
    expect(JSON.stringify(s.errors)).toContain('NOT_FOUND');
  });
});

describe('across processes', () => {
  it('every API process has its own consumer of the stream: another process hears each event, once it is published', async () => {
    // What another API process does (domain/events/live-feed.ts): a consumer of its own on the stream.
    const h = await eventStream();
    const name = `other-process-${Date.now()}`;
    await h.jsm.consumers.add(h.settings.stream, { durable_name: name, ack_policy: AckPolicy.None, deliver_policy: DeliverPolicy.New });
    const messages = await (await h.js.consumers.get(h.settings.stream, name)).consume();
    const heard: string[] = [];
    void (async () => {
      for await (const m of messages) heard.push((m.json() as { id: string }).id);
    })();
    try {
      const d = await gqlOk(t, 'mutation($a: ID!) { deposit(accountId: $a, amount: "4.00", assetCode: "USD") { transaction { id } } }', { a: other });
      const { rows } = await getPool().query<{ id: string }>(`SELECT id FROM platform_events WHERE type = 'transaction.created' AND data->>'id' = $1`, [d.deposit.transaction.id]);
      await until(() => heard.includes(rows[0].id));
      // The relay marks the row published, with its stream sequence, once the stream acknowledged it.
      const published = async () => (await getPool().query(`SELECT stream_seq FROM platform_events WHERE id = $1 AND published_at IS NOT NULL`, [rows[0].id])).rows;
      for (const end = Date.now() + 5000; (await published()).length === 0 && Date.now() < end; ) await new Promise((r) => setTimeout(r, 25));
      expect(Number((await published())[0].stream_seq)).toBeGreaterThan(0);
      expect(heard.filter((id) => id === rows[0].id)).toHaveLength(1);
    } finally {
      await messages.close();
      await h.jsm.consumers.delete(h.settings.stream, name);
    }
  });
});

describe('the other subscriptions', () => {
  it('accountUpdated: balance changes and detail changes of the account', async () => {
    const s = await subscribe(client(), 'subscription($a: ID!) { accountUpdated(id: $a) { type accountId account { name } balance { assetCode total } } }', { a: acct });
    await gqlOk(t, 'mutation($a: ID!) { deposit(accountId: $a, amount: "2.00", assetCode: "USD") { entryId } }', { a: acct });
    await gqlOk(t, 'mutation($a: ID!) { updateAccount(id: $a, input: { name: "renamed" }) { id } }', { a: acct });
    await until(() => s.events.length >= 2);
    const [balance, updated] = s.events.map((e) => e.accountUpdated);
    expect(balance).toMatchObject({ type: 'account.balance_updated', accountId: acct, balance: { assetCode: 'USD' } });
    expect(updated, JSON.stringify(s.events)).toMatchObject({ type: 'account.updated', accountId: acct, account: { name: 'renamed' }, balance: null });
    s.stop();
  });

  it('transferCompleted: once, when the transfer workflow completes; at once for one already completed', async () => {
    const c = client();
    const created = await gqlOk(t, 'mutation($i: TransferInput!) { createTransfer(input: $i) { id status } }', { i: { fromAccount: acct, toAccount: other, amount: '5.00', assetCode: 'USD' } });
    const id = created.createTransfer.id;
    const s = await subscribe(c, 'subscription($id: ID!) { transferCompleted(id: $id) { id status amount toAccountId } }', { id });
    await until(() => s.completed, 20_000);
    expect(s.events).toEqual([{ transferCompleted: { id, status: 'completed', amount: '5.00', toAccountId: other } }]);
    const again = await subscribe(c, 'subscription($id: ID!) { transferCompleted(id: $id) { id status } }', { id });
    await until(() => again.completed);
    expect(again.events).toEqual([{ transferCompleted: { id, status: 'completed' } }]);
  });

  it('orderMatched: the caller\'s swap on the pair, either direction', async () => {
    const chainAcct = await openAccount(t, t.headers);
    await fundBook(chainAcct, 'USDC', 'arbitrum', '1000.000000');
    const s = await subscribe(client(), 'subscription { orderMatched(pair: "WETH/USDC") { pair tokenIn tokenOut amountIn amountOut price chain } }', {});
    const other = await subscribe(client(), 'subscription { orderMatched(pair: "WBTC/USDC") { pair } }', {});
    const r = await t.app.inject({ method: 'POST', url: '/api/v2/defi/swap/execute', headers: t.headers, payload: { from_token: 'USDC', to_token: 'WETH', amount: '100', slippage_bps: 500, chain: 'arbitrum' } });
    expect(r.statusCode, r.body).toBe(201);
    const done = await waitSwap(t, t.headers, r.json().data.swap_id, 20_000);
    expect(done.status).toBe('completed');
    await until(() => s.events.length === 1);
    expect(s.events[0].orderMatched).toMatchObject({ pair: 'WETH/USDC', tokenIn: 'USDC', tokenOut: 'WETH', amountIn: done.amount_in, amountOut: done.actual_output, chain: 'arbitrum' });
    expect(other.events).toEqual([]);
  });
});

describe('the protocol (graphql-transport-ws)', () => {
  const raw = () => new WebSocket(url, 'graphql-transport-ws');
  const closed = (ws: WebSocket) => new Promise<number>((res) => ws.on('close', (code) => res(code)));
  const opened = (ws: WebSocket) => new Promise<void>((res) => ws.on('open', () => res()));
  const acked = (ws: WebSocket) => new Promise<void>((res) => ws.on('message', (m) => JSON.parse(String(m)).type === 'connection_ack' && res()));

  it('a subscribe before the connection is acknowledged closes the socket with 4401', async () => {
    const ws = raw();
    const code = closed(ws);
    await opened(ws);
    ws.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: 'subscription { orderMatched(pair: "WETH/USDC") { pair } }' } }));
    expect(await code).toBe(4401);
  });

  it('a second subscribe with an id in use closes the socket with 4409', async () => {
    const ws = raw();
    const code = closed(ws);
    await opened(ws);
    const ack = acked(ws);
    ws.send(JSON.stringify({ type: 'connection_init', payload: { Authorization: t.headers.authorization } }));
    await ack;
    const sub = { id: 'same', type: 'subscribe', payload: { query: 'subscription($a: ID!) { transactionCreated(accountId: $a) { id } }', variables: { a: acct } } };
    ws.send(JSON.stringify(sub));
    await new Promise((r) => setTimeout(r, 200));
    ws.send(JSON.stringify(sub));
    expect(await code).toBe(4409);
  });

  it('a refused credential in connection_init closes the socket with 4403', async () => {
    const ws = raw();
    const code = closed(ws);
    await opened(ws);
    ws.send(JSON.stringify({ type: 'connection_init', payload: { Authorization: 'Bearer not-a-key' } }));
    expect(await code).toBe(4403);
  });
});
