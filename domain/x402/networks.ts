/**
 * The networks and asset HTTP-native payments accept: USDC by EIP-3009 authorization on Base and
 * Ethereum for production, Base Sepolia for the sandbox. The sandbox takes test networks only: an
 * authorization signed for a main network's chain id and the real USDC contract could be submitted
 * on that chain by whoever holds it, so developers must never be taught to sign one for test money;
 * and since a chain id belongs to one environment, no authorization is valid in both. (Ethereum
 * Sepolia is not offered: @x402/evm's maintained asset table has no USDC entry for it.) The typed-data domain of each (name, version,
 * contract, decimals) comes from @x402/evm's maintained asset table, so a wrong domain name per
 * chain (a known upstream pain point) is not ours to keep in sync.
 *
 * Ledger books: a payment on a network debits the payer's USDC book of that chain (domain/chains/books).
 * Base Sepolia is test money and exists only in the sandbox environment, where it settles from the
 * Base book: sandbox balances are themselves test money.
 */
import { DEFAULT_ASSETS } from '@x402/evm';
import type { Environment } from '../platform/environment';
import { DomainError } from '../platform/errors';

export interface PaymentNetwork {
  /** CAIP-2 id, as x402 names networks. */
  network: `eip155:${number}`;
  chainId: number;
  name: string;
  /** The chain whose USDC book pays (domain/chains/registry ids). */
  bookChain: string;
  environments: readonly Environment[];
  testnet: boolean;
}

export interface PaymentAsset {
  symbol: 'USDC';
  /** Ledger asset code. */
  assetCode: 'USDC';
  /** Token contract (checksummed), the EIP-712 verifying contract. */
  address: `0x${string}`;
  decimals: number;
  /** EIP-712 domain name and version of the token. */
  eip712: { name: string; version: string };
}

export const PAYMENT_NETWORKS: readonly PaymentNetwork[] = [
  { network: 'eip155:8453', chainId: 8453, name: 'Base', bookChain: 'base', environments: ['production'], testnet: false },
  { network: 'eip155:1', chainId: 1, name: 'Ethereum', bookChain: 'ethereum', environments: ['production'], testnet: false },
  { network: 'eip155:84532', chainId: 84532, name: 'Base Sepolia', bookChain: 'base', environments: ['sandbox'], testnet: true },
];

function usdcOn(network: string): PaymentAsset {
  const entry = (DEFAULT_ASSETS as Record<string, readonly { asset: string; name: string; version: string; decimals: number; symbol: string }[]>)[network]?.find(
    (a) => a.symbol === 'USDC',
  );
  if (!entry) throw new Error(`@x402/evm has no USDC entry for ${network}`);
  return { symbol: 'USDC', assetCode: 'USDC', address: entry.asset as `0x${string}`, decimals: entry.decimals, eip712: { name: entry.name, version: entry.version } };
}

const ASSETS = new Map(PAYMENT_NETWORKS.map((n) => [n.network, usdcOn(n.network)]));

/** Networks open to an environment (production keys never see testnets). */
export function networksFor(environment: Environment): PaymentNetwork[] {
  return PAYMENT_NETWORKS.filter((n) => n.environments.includes(environment));
}

/** The network by CAIP-2 id for this environment; 422 PAYMENT_NETWORK_NOT_SUPPORTED otherwise. */
export function paymentNetwork(network: unknown, environment: Environment, pointer = '/network'): PaymentNetwork {
  const n = PAYMENT_NETWORKS.find((x) => x.network === network);
  if (!n || !n.environments.includes(environment)) {
    const open = networksFor(environment).map((x) => x.network);
    const why =
      n && !n.testnet && environment === 'sandbox'
        ? `${n.name} (${n.network}) is a main network: the sandbox takes test networks only, since an authorization signed for a main network could be submitted on the real chain`
        : `Network ${String(network)} is not accepted in ${environment}`;
    throw new DomainError('PAYMENT_NETWORK_NOT_SUPPORTED', `${why}; use one of ${open.join(', ')}`, pointer);
  }
  return n;
}

/** USDC on a network, named by symbol or by its contract address (any case). */
export function paymentAsset(network: PaymentNetwork, asset: unknown, pointer = '/asset'): PaymentAsset {
  const usdc = ASSETS.get(network.network)!;
  if (typeof asset === 'string' && (asset.toUpperCase() === 'USDC' || asset.toLowerCase() === usdc.address.toLowerCase())) return usdc;
  throw new DomainError('PAYMENT_ASSET_NOT_SUPPORTED', `Asset ${String(asset)} is not accepted on ${network.network}; use USDC (${usdc.address})`, pointer);
}

/**
 * The environment a payment on this network belongs to when the request names none (public SMS
 * send): test networks are sandbox money, main networks production money.
 */
export function environmentOfNetwork(network: unknown, pointer = '/network'): Environment {
  const n = PAYMENT_NETWORKS.find((x) => x.network === network);
  if (!n) throw new DomainError('PAYMENT_NETWORK_NOT_SUPPORTED', `Network ${String(network)} is not accepted`, pointer);
  return n.testnet ? 'sandbox' : 'production';
}

export function usdcAsset(network: PaymentNetwork): PaymentAsset {
  return ASSETS.get(network.network)!;
}
