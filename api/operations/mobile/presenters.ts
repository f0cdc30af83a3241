/** Wire shapes of the mobile payment routes (passkeys keep theirs in passkeys.ts). */
import type { FeedItem } from '../../../domain/mobile/activity';
import type { Device } from '../../../domain/mobile/devices';
import type { PaymentIntent } from '../../../domain/mobile/intents';
import type { Notification } from '../../../domain/mobile/notifications';
import type { P2pTransfer } from '../../../domain/mobile/p2p';
import type { MobileProfile } from '../../../domain/mobile/profiles';
import type { Receipt } from '../../../domain/mobile/receipts';
import type { ReceiveDetails } from '../../../domain/mobile/receive';

const iso = (d: Date | null) => d?.toISOString() ?? null;

/** The payer sees its own account; a payee sees the intent without the payer's account. */
export function presentIntent(i: PaymentIntent, viewerUserId: string) {
  const payer = i.userId === viewerUserId;
  return {
    id: i.id,
    object: 'payment_intent',
    status: i.status,
    amount: i.amount,
    currency: i.currency,
    description: i.description,
    recipient: { user_id: i.payeeUserId, name: i.payeeName, identifier: payer ? i.recipient : null },
    role: payer ? 'payer' : 'payee',
    requires_passkey: i.requiresPasskey,
    amount_usd: i.amountUsd,
    account_id: payer ? i.payerAccountId : i.payeeAccountId,
    fee: i.feeAmount,
    entry_id: i.entryId,
    receipt_id: i.status === 'succeeded' ? `rcpt_${i.id}` : null,
    last_error: i.lastError,
    cancellation_reason: i.cancellationReason,
    workflow_id: payer ? i.workflowId : null,
    expires_at: i.expiresAt.toISOString(),
    created_at: i.createdAt.toISOString(),
    confirmed_at: iso(i.confirmedAt),
    succeeded_at: iso(i.succeededAt),
    canceled_at: iso(i.canceledAt),
    expired_at: iso(i.expiredAt),
  };
}

/** Each side sees its own account only; the counterparty by name. */
export function presentP2p(x: P2pTransfer) {
  const t = x.transfer;
  const sent = x.direction === 'sent';
  return {
    id: t.id,
    object: 'p2p_transfer',
    direction: x.direction,
    status: t.status,
    amount: t.amount,
    currency: t.assetCode,
    fee: sent ? t.feeAmount : null,
    note: x.note,
    from: { user_id: x.senderUserId, name: x.senderName, account_id: sent ? t.fromAccountId : null },
    to: { user_id: x.recipientUserId, name: x.recipientName, account_id: sent ? null : t.toAccountId },
    entry_id: t.entryId,
    receipt_id: t.status === 'completed' ? `rcpt_${t.id}` : null,
    failure: t.failureCode ? { code: t.failureCode, reason: t.failureReason } : null,
    workflow_id: sent ? t.workflowId : null,
    created_at: t.createdAt.toISOString(),
    completed_at: iso(t.completedAt),
  };
}

export function presentFeedItem(f: FeedItem) {
  return {
    id: f.id,
    type: f.type,
    source_id: f.sourceId,
    occurred_at: f.occurredAt.toISOString(),
    title: f.title,
    description: f.description,
    direction: f.direction,
    status: f.status,
    amount: f.amount,
    currency: f.currency,
    counterparty: f.counterparty,
    p2p: f.p2p,
    receipt_id: f.receiptId,
    read: f.read,
  };
}

export function presentReceipt(r: Receipt) {
  return {
    id: r.id,
    object: 'receipt',
    number: r.number,
    kind: r.kind,
    source_id: r.sourceId,
    issued_at: r.issuedAt.toISOString(),
    payer: { user_id: r.payer.userId, name: r.payer.name, account_id: r.payer.accountId },
    payee: { user_id: r.payee.userId, name: r.payee.name, account_id: r.payee.accountId },
    amount: r.amount,
    fee: r.fee,
    total: r.total,
    currency: r.currency,
    description: r.description,
    ledger: { entry_id: r.entryId, lines: r.ledgerLines },
  };
}

export function presentReceive(d: ReceiveDetails) {
  return {
    account_id: d.accountId,
    asset_code: d.assetCode,
    amount: d.amount,
    options: d.options.map((o) => ({ kind: o.kind, chain: o.chain, caip2: o.caip2, address: o.address, token: o.token, token_address: o.tokenAddress, uri: o.uri, standard: o.standard })),
  };
}

export const presentDevice = (d: Device) => ({ id: d.id, platform: d.platform, name: d.name, push_token_suffix: d.tokenSuffix, created_at: d.createdAt.toISOString(), last_seen_at: d.lastSeenAt.toISOString() });

export const presentNotification = (n: Notification) => ({ id: n.id, event_type: n.eventType, title: n.title, body: n.body, data: n.data, created_at: n.createdAt.toISOString(), read_at: iso(n.readAt) });

export const presentProfile = (p: MobileProfile) => ({ user_id: p.userId, name: p.name, handle: p.handle, phone: p.phone });
