/**
 * Durable JetStream consumers of the platform stream (docs/events.md "Delivery guarantees").
 *
 * At least once: a message is acknowledged only after the transaction that processed it
 * committed; a consumer that crashes before that gets it again (after ack_wait, 30 s, or at once
 * when it says so with a nak). Exactly-once effects: each consumer records a receipt per event id
 * (event_receipts) in that same transaction and skips an event it holds a receipt for, so a
 * redelivered or duplicated event changes nothing twice.
 */
import type { PoolClient } from 'pg';
import { AckPolicy, DeliverPolicy, type ConsumerConfig, type JsMsg } from '@nats-io/jetstream';
import { withTransaction } from '../db/pool';
import { eventStream, isNotFound, streamMissing } from './stream';
import type { StreamMessageBody } from './relay';
import { wakeablePause } from '../platform/pause';

const NANOS_PER_MS = 1_000_000;

/** An event as consumers see it: the message body plus where the stream holds it. */
export interface StreamEvent {
  id: string;
  type: string;
  environment: string;
  user_id: string | null;
  aggregate_type: string;
  aggregate_id: string;
  data: Record<string, unknown>;
  occurred_at: Date;
  outboxSeq: string;
  streamSeq: number;
  /** When the stream stored it (the relay's publish). */
  publishedAt: Date;
  redelivered: boolean;
}

export function decodeEvent(m: JsMsg): StreamEvent | null {
  try {
    const b = JSON.parse(m.string()) as StreamMessageBody;
    if (typeof b?.id !== 'string' || typeof b.type !== 'string') return null;
    return {
      ...b,
      occurred_at: new Date(b.occurred_at),
      outboxSeq: b.outbox_seq,
      streamSeq: m.seq,
      publishedAt: new Date(Math.floor(Number(m.info.timestampNanos) / 1_000_000)),
      redelivered: m.redelivered,
    };
  } catch {
    return null;
  }
}

export interface ConsumerSpec<R> {
  /** The durable consumer's name (unique on the stream) and its receipts' consumer name. */
  name: string;
  description: string;
  /**
   * Whether it records a receipt per event (default true). Off only for a consumer whose every
   * effect is already unique per event (a unique key with ON CONFLICT DO NOTHING): a second copy
   * then changes nothing without the extra row per event.
   */
  receipts?: boolean;
  /** Subjects it reads, relative to the stream prefix (default: all). */
  filter?: (prefix: string) => string[];
  /** In the transaction that records the receipts, with only the events not processed before. */
  handle(c: PoolClient, events: StreamEvent[]): Promise<R>;
  /** After that transaction committed and before the acks (side effects outside the database). */
  afterCommit?(result: R): Promise<void>;
}

export interface BatchResult {
  received: number;
  processed: number;
  duplicates: number;
}

/** How long a delivered message may stay unacknowledged before the broker delivers it again. */
export function ackWaitMs(): number {
  return Math.max(1, Number.parseInt(process.env.EVENTS_ACK_WAIT_SECONDS ?? '30', 10) || 30) * 1000;
}

const consumerConfig = (spec: ConsumerSpec<unknown>, prefix: string): Partial<ConsumerConfig> => ({
  durable_name: spec.name,
  description: spec.description,
  ack_policy: AckPolicy.Explicit,
  deliver_policy: DeliverPolicy.All,
  // A message unacknowledged this long (its consumer crashed) is delivered again.
  ack_wait: ackWaitMs() * NANOS_PER_MS,
  max_ack_pending: 5_000,
  ...(spec.filter ? { filter_subjects: spec.filter(prefix) } : {}),
});

const ensured = new Map<string, Promise<void>>();

/** Creates the durable consumer once per process and stream (idempotent on the broker). */
export async function ensureConsumer(spec: ConsumerSpec<unknown>) {
  const h = await eventStream();
  const key = `${h.key}|${spec.name}`;
  let p = ensured.get(key);
  if (!p) {
    p = h.jsm.consumers.add(h.settings.stream, consumerConfig(spec, h.settings.prefix)).then(() => undefined);
    ensured.set(key, p);
    p.catch(() => ensured.delete(key));
  }
  await p;
  return { h, consumer: await h.js.consumers.get(h.settings.stream, spec.name) };
}

/** Forgets which consumers exist (their stream was recreated, e.g. a broker without persistence restarted). */
export function forgetConsumers(): void {
  ensured.clear();
}

/**
 * Processes a batch of messages: one transaction records the receipts and runs the handler on
 * the events not seen before; after it commits, afterCommit, then every message is acknowledged
 * (the duplicates too; not waiting for the broker's confirmation). A failure naks them all for a redelivery after `retryMs`.
 */
export async function processMessages<R>(spec: ConsumerSpec<R>, msgs: JsMsg[], retryMs = 1000): Promise<BatchResult> {
  if (msgs.length === 0) return { received: 0, processed: 0, duplicates: 0 };
  const decoded = msgs.map(decodeEvent);
  const events = decoded.filter((e): e is StreamEvent => e !== null);
  try {
    const { fresh, result } = await withTransaction(async (c) => {
      if (spec.receipts === false) {
        const seen = new Set<string>();
        const fresh = events.filter((e) => !seen.has(e.id) && seen.add(e.id));
        return { fresh, result: fresh.length ? await spec.handle(c, fresh) : undefined };
      }
      const { rows } = await c.query<{ event_id: string }>(
        `INSERT INTO event_receipts (consumer, event_id, stream_seq)
         SELECT $1, u.id, u.seq FROM unnest($2::text[], $3::bigint[]) AS u(id, seq)
         ON CONFLICT (consumer, event_id) DO NOTHING RETURNING event_id`,
        [spec.name, events.map((e) => e.id), events.map((e) => e.streamSeq)],
      );
      const firstTime = new Set(rows.map((r) => r.event_id));
      // A duplicate within the batch (the same id at two stream positions) counts once.
      const seen = new Set<string>();
      const fresh = events.filter((e) => firstTime.has(e.id) && !seen.has(e.id) && seen.add(e.id));
      return { fresh, result: fresh.length ? await spec.handle(c, fresh) : undefined };
    });
    if (fresh.length && spec.afterCommit) await spec.afterCommit(result as R);
    // A plain ack, not a confirmed one (ackAck is a request and a reply per message): an ack that is
    // lost only redelivers the message after ack_wait, and every consumer already takes a copy
    // twice as once (receipts, or effects unique per event).
    for (const m of msgs) m.ack();
    return { received: msgs.length, processed: fresh.length, duplicates: events.length - fresh.length };
  } catch (err) {
    for (const m of msgs) m.nak(retryMs);
    throw err;
  }
}

/**
 * One batch of whatever the consumer has waiting (tests and the drain after the chaos run call
 * this; the worker runs startConsumer). Returns at once when nothing is waiting.
 */
export async function consumeOnce<R>(spec: ConsumerSpec<R>, opts: { max?: number; expiresMs?: number } = {}): Promise<BatchResult & { moreWaiting: boolean }> {
  const { consumer } = await ensureConsumer(spec as ConsumerSpec<unknown>);
  const info = await consumer.info();
  const waiting = info.num_pending + info.num_ack_pending;
  if (waiting === 0) return { received: 0, processed: 0, duplicates: 0, moreWaiting: false };
  const want = Math.min(waiting, opts.max ?? 1000);
  // Redeliveries (ack pending) arrive when their ack wait ends: a short wait when only they remain.
  const batch = await consumer.fetch({ max_messages: want, expires: opts.expiresMs ?? (info.num_pending >= want ? 5000 : 1000) });
  const msgs: JsMsg[] = [];
  for await (const m of batch) msgs.push(m);
  // More than this batch was pending when it was asked for (what arrived since waits for the next call).
  return { ...(await processMessages(spec, msgs)), moreWaiting: info.num_pending > msgs.length };
}

/** consumeOnce until nothing is pending. */
export async function consumeAll<R>(spec: ConsumerSpec<R>): Promise<BatchResult> {
  const total: BatchResult = { received: 0, processed: 0, duplicates: 0 };
  for (;;) {
    const r = await consumeOnce(spec, { expiresMs: 1000 });
    total.received += r.received;
    total.processed += r.processed;
    total.duplicates += r.duplicates;
    if (r.received === 0 || !r.moreWaiting) return total;
  }
}

export interface RunningConsumer {
  stop(): Promise<void>;
}

/**
 * The consumer's loop in a long-running process: messages are pulled continuously (consume) and
 * processed in batches of whatever has arrived, up to `batchSize`. A lost broker, a deleted
 * consumer or a failed batch is retried after a pause; stop() waits for the batch in progress.
 */
export function startConsumer<R>(spec: ConsumerSpec<R>, opts: { batchSize?: number; onError?: (err: unknown) => void } = {}): RunningConsumer {
  const batchSize = opts.batchSize ?? 200;
  let stopped = false;
  let closeMessages: (() => void) | undefined;
  // Between pulls (after an error or a lost consumer); stop() ends it at once.
  const pause = wakeablePause();
  // Waiting for messages to arrive; stop() ends it too.
  let arrived: (() => void) | undefined;
  const loop = (async () => {
    while (!stopped) {
      try {
        const { consumer } = await ensureConsumer(spec as ConsumerSpec<unknown>);
        const messages = await consumer.consume({ max_messages: batchSize * 2 });
        closeMessages = () => void messages.close();
        const buffer: JsMsg[] = [];
        let inFlight: JsMsg[] = [];
        let ended = false;
        // A live consumer says it is still working on what it holds (waiting in the buffer or in the
        // batch being processed): only a dead one's messages reach the ack wait and are redelivered.
        const heartbeat = setInterval(() => {
          for (const m of buffer) m.working();
          for (const m of inFlight) m.working();
        }, Math.max(500, Math.floor(ackWaitMs() / 3)));
        heartbeat.unref();
        const reader = (async () => {
          for await (const m of messages) {
            buffer.push(m);
            arrived?.();
          }
        })().finally(() => {
          ended = true;
          arrived?.();
        });
        try {
          while (!stopped && !(ended && buffer.length === 0)) {
            if (buffer.length === 0) {
              await new Promise<void>((res) => {
                arrived = res;
              });
              arrived = undefined;
              continue;
            }
            inFlight = buffer.splice(0, batchSize);
            await processMessages(spec, inFlight);
            inFlight = [];
          }
        } finally {
          clearInterval(heartbeat);
          // What it still holds goes back at once (the failed batch was nak'ed by processMessages).
          for (const m of buffer.splice(0)) m.nak();
          messages.close();
          await reader.catch(() => undefined);
        }
        if (!stopped) {
          // The iterator ended: the consumer or stream went away (broker restarted without them).
          forgetConsumers();
          await pause.sleep(500);
        }
      } catch (err) {
        opts.onError?.(err);
        // A failed batch was nak'ed: this pull ends and a new one starts after the pause.
        closeMessages?.();
        if (isNotFound(err)) {
          streamMissing();
          forgetConsumers();
        }
        if (!stopped) await pause.sleep(1000);
      }
    }
  })();
  return {
    async stop() {
      stopped = true;
      closeMessages?.();
      pause.wake();
      arrived?.();
      await loop;
    },
  };
}
