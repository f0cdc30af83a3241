/**
 * Production chains over JSON-RPC with viem (EVM chains). Configured by CHAIN_RPC_URLS
 * ("ethereum=https://...,polygon=https://...") and CHAIN_SIGNER_PRIVATE_KEY (the hot wallet that
 * signs the platform's transactions; in a real deployment a custody signer would sit here).
 * Without RPC URLs the constructor throws CHAIN_NOT_CONFIGURED: production never pretends.
 * Not run by the tests (no network here); it type-checks against viem and fits the interface.
 *
 * - `at` is ignored: a real chain has its own clock.
 * - Idempotency: the signed transaction is recorded in chain_transactions under the caller's key
 *   before it is broadcast; a replay returns (and re-broadcasts, if the node forgot it) the same
 *   signed transaction, so a retried activity never pays twice.
 * - kind 'transfer' moves the native coin or an ERC-20 (transfer(to, amount)). Every other kind
 *   is a protocol call: the caller puts the contract call in data.calldata (0x hex) and, for
 *   payable calls, the native value in data.value (decimal coin units); `to` is the contract.
 * - solana and bitcoin are not served by this adapter (CHAIN_NOT_SUPPORTED).
 */
import {
  createPublicClient,
  createWalletClient,
  encodeFunctionData,
  erc20Abi,
  formatGwei,
  http,
  keccak256,
  parseUnits,
  type Chain,
  type Hex,
  type PublicClient,
} from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { arbitrum, avalanche, base, bsc, mainnet, optimism, polygon } from 'viem/chains';
import { getPool, type Queryable } from '../db/pool';
import { DecimalMoney } from '../money/amount';
import { loadConfig } from '../platform/config';
import { DomainError } from '../platform/errors';
import { newId } from '../platform/ids';
import { validateAddress } from './addresses';
import { getChain, getToken, type ChainInfo } from './registry';
import type { ChainAdapter, ChainTx, ChainTxRequest } from './types';

const VIEM_CHAINS: Readonly<Record<string, Chain>> = { ethereum: mainnet, polygon, arbitrum, optimism, base, avalanche, bsc };

export class ChainNotConfigured extends Error {
  readonly code = 'CHAIN_NOT_CONFIGURED';
}

/** "ethereum=https://a,polygon=https://b" -> { ethereum: 'https://a', polygon: 'https://b' } */
export function parseRpcUrls(value: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of value.split(',').map((s) => s.trim()).filter(Boolean)) {
    const i = part.indexOf('=');
    if (i <= 0) throw new ChainNotConfigured(`CHAIN_RPC_URLS entry "${part}" is not chain=url`);
    out[getChain(part.slice(0, i)).id] = part.slice(i + 1);
  }
  return out;
}

export class ViemChainAdapter implements ChainAdapter {
  private readonly clients = new Map<string, PublicClient>();
  private readonly account: PrivateKeyAccount | null;

  constructor(
    private readonly rpcUrls: Record<string, string> = parseRpcUrls(loadConfig().chainRpcUrls),
    signerKey: string = loadConfig().chainSignerPrivateKey,
    private readonly db: () => Queryable = getPool,
  ) {
    if (Object.keys(rpcUrls).length === 0) {
      throw new ChainNotConfigured('Production chains are not configured: set CHAIN_RPC_URLS (chain=url,...) and CHAIN_SIGNER_PRIVATE_KEY');
    }
    this.account = signerKey ? privateKeyToAccount(signerKey as Hex) : null;
  }

  private evm(chainId: string): { chain: ChainInfo; viemChain: Chain; client: PublicClient; url: string } {
    const chain = getChain(chainId);
    const viemChain = VIEM_CHAINS[chain.id];
    if (!viemChain) throw new DomainError('CHAIN_NOT_SUPPORTED', `${chain.id} is not served by the production EVM adapter`, '/chain');
    const url = this.rpcUrls[chain.id];
    if (!url) throw new ChainNotConfigured(`No RPC URL for ${chain.id} in CHAIN_RPC_URLS`);
    let client = this.clients.get(chain.id);
    if (!client) {
      client = createPublicClient({ chain: viemChain, transport: http(url) }) as PublicClient;
      this.clients.set(chain.id, client);
    }
    return { chain, viemChain, client, url };
  }

  async gasPriceGwei(chain: string): Promise<string> {
    return formatGwei(await this.evm(chain).client.getGasPrice());
  }

  async blockNumber(chain: string): Promise<number> {
    return Number(await this.evm(chain).client.getBlockNumber());
  }

  async sendTransaction(req: ChainTxRequest, at: Date): Promise<ChainTx> {
    const { chain, viemChain, client, url } = this.evm(req.chain);
    const db = this.db();
    const stored = await db.query<{ hash: string; data: { raw?: Hex } }>('SELECT hash, data FROM chain_transactions WHERE idempotency_key = $1', [req.idempotencyKey]);
    if (stored.rows[0]) {
      const known = await this.getTransaction(chain.id, stored.rows[0].hash, at);
      if (known && known.status !== 'dropped') return known;
      if (stored.rows[0].data.raw) await client.sendRawTransaction({ serializedTransaction: stored.rows[0].data.raw });
      return (await this.getTransaction(chain.id, stored.rows[0].hash, at))!;
    }
    if (!this.account) throw new ChainNotConfigured('CHAIN_SIGNER_PRIVATE_KEY is not set: production transactions cannot be signed');
    const token = getToken(chain.id, req.token);
    const to = validateAddress(chain.id, req.to, '/to') as Hex;
    const gasPrice = await client.getGasPrice();
    if (req.maxGasPriceGwei !== undefined && new DecimalMoney(formatGwei(gasPrice)).greaterThan(req.maxGasPriceGwei)) {
      throw new DomainError('GAS_PRICE_ABOVE_LIMIT', `${chain.id} gas price is ${formatGwei(gasPrice)} gwei, above the limit of ${req.maxGasPriceGwei}`, '/max_gas_price_gwei');
    }
    let call: { to: Hex; value: bigint; data?: Hex };
    if (req.kind === 'transfer') {
      const amount = parseUnits(req.amount, token.decimals);
      call = token.native
        ? { to, value: amount }
        : { to: token.address as Hex, value: 0n, data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, amount] }) };
    } else {
      const calldata = req.data?.calldata;
      if (typeof calldata !== 'string' || !/^0x[0-9a-fA-F]*$/.test(calldata)) {
        throw new DomainError('INVALID_TRANSACTION', `${req.kind} needs the protocol call in data.calldata`, '/data/calldata');
      }
      const value = typeof req.data?.value === 'string' ? parseUnits(req.data.value, chain.nativeToken.decimals) : 0n;
      call = { to, value, data: calldata as Hex };
    }
    const wallet = createWalletClient({ account: this.account, chain: viemChain, transport: http(url) });
    const prepared = await wallet.prepareTransactionRequest({ ...call, account: this.account, chain: viemChain });
    const raw = await wallet.signTransaction(prepared as never);
    const hash = keccak256(raw);
    await db.query(
      `INSERT INTO chain_transactions (id, chain, hash, idempotency_key, kind, from_address, to_address, token, amount, data, outcome,
                                       submitted_at, submit_block, inclusion_block, gas_price_gwei, gas_used)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 'ok', now(), $11, NULL, $12, 0)`,
      [newId('ctx'), chain.id, hash, req.idempotencyKey, req.kind, this.account.address, to, token.symbol, req.amount, JSON.stringify({ ...(req.data ?? {}), raw }), Number(await client.getBlockNumber()), formatGwei(gasPrice)],
    );
    await client.sendRawTransaction({ serializedTransaction: raw });
    return (await this.getTransaction(chain.id, hash, at))!;
  }

  async getTransaction(chain: string, hash: string, _at: Date): Promise<ChainTx | null> {
    const { chain: c, client } = this.evm(chain);
    const stored = await this.db().query<{ submitted_at: Date; gas_price_gwei: string }>('SELECT submitted_at, gas_price_gwei FROM chain_transactions WHERE chain = $1 AND hash = $2', [c.id, hash]);
    const submittedAt = stored.rows[0]?.submitted_at.toISOString() ?? new Date().toISOString();
    const receipt = await client.getTransactionReceipt({ hash: hash as Hex }).catch(() => null);
    if (!receipt) {
      const tx = await client.getTransaction({ hash: hash as Hex }).catch(() => null);
      if (!tx && !stored.rows[0]) return null;
      const gone = !tx && Date.now() - new Date(submittedAt).getTime() > Math.max(10 * 60_000, 3 * c.blockTimeMs);
      return {
        chain: c.id,
        hash,
        status: gone ? 'dropped' : 'pending',
        blockNumber: null,
        confirmations: 0,
        gasPriceGwei: tx?.gasPrice ? formatGwei(tx.gasPrice) : (stored.rows[0]?.gas_price_gwei ?? '0'),
        gasUsed: '0',
        submittedAt,
        failureReason: gone ? 'dropped: no longer known to the node' : null,
      };
    }
    const latest = await client.getBlockNumber();
    const confirmations = Number(latest - receipt.blockNumber + 1n);
    const reverted = receipt.status === 'reverted';
    return {
      chain: c.id,
      hash,
      status: reverted ? 'reverted' : confirmations >= c.finalityConfirmations ? 'finalized' : 'included',
      blockNumber: Number(receipt.blockNumber),
      confirmations,
      gasPriceGwei: formatGwei(receipt.effectiveGasPrice),
      gasUsed: receipt.gasUsed.toString(),
      submittedAt,
      failureReason: reverted ? 'execution reverted' : null,
    };
  }
}
