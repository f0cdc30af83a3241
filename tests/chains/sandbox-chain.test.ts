import { createHash } from 'node:crypto';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { base58 } from '@scure/base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainAdapterFor, ChainNotConfigured, SandboxChainAdapter, type ChainTxRequest } from '../../domain/chains/adapter';
import { canonicalJson, SANDBOX_GENESIS, sandboxBlockAt, sandboxBlockTime, sandboxGasPrice } from '../../domain/chains/sandbox';
import { getChain } from '../../domain/chains/registry';
import { closePool, getPool } from '../../domain/db/pool';
import { DomainError } from '../../domain/platform/errors';
import { statusForCode } from '../../api/error-status';
import { useTestDatabase } from '../helpers/db';

const chain = new SandboxChainAdapter();
const ALICE = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const BOB = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359';
let n = 0;
const req = (extra: Partial<ChainTxRequest> = {}): ChainTxRequest => ({
  chain: 'ethereum',
  from: ALICE,
  to: BOB,
  kind: 'transfer',
  token: 'USDC',
  amount: '25.5',
  idempotencyKey: `test:${Date.now()}:${++n}`,
  ...extra,
});
const T0 = new Date('2026-11-21T10:00:05Z');
const plus = (d: Date, ms: number) => new Date(d.getTime() + ms);

beforeAll(async () => {
  await useTestDatabase();
});
afterAll(async () => closePool());

/** The refusal with the HTTP status the API gives its code (api/error-status.ts). */
async function refused(p: Promise<unknown>) {
  const err = await p.then(
    () => null,
    (e) => e,
  );
  expect(err).toBeInstanceOf(DomainError);
  const e = err as DomainError;
  return { code: e.code, message: e.message, pointer: e.pointer, status: statusForCode(e.code) };
}

describe('sandbox chain clock and gas', () => {
  it('produces blocks every block time from a fixed genesis, per chain', async () => {
    const eth = await chain.blockNumber('ethereum', T0);
    expect(eth).toBe(24_000_000 + Math.floor((T0.getTime() - SANDBOX_GENESIS.getTime()) / 12_000));
    expect(await chain.blockNumber('ethereum', plus(T0, 12_000))).toBe(eth + 1);
    expect(await chain.blockNumber('arbitrum', plus(T0, 1_000))).toBe((await chain.blockNumber('arbitrum', T0)) + 4);
    expect(sandboxBlockTime('ethereum', eth + 1).getTime()).toBeGreaterThan(T0.getTime());
    expect(sandboxBlockAt('ethereum', sandboxBlockTime('ethereum', eth + 1))).toBe(eth + 1);
  });

  it('gas follows a deterministic hourly curve between 0.7x and 1.3x of the base price', async () => {
    const onTheHour = new Date('2026-11-21T10:00:00Z');
    expect(await chain.gasPriceGwei('ethereum', onTheHour)).toBe('15.6');
    expect(await chain.gasPriceGwei('ethereum', new Date('2026-11-21T10:30:00Z'))).toBe('8.4');
    expect(await chain.gasPriceGwei('ethereum', new Date('2026-11-21T10:15:30Z'))).toBe('12');
    expect(await chain.gasPriceGwei('ethereum', new Date('2026-11-21T10:14:59Z'))).toBe('12.24');
    expect(sandboxGasPrice('ethereum', onTheHour)).toBe(sandboxGasPrice('ethereum', new Date('2026-11-22T10:00:59Z')));
    expect(await chain.gasPriceGwei('arbitrum', onTheHour)).toBe('0.026');
  });
});

describe('sandbox chain transactions', () => {
  it('hashes the content with keccak256 (EVM); the same key is the same transaction, another key another hash', async () => {
    const r = req({ data: { memo: 'x' } });
    const tx = await chain.sendTransaction(r, T0);
    const expected = canonicalJson({ chain: 'eip155:1', kind: 'transfer', from: ALICE, to: BOB, token: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', amount: '25.5', data: { memo: 'x' }, nonce: r.idempotencyKey });
    expect(tx.hash).toBe(`0x${Buffer.from(keccak_256(new TextEncoder().encode(expected))).toString('hex')}`);
    expect(tx).toMatchObject({ chain: 'ethereum', status: 'pending', blockNumber: null, confirmations: 0, gasPriceGwei: sandboxGasPrice('ethereum', T0), failureReason: null });
    // Replays (even later, with a lower-case address and trailing zeros) give the same transaction, seen at the new time.
    const again = await chain.sendTransaction({ ...r, to: BOB.toLowerCase(), amount: '25.500000' }, plus(T0, 60_000));
    expect(again.hash).toBe(tx.hash);
    expect(again.status).toBe('included');
    const other = await chain.sendTransaction(req({ data: { memo: 'x' } }), T0);
    expect(other.hash).not.toBe(tx.hash);
    const { rows } = await getPool().query('SELECT count(*)::int AS n FROM chain_transactions WHERE hash = $1', [tx.hash]);
    expect(rows[0].n).toBe(1);
    // The same key with different content is a conflict, not a second transaction.
    expect(await refused(chain.sendTransaction({ ...r, amount: '26' }, T0))).toMatchObject({ status: 409, code: 'IDEMPOTENCY_CONFLICT' });
  });

  it('uses the chain formats: bitcoin txid (double SHA-256, reversed), solana base58 64-byte signature', async () => {
    const r = req({ chain: 'bitcoin', from: '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', to: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', token: 'BTC', amount: '0.015' });
    const btc = await chain.sendTransaction(r, T0);
    expect(btc.hash).toMatch(/^[0-9a-f]{64}$/);
    const content = canonicalJson({
      chain: getChain('bitcoin').caip2,
      kind: 'transfer',
      from: '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa',
      to: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4',
      token: 'BTC',
      amount: '0.015',
      data: {},
      nonce: r.idempotencyKey,
    });
    const once = createHash('sha256').update(content).digest();
    expect(btc.hash).toBe(Buffer.from(createHash('sha256').update(once).digest()).reverse().toString('hex'));
    const sol = await chain.sendTransaction(req({ chain: 'solana', from: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', to: '11111111111111111111111111111111', token: 'USDC' }), T0);
    expect(base58.decode(sol.hash)).toHaveLength(64);
  });

  it('includes in the next block, accrues confirmations with `at`, and finalizes at the chain finality depth', async () => {
    const tx = await chain.sendTransaction(req(), T0);
    const inclusion = sandboxBlockAt('ethereum', T0) + 1;
    const includedAt = sandboxBlockTime('ethereum', inclusion);
    expect((await chain.getTransaction('ethereum', tx.hash, plus(includedAt, -1)))!.status).toBe('pending');
    expect(await chain.getTransaction('ethereum', tx.hash, includedAt)).toMatchObject({ status: 'included', blockNumber: inclusion, confirmations: 1, gasUsed: '65000' });
    expect((await chain.getTransaction('ethereum', tx.hash, plus(includedAt, 12_000 * 10)))!.confirmations).toBe(11);
    expect((await chain.getTransaction('ethereum', tx.hash, plus(includedAt, 12_000 * 62)))!.status).toBe('included');
    expect(await chain.getTransaction('ethereum', tx.hash, plus(includedAt, 12_000 * 63))).toMatchObject({ status: 'finalized', confirmations: 64 });
    // Native ETH transfers use 21000 gas; avalanche finalizes on inclusion.
    const eth = await chain.sendTransaction(req({ token: 'ETH', amount: '0.5' }), T0);
    expect((await chain.getTransaction('ethereum', eth.hash, includedAt))!.gasUsed).toBe('21000');
    const avax = await chain.sendTransaction(req({ chain: 'avalanche' }), T0);
    expect((await chain.getTransaction('avalanche', avax.hash, plus(T0, 2_000)))!.status).toBe('finalized');
    expect(await chain.getTransaction('ethereum', '0x' + '0'.repeat(64), T0)).toBeNull();
  });

  it('failure modes: revert after inclusion, drop after the mempool window, stuck_relay is an ordinary transaction', async () => {
    const rv = await chain.sendTransaction(req({ kind: 'bridge_lock', data: { sandbox: 'revert' } }), T0);
    expect(rv.status).toBe('pending');
    expect(await chain.getTransaction('ethereum', rv.hash, plus(T0, 12_000))).toMatchObject({ status: 'reverted', failureReason: 'execution reverted', confirmations: 1 });
    const dr = await chain.sendTransaction(req({ data: { sandbox: 'drop' } }), T0);
    expect((await chain.getTransaction('ethereum', dr.hash, plus(T0, 9 * 60_000)))!).toMatchObject({ status: 'pending', blockNumber: null });
    expect((await chain.getTransaction('ethereum', dr.hash, plus(T0, 10 * 60_000)))!).toMatchObject({ status: 'dropped', blockNumber: null, confirmations: 0 });
    const st = await chain.sendTransaction(req({ kind: 'bridge_lock', data: { sandbox: 'stuck_relay' } }), T0);
    expect((await chain.getTransaction('ethereum', st.hash, plus(T0, 3600_000)))!.status).toBe('finalized');
    expect(await chain.transactionData('ethereum', st.hash)).toMatchObject({ kind: 'bridge_lock', data: { sandbox: 'stuck_relay' }, amount: '25.5' });
    expect(await refused(chain.sendTransaction(req({ data: { sandbox: 'explode' } }), T0))).toMatchObject({ code: 'INVALID_TRANSACTION' });
  });

  it('refuses before submission: gas above the cap, bad address, too many decimals, unknown token', async () => {
    const r = req({ maxGasPriceGwei: '15' });
    const high = new Date('2026-11-21T10:00:00Z'); // 15.6 gwei
    expect(await refused(chain.sendTransaction(r, high))).toMatchObject({ status: 422, code: 'GAS_PRICE_ABOVE_LIMIT', pointer: '/max_gas_price_gwei' });
    expect((await getPool().query('SELECT 1 FROM chain_transactions WHERE idempotency_key = $1', [r.idempotencyKey])).rowCount).toBe(0);
    expect((await chain.sendTransaction(r, new Date('2026-11-21T10:30:00Z'))).status).toBe('pending'); // 8.4 gwei
    expect(await refused(chain.sendTransaction(req({ to: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD' }), T0))).toMatchObject({ code: 'INVALID_ADDRESS', pointer: '/to' });
    expect(await refused(chain.sendTransaction(req({ amount: '1.0000001' }), T0))).toMatchObject({ code: 'AMOUNT_PRECISION' });
    // USDC has 18 decimals on bsc, so the same amount is fine there.
    expect((await chain.sendTransaction(req({ chain: 'bsc', amount: '1.0000001' }), T0)).status).toBe('pending');
    expect(await refused(chain.sendTransaction(req({ chain: 'polygon', token: 'ETH' }), T0))).toMatchObject({ code: 'UNKNOWN_TOKEN' });
    expect(await refused(chain.sendTransaction(req({ amount: '-1' }), T0))).toMatchObject({ code: 'INVALID_AMOUNT' });
  });

  it('chainAdapterFor: sandbox keys get the sandbox chain; production fails clearly without RPC URLs', () => {
    expect(chainAdapterFor('sandbox')).toBeInstanceOf(SandboxChainAdapter);
    delete process.env.CHAIN_RPC_URLS;
    expect(() => chainAdapterFor('production')).toThrow(ChainNotConfigured);
    expect(() => chainAdapterFor('production')).toThrow(/CHAIN_RPC_URLS/);
  });
});
