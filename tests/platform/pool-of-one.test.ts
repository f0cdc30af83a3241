/**
 * The platform on a pool of ONE database connection (DB_POOL_MAX=1), shared by the API and an
 * in-process worker. Code that holds the connection (withTransaction, withClient) and then asks
 * the pool for another waits on itself (domain/db/pool.ts): before the held client was passed
 * down, a rail payment's sanctions screening did so inside its transaction, and the sequence
 * below never got its payments submitted (the reads behind them waited for the one connection).
 * Here rail payments, transfers (immediate and workflow), a swap, a bridge and an open-banking
 * payment run at once; each must reach its state within the bound, and /api/ready answers.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BG_PREFIX } from '../../api/operations/open-banking/schemas';
import { clearAssetCache } from '../../domain/assets';
import { getPool } from '../../domain/db/pool';
import { TPP_CERTIFICATE_HEADER } from '../../domain/open-banking/certificates';
import { issueSandboxCertificate } from '../../domain/open-banking/sandbox-ca';
import { registerTpp } from '../../domain/open-banking/tpps';
import { getTemporalClient } from '../../domain/temporal/client';
import { makeIban } from '../../iso20022/iban';
import { custodyAddress, fundBook, openAccount } from '../defi/helpers';
import { createTestApp, createTestUser, type TestApp } from '../helpers/app';
import { startTestWorker, type TestWorker } from '../helpers/worker';
import { openFundedAccount } from '../transfers/helpers';

/** Every flow below finishes well inside this on an idle machine (a few seconds). */
const BOUND_MS = 45_000;

let t: TestApp;
let w: TestWorker;
let tpp: Record<string, string>;
let obAccount = '';
let obIban = '';
let swapAccount = '';
/** Workflows that wait for days (an ACH file, a bridge's finality): ended with the file. */
const leftRunning: string[] = [];

beforeAll(async () => {
  process.env.DB_POOL_MAX = '1';
  // The bound is on the flows; a request queued behind the others for the one connection waits.
  process.env.DB_ACQUIRE_TIMEOUT_MS = '15000';
  t = await createTestApp();
  w = await startTestWorker();
  expect(getPool().options.max).toBe(1);

  const issued = await issueSandboxCertificate({ name: 'Pool of one TPP', roles: ['PSP_PI'] });
  await registerTpp(issued.certificate);
  tpp = { [TPP_CERTIFICATE_HEADER]: encodeURIComponent(issued.certificate) };
  obAccount = await openFundedAccount(t, t.headers, '1000.00', 'EUR');
  obIban = (await getPool().query<{ iban: string }>('SELECT iban FROM account_ibans WHERE account_id = $1', [obAccount])).rows[0].iban;

  swapAccount = await openAccount(t, t.headers);
  await fundBook(swapAccount, 'USDC', 'arbitrum', '10000.000000');
}, 120_000);

afterAll(async () => {
  const client = await getTemporalClient().catch(() => undefined);
  for (const id of leftRunning) await client?.workflow.getHandle(id).terminate('test over').catch(() => undefined);
  await w?.stop();
  await t?.close();
  delete process.env.DB_POOL_MAX;
  delete process.env.DB_ACQUIRE_TIMEOUT_MS;
});

const call = (method: 'GET' | 'POST', url: string, payload?: object, headers = t.headers) =>
  t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });

async function created(method: 'POST', url: string, payload: object, headers = t.headers) {
  const r = await call(method, url, payload, headers);
  expect(r.statusCode, `${url}: ${r.body}`).toBe(201);
  return r.json().data;
}

/** Polls `read` until `done` holds; past the deadline, fails naming the state it is stuck in. */
async function reach(label: string, deadline: number, read: () => Promise<string>, done: (s: string) => boolean): Promise<string> {
  for (;;) {
    const s = await read();
    if (done(s)) return s;
    if (Date.now() > deadline) throw new Error(`${label}: still ${s} after ${BOUND_MS} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function statusOf(url: string, pick: (data: any) => string, headers = t.headers): Promise<string> {
  const r = await call('GET', url, undefined, headers);
  return r.statusCode === 200 ? pick(r.json().data) : `HTTP ${r.statusCode} ${r.json().errors?.[0]?.code ?? ''}`;
}

describe('a pool of one connection', () => {
  it('carries rail payments, transfers, a swap, a bridge and an open-banking payment at once; /api/ready answers', async () => {
    // Cold caches, as after a start: the asset catalog is filled again while the flows run (the
    // sanctions index is built by the first screening, inside its payment's transaction).
    clearAssetCache();
    const deadline = Date.now() + BOUND_MS;
    const creditor = { name: 'Bob Payee', account_number: '123456789', routing_number: '021000021' };

    const rails = async () => {
      // Deposit 10,000 USD, three ACH payments, then three GETs of them at once.
      const acct = await openFundedAccount(t, t.headers, '10000.00');
      const payments = [];
      for (const amount of ['100.00', '200.00', '300.00']) {
        const p = await created('POST', '/api/v1/payment-rails/payments', { account_id: acct, amount, currency: 'USD', rail: 'ach_standard', creditor_account: creditor });
        leftRunning.push(p.workflow_id);
        payments.push(p);
      }
      const reads = await Promise.all(payments.map((p) => call('GET', `/api/v1/payment-rails/payments/${p.id}`)));
      expect(reads.map((r) => r.statusCode)).toEqual([200, 200, 200]);
      // An ACH entry is submitted once it waits for the operator's file (the workflow then sleeps for it).
      return Promise.all(
        payments.map((p) => reach(`ACH payment ${p.id}`, deadline, () => statusOf(`/api/v1/payment-rails/payments/${p.id}`, (d) => d.status), (s) => s === 'submitted')),
      );
    };

    const transfers = async () => {
      const from = await openFundedAccount(t, t.headers, '1000.00');
      const other = await createTestUser();
      const to = await openFundedAccount(t, other.headers, '0');
      const send = (extra: object) => created('POST', '/api/v2/transfers', { from_account: from, to_account: to, amount: '10.00', asset_code: 'USD', ...extra });
      const [a, b, flow] = await Promise.all([send({ workflow_enabled: false }), send({ workflow_enabled: false }), send({ workflow_enabled: true })]);
      expect([a.status, b.status]).toEqual(['completed', 'completed']);
      return reach(`workflow transfer ${flow.uuid}`, deadline, () => statusOf(`/api/v2/transfers/${flow.uuid}`, (d) => d.status), (s) => s === 'completed' || s === 'failed');
    };

    const swap = async () => {
      const q = await created('POST', '/api/v1/defi/swap/quote', { chain: 'arbitrum', token_in: 'USDC', token_out: 'WETH', amount_in: '1000' });
      const s = await created('POST', '/api/v1/defi/swap/execute', { quote_id: q.quote_id, wallet_address: custodyAddress(swapAccount, 'arbitrum'), account_id: swapAccount, max_gas_price_gwei: 50, deadline_minutes: 10 });
      return reach(`swap ${s.swap_id}`, deadline, () => statusOf(`/api/v1/defi/swap/${s.swap_id}`, (d) => d.status), (x) => x === 'completed' || x === 'failed');
    };

    const bridge = async () => {
      const acct = await openFundedAccount(t, t.headers, '500.00', 'USDC');
      const q = await created('POST', '/api/v1/crosschain/bridge/quote', { source_chain: 'ethereum', destination_chain: 'arbitrum', token: 'USDC', amount: '200', preferred_bridge: 'wormhole' });
      const b = await created('POST', '/api/v1/crosschain/bridge/initiate', {
        quote_id: q.quote_id,
        account_id: acct,
        sender_address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
        recipient_address: '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
        slippage_tolerance: 0.01,
        deadline_minutes: 60,
      });
      leftRunning.push(b.workflow_id);
      // Finality on ethereum takes minutes of real time: reserved and on its way on the source chain is the state here.
      const onItsWay = ['source_submitted', 'source_finalized', 'attested', 'destination_submitted', 'completed'];
      return reach(`bridge ${b.bridge_tx_id}`, deadline, () => statusOf(`/api/v1/crosschain/bridge/${b.bridge_tx_id}`, (d) => d.status), (s) => onItsWay.includes(s));
    };

    const openBanking = async () => {
      const headers = () => ({ ...tpp, 'x-request-id': randomUUID() });
      // Initiated on the platform's enveloped route (product in the body); the rest on the Berlin Group routes (unwrapped).
      const p = await created(
        'POST',
        '/api/v1/open-banking/payments',
        {
          paymentProduct: 'instant-sepa-credit-transfers',
          instructedAmount: { currency: 'EUR', amount: '25.00' },
          debtorAccount: { iban: obIban },
          creditorAccount: { iban: makeIban('FR', '30006000011234567890189') },
          creditorName: 'Dupont et Fils SA',
          creditorAgent: 'BNPAFRPPXXX',
          remittanceInformationUnstructured: 'Pool of one',
        },
        headers(),
      );
      // The TPP starts the SCA; the customer's login session approves it on the SCA route.
      const started = await call('POST', `${BG_PREFIX}/payments/instant-sepa-credit-transfers/${p.paymentId}/authorisations`, {}, headers());
      expect(started.statusCode, started.body).toBe(201);
      const auth = started.json();
      const login = await call('POST', '/api/auth/login', { email: t.user.email, password: t.user.password }, {});
      const decided = await call('POST', `/api/v1/open-banking/sca/${auth.authorisationId}`, { decision: 'approve' }, { authorization: `Bearer ${login.json().data.access_token}` });
      expect(decided.json().data?.sca_status, decided.body).toBe('finalised');
      const url = `${BG_PREFIX}/payments/instant-sepa-credit-transfers/${p.paymentId}/status`;
      const status = async () => {
        const r = await call('GET', url, undefined, headers());
        return r.statusCode === 200 ? (r.json().transactionStatus as string) : `HTTP ${r.statusCode} ${r.json().errors?.[0]?.code ?? ''}`;
      };
      return reach(`open-banking payment ${p.paymentId}`, deadline, status, (s) => s === 'ACSC' || s === 'RJCT');
    };

    const ready = async () => {
      // While the others hold and queue for the connection.
      await new Promise((r) => setTimeout(r, 1000));
      const r = await call('GET', '/api/ready');
      return `${r.statusCode}`;
    };

    const flows = { rails, transfers, swap, bridge, openBanking, ready };
    const results = await Promise.allSettled(Object.values(flows).map((f) => f()));
    const outcome = Object.fromEntries(Object.keys(flows).map((k, i) => {
      const r = results[i];
      return [k, r.status === 'fulfilled' ? r.value : `FAILED: ${(r.reason as Error)?.message ?? r.reason}`];
    }));
    expect(outcome).toEqual({
      rails: ['submitted', 'submitted', 'submitted'],
      transfers: 'completed',
      swap: 'completed',
      bridge: expect.stringMatching(/^(source_submitted|source_finalized|attested|destination_submitted|completed)$/),
      openBanking: 'ACSC',
      ready: '200',
    });
    expect(Date.now()).toBeLessThanOrEqual(deadline);
    // Still serving afterwards: the one connection went back to the pool.
    expect((await call('GET', '/api/ready')).statusCode).toBe(200);
  }, BOUND_MS + 30_000);
});
