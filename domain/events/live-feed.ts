/**
 * Live platform events for in-process subscribers (GraphQL subscriptions, docs/graphql.md
 * "Subscriptions"), read from the event stream (./stream.ts).
 *
 * Each process has a durable consumer of its own (`live-<host>-<pid>`, acknowledgements off,
 * delivering new messages only, removed by the broker after 10 minutes without this process), so
 * every API process sees every event, and a process that lost the broker for a moment resumes
 * where it stopped. An event reaches subscribers after the relay published it, so after the
 * change it describes committed. Live only: events before a process subscribed are not replayed
 * to it (webhooks and the event API are the durable paths).
 */
import { AckPolicy, DeliverPolicy, type ConsumerMessages } from '@nats-io/jetstream';
import type { Environment } from '../platform/environment';
import { decodeEvent } from './consumer';
import { eventStream, INSTANCE_ID } from './stream';

const NANOS_PER_MS = 1_000_000;

export interface LiveEvent {
  id: string;
  type: string;
  environment: Environment;
  userId: string | null;
  aggregateType: string;
  aggregateId: string;
  data: Record<string, unknown>;
  occurredAt: Date;
  /** When this process received it (commit-to-subscriber latency is measured from occurredAt). */
  receivedAt: Date;
}

export interface LiveSubscription {
  /** Whether the subscriber wants the event (cheap: runs for every event). */
  matches(e: LiveEvent): boolean;
  push(e: LiveEvent): void;
}

class LiveFeed {
  private subscribers = new Set<LiveSubscription>();
  private messages: ConsumerMessages | null = null;
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
    if (this.messages) return Promise.resolve();
    if (!this.connecting) {
      this.closed = false;
      this.connecting = this.connect().finally(() => {
        this.connecting = null;
      });
    }
    return this.connecting;
  }

  private async connect(): Promise<void> {
    const h = await eventStream();
    const name = `live-${INSTANCE_ID}`;
    await h.jsm.consumers.add(h.settings.stream, {
      durable_name: name,
      description: 'GraphQL subscriptions of one API process (domain/events/live-feed.ts)',
      ack_policy: AckPolicy.None,
      deliver_policy: DeliverPolicy.New,
      inactive_threshold: 10 * 60_000 * NANOS_PER_MS,
    });
    const consumer = await h.js.consumers.get(h.settings.stream, name);
    const messages = await consumer.consume({ max_messages: 1000 });
    this.messages = messages;
    void (async () => {
      for await (const m of messages) {
        const e = decodeEvent(m);
        if (e) this.deliver(e);
      }
    })()
      .catch(() => undefined)
      .finally(() => this.reconnectLater(messages));
  }

  private reconnectLater(dead: ConsumerMessages): void {
    if (this.messages !== dead) return;
    this.messages = null;
    if (this.closed || this.subscribers.size === 0 || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = null;
      this.ensureListening().catch(() => this.reconnectLater(dead));
    }, 1000);
  }

  private deliver(r: ReturnType<typeof decodeEvent> & object): void {
    if (this.subscribers.size === 0) return;
    const e: LiveEvent = {
      id: r.id,
      type: r.type,
      environment: r.environment as Environment,
      userId: r.user_id,
      aggregateType: r.aggregate_type,
      aggregateId: r.aggregate_id,
      data: r.data,
      occurredAt: r.occurred_at,
      receivedAt: new Date(),
    };
    for (const s of this.subscribers) {
      if (s.matches(e)) s.push(e);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
    const m = this.messages;
    this.messages = null;
    if (m) await m.close().catch(() => undefined);
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
