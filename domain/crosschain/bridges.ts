/**
 * The three bridge protocols, each with its own routes, fee model, speed and limits, and the
 * quoting math. Fees are charged in the bridged token and fixed at quote time, as the three
 * protocols collect them on the source chain (relayer / messaging / gas-service payment).
 *
 * - wormhole: Token Bridge. Lock on the token's home chain, mint a wrapped token elsewhere (burn
 *   to come back). After the source transaction is FINAL, 13 of 19 guardians sign a VAA; the
 *   relayer then redeems it on the destination. Amounts are normalised to 8 decimals (dust is
 *   kept by the protocol, so it counts as fee). No protocol fee; a relayer fee by destination.
 * - layerzero: Stargate pools over LayerZero v2 messaging. Liquidity pools on both ends (lock
 *   into the source pool, release from the destination pool), so a transfer cannot exceed the
 *   destination pool's liquidity. DVNs verify after the configured block confirmations (fewer
 *   than full finality on most chains); the executor then delivers. 0.06 % protocol fee plus the
 *   messaging fee.
 * - axelar: Axelar gateway. Lock at home, mint axl-wrapped tokens elsewhere. Axelar validators
 *   vote on the source event after finality; the destination gateway executes the approved
 *   command. No protocol share; a gas-service fee, higher when ethereum is on either end. No
 *   solana.
 */
import { getAsset } from '../assets';
import { toChecksumAddress } from '../chains/addresses';
import { getChain, getToken, homeChain, tokenForAsset, type ChainInfo, type TokenInfo } from '../chains/registry';
import { getPool, type Queryable } from '../db/pool';
import { DecimalMoney, parseRequestAmount } from '../money/amount';
import { DomainError } from '../platform/errors';
import { latestRates } from '../rates';

export type BridgeProtocolId = 'wormhole' | 'layerzero' | 'axelar';
export const BRIDGE_PROTOCOLS: readonly BridgeProtocolId[] = ['wormhole', 'layerzero', 'axelar'];

export type SourceMechanism = 'bridge_lock' | 'bridge_burn';
export type DestinationMechanism = 'bridge_release' | 'bridge_mint';

export interface BridgeProtocol {
  id: BridgeProtocolId;
  name: string;
  chains: readonly string[];
  /** Ledger assets the protocol carries (where the token exists on both chains). */
  assets: readonly string[];
  /** Share of the amount, in basis points. */
  protocolFeeBps: number;
  /** Relayer / messaging / gas-service fee in USD for a route. */
  routeFeeUsd(source: string, destination: string): string;
  /** Smallest and largest transfer, in USD at the latest rate. */
  minUsd: string;
  maxUsd: string;
  /** Decimals the protocol carries across (wormhole normalises to 8). */
  decimalsCap: number | null;
  /** Confirmations on the source chain before the protocol attests. */
  sourceConfirmations(chain: ChainInfo): number;
  attestation: { kind: 'guardian_vaa' | 'dvn_verification' | 'validator_votes'; label: string; delaySeconds: number; pollSeconds: number };
  /** Seconds from attestation to the destination transaction (relayer / executor / approval). */
  deliverySeconds: number;
  sourceMechanism(token: TokenInfo, home: string | null): SourceMechanism;
  destinationMechanism(token: TokenInfo, home: string | null): DestinationMechanism;
  /** The protocol's contract (or program) the source leg is sent to and the destination leg comes from. */
  contract(chain: string): string;
}

const EVM = ['ethereum', 'polygon', 'arbitrum', 'optimism', 'base', 'avalanche', 'bsc'];

// Addresses are checksummed at load, so a typo fails loudly in every test.
const evmContracts = (m: Record<string, string>) => Object.fromEntries(Object.entries(m).map(([k, v]) => [k, v.startsWith('0x') ? toChecksumAddress(v) : v]));

const WORMHOLE_TOKEN_BRIDGE = evmContracts({
  ethereum: '0x3ee18B2214AFF97000D974cf647E7C347E8fa585',
  polygon: '0x5a58505a96D1dbf8dF91cB21B54419FC36e93fdE',
  arbitrum: '0x0b2402144Bb366A632D14B83F244D2e0e21bD39c',
  optimism: '0x1D68124e65faFC907325e3EDbF8c4d84499DAa8b',
  base: '0x8d2de8d2f73F1F4cAB472AC9A881C9b123C79627',
  avalanche: '0x0e082F06FF657D94310cB8cE8B0D9a04541d8052',
  bsc: '0xB6F6D86a8f9879A9c87f643768d9efc38c1Da6E7',
  solana: 'wormDTUJ6AWPNvk59vGQbDvGJmqbDTdgWgAqcLBCgUb',
});
/** LayerZero v2 EndpointV2 has one address on every EVM chain. */
const LAYERZERO_ENDPOINT = toChecksumAddress('0x1a44076050125825900e736c501f859c50fE728c');
const LAYERZERO_SOLANA = '76y77prsiCMvXMjuoZ5VRrhG5qYBrUMYTE5WgHqgjEn6';
const AXELAR_GATEWAY = evmContracts({
  ethereum: '0x4F4495243837681061C4743b74B3eEdf548D56A5',
  polygon: '0x6f015F16De9fC8791b234eF68D486d2bF203FBA8',
  avalanche: '0x5029C0EFf6C34351a0CEc334542cDb22c7928f78',
  bsc: '0x304acf330bbE08d1e512eefaa92F6a57871fD895',
  arbitrum: '0xe432150cce91c13a887f7D836923d5597adD8E31',
  optimism: '0xe432150cce91c13a887f7D836923d5597adD8E31',
  base: '0xe432150cce91c13a887f7D836923d5597adD8E31',
});

/** Wormhole chain ids (VAA emitter chain) and LayerZero v2 endpoint ids. */
export const WORMHOLE_CHAIN_IDS: Readonly<Record<string, number>> = { solana: 1, ethereum: 2, bsc: 4, polygon: 5, avalanche: 6, arbitrum: 23, optimism: 24, base: 30 };
export const LAYERZERO_EIDS: Readonly<Record<string, number>> = { ethereum: 30101, bsc: 30102, avalanche: 30106, polygon: 30109, arbitrum: 30110, optimism: 30111, solana: 30168, base: 30184 };

/** LayerZero DVN confirmations per source chain (Stargate's configuration order of magnitude). */
const LZ_CONFIRMATIONS: Readonly<Record<string, number>> = { ethereum: 15, polygon: 512, arbitrum: 20, optimism: 20, base: 10, avalanche: 12, bsc: 20, solana: 32 };

const lockAtHome = (token: TokenInfo, home: string | null): SourceMechanism => (token.chain === home ? 'bridge_lock' : 'bridge_burn');
const releaseAtHome = (token: TokenInfo, home: string | null): DestinationMechanism => (token.chain === home ? 'bridge_release' : 'bridge_mint');

export const PROTOCOLS: Readonly<Record<BridgeProtocolId, BridgeProtocol>> = {
  wormhole: {
    id: 'wormhole',
    name: 'Wormhole Token Bridge',
    chains: [...EVM, 'solana'],
    assets: ['USDC', 'USDT', 'DAI', 'WETH', 'WBTC', 'ETH'],
    protocolFeeBps: 0,
    routeFeeUsd: (_s, d) => (d === 'ethereum' ? '12' : d === 'solana' ? '0.25' : '0.5'),
    minUsd: '1',
    // The Governor delays single transfers above its notional limit by 24 h; refused instead.
    maxUsd: '5000000',
    decimalsCap: 8,
    sourceConfirmations: (c) => c.finalityConfirmations,
    attestation: { kind: 'guardian_vaa', label: '13 of 19 guardian signatures on the VAA', delaySeconds: 20, pollSeconds: 10 },
    deliverySeconds: 10,
    sourceMechanism: lockAtHome,
    destinationMechanism: releaseAtHome,
    contract: (chain) => WORMHOLE_TOKEN_BRIDGE[chain],
  },
  layerzero: {
    id: 'layerzero',
    name: 'LayerZero v2 (Stargate pools)',
    chains: [...EVM, 'solana'],
    assets: ['USDC', 'USDT', 'ETH', 'WETH'],
    protocolFeeBps: 6,
    routeFeeUsd: (_s, d) => (d === 'ethereum' ? '6' : d === 'solana' ? '0.6' : '0.4'),
    minUsd: '5',
    // Destination pool liquidity available to one transfer.
    maxUsd: '2000000',
    decimalsCap: null,
    sourceConfirmations: (c) => LZ_CONFIRMATIONS[c.id] ?? c.finalityConfirmations,
    attestation: { kind: 'dvn_verification', label: 'required DVNs (LayerZero Labs, Google Cloud) verified the packet', delaySeconds: 30, pollSeconds: 15 },
    deliverySeconds: 10,
    sourceMechanism: () => 'bridge_lock',
    destinationMechanism: () => 'bridge_release',
    contract: (chain) => (chain === 'solana' ? LAYERZERO_SOLANA : LAYERZERO_ENDPOINT),
  },
  axelar: {
    id: 'axelar',
    name: 'Axelar gateway',
    chains: EVM,
    assets: ['USDC', 'USDT', 'DAI', 'WETH', 'WBTC'],
    protocolFeeBps: 0,
    routeFeeUsd: (s, d) => (s === 'ethereum' || d === 'ethereum' ? '10' : '1.5'),
    minUsd: '10',
    maxUsd: '1000000',
    decimalsCap: null,
    sourceConfirmations: (c) => c.finalityConfirmations,
    attestation: { kind: 'validator_votes', label: 'Axelar validators voted the event (quorum above 2/3 of stake)', delaySeconds: 40, pollSeconds: 20 },
    deliverySeconds: 20,
    sourceMechanism: lockAtHome,
    destinationMechanism: releaseAtHome,
    contract: (chain) => AXELAR_GATEWAY[chain],
  },
};

export function getProtocol(id: unknown, pointer = '/protocol'): BridgeProtocol {
  const p = typeof id === 'string' ? PROTOCOLS[id.trim().toLowerCase() as BridgeProtocolId] : undefined;
  if (!p) throw new DomainError('UNKNOWN_BRIDGE_PROTOCOL', `protocol must be one of ${BRIDGE_PROTOCOLS.join(', ')}`, pointer);
  return p;
}

/** A route resolved from request fields: chains, the token on each side and its ledger asset. */
export interface BridgeRoute {
  source: ChainInfo;
  destination: ChainInfo;
  sourceToken: TokenInfo;
  destinationToken: TokenInfo;
  assetCode: string;
  precision: number;
  /** The asset's maximum amount per operation. */
  maxAmount: string;
}

export interface RoutePointers {
  source: string;
  destination: string;
  token: string;
}
const BODY: RoutePointers = { source: '/source_chain', destination: '/destination_chain', token: '/token' };

export async function resolveRoute(sourceChain: unknown, destinationChain: unknown, token: unknown, ptr: RoutePointers = BODY): Promise<BridgeRoute> {
  const source = getChain(sourceChain, ptr.source);
  const destination = getChain(destinationChain, ptr.destination);
  const sourceToken = getToken(source.id, token, ptr.token, ptr.source);
  if (source.id === destination.id) throw new DomainError('SAME_CHAIN', 'source and destination chain are the same', ptr.destination);
  const destinationToken = tokenForAsset(destination.id, sourceToken.assetCode);
  if (!destinationToken) {
    throw new DomainError('UNSUPPORTED_ROUTE', `${sourceToken.symbol} (${sourceToken.assetCode}) does not exist on ${destination.id}`, ptr.destination);
  }
  const asset = await getAsset(sourceToken.assetCode);
  if (!asset) throw new DomainError('UNKNOWN_TOKEN', `${sourceToken.assetCode} is not an asset of the platform`, ptr.token);
  return { source, destination, sourceToken, destinationToken, assetCode: asset.code, precision: asset.precision, maxAmount: asset.maxAmount };
}

/** Why a protocol cannot carry a route, or null when it can. */
export function routeRefusal(p: BridgeProtocol, r: BridgeRoute): string | null {
  if (!p.chains.includes(r.source.id)) return `${p.id} does not serve ${r.source.id}`;
  if (!p.chains.includes(r.destination.id)) return `${p.id} does not serve ${r.destination.id}`;
  if (!p.assets.includes(r.assetCode)) return `${p.id} does not carry ${r.assetCode}`;
  return null;
}

export interface BridgeOffer {
  protocol: BridgeProtocolId;
  amount: string;
  feeAmount: string;
  receiveAmount: string;
  exchangeRate: string;
  estimatedDurationSeconds: number;
  minAmount: string;
  maxAmount: string;
  feeBreakdown: { protocol_fee: string; route_fee: string; route_fee_usd: string; rounding: string; protocol_fee_bps: number };
  sourceMechanism: SourceMechanism;
  destinationMechanism: DestinationMechanism;
  attestation: string;
}

/** Seconds from submission to the destination transaction being included, from the chains' clocks. */
export function estimatedDuration(p: BridgeProtocol, r: BridgeRoute): number {
  const finality = (p.sourceConfirmations(r.source) * r.source.blockTimeMs) / 1000;
  return Math.ceil(r.source.blockTimeMs / 1000 + finality + p.attestation.delaySeconds + p.deliverySeconds + r.destination.blockTimeMs / 1000);
}

/** Places an amount may carry on the source leg / arrive with on the destination leg. */
export function sourcePlaces(r: BridgeRoute): number {
  return Math.min(r.precision, r.sourceToken.decimals);
}
export function receivePlaces(p: BridgeProtocol, r: BridgeRoute): number {
  return Math.min(r.precision, r.sourceToken.decimals, r.destinationToken.decimals, p.decimalsCap ?? 99);
}

/**
 * The protocol's offer for an amount (already validated at the source precision): fee = protocol
 * share + route fee converted at the latest USD rate, rounded up at the asset's precision; the
 * amount received is rounded down to what the destination (and protocol) can carry, the dust
 * being part of the fee. Refuses amounts outside the protocol's minimum and liquidity.
 */
export function offer(p: BridgeProtocol, r: BridgeRoute, amount: string, usdRate: string): BridgeOffer {
  const rate = new DecimalMoney(usdRate);
  const a = new DecimalMoney(amount);
  const protocolFee = a.times(p.protocolFeeBps).dividedBy(10_000);
  const routeFeeUsd = p.routeFeeUsd(r.source.id, r.destination.id);
  const routeFee = new DecimalMoney(routeFeeUsd).dividedBy(rate);
  const fee = protocolFee.plus(routeFee).toDecimalPlaces(r.precision, DecimalMoney.ROUND_UP);
  const receive = a.minus(fee).toDecimalPlaces(receivePlaces(p, r), DecimalMoney.ROUND_DOWN);
  const minAmount = DecimalMoney.max(new DecimalMoney(p.minUsd).dividedBy(rate), fee).toDecimalPlaces(sourcePlaces(r), DecimalMoney.ROUND_UP);
  const maxAmount = new DecimalMoney(p.maxUsd).dividedBy(rate).toDecimalPlaces(sourcePlaces(r), DecimalMoney.ROUND_DOWN);
  const totalFee = a.minus(DecimalMoney.max(receive, 0));
  return {
    protocol: p.id,
    amount: a.toFixed(r.precision),
    feeAmount: totalFee.toFixed(r.precision),
    receiveAmount: DecimalMoney.max(receive, 0).toFixed(r.precision),
    exchangeRate: receive.greaterThan(0) ? receive.dividedBy(a).toDecimalPlaces(8, DecimalMoney.ROUND_DOWN).toFixed(8) : '0.00000000',
    estimatedDurationSeconds: estimatedDuration(p, r),
    minAmount: minAmount.toFixed(),
    maxAmount: maxAmount.toFixed(),
    feeBreakdown: {
      protocol_fee: protocolFee.toDecimalPlaces(r.precision, DecimalMoney.ROUND_UP).toFixed(r.precision),
      route_fee: routeFee.toDecimalPlaces(r.precision, DecimalMoney.ROUND_UP).toFixed(r.precision),
      route_fee_usd: routeFeeUsd,
      rounding: totalFee.minus(fee).toFixed(r.precision),
      protocol_fee_bps: p.protocolFeeBps,
    },
    sourceMechanism: p.sourceMechanism(r.sourceToken, homeOf(r)),
    destinationMechanism: p.destinationMechanism(r.destinationToken, homeOf(r)),
    attestation: p.attestation.label,
  };
}

function homeOf(r: BridgeRoute): string | null {
  return homeChain(r.assetCode);
}

/** An offer's refusal for the amount: below the minimum or above the liquidity, or null. */
export function amountRefusal(o: BridgeOffer): { code: 'AMOUNT_BELOW_MINIMUM' | 'AMOUNT_ABOVE_LIQUIDITY'; message: string } | null {
  if (new DecimalMoney(o.amount).lessThan(o.minAmount) || !new DecimalMoney(o.receiveAmount).greaterThan(0)) {
    return { code: 'AMOUNT_BELOW_MINIMUM', message: `${o.protocol} needs at least ${o.minAmount} for this route (its fee is ${o.feeAmount})` };
  }
  if (new DecimalMoney(o.amount).greaterThan(o.maxAmount)) {
    return { code: 'AMOUNT_ABOVE_LIQUIDITY', message: `${o.protocol} carries at most ${o.maxAmount} on this route` };
  }
  return null;
}

export interface ProtocolFeeRow {
  protocol: BridgeProtocolId;
  supported: boolean;
  reason: string | null;
  offer: BridgeOffer | null;
}

/**
 * Every protocol's offer for a route and amount (unsupported or out-of-limit ones with their
 * reason), best first: highest amount received, then fastest.
 */
export async function compareProtocols(route: BridgeRoute, amountInput: unknown, client: Queryable = getPool()): Promise<{ amount: string; rows: ProtocolFeeRow[] }> {
  const amount = parseRequestAmount(amountInput, { code: route.assetCode, precision: route.precision, maxAmount: route.maxAmount }, '/amount', sourcePlaces(route));
  const rate = (await latestRates(client)).get(route.assetCode);
  if (!rate) throw new DomainError('NO_RATE', `no USD rate for ${route.assetCode}`, '/token');
  const rows: ProtocolFeeRow[] = BRIDGE_PROTOCOLS.map((id) => {
    const p = PROTOCOLS[id];
    const refusal = routeRefusal(p, route);
    if (refusal) return { protocol: id, supported: false, reason: refusal, offer: null };
    const o = offer(p, route, amount, rate);
    const bad = amountRefusal(o);
    return { protocol: id, supported: bad === null, reason: bad?.message ?? null, offer: o };
  });
  const score = (r: ProtocolFeeRow) => (r.supported ? 2 : r.offer ? 1 : 0);
  rows.sort(
    (a, b) =>
      score(b) - score(a) ||
      (a.offer && b.offer ? new DecimalMoney(b.offer.receiveAmount).comparedTo(a.offer.receiveAmount) || a.offer.estimatedDurationSeconds - b.offer.estimatedDurationSeconds : 0),
  );
  return { amount, rows };
}
