/**
 * Notifications: records made from the platform's events, shown in the activity feed and pushed to
 * the customer's devices. The outbox dispatcher calls projectNotifications inside the transaction
 * that publishes a batch of events (domain/events/dispatcher.ts), so every event makes its
 * notifications exactly once (unique per event and user); pushes go out after the commit
 * (push.ts), one per notification and device.
 *
 * Made today: money received from another customer (transfer.completed), a payment intent paid
 * (payer and payee) or expired (payer), a third party asking for approval (open_banking.sca_requested).
 */
import type { Principal } from '../auth/principal';
import { getPool, type Queryable } from '../db/pool';
import { DecimalMoney as D } from '../money/amount';
import { DomainError } from '../platform/errors';
import { newId } from '../platform/ids';

export interface EventForNotification {
  id: string;
  type: string;
  environment: string;
  user_id: string | null;
  data: Record<string, unknown>;
}

interface Draft {
  userId: string;
  environment: string;
  eventId: string;
  eventType: string;
  title: string;
  body: string;
  data: Record<string, unknown>;
}

const TYPES = new Set(['transfer.completed', 'payment_intent.completed', 'payment_intent.expired', 'open_banking.sca_requested']);
const money = (amount: unknown, code: unknown) => `${new D(String(amount)).toFixed()} ${String(code)}`;

/** Writes the notifications of a batch of events (in the caller's transaction); returns the new ones' ids. */
export async function projectNotifications(c: Queryable, events: EventForNotification[]): Promise<string[]> {
  const relevant = events.filter((e) => TYPES.has(e.type) && e.user_id);
  if (relevant.length === 0) return [];
  const accountIds = relevant.filter((e) => e.type === 'transfer.completed').map((e) => String(e.data.to_account));
  const userIds = [...new Set(relevant.flatMap((e) => [e.user_id!, ...(e.data.payee_user_id ? [String(e.data.payee_user_id)] : [])]))];
  const [{ rows: owners }, { rows: names }] = await Promise.all([
    c.query<{ id: string; user_id: string }>('SELECT id, user_id FROM accounts WHERE id = ANY($1::text[])', [accountIds]),
    c.query<{ id: string; name: string }>('SELECT id, name FROM users WHERE id = ANY($1::text[])', [userIds]),
  ]);
  const ownerOf = new Map(owners.map((o) => [o.id, o.user_id]));
  const nameOf = (id: string) => names.find((n) => n.id === id)?.name ?? 'a customer';
  const drafts: Draft[] = [];
  for (const e of relevant) {
    const base = { environment: e.environment, eventId: e.id, eventType: e.type };
    if (e.type === 'transfer.completed') {
      const to = ownerOf.get(String(e.data.to_account));
      if (!to || to === e.user_id) continue;
      drafts.push({ ...base, userId: to, title: 'Money received', body: `You received ${money(e.data.amount, e.data.asset_code)} from ${nameOf(e.user_id!)}.`, data: { transfer_id: e.data.transfer_id } });
    } else if (e.type === 'payment_intent.completed') {
      const payee = String(e.data.payee_user_id);
      const data = { payment_intent_id: e.data.payment_intent_id };
      drafts.push({ ...base, userId: e.user_id!, title: 'Payment sent', body: `You paid ${money(e.data.amount, e.data.currency)} to ${nameOf(payee)}.`, data });
      drafts.push({ ...base, userId: payee, title: 'Payment received', body: `${nameOf(e.user_id!)} paid you ${money(e.data.amount, e.data.currency)}.`, data });
    } else if (e.type === 'open_banking.sca_requested') {
      drafts.push({ ...base, userId: e.user_id!, title: 'Approve in your app', body: `${String(e.data.description)}. Approve or deny it here.`, data: { authorisation_id: e.data.authorisation_id } });
    } else {
      drafts.push({ ...base, userId: e.user_id!, title: 'Payment expired', body: `Your payment of ${money(e.data.amount, e.data.currency)} was not confirmed in time and expired.`, data: { payment_intent_id: e.data.payment_intent_id } });
    }
  }
  if (drafts.length === 0) return [];
  const { rows } = await c.query<{ id: string }>(
    `INSERT INTO notifications (id, user_id, environment, event_id, event_type, title, body, data)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::jsonb[])
     ON CONFLICT (event_id, user_id) DO NOTHING RETURNING id`,
    [
      drafts.map(() => newId('ntf')),
      drafts.map((d) => d.userId),
      drafts.map((d) => d.environment),
      drafts.map((d) => d.eventId),
      drafts.map((d) => d.eventType),
      drafts.map((d) => d.title),
      drafts.map((d) => d.body),
      drafts.map((d) => JSON.stringify(d.data)),
    ],
  );
  return rows.map((r) => r.id);
}

export interface Notification {
  id: string;
  eventType: string;
  title: string;
  body: string;
  data: Record<string, unknown>;
  createdAt: Date;
  readAt: Date | null;
}

const toNotification = (r: Record<string, any>): Notification => ({ id: r.id, eventType: r.event_type, title: r.title, body: r.body, data: r.data, createdAt: r.created_at, readAt: r.read_at });

export async function listNotifications(p: Principal, q: { unread?: boolean; limit: number; offset: number }): Promise<{ items: Notification[]; total: number }> {
  const { rows } = await getPool().query(
    `SELECT *, count(*) OVER () AS total FROM notifications WHERE user_id = $1 AND environment = $2 AND (NOT $3 OR read_at IS NULL)
     ORDER BY created_at DESC, id DESC LIMIT $4 OFFSET $5`,
    [p.userId, p.environment, q.unread === true, q.limit, q.offset],
  );
  return { items: rows.map(toNotification), total: rows[0] ? Number(rows[0].total) : 0 };
}

export async function markNotificationRead(p: Principal, id: string): Promise<Notification> {
  const { rows } = await getPool().query(
    `UPDATE notifications SET read_at = COALESCE(read_at, now()) WHERE id = $1 AND user_id = $2 AND environment = $3 RETURNING *`,
    [id, p.userId, p.environment],
  );
  if (!rows[0]) throw new DomainError('NOTIFICATION_NOT_FOUND', 'Notification not found');
  return toNotification(rows[0]);
}
