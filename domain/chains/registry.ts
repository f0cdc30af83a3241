/**
 * The chains the platform reaches and the tokens it moves on each. A token on a chain maps to a
 * ledger asset (USDC on polygon is the USDC asset, held in the customer's polygon book); its
 * on-chain decimals may differ from the asset's ledger precision (USDC has 18 on bsc, Wormhole-
 * wrapped WETH 8 on solana), so amounts are checked against both.
 *
 * Block times and finality are the sandbox chain's clock (domain/chains/sandbox.ts) and what
 * bridges wait for; they follow the real networks' orders of magnitude.
 */
import { DomainError } from '../platform/errors';

export type ChainKind = 'evm' | 'solana' | 'bitcoin';

export interface ChainInfo {
  /** Lower-case id used everywhere (API, chain books, adapters). */
  id: string;
  name: string;
  /** CAIP-2 blockchain id. */
  caip2: string;
  kind: ChainKind;
  /** EVM chain id (EIP-155); null for non-EVM chains. */
  evmChainId: number | null;
  /** Milliseconds between blocks (slots on solana). */
  blockTimeMs: number;
  /** Confirmations (blocks including the transaction's) after which it is final. */
  finalityConfirmations: number;
  /** Gas is paid in this token (not necessarily a ledger asset). */
  nativeToken: { symbol: string; decimals: number };
  /** Unit of gasPriceGwei on this chain (gwei on EVM chains). */
  gasUnit: string;
  /** Other names accepted on input (case-insensitive). */
  aliases: readonly string[];
}

export interface TokenInfo {
  chain: string;
  /** Symbol on that chain (as the API takes it). */
  symbol: string;
  /** Ledger asset code the token is booked as. */
  assetCode: string;
  /** Decimals of the on-chain token. */
  decimals: number;
  /** Contract (EVM), mint (solana); null for the chain's native coin. */
  address: string | null;
  native: boolean;
}

export const CHAINS: readonly ChainInfo[] = [
  { id: 'ethereum', name: 'Ethereum', caip2: 'eip155:1', kind: 'evm', evmChainId: 1, blockTimeMs: 12_000, finalityConfirmations: 64, nativeToken: { symbol: 'ETH', decimals: 18 }, gasUnit: 'gwei', aliases: ['eth', 'mainnet', 'ethereum-mainnet'] },
  { id: 'polygon', name: 'Polygon PoS', caip2: 'eip155:137', kind: 'evm', evmChainId: 137, blockTimeMs: 2_000, finalityConfirmations: 32, nativeToken: { symbol: 'POL', decimals: 18 }, gasUnit: 'gwei', aliases: ['matic', 'polygon-pos'] },
  // L2s: "finalized" once the batch is final on L1 (about 15 minutes).
  { id: 'arbitrum', name: 'Arbitrum One', caip2: 'eip155:42161', kind: 'evm', evmChainId: 42161, blockTimeMs: 250, finalityConfirmations: 3_600, nativeToken: { symbol: 'ETH', decimals: 18 }, gasUnit: 'gwei', aliases: ['arbitrum-one', 'arb'] },
  { id: 'optimism', name: 'OP Mainnet', caip2: 'eip155:10', kind: 'evm', evmChainId: 10, blockTimeMs: 2_000, finalityConfirmations: 450, nativeToken: { symbol: 'ETH', decimals: 18 }, gasUnit: 'gwei', aliases: ['op', 'op-mainnet'] },
  { id: 'base', name: 'Base', caip2: 'eip155:8453', kind: 'evm', evmChainId: 8453, blockTimeMs: 2_000, finalityConfirmations: 450, nativeToken: { symbol: 'ETH', decimals: 18 }, gasUnit: 'gwei', aliases: ['base-mainnet'] },
  { id: 'avalanche', name: 'Avalanche C-Chain', caip2: 'eip155:43114', kind: 'evm', evmChainId: 43114, blockTimeMs: 2_000, finalityConfirmations: 1, nativeToken: { symbol: 'AVAX', decimals: 18 }, gasUnit: 'gwei', aliases: ['avax', 'avalanche-c'] },
  { id: 'bsc', name: 'BNB Smart Chain', caip2: 'eip155:56', kind: 'evm', evmChainId: 56, blockTimeMs: 3_000, finalityConfirmations: 15, nativeToken: { symbol: 'BNB', decimals: 18 }, gasUnit: 'gwei', aliases: ['bnb', 'binance', 'bnb-chain'] },
  { id: 'solana', name: 'Solana', caip2: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', kind: 'solana', evmChainId: null, blockTimeMs: 400, finalityConfirmations: 32, nativeToken: { symbol: 'SOL', decimals: 9 }, gasUnit: 'micro-lamports per compute unit', aliases: ['sol', 'solana-mainnet'] },
  { id: 'bitcoin', name: 'Bitcoin', caip2: 'bip122:000000000019d6689c085ae165831e93', kind: 'bitcoin', evmChainId: null, blockTimeMs: 600_000, finalityConfirmations: 6, nativeToken: { symbol: 'BTC', decimals: 8 }, gasUnit: 'sat/vB', aliases: ['btc'] },
];

const t = (chain: string, symbol: string, decimals: number, address: string | null, assetCode = symbol): TokenInfo => ({
  chain,
  symbol,
  assetCode,
  decimals,
  address,
  native: address === null,
});

/** Tokens per chain (mainnet contracts / mints). Native gas coins that are not ledger assets (POL, AVAX, BNB, SOL) are not listed. */
export const TOKENS: Readonly<Record<string, readonly TokenInfo[]>> = {
  ethereum: [
    t('ethereum', 'ETH', 18, null),
    t('ethereum', 'USDC', 6, '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'),
    t('ethereum', 'USDT', 6, '0xdAC17F958D2ee523a2206206994597C13D831ec7'),
    t('ethereum', 'DAI', 18, '0x6B175474E89094C44Da98b954EedeAC495271d0F'),
    t('ethereum', 'WETH', 18, '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2'),
    t('ethereum', 'WBTC', 8, '0x2260FAC5E5542a773Aa44fBCfeDf7C193bc2C599'),
  ],
  polygon: [
    t('polygon', 'USDC', 6, '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359'),
    t('polygon', 'USDT', 6, '0xc2132D05D31c914a87C6611C10748AEb04B58e8F'),
    t('polygon', 'DAI', 18, '0x8f3Cf7ad23Cd3CaDbD9735AFf958023239c6A063'),
    t('polygon', 'WETH', 18, '0x7ceB23fD6bC0adD59E62ac25578270cFf1b9f619'),
    t('polygon', 'WBTC', 8, '0x1BFD67037B42Cf73acF2047067bd4F2C47D9BfD6'),
  ],
  arbitrum: [
    t('arbitrum', 'ETH', 18, null),
    t('arbitrum', 'USDC', 6, '0xaf88d065e77c8cC2239327C5EDb3A432268e5831'),
    t('arbitrum', 'USDT', 6, '0xFd086bC7CD5C481DCC9C85ebE478A1C0b69FCbb9'),
    t('arbitrum', 'DAI', 18, '0xDA10009cBd5D07dd0CeCc66161FC93D7c9000da1'),
    t('arbitrum', 'WETH', 18, '0x82aF49447D8a07e3bd95BD0d56f35241523fBab1'),
    t('arbitrum', 'WBTC', 8, '0x2f2a2543B76A4166549F7aaB2e75Bef0aefC5B0f'),
  ],
  optimism: [
    t('optimism', 'ETH', 18, null),
    t('optimism', 'USDC', 6, '0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85'),
    t('optimism', 'USDT', 6, '0x94b008aA00579c1307B0EF2c499aD98a8ce58e58'),
    t('optimism', 'DAI', 18, '0xDA10009cBd5D07dd0CeCc66161FC93D7c9000da1'),
    t('optimism', 'WETH', 18, '0x4200000000000000000000000000000000000006'),
    t('optimism', 'WBTC', 8, '0x68f180fcCe6836688e9084f035309E29Bf0A2095'),
  ],
  base: [
    t('base', 'ETH', 18, null),
    t('base', 'USDC', 6, '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'),
    t('base', 'USDT', 6, '0xfde4C96c8593536E31F229EA8f37b2ADa2699bb2'),
    t('base', 'DAI', 18, '0x50c5725949A6F0c72E6C4a641F24049A917DB0Cb'),
    t('base', 'WETH', 18, '0x4200000000000000000000000000000000000006'),
  ],
  avalanche: [
    t('avalanche', 'USDC', 6, '0xB97EF9Ef8734C71904D8002F8b6Bc66Dd9c48a6E'),
    t('avalanche', 'USDT', 6, '0x9702230A8Ea53601f5cD2dc00fDBc13d4dF4A8c7'),
    t('avalanche', 'DAI', 18, '0xd586E7F844cEa2F87f50152665BCbc2C279D8d70'),
    t('avalanche', 'WETH', 18, '0x49D5c2BdFfac6CE2BFdB6640F4F80f226bc10bAB'),
    t('avalanche', 'WBTC', 8, '0x50b7545627a5162F82A992c33b87aDc75187B218'),
  ],
  bsc: [
    // Binance-Peg tokens: 18 decimals, unlike their 6-decimal originals.
    t('bsc', 'USDC', 18, '0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d'),
    t('bsc', 'USDT', 18, '0x55d398326f99059fF775485246999027B3197955'),
    t('bsc', 'DAI', 18, '0x1AF3F329e8BE154074D8769D1FFa4eE058B1DBc3'),
    t('bsc', 'ETH', 18, '0x2170Ed0880ac9A755fd29B2688956BD959F933F8'),
  ],
  solana: [
    t('solana', 'USDC', 6, 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'),
    t('solana', 'USDT', 6, 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB'),
    // Wormhole-wrapped tokens carry at most 8 decimals.
    t('solana', 'WETH', 8, '7vfCXTUXx5WJV5JADk17DUJ4ksgau7utNKj4b963voxs'),
    t('solana', 'WBTC', 8, '3NZ9JMVBmGAqocybic2c7LQCJScmgsAZ6vQqTDzcqmJh'),
    t('solana', 'DAI', 8, 'EjmyN6qEC1Tf1JxiG1ae7UTJhUxSwk1TCWNWqxWV4J6o'),
  ],
  bitcoin: [t('bitcoin', 'BTC', 8, null)],
};

/** The chain an asset lives on natively: its '' chain book. */
const HOME_CHAINS: Readonly<Record<string, string>> = {
  ETH: 'ethereum',
  USDC: 'ethereum',
  USDT: 'ethereum',
  DAI: 'ethereum',
  WETH: 'ethereum',
  WBTC: 'ethereum',
  BTC: 'bitcoin',
};

const byName = new Map<string, ChainInfo>();
for (const c of CHAINS) for (const n of [c.id, c.caip2, c.name, ...c.aliases]) byName.set(n.toLowerCase(), c);

/** The chain with this id, CAIP-2 id, name or alias (case-insensitive), or null. */
export function findChain(id: unknown): ChainInfo | null {
  return typeof id === 'string' ? (byName.get(id.trim().toLowerCase()) ?? null) : null;
}

/** The chain, or a 422 UNKNOWN_CHAIN pointing at the request field. */
export function getChain(id: unknown, pointer = '/chain'): ChainInfo {
  const c = findChain(id);
  if (!c) throw new DomainError('UNKNOWN_CHAIN', `Unknown chain ${JSON.stringify(id)}; supported: ${CHAINS.map((x) => x.id).join(', ')}`, pointer);
  return c;
}

/** The token by symbol (case-insensitive) or contract/mint address on a chain, or null. */
export function findToken(chain: unknown, symbolOrAddress: unknown): TokenInfo | null {
  const c = findChain(chain);
  if (!c || typeof symbolOrAddress !== 'string') return null;
  const s = symbolOrAddress.trim();
  const list = TOKENS[c.id] ?? [];
  return list.find((x) => x.symbol.toLowerCase() === s.toLowerCase()) ?? list.find((x) => x.address !== null && x.address.toLowerCase() === s.toLowerCase()) ?? null;
}

/** The token, or a 422 UNKNOWN_TOKEN (the chain is checked first: UNKNOWN_CHAIN at chainPointer). */
export function getToken(chain: unknown, symbol: unknown, pointer = '/token', chainPointer = '/chain'): TokenInfo {
  const c = getChain(chain, chainPointer);
  const tok = findToken(c.id, symbol);
  if (!tok) {
    throw new DomainError('UNKNOWN_TOKEN',
      `Token ${JSON.stringify(symbol)} is not supported on ${c.id}; supported: ${(TOKENS[c.id] ?? []).map((x) => x.symbol).join(', ')}`,
      pointer,
    );
  }
  return tok;
}

/** The token of a ledger asset on a chain, or null when the asset does not exist there. */
export function tokenForAsset(chain: string, assetCode: string): TokenInfo | null {
  const c = findChain(chain);
  if (!c) return null;
  return (TOKENS[c.id] ?? []).find((x) => x.assetCode === assetCode.toUpperCase()) ?? null;
}

/** The asset's home chain (its '' book), or null for assets that live on no chain (fiat, gold, GCU). */
/** Every asset's home chain (the chain its '' book stands for). */
export function homeChains(): Readonly<Record<string, string>> {
  return HOME_CHAINS;
}

export function homeChain(assetCode: string): string | null {
  return HOME_CHAINS[typeof assetCode === 'string' ? assetCode.toUpperCase() : ''] ?? null;
}

/** Chains where the asset exists as a token, home chain first. */
export function chainsForAsset(assetCode: string): string[] {
  const a = assetCode.toUpperCase();
  const home = homeChain(a);
  const all = CHAINS.filter((c) => (TOKENS[c.id] ?? []).some((x) => x.assetCode === a)).map((c) => c.id);
  return home ? [home, ...all.filter((c) => c !== home)] : all;
}
