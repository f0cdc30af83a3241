/**
 * The outbox relay: events written in the same transaction as the money (outbox_events) are
 * published to the JetStream stream in outbox order (seq), then marked published — all while the
 * rows stay locked. One relay publishes at a time (a transaction-scoped advisory lock; the others
 * stand by), so the stream holds committed events in the order the relay found them, and the
 * events of one aggregate (written by transactions that lock it) in the order they committed.
 *
 * Each message's id is the event id: a relay that dies after publishing and before its commit
 * publishes the same events again, and the stream's duplicate window stores them once.
 */
import { getPool, withTransaction } from '../db/pool';
import { eventStream, isNotFound, streamMissing, subjectFor } from './stream';

/** pg_try_advisory_xact_lock key of the relay ("outbox relay" as two int4s would do; one bigint). */
const RELAY_LOCK = 7_240_001;

export interface OutboxRow {
  id: string;
  type: string;
  environment: string;
  user_id: string | null;
  aggregate_type: string;
  aggregate_id: string;
  data: Record<string, unknown>;
  occurred_at: Date;
  seq: string;
  /** The operation's other events, published after the row's own (see messagesOf). */
  derived?: DerivedEvent[] | null;
}

/** An event carried inside an outbox row (one row per immediate transfer: migration 20261127100000), as outbox__derived gives it. */
export interface DerivedEvent {
  id: string;
  type: string;
  user_id: string | null;
  aggregate_type: string;
  aggregate_id: string;
  data: Record<string, unknown>;
}

/** The JSON body of a stream message (docs/events.md "Message format"). */
export interface StreamMessageBody {
  id: string;
  type: string;
  environment: string;
  user_id: string | null;
  aggregate_type: string;
  aggregate_id: string;
  data: Record<string, unknown>;
  occurred_at: string;
  outbox_seq: string;
}

export function messageBody(r: OutboxRow): StreamMessageBody {
  return {
    id: r.id,
    type: r.type,
    environment: r.environment,
    user_id: r.user_id,
    aggregate_type: r.aggregate_type,
    aggregate_id: r.aggregate_id,
    data: r.data,
    occurred_at: r.occurred_at.toISOString(),
    outbox_seq: String(r.seq),
  };
}

/**
 * The stream messages of one outbox row: its own event, then the events it carries, each with its
 * own id (so each is stored once and each consumer's receipt is per event), same environment,
 * time and outbox sequence.
 */
export function messagesOf(r: OutboxRow): StreamMessageBody[] {
  const own = messageBody(r);
  return [own, ...(r.derived ?? []).map((d) => ({ ...own, id: d.id, type: d.type, user_id: d.user_id, aggregate_type: d.aggregate_type, aggregate_id: d.aggregate_id, data: d.data }))];
}

export interface RelayResult {
  /** Outbox rows published (each one or more messages). */
  published: number;
  messages: number;
  /** Another relay held the lock: this one published nothing. */
  standby: boolean;
}

export async function relayOnce(opts: { batchSize?: number } = {}): Promise<RelayResult> {
  const batchSize = opts.batchSize ?? 500;
  // Connect (and create the stream) before taking the lock: no transaction waits on a connect.
  const h = await eventStream();
  return withTransaction(async (c) => {
    const { rows: lock } = await c.query<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS locked', [RELAY_LOCK]);
    if (!lock[0].locked) return { published: 0, messages: 0, standby: true };
    // A transfer's derived events are stored by reference or in a compact form; outbox__derived
    // builds them with their data (20261129090000, 20261130090000).
    const { rows } = await c.query<OutboxRow>(
      `SELECT o.id, o.type, o.environment, o.user_id, o.aggregate_type, o.aggregate_id, o.data, o.occurred_at, o.seq, outbox__derived(o) AS derived
         FROM outbox_events o WHERE o.published_at IS NULL ORDER BY o.seq LIMIT $1`,
      [batchSize],
    );
    if (rows.length === 0) return { published: 0, messages: 0, standby: false };
    const perRow = rows.map(messagesOf);
    // Sent in order on one connection (the stream stores them in that order); the acks are awaited together.
    const acks = await Promise.all(
      perRow.flat().map((m) =>
        h.js.publish(subjectFor(h.settings, m.environment, m.type), JSON.stringify(m), {
          msgID: m.id,
          expect: { streamName: h.settings.stream },
          timeout: 10_000,
        }),
      ),
    ).catch((err) => {
      // No stream answers on the subject: it is gone (a broker that held it in memory restarted).
      if (isNotFound(err) || /no responders|503/i.test(String((err as Error)?.message ?? err))) streamMissing();
      throw err;
    });
    // Each row's stream sequence: its first message's.
    const firsts: number[] = [];
    let i = 0;
    for (const ms of perRow) {
      firsts.push(acks[i].seq);
      i += ms.length;
    }
    await c.query(
      `UPDATE outbox_events o SET published_at = clock_timestamp(), attempts = o.attempts + 1, stream_seq = u.s
         FROM unnest($1::text[], $2::bigint[]) AS u(id, s) WHERE o.id = u.id`,
      [rows.map((r) => r.id), firsts],
    );
    return { published: rows.length, messages: acks.length, standby: false };
  });
}

/** Relays until the outbox has nothing unpublished (tests, the chaos check's drain). */
export async function relayAll(batchSize = 500): Promise<number> {
  let total = 0;
  for (;;) {
    const r = await relayOnce({ batchSize });
    total += r.published;
    if (r.standby || r.published < batchSize) return total;
  }
}

/**
 * Published outbox rows older than the retention (OUTBOX_RETENTION_HOURS, default 7 days) are
 * deleted in slices; the stream keeps its own retention (EVENTS_STREAM_MAX_AGE_HOURS).
 * Unpublished rows are never pruned. Consumer receipts older than the same period go too.
 */
export async function pruneOutbox(opts: { retentionHours?: number; slice?: number } = {}): Promise<{ outbox: number; receipts: number }> {
  const hours = opts.retentionHours ?? Number.parseInt(process.env.OUTBOX_RETENTION_HOURS ?? '168', 10);
  const slice = opts.slice ?? 5000;
  const pool = getPool();
  let outbox = 0;
  let receipts = 0;
  for (;;) {
    const r = await pool.query(
      `DELETE FROM outbox_events WHERE id IN (
         SELECT id FROM outbox_events WHERE published_at IS NOT NULL AND published_at < now() - make_interval(hours => $1) LIMIT $2)`,
      [hours, slice],
    );
    outbox += r.rowCount ?? 0;
    if ((r.rowCount ?? 0) < slice) break;
  }
  for (;;) {
    const r = await pool.query(
      `DELETE FROM event_receipts WHERE ctid IN (
         SELECT ctid FROM event_receipts WHERE processed_at < now() - make_interval(hours => $1) LIMIT $2)`,
      [hours, slice],
    );
    receipts += r.rowCount ?? 0;
    if ((r.rowCount ?? 0) < slice) break;
  }
  // The dashboard's throughput read model needs the last hour; a day is kept.
  await pool.query(`DELETE FROM event_throughput WHERE bucket < now() - interval '1 day'`);
  return { outbox, receipts };
}
