// Verified paid requests per second (target ≥ 300/s): GET a monetized endpoint through the whole API
// in this process (Fastify inject: auth, the x402 hook's EIP-3009 signature recovery with viem, the
// handler, then settlement: nonce claimed, spending limits held under their lock, one ledger entry
// from the payer's Base book to fee revenue). Payments are signed with @x402/evm's own client before
// the clock starts, by 64 payer wallets (registered by signature, funded on Base); each request
// carries a fresh authorization. Uses its own throw-away database. Run: npm run bench -- x402
import { encodePaymentSignatureHeader, decodePaymentRequiredHeader } from '@x402/core/http';
import { createApiKey } from '../../domain/auth/api-keys';
import { registerUser } from '../../domain/auth/users';
import { createAccount } from '../../domain/accounts';
import { getPrisma } from '../../domain/db/prisma';
import { getPool } from '../../domain/db/pool';
import { systemBalance } from '../../domain/ledger';
import { fundUsdc, payWithClient, testPayer } from '../../tests/x402/helpers';
import { walletRegistrationMessage, registerWallet } from '../../domain/x402/wallets';
import { benchApp, report, withBenchDatabase, type Run } from './common';

const CONCURRENCY = Number.parseInt(process.env.BENCH_CONCURRENCY ?? '32', 10);
const PAYERS = Number.parseInt(process.env.BENCH_X402_PAYERS ?? '64', 10);
const REQUESTS = Number.parseInt(process.env.BENCH_X402_REQUESTS ?? '6000', 10);

export async function benchX402(): Promise<void> {
  await withBenchDatabase(async () => {
    const user = (await registerUser('Agent Owner', 'owner@bench.test', 'bench-password-123'))!;
    const op = (await registerUser('Operator', 'op@bench.test', 'bench-password-123'))!;
    await getPrisma().user.update({ where: { id: op.id }, data: { isAdmin: true } });
    const key = (await createApiKey({ userId: user.id, name: 'bench', environment: 'sandbox', permissions: ['read', 'write'] })).value;
    const opKey = (await createApiKey({ userId: op.id, name: 'op', environment: 'sandbox', permissions: ['read', 'write'] })).value;
    const app = await benchApp();
    const headers = { authorization: `Bearer ${key}` };
    const reg = await app.inject({
      method: 'POST',
      url: '/api/v2/x402/endpoints',
      headers: { authorization: `Bearer ${opKey}` },
      payload: { path: '/api/v2/accounts', price_usd_cents: 1, network: 'eip155:84532', asset: 'USDC', description: 'Accounts' },
    });
    if (reg.statusCode !== 201) throw new Error(reg.body);

    const t0 = performance.now();
    const payers = Array.from({ length: PAYERS }, (_, i) => testPayer(`bench-x402-payer-${i}`));
    for (const p of payers) {
      const acct = await createAccount({ userId: user.id, environment: 'sandbox', name: `wallet ${p.address.slice(0, 8)}` });
      await registerWallet({ userId: user.id, environment: 'sandbox' }, { address: p.address, accountId: acct.id, signature: await p.signMessage({ message: walletRegistrationMessage(p.address, acct.id, 'sandbox') }) });
      await fundUsdc(acct.id, 'base', '1000.00');
    }
    const required = decodePaymentRequiredHeader(String((await app.inject({ method: 'GET', url: '/api/v2/accounts', headers })).headers['payment-required']));
    // Each worker pays from its own payers, so payers' limit locks are not what is measured.
    const queues: string[][] = Array.from({ length: CONCURRENCY }, () => []);
    for (let i = 0; i < REQUESTS; i++) {
      const payment = await payWithClient(payers[i % PAYERS], required);
      queues[(i % PAYERS) % CONCURRENCY].push(encodePaymentSignatureHeader(payment));
    }
    console.log(`${PAYERS} payer wallets, ${REQUESTS} payments signed in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const revenueBefore = await systemBalance('sandbox', 'USDC', 'fee_revenue');

    const latenciesMs: number[] = [];
    const start = process.hrtime.bigint();
    await Promise.all(
      queues.map(async (q) => {
        for (const signature of q) {
          const s = process.hrtime.bigint();
          const r = await app.inject({ method: 'GET', url: '/api/v2/accounts', headers: { ...headers, 'payment-signature': signature } });
          if (r.statusCode !== 200) throw new Error(`paid request refused: ${r.statusCode} ${r.body}`);
          latenciesMs.push(Number(process.hrtime.bigint() - s) / 1e6);
        }
      }),
    );
    const run: Run = { ops: latenciesMs.length, seconds: Number(process.hrtime.bigint() - start) / 1e9, latenciesMs };
    const rate = report(`verified paid requests (c=${CONCURRENCY})`, run);
    const { rows } = await getPool().query<{ n: number }>(`SELECT count(*)::int AS n FROM x402_payments WHERE status = 'settled'`);
    const earned = Number(await systemBalance('sandbox', 'USDC', 'fee_revenue')) - Number(revenueBefore);
    console.log(`  settled: ${rows[0].n} payments, fee revenue +${earned.toFixed(6)} USDC (expected ${(REQUESTS * 0.01).toFixed(6)})`);
    console.log(`  target ≥ 300 verified paid requests/s: ${rate >= 300 ? 'met' : 'NOT met'}`);
    await app.close();
  });
}
