/**
 * P2P transfers (POST /mobile/transfers/p2p): to another customer named by email, phone or @handle,
 * into their receiving account (profiles.ts), through the transfers' own workflow path, so the same
 * fee schedule, daily limit and operator review apply as to any transfer. Sending to oneself is 422
 * P2P_TO_SELF; an unknown recipient 404 RECIPIENT_NOT_FOUND (docs/mobile.md on what that reveals).
 */
import type { Principal } from '../auth/principal';
import { getAsset } from '../assets';
import { getPool, type Queryable } from '../db/pool';
import { DomainError } from '../platform/errors';
import { getTransfer, type Transfer, type TransferService } from '../transfers';
import { startTransfer } from '../transfers/start';
import { payingAccount, receivingAccount, resolveRecipient } from './profiles';

export interface P2pRequest {
  to_user: string;
  amount: string;
  currency: string;
  note?: string;
  from_account?: string;
}

export interface P2pTransfer {
  transfer: Transfer;
  senderUserId: string;
  recipientUserId: string;
  recipientName: string;
  senderName: string;
  /** The caller's side: sent or received. */
  direction: 'sent' | 'received';
  note: string | null;
}

/**
 * `requestKey`: the request's Idempotency-Key as the transfer records it (api/plugins/idempotency.ts
 * requestKeyOf): a re-run after a takeover answers with the transfer the first run made.
 */
export async function sendP2p(transfers: TransferService, p: Principal, b: P2pRequest, requestKey?: string): Promise<P2pTransfer> {
  const asset = await getAsset(String(b.currency).toUpperCase());
  if (!asset) throw new DomainError('UNKNOWN_ASSET', `Asset ${String(b.currency).slice(0, 12)} is not supported`, '/currency');
  const to = await resolveRecipient(b.to_user, '/to_user', p.tenantId ?? null);
  if (to.userId === p.userId) throw new DomainError('P2P_TO_SELF', 'Send to another customer; move money between your own accounts with /api/v2/transfers', '/to_user');
  const toAccount = await receivingAccount(to.userId, p.environment, '/to_user');
  const fromAccount = await payingAccount(p.userId, p.environment, asset.code, String(b.amount), b.from_account, '/from_account');
  const t = await startTransfer(
    transfers,
    {
      userId: p.userId,
      environment: p.environment,
      fromAccountId: fromAccount,
      toAccountId: toAccount,
      amount: b.amount,
      assetCode: asset.code,
      reference: 'p2p',
      description: b.note ?? null,
      metadata: { p2p: true, recipient_user_id: to.userId, recipient_via: to.via, note: b.note ?? null },
      requestKey,
    },
    { workflow: true },
  );
  return getP2pTransfer(p, t.id);
}

/** A P2P transfer the caller sent or received; anyone else (or a transfer that is not P2P): 404. */
export async function getP2pTransfer(p: Principal, id: string, c: Queryable = getPool()): Promise<P2pTransfer> {
  const t = await getTransfer(id, { environment: p.environment }, c);
  const recipient = t?.metadata.p2p === true ? String(t.metadata.recipient_user_id) : null;
  if (!t || !recipient || (t.userId !== p.userId && recipient !== p.userId)) throw new DomainError('TRANSFER_NOT_FOUND', 'Transfer not found');
  const { rows } = await c.query<{ id: string; name: string }>('SELECT id, name FROM users WHERE id IN ($1, $2)', [t.userId, recipient]);
  const name = (id: string) => rows.find((r) => r.id === id)?.name ?? '';
  return {
    transfer: t,
    senderUserId: t.userId,
    recipientUserId: recipient,
    senderName: name(t.userId),
    recipientName: name(recipient),
    direction: t.userId === p.userId ? 'sent' : 'received',
    note: typeof t.metadata.note === 'string' ? t.metadata.note : null,
  };
}
