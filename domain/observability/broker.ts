/**
 * The event stream's figures as the broker reports them (NATS JetStream): the stream's state, the
 * JetStream account's memory and storage, the server's memory (from its monitoring endpoint when
 * NATS_MONITOR_URL is set), and each durable consumer's pending, ack-pending and redelivered
 * counts and lag. Nothing here scans a table.
 */
import { eventStream } from '../events/stream';

export interface BrokerConsumer {
  name: string;
  description: string | null;
  /** Messages not yet delivered to it. */
  pending: number;
  /** Delivered and not yet acknowledged. */
  ack_pending: number;
  redelivered: number;
  /** Pull requests waiting (a running consumer keeps one open). */
  waiting: number;
  delivered_stream_seq: number;
  ack_floor_stream_seq: number;
  /** Stream messages after its acknowledgement floor (what it still has to process). */
  lag_messages: number;
  /** Age of the oldest message it has not acknowledged (0 when caught up). */
  lag_seconds: number;
  oldest_pending_at: string | null;
  /** When it last pulled (null for a consumer no process reads). */
  last_active_at: string | null;
  state: 'running' | 'stalled' | 'idle' | 'never_run';
}

export interface BrokerStatus {
  connected: boolean;
  latency_ms: number | null;
  error: string | null;
  server: { version: string | null; name: string | null; url: string };
  stream: {
    name: string;
    subjects: string[];
    messages: number;
    bytes: number;
    first_seq: number;
    last_seq: number;
    last_at: string | null;
    consumers: number;
    storage: string;
    replicas: number;
    max_age_seconds: number;
    /** Messages per subject (`<prefix>.<environment>.<type>`) the stream holds. */
    by_subject: Record<string, number>;
  } | null;
  jetstream: { memory_bytes: number; storage_bytes: number; streams: number; consumers: number } | null;
  /** The server process's resident memory, from its monitoring endpoint (null without NATS_MONITOR_URL). */
  server_memory_bytes: number | null;
  consumers: BrokerConsumer[];
}

/** A URL without its credentials (NATS_URL may carry a user and password). */
function safeUrl(url: string): string {
  return url
    .split(',')
    .map((u) => {
      try {
        const x = new URL(u.trim());
        return `${x.protocol}//${x.host}`;
      } catch {
        return '(unparsable)';
      }
    })
    .join(',');
}

async function serverMemory(monitorUrl: string): Promise<number | null> {
  if (!monitorUrl) return null;
  try {
    const r = await fetch(new URL('/varz', monitorUrl), { signal: AbortSignal.timeout(1500) });
    if (!r.ok) return null;
    const v = (await r.json()) as { mem?: number };
    return typeof v.mem === 'number' ? v.mem : null;
  } catch {
    return null;
  }
}

export async function collectBrokerStatus(): Promise<BrokerStatus> {
  const t0 = process.hrtime.bigint();
  let url = process.env.NATS_URL || 'nats://127.0.0.1:4222';
  try {
    const h = await eventStream();
    url = h.settings.url;
    const [info, account, memory] = await Promise.all([
      h.jsm.streams.info(h.settings.stream, { subjects_filter: '>' }),
      h.jsm.getAccountInfo(),
      serverMemory(h.settings.monitorUrl),
    ]);
    const latency = Math.round(Number(process.hrtime.bigint() - t0) / 1e4) / 100;
    const consumers: BrokerConsumer[] = [];
    for await (const c of h.jsm.consumers.list(h.settings.stream)) {
      const lagMessages = Math.max(0, info.state.last_seq - c.ack_floor.stream_seq);
      let oldest: Date | null = null;
      if (lagMessages > 0) {
        // The first message after the floor that the stream still holds.
        const m = await h.jsm.streams.getMessage(h.settings.stream, { seq: Math.max(c.ack_floor.stream_seq + 1, info.state.first_seq) }).catch(() => null);
        oldest = m ? m.time : null;
      }
      const lastActive = c.delivered.last_active ? new Date(c.delivered.last_active) : null;
      const ackNone = c.config.ack_policy === 'none';
      const behind = ackNone ? c.num_pending : lagMessages;
      consumers.push({
        name: c.name,
        description: c.config.description ?? null,
        pending: c.num_pending,
        ack_pending: c.num_ack_pending,
        redelivered: c.num_redelivered,
        waiting: c.num_waiting,
        delivered_stream_seq: c.delivered.stream_seq,
        ack_floor_stream_seq: c.ack_floor.stream_seq,
        lag_messages: behind,
        lag_seconds: behind > 0 && oldest && !ackNone ? Math.max(0, (Date.now() - oldest.getTime()) / 1000) : 0,
        oldest_pending_at: behind > 0 && oldest && !ackNone ? oldest.toISOString() : null,
        last_active_at: lastActive ? lastActive.toISOString() : null,
        // Running: a pull request is open (a live process is reading); stalled: nobody reads and messages wait.
        state: c.num_waiting > 0 || c.push_bound ? 'running' : behind > 0 ? 'stalled' : lastActive ? 'idle' : 'never_run',
      });
    }
    return {
      connected: true,
      latency_ms: latency,
      error: null,
      server: { version: h.nc.info?.version ?? null, name: h.nc.info?.server_name ?? null, url: safeUrl(url) },
      stream: {
        name: info.config.name,
        subjects: info.config.subjects ?? [],
        messages: info.state.messages,
        bytes: info.state.bytes,
        first_seq: info.state.first_seq,
        last_seq: info.state.last_seq,
        last_at: info.state.last_ts && info.state.last_seq > 0 ? new Date(info.state.last_ts).toISOString() : null,
        consumers: info.state.consumer_count,
        storage: String(info.config.storage),
        replicas: info.config.num_replicas,
        max_age_seconds: Math.round(info.config.max_age / 1e9),
        by_subject: info.state.subjects ?? {},
      },
      jetstream: { memory_bytes: account.memory, storage_bytes: account.storage, streams: account.streams, consumers: account.consumers },
      server_memory_bytes: memory,
      consumers,
    };
  } catch (e) {
    return {
      connected: false,
      latency_ms: null,
      error: (e as Error).message,
      server: { version: null, name: null, url: safeUrl(url) },
      stream: null,
      jetstream: null,
      server_memory_bytes: null,
      consumers: [],
    };
  }
}
