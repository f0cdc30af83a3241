/**
 * What a transaction costs in gas, in the chain's native coin and in USD.
 *
 * EVM: gas units x gas price (gwei) x 1e-9 native coin. Solana: the adapter's price is in
 * micro-lamports per compute unit: 5000 lamports per signature + units x price x 1e-6 lamports,
 * and 1e-9 SOL per lamport. The native coin's USD price is the latest rate when the coin is a
 * ledger asset (ETH); POL, AVAX, BNB and SOL are not ledger assets, so a reference price is used
 * for them (GAS_TOKEN_REFERENCE_USD), only ever for gas estimates and network fees.
 */
import { createHash } from 'node:crypto';
import { base58 } from '@scure/base';
import { ChainNotConfigured, chainAdapterFor, type ChainAdapter } from '../chains/adapter';
import type { ChainInfo } from '../chains/registry';
import type { Environment } from '../platform/environment';
import { DomainError } from '../platform/errors';
import type { Queryable } from '../db/pool';
import { DecimalMoney as D } from '../money/amount';
import { latestRate } from '../rates';

type Dec = InstanceType<typeof D>;

/** USD reference prices of gas coins that are not ledger assets (sandbox snapshot, 2026-11-21). */
export const GAS_TOKEN_REFERENCE_USD: Readonly<Record<string, string>> = {
  POL: '0.45',
  AVAX: '35',
  BNB: '600',
  SOL: '180',
};

const SOLANA_SIGNATURE_LAMPORTS = 5000;

/** Native coin spent for `gasUnits` at `gasPrice` (the adapter's unit for the chain). */
export function gasCostNative(chain: ChainInfo, gasUnits: bigint | string, gasPrice: string): Dec {
  const units = new D(gasUnits.toString());
  if (chain.kind === 'solana') {
    const lamports = units.times(gasPrice).div(1_000_000).plus(SOLANA_SIGNATURE_LAMPORTS);
    return lamports.div(1e9);
  }
  return units.times(gasPrice).div(1e9);
}

export async function nativeUsdPrice(chain: ChainInfo, c?: Queryable): Promise<Dec> {
  const rate = await latestRate(chain.nativeToken.symbol, c).catch(() => null);
  if (rate) return new D(rate.rate);
  const ref = GAS_TOKEN_REFERENCE_USD[chain.nativeToken.symbol];
  if (!ref) throw new Error(`no USD price for ${chain.nativeToken.symbol}`);
  return new D(ref);
}

export async function gasCostUsd(chain: ChainInfo, gasUnits: bigint | string, gasPrice: string, c?: Queryable): Promise<Dec> {
  return gasCostNative(chain, gasUnits, gasPrice).times(await nativeUsdPrice(chain, c));
}

/**
 * The DEX router a swap transaction is sent to. Sandbox routers are derived from the chain and
 * DEX (sha256), in the chain's address format; production would use the DEX's deployed router.
 */
export function routerAddress(chain: ChainInfo, dex: string): string {
  const h = createHash('sha256').update(`router:${chain.id}:${dex}`).digest();
  return chain.kind === 'solana' ? base58.encode(h) : `0x${h.toString('hex').slice(0, 40)}`;
}

/** Flash-loan executor contract (same derivation as routers). */
export function flashExecutorAddress(chain: ChainInfo): string {
  return routerAddress(chain, 'flash-loan-executor');
}

/** The environment's chain adapter; production without RPC configuration is a clear 503. */
export function chainAdapterOrUnavailable(environment: Environment): ChainAdapter {
  try {
    return chainAdapterFor(environment);
  } catch (err) {
    if (err instanceof ChainNotConfigured) throw new DomainError('CHAIN_NOT_CONFIGURED', err.message);
    throw err;
  }
}
