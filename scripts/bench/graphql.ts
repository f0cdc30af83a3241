// GraphQL (docs/graphql.md):
// 1. query throughput: a page of 50 transactions with their account and asset, through the API in
//    this process (Fastify inject: no socket costs), 8 at a time for ~10 s. Target ≥ 1,000/s.
// 2. commit-to-subscriber latency: a listening app on 127.0.0.1, 200 graphql-ws clients subscribed
//    to transactionCreated on 10 accounts (20 each), the outbox dispatcher at its default interval,
//    deposits at ~40/s for ~10 s; latency = arrival at the client − the transaction's created_at
//    (written before the commit, so the figure includes the commit). Target p99 ≤ 250 ms.
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { createApiKey } from '../../domain/auth/api-keys';
import { registerUser } from '../../domain/auth/users';
import { createAccount } from '../../domain/accounts';
import { moveCash } from '../../domain/cash';
import { startEventDispatcher } from '../../domain/events/dispatcher';
import { closeLiveFeed } from '../../domain/events/live-feed';
import { benchApp, drive, percentile, report, withBenchDatabase } from './common';

const SECONDS = Number.parseInt(process.env.BENCH_SECONDS ?? '10', 10);
const SUBSCRIBERS = 200;
const ACCOUNTS = 10;

export async function benchGraphql(): Promise<void> {
  await withBenchDatabase(async () => {
    process.env.GRAPHQL_RATE_LIMIT_PER_MINUTE = '1000000000';
    const user = (await registerUser('Bench GraphQL', 'gql@bench.test', 'bench-password-123'))!;
    const { value } = await createApiKey({ userId: user.id, name: 'bench', environment: 'sandbox', permissions: ['read', 'write'] });
    const headers = { authorization: `Bearer ${value}`, 'content-type': 'application/json' };
    const accounts: string[] = [];
    for (let i = 0; i < ACCOUNTS; i++) accounts.push((await createAccount({ userId: user.id, environment: 'sandbox', name: `bench ${i}` })).id);
    for (let i = 0; i < 60; i++) await moveCash('deposit', { userId: user.id, environment: 'sandbox', accountId: accounts[i % ACCOUNTS], amount: '1.00', assetCode: 'USD' });

    const app = await benchApp();
    const query = JSON.stringify({ query: '{ transactions(perPage: 50) { data { id amount type status createdAt account { id name status } asset { code precision } } paginatorInfo { total lastPage } } }' });
    const check = await app.inject({ method: 'POST', url: '/api/graphql', headers, payload: query });
    if (check.json().data?.transactions?.data?.length !== 50) throw new Error(`unexpected answer: ${check.body.slice(0, 300)}`);
    await drive(8, 2, async () => void (await app.inject({ method: 'POST', url: '/api/graphql', headers, payload: query })));
    const rate = report('query: 50 transactions, nested', await drive(8, SECONDS, async () => {
      const r = await app.inject({ method: 'POST', url: '/api/graphql', headers, payload: query });
      if (r.statusCode !== 200) throw new Error(r.body);
    }));
    console.log(`  target ≥ 1,000/s: ${rate >= 1000 ? 'met' : 'NOT met'}`);

    await app.listen({ host: '127.0.0.1', port: 0 });
    const url = `ws://127.0.0.1:${(app.server.address() as { port: number }).port}/api/graphql`;
    const dispatcher = startEventDispatcher();
    const latencies: number[] = [];
    const clients: Client[] = [];
    let ready = 0;
    for (let i = 0; i < SUBSCRIBERS; i++) {
      const c = createClient({ url, webSocketImpl: WebSocket, connectionParams: { Authorization: headers.authorization }, retryAttempts: 0, lazy: false });
      clients.push(c);
      c.subscribe(
        { query: 'subscription($a: ID!) { transactionCreated(accountId: $a) { id createdAt } }', variables: { a: accounts[i % ACCOUNTS] } },
        { next: (v) => latencies.push(Date.now() - Date.parse((v.data as { transactionCreated: { createdAt: string } }).transactionCreated.createdAt)), error: (e) => console.error('subscription error', e), complete: () => undefined },
      );
      ready++;
    }
    await new Promise((r) => setTimeout(r, 2000)); // every subscription registered and listening
    let deposits = 0;
    const end = Date.now() + SECONDS * 1000;
    while (Date.now() < end) {
      await moveCash('deposit', { userId: user.id, environment: 'sandbox', accountId: accounts[deposits % ACCOUNTS], amount: '1.00', assetCode: 'USD' });
      deposits++;
      await new Promise((r) => setTimeout(r, 25));
    }
    const expected = deposits * (SUBSCRIBERS / ACCOUNTS);
    const until = Date.now() + 5000;
    while (latencies.length < expected && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    const sorted = [...latencies].sort((a, b) => a - b);
    const p99 = percentile(sorted, 99);
    console.log(
      `${'subscriptions: commit → subscriber'.padEnd(40)} ${ready} subscribers, ${deposits} deposits, ${latencies.length}/${expected} deliveries   p50 ${percentile(sorted, 50)} ms   p99 ${p99} ms   max ${sorted[sorted.length - 1]} ms`,
    );
    console.log(`  target p99 ≤ 250 ms: ${p99 <= 250 && latencies.length === expected ? 'met' : 'NOT met'}`);
    for (const c of clients) await c.dispose();
    await dispatcher.stop();
    await closeLiveFeed();
    await app.close();
  });
}
