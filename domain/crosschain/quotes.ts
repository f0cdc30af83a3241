/**
 * Bridge quotes: every protocol prices the route, the chosen offer is stored with the others as
 * alternatives and holds its price until it expires; a transfer spends it once (./initiate.ts).
 */
import { getPool, type Queryable } from '../db/pool';
import { DecimalMoney, formatAmount } from '../money/amount';
import type { Environment } from '../platform/environment';
import { DomainError } from '../platform/errors';
import { newId } from '../platform/ids';
import { amountRefusal, compareProtocols, getProtocol, resolveRoute, type BridgeOffer, type BridgeProtocolId } from './bridges';

/** Quotes hold their price this long (BRIDGE_QUOTE_TTL_SECONDS, default 120). */
export function quoteTtlSeconds(): number {
  const n = Number.parseInt(process.env.BRIDGE_QUOTE_TTL_SECONDS ?? '', 10);
  return Number.isFinite(n) && n > 0 ? n : 120;
}

/** What a quote and the transfer that spends it both say about the route and its price. */
export interface BridgeRoutePrice {
  id: string;
  environment: Environment;
  userId: string;
  protocol: BridgeProtocolId;
  sourceChain: string;
  destinationChain: string;
  token: string;
  destinationToken: string;
  assetCode: string;
  amount: string;
  feeAmount: string;
  receiveAmount: string;
}

export interface BridgeQuote extends BridgeRoutePrice {
  exchangeRate: string;
  estimatedDurationSeconds: number;
  feeBreakdown: BridgeOffer['feeBreakdown'];
  alternatives: Array<{ bridge_protocol: BridgeProtocolId; estimated_receive_amount: string; fee_amount: string; estimated_duration_seconds: number }>;
  expiresAt: Date;
  usedAt: Date | null;
  createdAt: Date;
}


export interface QuoteRow {
  id: string;
  environment: Environment;
  user_id: string;
  protocol: BridgeProtocolId;
  source_chain: string;
  destination_chain: string;
  token: string;
  destination_token: string;
  asset_code: string;
  amount: string;
  fee_amount: string;
  receive_amount: string;
  exchange_rate: string;
  estimated_duration_seconds: number;
  fee_breakdown: BridgeOffer['feeBreakdown'];
  alternatives: BridgeQuote['alternatives'];
  expires_at: Date;
  used_at: Date | null;
  created_at: Date;
  precision: number;
}


export function toQuote(r: QuoteRow): BridgeQuote {
  return {
    id: r.id,
    environment: r.environment,
    userId: r.user_id,
    protocol: r.protocol,
    sourceChain: r.source_chain,
    destinationChain: r.destination_chain,
    token: r.token,
    destinationToken: r.destination_token,
    assetCode: r.asset_code,
    amount: formatAmount(r.amount, r.precision),
    feeAmount: formatAmount(r.fee_amount, r.precision),
    receiveAmount: formatAmount(r.receive_amount, r.precision),
    exchangeRate: new DecimalMoney(r.exchange_rate).toFixed(8),
    estimatedDurationSeconds: r.estimated_duration_seconds,
    feeBreakdown: r.fee_breakdown,
    alternatives: r.alternatives,
    expiresAt: r.expires_at,
    usedAt: r.used_at,
    createdAt: r.created_at,
  };
}

export interface QuoteInput {
  userId: string;
  environment: Environment;
  sourceChain: unknown;
  destinationChain: unknown;
  token: unknown;
  amount: unknown;
  /** Chosen protocol; without it the best offer (most received, then fastest). */
  protocol?: unknown;
  protocolPointer?: string;
  now: Date;
}

/**
 * Prices the route with every protocol and stores the chosen offer with the others as
 * alternatives. Refusals are 422 with a pointer: unknown chain/token, same chain, route no
 * protocol (or not the preferred one) serves, amount below the minimum or above the liquidity.
 */
export async function createBridgeQuote(input: QuoteInput): Promise<BridgeQuote> {
  const ptr = input.protocolPointer ?? '/preferred_bridge';
  const preferred = input.protocol === undefined || input.protocol === null ? null : getProtocol(input.protocol, ptr);
  const route = await resolveRoute(input.sourceChain, input.destinationChain, input.token);
  const { rows } = await compareProtocols(route, input.amount);
  const chosen = preferred ? rows.find((r) => r.protocol === preferred.id)! : rows[0];
  if (!chosen.offer) {
    const served = rows.filter((r) => r.offer).map((r) => r.protocol);
    throw new DomainError('UNSUPPORTED_ROUTE',
      `${chosen.reason}${served.length ? `; this route is served by ${served.join(', ')}` : `; no bridge serves ${route.source.id} -> ${route.destination.id} for ${route.assetCode}`}`,
      preferred ? ptr : '/destination_chain',
    );
  }
  if (!chosen.supported) {
    const bad = amountRefusal(chosen.offer)!;
    throw new DomainError(bad.code, bad.message, '/amount');
  }
  const alternatives = rows
    .filter((r) => r.supported && r.protocol !== chosen.protocol)
    .map((r) => ({
      bridge_protocol: r.protocol,
      estimated_receive_amount: r.offer!.receiveAmount,
      fee_amount: r.offer!.feeAmount,
      estimated_duration_seconds: r.offer!.estimatedDurationSeconds,
    }));
  const o = chosen.offer;
  const { rows: saved } = await getPool().query<QuoteRow>(
    `WITH q AS (
       INSERT INTO bridge_quotes (id, environment, user_id, protocol, source_chain, destination_chain, token, destination_token, asset_code, amount,
                                  fee_amount, receive_amount, exchange_rate, estimated_duration_seconds, fee_breakdown, alternatives, expires_at, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18) RETURNING *)
     SELECT q.*, a.precision FROM q JOIN assets a ON a.code = q.asset_code`,
    [
      newId('bq'),
      input.environment,
      input.userId,
      o.protocol,
      route.source.id,
      route.destination.id,
      route.sourceToken.symbol,
      route.destinationToken.symbol,
      route.assetCode,
      o.amount,
      o.feeAmount,
      o.receiveAmount,
      o.exchangeRate,
      o.estimatedDurationSeconds,
      JSON.stringify(o.feeBreakdown),
      JSON.stringify(alternatives),
      new Date(input.now.getTime() + quoteTtlSeconds() * 1000),
      input.now,
    ],
  );
  return toQuote(saved[0]);
}

export async function getBridgeQuote(id: string, client: Queryable = getPool()): Promise<BridgeQuote | null> {
  const { rows } = await client.query<QuoteRow>('SELECT q.*, a.precision FROM bridge_quotes q JOIN assets a ON a.code = q.asset_code WHERE q.id = $1', [id]);
  return rows[0] ? toQuote(rows[0]) : null;
}
