// Set-up through the API (a user, a sandbox API key, 10 funded hot accounts, a chain book for the
// swaps, a webhook on the loopback receiver) and the load: transfers (half immediate, half
// workflow) between random pairs of the hot accounts, swaps and rail payments, from concurrent
// clients, paced over the load's duration, each write with an Idempotency-Key.
import { randomBytes } from 'node:crypto';
import { ensureChainLedgerAccount } from '../../domain/chains/books';
import { getPool } from '../../domain/db/pool';
import { postEntry, systemAccount } from '../../domain/ledger';
import { ApiClient, expectStatus } from './client';
import { log, sleep } from './infra';

export const HOT_ACCOUNTS = 10;
export const DEPOSIT = '100000.00';
export const SWAP_CHAIN = 'arbitrum';
const SWAP_BOOK = { USDC: '1000000.000000', WETH: '200' } as const;
export const CREDITOR = { name: 'Bob Payee', account_number: '123456789', routing_number: '021000021' };

/**
 * What the webhook subscribes to by default: the outcome of each operation (one event per
 * operation). A workflow transfer emits about ten events (transfer.*, workflow.*, transaction.*,
 * account.balance_updated), each one a delivery workflow: with '*' (--webhook-events '*') the
 * deliveries outnumber the transfers ten to one and settling takes far longer on two cores.
 */
export const DEFAULT_WEBHOOK_EVENTS = ['transfer.completed', 'transfer.failed', 'swap.completed', 'payment_rail.completed', 'payment_rail.failed', 'payment_rail.rejected', 'payment_rail.returned'];

export interface Setup {
  userId: string;
  webhookEvents: string[];
  email: string;
  apiKey: string;
  accounts: string[];
  webhookId: string;
  deposited: number;
}

export async function setUp(api: ApiClient, receiverUrl: string, webhookEvents: string[] = DEFAULT_WEBHOOK_EVENTS): Promise<Setup> {
  const tag = randomBytes(4).toString('hex');
  const email = `chaos-${tag}@chaos.test`;
  const password = 'chaos-password-123';
  const user = expectStatus(
    await api.call('POST', '/api/auth/register', { name: 'Chaos', email, password, password_confirmation: password }),
    201,
    'register',
  ).data;
  const tokens = expectStatus(await api.call('POST', '/api/auth/login', { email, password }), 200, 'login');
  const key = expectStatus(
    await api.call('POST', '/api/v2/api-keys', { name: 'chaos', environment: 'sandbox', permissions: ['read', 'write'] }, { authorization: `Bearer ${tokens.access_token}` }),
    201,
    'api key',
  ).data.key as string;
  api.headers = { authorization: `Bearer ${key}` };

  const accounts: string[] = [];
  for (let i = 0; i < HOT_ACCOUNTS; i++) {
    const a = await api.write('/api/v2/accounts', { name: `hot ${i}` }, `setup-account-${i}`);
    accounts.push(expectStatus(a!, 201, 'account').data.uuid);
    const d = await api.write(`/api/v2/accounts/${accounts[i]}/deposit`, { amount: DEPOSIT, asset_code: 'USD' }, `setup-deposit-${i}`);
    expectStatus(d!, 201, 'deposit');
  }
  // Tokens on the first account's arbitrum book for the swaps, as an on-chain deposit books them
  // (the sandbox has no API for that; tests/defi/helpers.ts fundBook does the same).
  for (const [asset, amount] of Object.entries(SWAP_BOOK)) {
    const idem = `chaos:fund:${tag}:${asset}`;
    const book = await ensureChainLedgerAccount(getPool(), accounts[0], asset, SWAP_CHAIN);
    await postEntry({
      environment: 'sandbox',
      idempotencyKey: idem,
      type: 'deposit',
      lines: [
        { accountId: await systemAccount('sandbox', asset, 'funding', idem), direction: 'debit', amount },
        { accountId: book, direction: 'credit', amount },
      ],
    });
  }
  const hook = expectStatus((await api.write('/api/v2/webhooks', { url: receiverUrl, events: webhookEvents }, 'setup-webhook'))!, 201, 'webhook').data;
  return { userId: user.id, webhookEvents, email, apiKey: key, accounts, webhookId: hook.id, deposited: HOT_ACCOUNTS * Number(DEPOSIT) };
}

export type OpKind = 'immediate' | 'workflow' | 'swap' | 'rail';

export interface KindFigures {
  sent: number;
  /** 201 answers. */
  done: number;
  /** Final 4xx answers, by error code. */
  refused: Record<string, number>;
  unanswered: number;
  /** Writes that needed more than one attempt. */
  retried: number;
  ids: string[];
  keys: string[];
}

export interface LoadResult {
  byKind: Record<OpKind, KindFigures>;
  seconds: number;
  latenciesMs: number[];
}

const rnd = (n: number) => Math.floor(Math.random() * n);

function plan(transfers: number): OpKind[] {
  const extra = Math.max(1, Math.round(transfers * 0.02));
  const ops: OpKind[] = [];
  for (let i = 0; i < transfers; i++) ops.push(i % 2 === 0 ? 'immediate' : 'workflow');
  for (let i = 0; i < extra; i++) ops.push('swap', 'rail');
  // Fisher-Yates: the kinds mixed through the whole run.
  for (let i = ops.length - 1; i > 0; i--) {
    const j = rnd(i + 1);
    [ops[i], ops[j]] = [ops[j], ops[i]];
  }
  return ops;
}

function request(kind: OpKind, i: number, s: Setup): { path: string; body: Record<string, unknown> } {
  const key = `chaos-${kind}-${i}`;
  switch (kind) {
    case 'immediate':
    case 'workflow': {
      const a = rnd(HOT_ACCOUNTS);
      const b = (a + 1 + rnd(HOT_ACCOUNTS - 1)) % HOT_ACCOUNTS;
      const amount = `${1 + rnd(20)}.${String(rnd(100)).padStart(2, '0')}`;
      return {
        path: '/api/v2/transfers',
        body: { from_account: s.accounts[a], to_account: s.accounts[b], amount, asset_code: 'USD', reference: key, workflow_enabled: kind === 'workflow' },
      };
    }
    case 'swap':
      return {
        path: '/api/v2/defi/swap/execute',
        body:
          i % 3 === 0
            ? { from_token: 'WETH', to_token: 'USDC', amount: '0.01', chain: SWAP_CHAIN, account_id: s.accounts[0], slippage_bps: 500 }
            : { from_token: 'USDC', to_token: 'WETH', amount: `${10 + rnd(40)}`, chain: SWAP_CHAIN, account_id: s.accounts[0], slippage_bps: 500 },
      };
    case 'rail':
      return {
        path: '/api/v1/payment-rails/payments',
        body: { account_id: s.accounts[rnd(HOT_ACCOUNTS)], amount: `${1 + rnd(10)}.00`, currency: 'USD', rail: 'rtp', creditor_account: CREDITOR, memo: key },
      };
  }
}

/**
 * Runs the load: `concurrency` clients take the next operation; operation i starts no earlier than
 * i/total of `seconds` into the load, so the faults land throughout it. onProgress is called
 * about every 5 s.
 */
export async function runLoad(
  api: ApiClient,
  s: Setup,
  opts: { transfers: number; seconds: number; concurrency: number; onProgress?: (done: number, total: number) => void },
): Promise<LoadResult> {
  const ops = plan(opts.transfers);
  const empty = (): KindFigures => ({ sent: 0, done: 0, refused: {}, unanswered: 0, retried: 0, ids: [], keys: [] });
  const byKind: Record<OpKind, KindFigures> = { immediate: empty(), workflow: empty(), swap: empty(), rail: empty() };
  const latenciesMs: number[] = [];
  const start = Date.now();
  const spacingMs = (opts.seconds * 1000) / ops.length;
  let next = 0;
  let finished = 0;
  const progress = setInterval(() => opts.onProgress?.(finished, ops.length), 5000);
  try {
    await Promise.all(
      Array.from({ length: opts.concurrency }, async () => {
        while (next < ops.length) {
          const i = next++;
          const kind = ops[i];
          const due = start + i * spacingMs;
          if (due > Date.now()) await sleep(due - Date.now());
          const { path, body } = request(kind, i, s);
          const key = `chaos-${kind}-${i}`;
          const f = byKind[kind];
          f.sent++;
          f.keys.push(key);
          const t0 = Date.now();
          const r = await api.write(path, body, key);
          latenciesMs.push(Date.now() - t0);
          finished++;
          if (!r) {
            f.unanswered++;
            log(`${kind} ${key}: no answer within the write deadline`);
            continue;
          }
          if (r.attempts > 1) f.retried++;
          if (r.status === 201) {
            f.done++;
            const d = r.body.data;
            f.ids.push(kind === 'swap' ? d.swap_id : kind === 'rail' ? d.id : d.uuid);
          } else {
            const code = r.body?.errors?.[0]?.code ?? `HTTP_${r.status}`;
            f.refused[code] = (f.refused[code] ?? 0) + 1;
          }
        }
      }),
    );
  } finally {
    clearInterval(progress);
  }
  return { byKind, seconds: (Date.now() - start) / 1000, latenciesMs };
}
