/** JSON shapes of the x402 area (docs/x402.md). */
import type { MonetizedEndpoint } from '../../../domain/x402/endpoints';
import type { LimitView } from '../../../domain/x402/limits';
import type { X402Payment } from '../../../domain/x402/payments';
import type { PayerWallet } from '../../../domain/x402/wallets';
import { centsToAtomic } from '../../../domain/x402/amounts';
import { getAddress } from 'viem';
import { timestamp } from '../../schemas';

const nullableTime = { anyOf: [timestamp, { type: 'null' }] };
const str = { type: 'string' };
const nstr = { type: ['string', 'null'] };

export const endpointSchema = {
  type: 'object',
  properties: {
    id: str,
    path: str,
    method: str,
    price_usd_cents: { type: 'integer' },
    price_atomic: { ...str, description: 'USDC atomic units (6 decimals) a request pays' },
    network: str,
    asset: str,
    pay_to: str,
    description: str,
    active: { type: 'boolean' },
    created_at: timestamp,
  },
};

export function presentEndpoint(e: MonetizedEndpoint) {
  return {
    id: e.id,
    path: e.path,
    method: e.method,
    price_usd_cents: e.priceUsdCents,
    price_atomic: centsToAtomic(e.priceUsdCents),
    network: e.network,
    asset: e.asset,
    pay_to: e.payTo,
    description: e.description,
    active: e.active,
    created_at: e.createdAt.toISOString(),
  };
}

export const paymentSchema = {
  type: 'object',
  properties: {
    id: str,
    network: str,
    asset: str,
    payer: str,
    pay_to: str,
    amount: { ...str, description: 'USDC atomic units (6 decimals)' },
    purpose: { type: 'string', enum: ['sms', 'endpoint', 'mcp', 'facilitator'] },
    resource: str,
    endpoint_id: nstr,
    agent_key_id: nstr,
    status: { type: 'string', enum: ['settling', 'settled', 'failed', 'refunded'] },
    settlement_status: { type: 'string', enum: ['pending', 'settled', 'failed', 'refunded'] },
    transaction_hash: nstr,
    entry_id: nstr,
    refund_entry_id: nstr,
    failure_code: nstr,
    failure_reason: nstr,
    created_at: timestamp,
    settled_at: nullableTime,
    refunded_at: nullableTime,
  },
};

export function presentPayment(p: X402Payment) {
  return {
    id: p.id,
    network: p.network,
    asset: getAddress(p.asset),
    payer: getAddress(p.payer),
    pay_to: getAddress(p.payTo),
    amount: p.amount,
    purpose: p.purpose,
    resource: p.resource,
    endpoint_id: p.endpointId,
    agent_key_id: p.agentKeyId,
    status: p.status,
    settlement_status: p.status === 'settling' ? 'pending' : p.status,
    transaction_hash: p.transactionHash,
    entry_id: p.entryId,
    refund_entry_id: p.refundEntryId,
    failure_code: p.failureCode,
    failure_reason: p.failureReason,
    created_at: p.createdAt.toISOString(),
    settled_at: p.settledAt?.toISOString() ?? null,
    refunded_at: p.refundedAt?.toISOString() ?? null,
  };
}

export const limitSchema = {
  type: 'object',
  properties: {
    subject_type: { type: 'string', enum: ['payer', 'agent'] },
    address: str,
    api_key_id: str,
    label: nstr,
    per_request_max: { ...str, description: 'USDC' },
    daily_max: { ...str, description: 'USDC per UTC day' },
    custom: { type: 'boolean', description: 'false: the platform default applies' },
    spent_today: str,
    remaining_today: str,
  },
};

export function presentLimit(v: LimitView) {
  return {
    subject_type: v.subjectType,
    ...(v.subjectType === 'payer' ? { address: getAddress(v.subject) } : { api_key_id: v.subject }),
    label: v.label,
    per_request_max: v.limit.perRequestMax,
    daily_max: v.limit.dailyMax,
    custom: v.limit.custom,
    spent_today: v.spentToday,
    remaining_today: v.remainingToday,
  };
}

export const walletSchema = {
  type: 'object',
  properties: { id: str, address: str, account_id: str, label: nstr, created_at: timestamp },
};

export function presentWallet(w: PayerWallet) {
  return { id: w.id, address: getAddress(w.address), account_id: w.accountId, label: w.label, created_at: w.createdAt.toISOString() };
}
