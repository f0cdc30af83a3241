/**
 * The platform's event stream on NATS JetStream (docs/events.md): one stream of every platform
 * event, subjects `<prefix>.<environment>.<event type>` (the type's first token is its area, so
 * `platform.sandbox.transfer.>` is every transfer event of the sandbox), published by the outbox
 * relay (./relay.ts) and read by durable consumers (./consumer.ts).
 */
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager, type StreamConfig } from '@nats-io/jetstream';
import { hostname } from 'node:os';

const NANOS_PER_SECOND = 1_000_000_000;

function int(name: string, fallback: number): number {
  const v = process.env[name];
  if (v === undefined || v === '') return fallback;
  const n = Number.parseInt(v, 10);
  if (!Number.isFinite(n) || n < 0 || String(n) !== v.trim()) throw new Error(`${name} must be a non-negative integer, got "${v}"`);
  return n;
}

/** The stream's settings (read when first connecting; tests give each file a stream of its own). */
export function streamSettings() {
  const prefix = process.env.EVENTS_SUBJECT_PREFIX || 'platform';
  if (!/^[A-Za-z0-9_-]+$/.test(prefix)) throw new Error(`EVENTS_SUBJECT_PREFIX must be one subject token ([A-Za-z0-9_-]), got "${prefix}"`);
  const stream = process.env.EVENTS_STREAM || 'PLATFORM_EVENTS';
  if (!/^[A-Za-z0-9_-]+$/.test(stream)) throw new Error(`EVENTS_STREAM must be [A-Za-z0-9_-], got "${stream}"`);
  const storage = process.env.EVENTS_STREAM_STORAGE || 'file';
  if (storage !== 'file' && storage !== 'memory') throw new Error(`EVENTS_STREAM_STORAGE must be file or memory, got "${storage}"`);
  return {
    url: process.env.NATS_URL || 'nats://127.0.0.1:4222',
    monitorUrl: process.env.NATS_MONITOR_URL || '',
    stream,
    prefix,
    storage: storage as 'file' | 'memory',
    // The stream's own retention, apart from the outbox's (OUTBOX_RETENTION_HOURS).
    maxAgeHours: int('EVENTS_STREAM_MAX_AGE_HOURS', 30 * 24),
    replicas: Math.max(1, int('EVENTS_STREAM_REPLICAS', 1)),
    // Within it, a message id (the event id) published again is stored once: a relay that died
    // between publishing and marking its batch published re-publishes without duplicates.
    duplicateWindowSeconds: Math.max(1, int('EVENTS_DUPLICATE_WINDOW_SECONDS', 15 * 60)),
  };
}

export type StreamSettings = ReturnType<typeof streamSettings>;

/** `<prefix>.<environment>.<event type>`. */
export function subjectFor(s: Pick<StreamSettings, 'prefix'>, environment: string, type: string): string {
  return `${s.prefix}.${environment}.${type}`;
}

/** The event type and environment back from a subject. */
export function parseSubject(s: Pick<StreamSettings, 'prefix'>, subject: string): { environment: string; type: string } | null {
  if (!subject.startsWith(`${s.prefix}.`)) return null;
  const rest = subject.slice(s.prefix.length + 1);
  const dot = rest.indexOf('.');
  return dot < 0 ? null : { environment: rest.slice(0, dot), type: rest.slice(dot + 1) };
}

/** This process's name on the broker (and the suffix of its live-feed consumer). */
export const INSTANCE_ID = `${hostname().replace(/[^A-Za-z0-9_-]/g, '_')}-${process.pid}`;

interface Handle {
  key: string;
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  settings: StreamSettings;
}

let current: Promise<Handle> | null = null;
let currentKey = '';
/** Set when the stream went missing (a broker without persistence restarted): created again on next use. */
let streamLost = false;

async function open(settings: StreamSettings, key: string): Promise<Handle> {
  const nc = await connect({
    servers: settings.url.split(','),
    name: `banking-platform ${INSTANCE_ID}`,
    // Keep reconnecting across a broker restart: publishes fail meanwhile and the relay retries them.
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    timeout: 5_000,
    // Every publish and request would otherwise capture two stack traces up front (a RequestError and a
    // TimeoutError) for errors that almost never happen: ~10% of the worker's CPU under load (bench profile).
    noAsyncTraces: true,
  });
  const jsm = await jetstreamManager(nc);
  await ensureStream(jsm, settings);
  return { key, nc, jsm, js: jetstream(nc), settings };
}

/** Creates the stream, or brings its settings up to date. */
async function ensureStream(jsm: JetStreamManager, s: StreamSettings): Promise<void> {
  const config: Partial<StreamConfig> & { name: string } = {
    name: s.stream,
    subjects: [`${s.prefix}.>`],
    storage: s.storage as StreamConfig['storage'],
    num_replicas: s.replicas,
    max_age: s.maxAgeHours * 3600 * NANOS_PER_SECOND,
    duplicate_window: s.duplicateWindowSeconds * NANOS_PER_SECOND,
    description: 'Platform events relayed from the transactional outbox (docs/events.md)',
  };
  try {
    const info = await jsm.streams.info(s.stream);
    const c = info.config;
    if (c.max_age !== config.max_age || c.duplicate_window !== config.duplicate_window || c.num_replicas !== config.num_replicas) {
      await jsm.streams.update(s.stream, { ...c, max_age: config.max_age!, duplicate_window: config.duplicate_window!, num_replicas: config.num_replicas! });
    }
  } catch (err) {
    if (!isNotFound(err)) throw err;
    await jsm.streams.add(config);
  }
}

export function isNotFound(err: unknown): boolean {
  const e = err as { code?: unknown; api_error?: { err_code?: number }; message?: string };
  return e?.api_error?.err_code === 10059 || e?.api_error?.err_code === 10014 || e?.code === '404' || /not found/i.test(String(e?.message ?? ''));
}

/**
 * Marks the stream for re-creation (its publishes or consumers found it gone: a broker that kept it
 * in memory restarted). The connection itself reconnects on its own.
 */
export function streamMissing(): void {
  streamLost = true;
}

/** The connection, JetStream client and manager for the current settings (one per process). */
export async function eventStream(): Promise<Handle> {
  const h = await connection();
  if (streamLost) {
    streamLost = false;
    await ensureStream(h.jsm, h.settings).catch((err) => {
      streamLost = true;
      throw err;
    });
  }
  return h;
}

function connection(): Promise<Handle> {
  const settings = streamSettings();
  const key = `${settings.url}|${settings.stream}|${settings.prefix}`;
  if (!current || currentKey !== key) {
    const previous = current;
    currentKey = key;
    current = open(settings, key);
    // A failed connection is not cached: the next call tries again.
    current.catch(() => {
      if (currentKey === key) current = null;
    });
    previous?.then((h) => h.nc.close()).catch(() => undefined);
  }
  return current;
}

/** Closes this process's connection (tests between files, shutdown). */
export async function closeEventStream(): Promise<void> {
  const c = current;
  current = null;
  currentKey = '';
  if (!c) return;
  const h = await c.catch(() => null);
  if (h && !h.nc.isClosed()) await h.nc.drain().catch(() => h.nc.close());
}
