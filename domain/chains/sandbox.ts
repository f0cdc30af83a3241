/**
 * The sandbox chain: behaves like the networks it stands for, deterministically.
 *
 * - Blocks: block n of a chain is produced at GENESIS + (n - base) x block time, so the block
 *   number is a function of the caller's clock (`at`), and workflows on skipped time see blocks
 *   pass. A transaction is included in the first block after its submission; its confirmations
 *   are (current block - inclusion block + 1); it is `finalized` at the chain's finality depth.
 * - Hashes: keccak256 of the transaction's content (0x + 64 hex) on EVM chains, double SHA-256
 *   shown byte-reversed (bitcoin txid) on bitcoin, base58 of a 64-byte SHA-512 (a signature's
 *   shape) on solana. The content includes the idempotency key, as a nonce would: the same key
 *   is the same transaction, and two different transfers never share a hash.
 * - Gas: a deterministic curve per chain, a triangle wave over each hour between 0.7x and 1.3x of
 *   the chain's base price (peak on the hour, trough at half past), changing every minute.
 * - Failures, from `data.sandbox` (docs/crosschain.md):
 *     'revert'       included in the next block, status `reverted` ("execution reverted")
 *     'drop'         never included; `pending` until the mempool evicts it, then `dropped`
 *                    (10 minutes or 3 blocks after submission, whichever is longer)
 *     'stuck_relay'  a normal transaction; bridge attestation services never attest it
 *   A transaction whose maxGasPriceGwei is below the current gas price is refused before
 *   submission (422 GAS_PRICE_ABOVE_LIMIT) and nothing is recorded.
 * State lives in chain_transactions; status is never stored, it is computed for `at`.
 */
import { sha256, sha512 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { base58 } from '@scure/base';
import { getPool, type Queryable } from '../db/pool';
import { DecimalMoney } from '../money/amount';
import { DomainError } from '../platform/errors';
import { newId } from '../platform/ids';
import { CHAIN_TX_KINDS, type ChainAdapter, type ChainTx, type ChainTxKind, type ChainTxRequest } from './types';
import { validateAddress } from './addresses';
import { getChain, getToken, type ChainInfo } from './registry';

/** Block `SANDBOX_BASE_BLOCKS[chain]` of every sandbox chain is produced at this instant. */
export const SANDBOX_GENESIS = new Date('2026-01-01T00:00:00Z');
const GENESIS_MS = SANDBOX_GENESIS.getTime();

/** Block heights near the real networks' at genesis, so numbers look familiar. */
export const SANDBOX_BASE_BLOCKS: Readonly<Record<string, number>> = {
  ethereum: 24_000_000,
  polygon: 81_000_000,
  arbitrum: 415_000_000,
  optimism: 145_000_000,
  base: 40_000_000,
  avalanche: 74_000_000,
  bsc: 73_000_000,
  solana: 390_000_000,
  bitcoin: 930_000,
};

/** Base gas price per chain, in the chain's gas unit (gwei on EVM chains). */
export const SANDBOX_BASE_GAS: Readonly<Record<string, string>> = {
  ethereum: '12',
  polygon: '40',
  arbitrum: '0.02',
  optimism: '0.002',
  base: '0.006',
  avalanche: '2',
  bsc: '1',
  solana: '5000',
  bitcoin: '8',
};

export type SandboxFailure = 'revert' | 'drop' | 'stuck_relay';
export const SANDBOX_FAILURES: readonly SandboxFailure[] = ['revert', 'drop', 'stuck_relay'];

/** How long a never-included transaction stays pending before the sandbox reports it dropped. */
export function dropAfterMs(chain: ChainInfo): number {
  return Math.max(10 * 60_000, 3 * chain.blockTimeMs);
}

export function sandboxBlockAt(chainId: string, at: Date | number): number {
  const c = getChain(chainId);
  const ms = typeof at === 'number' ? at : at.getTime();
  return SANDBOX_BASE_BLOCKS[c.id] + Math.floor((ms - GENESIS_MS) / c.blockTimeMs);
}

/** When block n of the chain is produced. */
export function sandboxBlockTime(chainId: string, block: number): Date {
  const c = getChain(chainId);
  return new Date(GENESIS_MS + (block - SANDBOX_BASE_BLOCKS[c.id]) * c.blockTimeMs);
}

export function sandboxGasPrice(chainId: string, at: Date | number): string {
  const c = getChain(chainId);
  const ms = typeof at === 'number' ? at : at.getTime();
  const minute = Math.floor((ms - GENESIS_MS) / 60_000);
  const step = ((minute % 60) + 60) % 60;
  const tri = Math.abs(step - 30); // 30 on the hour, 0 at half past
  return new DecimalMoney(SANDBOX_BASE_GAS[c.id]).times(70 + 2 * tri).dividedBy(100).toDecimalPlaces(9, DecimalMoney.ROUND_HALF_UP).toFixed();
}

/** Gas (compute units on solana, vbytes on bitcoin) a transaction of a kind uses. */
function gasUsed(chain: ChainInfo, kind: ChainTxKind, native: boolean): number {
  if (chain.kind === 'bitcoin') return 141;
  if (chain.kind === 'solana') return { transfer: 4_500, bridge_lock: 120_000, bridge_burn: 95_000, bridge_release: 110_000, bridge_mint: 90_000, swap: 180_000, flash_loan: 400_000 }[kind];
  if (kind === 'transfer') return native ? 21_000 : 65_000;
  return { bridge_lock: 160_000, bridge_burn: 120_000, bridge_release: 140_000, bridge_mint: 110_000, swap: 150_000, flash_loan: 420_000 }[kind];
}

/** JSON with sorted keys, so the same content always hashes the same. */
export function canonicalJson(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v ?? null);
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  const o = v as Record<string, unknown>;
  return `{${Object.keys(o)
    .filter((k) => o[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`)
    .join(',')}}`;
}

/** The transaction hash in the chain's own format. */
export function sandboxTxHash(chain: ChainInfo, content: string): string {
  const bytes = new TextEncoder().encode(content);
  if (chain.kind === 'evm') return `0x${bytesToHex(keccak_256(bytes))}`;
  if (chain.kind === 'bitcoin') return bytesToHex(sha256(sha256(bytes)).reverse());
  return base58.encode(sha512(bytes));
}

interface Row {
  chain: string;
  hash: string;
  idempotency_key: string;
  outcome: 'ok' | 'revert' | 'drop';
  submitted_at: Date;
  submit_block: string;
  inclusion_block: string | null;
  gas_price_gwei: string;
  gas_used: string;
}

function view(r: Row, at: Date): ChainTx {
  const chain = getChain(r.chain);
  const current = sandboxBlockAt(chain.id, at);
  const base = {
    chain: chain.id,
    hash: r.hash,
    gasPriceGwei: new DecimalMoney(r.gas_price_gwei).toFixed(),
    submittedAt: r.submitted_at.toISOString(),
  };
  const pending: ChainTx = { ...base, status: 'pending', blockNumber: null, confirmations: 0, gasUsed: '0', failureReason: null };
  if (r.outcome === 'drop' || r.inclusion_block === null) {
    if (at.getTime() >= r.submitted_at.getTime() + dropAfterMs(chain)) {
      return { ...pending, status: 'dropped', failureReason: 'dropped: evicted from the mempool without being included' };
    }
    return pending;
  }
  const inclusion = Number(r.inclusion_block);
  if (current < inclusion) return pending;
  const confirmations = current - inclusion + 1;
  const included = { ...base, blockNumber: inclusion, confirmations, gasUsed: r.gas_used };
  if (r.outcome === 'revert') return { ...included, status: 'reverted', failureReason: 'execution reverted' };
  return { ...included, status: confirmations >= chain.finalityConfirmations ? 'finalized' : 'included', failureReason: null };
}

function invalid(code: string, message: string, pointer?: string): never {
  throw new DomainError(code, message, pointer);
}

export class SandboxChainAdapter implements ChainAdapter {
  constructor(private readonly db: () => Queryable = getPool) {}

  async gasPriceGwei(chain: string, at: Date): Promise<string> {
    return sandboxGasPrice(chain, at);
  }

  async blockNumber(chain: string, at: Date): Promise<number> {
    return sandboxBlockAt(chain, at);
  }

  async sendTransaction(req: ChainTxRequest, at: Date): Promise<ChainTx> {
    const chain = getChain(req.chain);
    const token = getToken(chain.id, req.token);
    if (!CHAIN_TX_KINDS.includes(req.kind)) invalid('INVALID_TRANSACTION', `unknown transaction kind ${String(req.kind)}`, '/kind');
    if (typeof req.idempotencyKey !== 'string' || req.idempotencyKey === '' || req.idempotencyKey.length > 255) {
      invalid('INVALID_TRANSACTION', 'idempotencyKey must be a non-empty string of at most 255 characters', '/idempotency_key');
    }
    const from = validateAddress(chain.id, req.from, '/from');
    const to = validateAddress(chain.id, req.to, '/to');
    if (typeof req.amount !== 'string' || !/^\d{1,30}(\.\d+)?$/.test(req.amount)) invalid('INVALID_AMOUNT', 'amount must be a non-negative decimal string', '/amount');
    const frac = req.amount.split('.')[1] ?? '';
    if (frac.replace(/0+$/, '').length > token.decimals) {
      invalid('AMOUNT_PRECISION', `${token.symbol} on ${chain.id} has ${token.decimals} decimals; ${req.amount} has more`, '/amount');
    }
    const amount = new DecimalMoney(req.amount).toFixed();
    const data = req.data ?? {};
    const flag = data.sandbox;
    if (flag !== undefined && !SANDBOX_FAILURES.includes(flag as SandboxFailure)) {
      invalid('INVALID_TRANSACTION', `data.sandbox must be one of ${SANDBOX_FAILURES.join(', ')}`, '/data/sandbox');
    }
    const content = canonicalJson({ chain: chain.caip2, kind: req.kind, from, to, token: token.address ?? token.symbol, amount, data, nonce: req.idempotencyKey });
    const hash = sandboxTxHash(chain, content);

    const db = this.db();
    const existing = await db.query<Row>('SELECT * FROM chain_transactions WHERE idempotency_key = $1', [req.idempotencyKey]);
    if (existing.rows[0]) {
      if (existing.rows[0].hash !== hash) {
        throw new DomainError('IDEMPOTENCY_CONFLICT', `transaction key ${req.idempotencyKey} was used for a different transaction`);
      }
      return view(existing.rows[0], at);
    }
    const gasPrice = sandboxGasPrice(chain.id, at);
    if (req.maxGasPriceGwei !== undefined && new DecimalMoney(gasPrice).greaterThan(req.maxGasPriceGwei)) {
      throw new DomainError('GAS_PRICE_ABOVE_LIMIT', `${chain.id} gas price is ${gasPrice} ${chain.gasUnit}, above the limit of ${req.maxGasPriceGwei}`, '/max_gas_price_gwei');
    }
    const outcome = flag === 'revert' ? 'revert' : flag === 'drop' ? 'drop' : 'ok';
    const submitBlock = sandboxBlockAt(chain.id, at);
    await db.query(
      `INSERT INTO chain_transactions (id, chain, hash, idempotency_key, kind, from_address, to_address, token, amount, data, outcome,
                                       submitted_at, submit_block, inclusion_block, gas_price_gwei, gas_used)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
       ON CONFLICT (idempotency_key) DO NOTHING`,
      [
        newId('ctx'),
        chain.id,
        hash,
        req.idempotencyKey,
        req.kind,
        from,
        to,
        token.symbol,
        amount,
        JSON.stringify(data),
        outcome,
        at,
        submitBlock,
        outcome === 'drop' ? null : submitBlock + 1,
        gasPrice,
        gasUsed(chain, req.kind, token.native),
      ],
    );
    // A concurrent call with the same key may have won: answer with what is stored.
    const { rows } = await db.query<Row>('SELECT * FROM chain_transactions WHERE idempotency_key = $1', [req.idempotencyKey]);
    if (rows[0].hash !== hash) throw new DomainError('IDEMPOTENCY_CONFLICT', `transaction key ${req.idempotencyKey} was used for a different transaction`);
    return view(rows[0], at);
  }

  async getTransaction(chain: string, hash: string, at: Date): Promise<ChainTx | null> {
    const c = getChain(chain);
    const { rows } = await this.db().query<Row>('SELECT * FROM chain_transactions WHERE chain = $1 AND hash = $2', [c.id, hash]);
    return rows[0] ? view(rows[0], at) : null;
  }

  /** The stored request of a sandbox transaction (for sandbox services such as bridge attesters). */
  async transactionData(chain: string, hash: string): Promise<{ kind: ChainTxKind; from: string; to: string; token: string; amount: string; data: Record<string, unknown> } | null> {
    const c = getChain(chain);
    const { rows } = await this.db().query<{ kind: ChainTxKind; from_address: string; to_address: string; token: string; amount: string; data: Record<string, unknown> }>(
      'SELECT kind, from_address, to_address, token, amount, data FROM chain_transactions WHERE chain = $1 AND hash = $2',
      [c.id, hash],
    );
    const r = rows[0];
    return r ? { kind: r.kind, from: r.from_address, to: r.to_address, token: r.token, amount: new DecimalMoney(r.amount).toFixed(), data: r.data } : null;
  }
}
