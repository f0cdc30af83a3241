/**
 * The mobile activity feed: one time-ordered list of the caller's transfers (sent, and received from
 * other customers), payment intents (as payer; as payee once they succeeded) and notifications,
 * read from those records at request time, so it always matches them. Order: newest first, ties by
 * kind and id, so a page never repeats or skips an item because two share a millisecond. Each
 * branch reads at most offset + per_page rows through its own index before the merge.
 */
import type { Principal } from '../auth/principal';
import { getPool } from '../db/pool';
import { DecimalMoney as D } from '../money/amount';
import { receiptIdFor } from './receipts';

export type FeedType = 'transfer' | 'payment' | 'notification';

export interface FeedItem {
  id: string;
  type: FeedType;
  sourceId: string;
  occurredAt: Date;
  direction: 'sent' | 'received' | null;
  status: string | null;
  amount: string | null;
  currency: string | null;
  counterparty: string | null;
  title: string;
  description: string | null;
  p2p: boolean;
  receiptId: string | null;
  read: boolean | null;
}

type Row = {
  type: FeedType;
  source_id: string;
  occurred_at: Date;
  direction: 'sent' | 'received' | null;
  status: string | null;
  amount: string | null;
  currency: string | null;
  precision: number | null;
  counterparty: string | null;
  title: string | null;
  description: string | null;
  p2p: boolean;
  read_at: Date | null;
};

const BRANCHES: Record<FeedType, string[]> = {
  transfer: [
    // Sent (between one's own accounts too: counterparty is then the caller).
    `SELECT 'transfer' AS type, t.id AS source_id, t.created_at AS occurred_at, 'sent' AS direction, t.status, t.amount, t.asset_code AS currency, a.precision,
            ru.name AS counterparty, NULL AS title, t.description, COALESCE((t.metadata->>'p2p')::boolean, false) AS p2p, NULL::timestamptz AS read_at
       FROM transfers t JOIN assets a ON a.code = t.asset_code JOIN accounts ta ON ta.id = t.to_account_id JOIN users ru ON ru.id = ta.user_id
      WHERE t.user_id = $1 AND t.environment = $2 ORDER BY t.created_at DESC, t.id DESC LIMIT $3`,
    // Received from other customers.
    // Received from other customers: per account of the caller, newest first through the
    // (to_account_id, created_at) index, then merged.
    `SELECT 'transfer', t.id, t.created_at, 'received', t.status, t.amount, t.asset_code, a.precision, su.name, NULL, t.description, COALESCE((t.metadata->>'p2p')::boolean, false), NULL::timestamptz
       FROM accounts ma
       CROSS JOIN LATERAL (SELECT * FROM transfers x WHERE x.to_account_id = ma.id AND x.user_id <> $1 ORDER BY x.created_at DESC, x.id DESC LIMIT $3) t
       JOIN assets a ON a.code = t.asset_code JOIN users su ON su.id = t.user_id
      WHERE ma.user_id = $1 AND ma.environment = $2
      ORDER BY t.created_at DESC, t.id DESC LIMIT $3`,
  ],
  payment: [
    `SELECT 'payment', i.id, i.created_at, 'sent', i.status, i.amount, i.currency, a.precision, pu.name, NULL, i.description, false, NULL::timestamptz
       FROM payment_intents i JOIN assets a ON a.code = i.currency JOIN users pu ON pu.id = i.payee_user_id
      WHERE i.user_id = $1 AND i.environment = $2 ORDER BY i.created_at DESC, i.id DESC LIMIT $3`,
    `SELECT 'payment', i.id, i.created_at, 'received', i.status, i.amount, i.currency, a.precision, su.name, NULL, i.description, false, NULL::timestamptz
       FROM payment_intents i JOIN assets a ON a.code = i.currency JOIN users su ON su.id = i.user_id
      WHERE i.payee_user_id = $1 AND i.environment = $2 AND i.status = 'succeeded' ORDER BY i.created_at DESC, i.id DESC LIMIT $3`,
  ],
  notification: [
    `SELECT 'notification', n.id, n.created_at, NULL, NULL, NULL, NULL, NULL::int, NULL, n.title, n.body, false, n.read_at
       FROM notifications n WHERE n.user_id = $1 AND n.environment = $2 ORDER BY n.created_at DESC, n.id DESC LIMIT $3`,
  ],
};

const COUNTS: Record<FeedType, string> = {
  transfer: `SELECT (SELECT count(*) FROM transfers WHERE user_id = $1 AND environment = $2)
                  + (SELECT count(*) FROM accounts ma CROSS JOIN LATERAL (SELECT 1 FROM transfers x WHERE x.to_account_id = ma.id AND x.user_id <> $1) r
                      WHERE ma.user_id = $1 AND ma.environment = $2) AS n`,
  payment: `SELECT (SELECT count(*) FROM payment_intents WHERE user_id = $1 AND environment = $2)
                 + (SELECT count(*) FROM payment_intents WHERE payee_user_id = $1 AND environment = $2 AND status = 'succeeded') AS n`,
  notification: `SELECT count(*) AS n FROM notifications WHERE user_id = $1 AND environment = $2`,
};

/** Named once for the union, whichever branch comes first. */
const COLUMNS = 'type, source_id, occurred_at, direction, status, amount, currency, precision, counterparty, title, description, p2p, read_at';

const TYPE_ORDER = `CASE type WHEN 'transfer' THEN 1 WHEN 'payment' THEN 2 ELSE 3 END`;

function toItem(r: Row): FeedItem {
  const done = (r.type === 'transfer' && r.p2p && r.status === 'completed') || (r.type === 'payment' && r.status === 'succeeded');
  const title =
    r.title ??
    (r.type === 'transfer'
      ? r.direction === 'sent'
        ? `${r.p2p ? 'Sent to' : 'Transfer to'} ${r.counterparty}`
        : `Received from ${r.counterparty}`
      : r.direction === 'sent'
        ? `Payment to ${r.counterparty}`
        : `Payment from ${r.counterparty}`);
  return {
    id: `${r.type}:${r.source_id}`,
    type: r.type,
    sourceId: r.source_id,
    occurredAt: r.occurred_at,
    direction: r.direction,
    status: r.status,
    amount: r.amount === null ? null : new D(r.amount).toFixed(r.precision ?? undefined),
    currency: r.currency,
    counterparty: r.counterparty,
    title,
    description: r.description,
    p2p: r.p2p,
    receiptId: done ? receiptIdFor(r.source_id) : null,
    read: r.type === 'notification' ? r.read_at !== null : null,
  };
}

export async function activityFeed(p: Principal, q: { types?: FeedType[]; limit: number; offset: number }): Promise<{ items: FeedItem[]; total: number }> {
  const types = q.types?.length ? q.types : (['transfer', 'payment', 'notification'] as FeedType[]);
  const branches = types.flatMap((t) => BRANCHES[t]).map((b) => `(${b})`);
  const pool = getPool();
  // The total in one statement (each count an index-only scan once the tables are vacuumed).
  const total = `SELECT ${types.map((t) => `(${COUNTS[t]})`).join(' + ')} AS n`;
  const [page, count] = await Promise.all([
    pool.query<Row>(
      `SELECT * FROM (${branches.join(' UNION ALL ')}) feed(${COLUMNS}) ORDER BY occurred_at DESC, ${TYPE_ORDER}, source_id DESC LIMIT $4 OFFSET $5`,
      [p.userId, p.environment, q.offset + q.limit, q.limit, q.offset],
    ),
    pool.query<{ n: string }>(total, [p.userId, p.environment]),
  ]);
  return { items: page.rows.map(toItem), total: Number(count.rows[0].n) };
}

/** Bench diagnostics: the plans of the feed's page and count queries. */
export async function explainFeed(p: Principal): Promise<string> {
  const types = ['transfer', 'payment', 'notification'] as FeedType[];
  const branches = types.flatMap((t) => BRANCHES[t]).map((b) => `(${b})`);
  const out: string[] = [];
  const plan = await getPool().query(`EXPLAIN ANALYZE SELECT * FROM (${branches.join(' UNION ALL ')}) feed(${COLUMNS}) ORDER BY occurred_at DESC, ${TYPE_ORDER}, source_id DESC LIMIT $4 OFFSET $5`, [p.userId, p.environment, 20, 20, 0]);
  out.push(...plan.rows.map((r) => r['QUERY PLAN']));
  for (const t of types) {
    const c = await getPool().query(`EXPLAIN ANALYZE ${COUNTS[t]}`, [p.userId, p.environment]);
    out.push(...c.rows.map((r) => r['QUERY PLAN']));
  }
  return out.join('\n');
}
