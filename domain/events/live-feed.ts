/**
 * Live platform events for in-process subscribers (GraphQL subscriptions), fanned out across every
 * API process through PostgreSQL LISTEN/NOTIFY (docs/graphql.md "Subscriptions").
 *
 * The outbox dispatcher (./dispatcher.ts) claims each event once (FOR UPDATE SKIP LOCKED) and, in
 * the transaction that marks the batch published, notifies the channel with the batch's event ids.
 * PostgreSQL delivers a notification only when that transaction commits, so a subscriber never sees
 * an event before the change it describes (and the dispatcher's own batch) committed, and sees each
 * event once. Only the dispatcher notifies: the money paths' commits never queue on NOTIFY's global
 * commit lock. Each process keeps one LISTEN connection, reads the notified events with one query per
 * batch and hands them to its subscribers. Live only: an event published while a process was not
 * listening is not replayed to it (webhooks and the event API are the durable paths).
 */
import pg from 'pg';
import { getPool } from '../db/pool';
import type { Environment } from '../platform/environment';
import { loadConfig } from '../platform/config';

export const LIVE_EVENTS_CHANNEL = 'platform_events';
/** Ids per notification: well under NOTIFY's 8,000-byte payload limit. */
export const IDS_PER_NOTIFICATION = 100;

export interface LiveEvent {
  id: string;
  type: string;
  environment: Environment;
  userId: string | null;
  aggregateType: string;
  aggregateId: string;
  data: Record<string, unknown>;
  occurredAt: Date;
  /** When this process received the notification (commit-to-subscriber latency is measured from occurredAt). */
  receivedAt: Date;
}

export interface LiveSubscription {
  /** Whether the subscriber wants the event (cheap: runs for every event). */
  matches(e: LiveEvent): boolean;
  push(e: LiveEvent): void;
}

/** The SQL the dispatcher runs in its batch transaction: one notification per IDS_PER_NOTIFICATION ids. */
export function notifyStatements(ids: string[]): Array<{ text: string; values: unknown[] }> {
  const out: Array<{ text: string; values: unknown[] }> = [];
  for (let i = 0; i < ids.length; i += IDS_PER_NOTIFICATION) {
    out.push({ text: 'SELECT pg_notify($1, $2)', values: [LIVE_EVENTS_CHANNEL, JSON.stringify(ids.slice(i, i + IDS_PER_NOTIFICATION))] });
  }
  return out;
}

class LiveFeed {
  private subscribers = new Set<LiveSubscription>();
  private client: pg.Client | null = null;
  private connecting: Promise<void> | null = null;
  private closed = false;
  private retry: NodeJS.Timeout | null = null;

  async subscribe(s: LiveSubscription): Promise<() => void> {
    this.subscribers.add(s);
    await this.ensureListening();
    return () => {
      this.subscribers.delete(s);
    };
  }

  get size(): number {
    return this.subscribers.size;
  }

  private ensureListening(): Promise<void> {
    if (this.client) return Promise.resolve();
    if (!this.connecting) {
      this.closed = false;
      this.connecting = this.connect().finally(() => {
        this.connecting = null;
      });
    }
    return this.connecting;
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: loadConfig().databaseUrl, application_name: 'live-events' });
    client.on('notification', (n) => {
      if (n.channel === LIVE_EVENTS_CHANNEL && n.payload) void this.deliver(n.payload, new Date());
    });
    client.on('error', () => this.reconnectLater(client));
    client.on('end', () => this.reconnectLater(client));
    await client.connect();
    await client.query(`LISTEN ${LIVE_EVENTS_CHANNEL}`);
    this.client = client;
  }

  private reconnectLater(dead: pg.Client): void {
    if (this.client !== dead) return;
    this.client = null;
    dead.end().catch(() => undefined);
    if (this.closed || this.subscribers.size === 0 || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = null;
      this.ensureListening().catch(() => this.reconnectLater(dead));
    }, 1000);
  }

  private async deliver(payload: string, receivedAt: Date): Promise<void> {
    if (this.subscribers.size === 0) return;
    let ids: string[];
    try {
      ids = JSON.parse(payload);
    } catch {
      return;
    }
    const { rows } = await getPool()
      .query<{ id: string; type: string; environment: Environment; user_id: string | null; aggregate_type: string; aggregate_id: string; data: Record<string, unknown>; occurred_at: Date }>(
        'SELECT id, type, environment, user_id, aggregate_type, aggregate_id, data, occurred_at FROM outbox_events WHERE id = ANY($1::text[]) ORDER BY occurred_at, id',
        [ids],
      )
      .catch(() => ({ rows: [] }));
    for (const r of rows) {
      const e: LiveEvent = { id: r.id, type: r.type, environment: r.environment, userId: r.user_id, aggregateType: r.aggregate_type, aggregateId: r.aggregate_id, data: r.data, occurredAt: r.occurred_at, receivedAt };
      for (const s of this.subscribers) {
        if (s.matches(e)) s.push(e);
      }
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
    const c = this.client;
    this.client = null;
    if (c) await c.end().catch(() => undefined);
  }
}

let feed: LiveFeed | null = null;

/** This process's feed (one LISTEN connection, opened at the first subscription). */
export function liveFeed(): LiveFeed {
  feed ??= new LiveFeed();
  return feed;
}

export async function closeLiveFeed(): Promise<void> {
  await feed?.close();
  feed = null;
}
