/**
 * Cache notices: how a revoked, blocked or changed credential stops working on every process at
 * once (docs/security.md). API keys, TPPs, partner settings and x402 prices are cached per process
 * so the hot path costs no query. The process that changes one evicts its own entries and, after
 * its transaction committed, publishes a notice; every API process listens and evicts what the
 * notice names.
 *
 * Core NATS, not JetStream: nothing is worth keeping, and a notice missed while disconnected is
 * covered by dropping every cache on (re)connect. The subject is `_control.<prefix>.credentials`,
 * outside the event stream's `<prefix>.>`, which would otherwise store the notices and hand them to
 * the durable consumers as events.
 *
 * A process serves cached entries only while it listens (cachesTrusted); otherwise every lookup
 * reads the database. An entry is also bound by its cache's time to live (5 s), the backstop should
 * a notice be lost without a disconnect (a publisher that could not reach NATS, a silent link until
 * its pings time out).
 */
import { connect, type Msg, type NatsConnection } from '@nats-io/transport-node';
import { randomBytes } from 'node:crypto';
import { INSTANCE_ID, streamSettings } from './stream';

export type CacheNotice =
  /** One key (keyId), a user's keys (userId: their principal changed, e.g. operator rights), or all. */
  | { cache: 'api_keys'; keyId?: string; userId?: string }
  | { cache: 'tpps'; tppId?: string }
  | { cache: 'partners'; partnerId?: string }
  | { cache: 'x402'; environment?: string }
  | { cache: 'all' };

export type CacheName = Exclude<CacheNotice['cache'], 'all'>;
type Evict = (notice: CacheNotice | null) => void;

/** This process's sender id: random, so two processes never take each other's notices for their own. */
const SELF = `${INSTANCE_ID}-${randomBytes(4).toString('hex')}`;
const PUBLISH_TIMEOUT_MS = 2_000;
const caches = new Map<CacheName, Evict>();

/** A cache of this process that notices evict from (`null`: drop it whole). */
export function registerCache(name: CacheName, evict: Evict): void {
  caches.set(name, evict);
}

// ---- What the caches ask on their hot path: two variable reads, no I/O.

let trusted = false;
/** Bumped by every eviction and every change of the link, so a lookup that raced one is not stored. */
let epoch = 0;

/** Whether cached entries may be served: only while this process hears every notice. */
export function cachesTrusted(): boolean {
  return trusted;
}

/** Taken before reading what will be cached; canStore(taken) afterwards. */
export function cacheEpoch(): number {
  return epoch;
}

/** Whether a lookup begun at `taken` may be stored: listening, and nothing was evicted meanwhile. */
export function canStore(taken: number): boolean {
  return trusted && taken === epoch;
}

function evict(notice: CacheNotice | null): void {
  epoch++;
  for (const [name, fn] of caches) {
    if (!notice || notice.cache === 'all') fn(null);
    else if (notice.cache === name) fn(notice);
  }
}

// ---- Publishing.

function subject(): string {
  return `_control.${streamSettings().prefix}.credentials`;
}

/**
 * A cached credential changed (call after the change committed, never inside its transaction): this
 * process's entries go at once, then every other process is told. False when the notice could not
 * be published; the change is still committed, and other processes see it within the TTL.
 */
export async function credentialsChanged(notice: CacheNotice): Promise<boolean> {
  evict(notice);
  return publishCacheNotice(notice);
}

/** Publishes a notice (tests pass another process's sender id). Never throws. */
export async function publishCacheNotice(notice: CacheNotice, sender = SELF): Promise<boolean> {
  const body = JSON.stringify({ ...notice, sender });
  try {
    const nc = listener?.nc;
    if (nc && !nc.isClosed()) {
      // Buffered while reconnecting and sent on reconnect; the flush waits for the server's PONG.
      nc.publish(subject(), body);
      await within(nc.flush(), PUBLISH_TIMEOUT_MS);
      return true;
    }
    // A process that does not listen (the operator CLI): a connection for this notice alone.
    const once = await connect({ servers: streamSettings().url.split(','), name: `banking-platform ${INSTANCE_ID} cache notice`, timeout: PUBLISH_TIMEOUT_MS, reconnect: false });
    try {
      once.publish(subject(), body);
      await within(once.flush(), PUBLISH_TIMEOUT_MS);
    } finally {
      await once.close().catch(() => undefined);
    }
    return true;
  } catch {
    return false;
  }
}

function within<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer from NATS within ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

// ---- Listening: one connection of its own per process, shared by every app built in it.

interface Listener {
  users: number;
  stopped: boolean;
  nc: NatsConnection | null;
  run: Promise<void>;
}

let listener: Listener | null = null;
/** Bumped by each disconnect: a link-up whose flush straddled one does not trust the caches. */
let link = 0;
const waiters = { listening: [] as Array<() => void>, notice: [] as Array<(n: CacheNotice) => void> };

function untrust(from?: Listener): void {
  if (from && from !== listener) return; // a stopped listener's connection winding down
  link++;
  trusted = false;
  epoch++;
}

/** Subscribed at the server (the flush's PONG follows our SUB): drop what was cached unheard, then trust. */
async function linkUp(l: Listener, nc: NatsConnection): Promise<void> {
  const mine = link;
  await nc.flush();
  if (mine !== link || nc.isClosed() || l !== listener) return;
  evict(null);
  trusted = true;
  for (const w of waiters.listening.splice(0)) w();
}

function receive(msg: Msg): void {
  let n: (CacheNotice & { sender?: unknown }) | null = null;
  try {
    n = msg.json<CacheNotice & { sender?: unknown }>();
  } catch {
    // unreadable: handled as "everything" below
  }
  if (n?.sender === SELF) return; // evicted locally before it was published
  const known = n && (n.cache === 'all' || caches.has(n.cache as CacheName)) ? n : null;
  evict(known);
  const applied: CacheNotice = known ?? { cache: 'all' };
  for (const w of waiters.notice.splice(0)) w(applied);
}

async function listen(l: Listener): Promise<void> {
  let backoff = 250;
  while (!l.stopped) {
    let nc: NatsConnection;
    try {
      nc = await connect({
        servers: streamSettings().url.split(','),
        name: `banking-platform ${INSTANCE_ID} cache notices`,
        maxReconnectAttempts: -1,
        reconnectTimeWait: 250,
        timeout: 5_000,
        // A link that dies silently is found within ~30 s (then caching stops); the TTL covers the gap.
        pingInterval: 10_000,
        maxPingOut: 2,
      });
    } catch {
      await new Promise((r) => setTimeout(r, backoff).unref());
      backoff = Math.min(backoff * 2, 5_000);
      continue;
    }
    backoff = 250;
    if (l.stopped) {
      await nc.close().catch(() => undefined);
      return;
    }
    l.nc = nc;
    try {
      nc.subscribe(subject(), { callback: (_err, msg) => receive(msg) });
      void (async () => {
        for await (const s of nc.status()) {
          if (s.type === 'disconnect' || s.type === 'staleConnection' || s.type === 'forceReconnect') untrust(l);
          else if (s.type === 'reconnect') void linkUp(l, nc).catch(() => undefined);
        }
      })();
      await linkUp(l, nc).catch(() => undefined);
      await nc.closed();
    } catch {
      await nc.close().catch(() => undefined);
    } finally {
      untrust(l);
      l.nc = null;
    }
  }
}

/**
 * Starts listening for notices (an API at start-up; once per process, counted per caller); the
 * returned stop ends it with the last caller. Caches are used only once the subscription stands.
 */
export function startCacheNotices(): { stop(): Promise<void> } {
  if (!listener || listener.stopped) {
    const l: Listener = { users: 0, stopped: false, nc: null, run: Promise.resolve() };
    l.run = listen(l);
    listener = l;
  }
  const l = listener;
  l.users++;
  let stopped = false;
  return {
    async stop() {
      if (stopped) return;
      stopped = true;
      if (--l.users > 0) return;
      l.stopped = true;
      if (listener === l) listener = null;
      untrust();
      await l.nc?.close().catch(() => undefined);
      // A connection attempt under way (NATS unreachable) is not waited for: it closes itself.
      await Promise.race([l.run, new Promise((r) => setTimeout(r, 1_000).unref())]);
    },
  };
}

// ---- For tests: deterministic waits instead of sleeps.

/** Resolves once this process listens (at once if it does). */
export function cacheNoticesListening(): Promise<void> {
  return trusted ? Promise.resolve() : new Promise((r) => waiters.listening.push(r));
}

/** Resolves with the next notice from another process, once it has been applied. */
export function nextCacheNotice(): Promise<CacheNotice> {
  return new Promise((r) => waiters.notice.push(r));
}

/** Drops the link to NATS and resolves once it is back and the caches were dropped. */
export async function reconnectCacheNotices(): Promise<void> {
  const nc = listener?.nc;
  if (!nc) throw new Error('not listening for cache notices');
  const back = new Promise<void>((r) => waiters.listening.push(r));
  untrust();
  await nc.reconnect();
  await back;
}
