import { getPool } from '../db/pool';
import { DISPATCHER_NAME } from '../events/dispatcher';
import { EVENT_DOMAINS, eventDomain } from '../events/catalog';
import { LATENCY_BOUNDS_MS } from '../events/projector';
import { parseSubject, streamSettings } from '../events/stream';
import { pingTemporal } from '../temporal/client';
import { collectBrokerStatus, type BrokerStatus } from './broker';

/**
 * Measured figures of the event stream, read on each call so every API process reports the same
 * numbers: the broker's (stream, consumers, memory: ./broker.ts), the relay's backlog and
 * heartbeat (the outbox rows not yet published, through their partial index), the dashboard
 * projector's throughput read model (event_throughput), and the webhook deliveries.
 * Nothing here is a constant.
 */

const PROCESS_STARTED_AT = new Date(Date.now() - Math.round(process.uptime() * 1000));
const WINDOW_SECONDS = 60;

export interface Latency {
  count: number;
  p50_ms: number | null;
  p99_ms: number | null;
}

export interface DomainStats {
  domain: string;
  events_total: number;
  events_pending: number;
  events_last_60s: number;
  published_last_60s: number;
  events_per_second: number;
  published_per_second: number;
  processing_latency: Latency;
  oldest_pending_at: string | null;
  delivery_attempts_last_hour: number;
  delivery_errors_last_hour: number;
  by_type: Record<string, number>;
}

export interface ConsumerState {
  name: string;
  kind: 'outbox_relay' | 'stream_consumer' | 'webhook_deliveries';
  state: 'running' | 'stalled' | 'never_run' | 'idle';
  /** Stream consumers: delivered and unacknowledged, redelivered, and stream messages after the ack floor. */
  ack_pending?: number;
  redelivered?: number;
  lag_messages?: number;
  last_run_at: string | null;
  last_success_at: string | null;
  last_error: string | null;
  last_error_at: string | null;
  runs: number;
  errors: number;
  processed_total: number;
  pending: number;
  lag_seconds: number;
  oldest_pending_at: string | null;
}

export interface Snapshot {
  generated_at: string;
  window_seconds: number;
  uptime_seconds: number;
  process_started_at: string;
  database: { connected: boolean; latency_ms: number | null; error: string | null };
  temporal: { connected: boolean; latency_ms: number | null; error: string | null };
  broker: BrokerStatus;
  totals: {
    events_total: number;
    events_pending: number;
    events_last_60s: number;
    published_last_60s: number;
    events_per_second: number;
    published_per_second: number;
    processing_latency: Latency;
  };
  domains: DomainStats[];
  deliveries: {
    by_status: Record<string, number>;
    attempts_last_hour: number;
    failed_attempts_last_hour: number;
    in_flight_attempts: number;
    attempt_error_rate_last_hour: number | null;
    delivery_failure_rate: number | null;
    delivery_latency_last_60s: Latency;
    webhooks_active: number;
    webhooks_disabled: number;
  };
  consumers: ConsumerState[];
  memory: NodeJS.MemoryUsage;
}

const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));
const ms = (v: unknown): number | null => (v === null || v === undefined ? null : Math.round(Number(v) * 100) / 100);
const iso = (d: Date | null | undefined): string | null => (d ? d.toISOString() : null);
const rate = (n: number) => Math.round((n / WINDOW_SECONDS) * 1000) / 1000;

async function timed<T>(fn: () => Promise<T>): Promise<{ connected: boolean; latency_ms: number | null; error: string | null }> {
  const t0 = process.hrtime.bigint();
  try {
    await fn();
    return { connected: true, latency_ms: Math.round(Number(process.hrtime.bigint() - t0) / 1e4) / 100, error: null };
  } catch (e) {
    return { connected: false, latency_ms: null, error: (e as Error).message };
  }
}

/** p50 and p99 from the projector's histogram: the bucket's upper bound, capped at the maximum seen. */
function percentiles(hist: number[], max: number): Latency {
  const count = hist.reduce((a, b) => a + b, 0);
  if (count === 0) return { count: 0, p50_ms: null, p99_ms: null };
  const at = (q: number) => {
    const rank = Math.ceil(q * count);
    let seen = 0;
    for (let i = 0; i < hist.length; i++) {
      seen += hist[i];
      if (seen >= rank) return Math.min(i < LATENCY_BOUNDS_MS.length ? LATENCY_BOUNDS_MS[i] : max, max);
    }
    return max;
  };
  return { count, p50_ms: at(0.5), p99_ms: at(0.99) };
}

const addHist = (a: number[], b: number[]) => a.map((x, i) => x + (b[i] ?? 0));

export async function collectSnapshot(opts: { temporal?: boolean } = {}): Promise<Snapshot> {
  const pool = getPool();
  const database = await timed(() => pool.query('SELECT 1'));
  const temporalCheck = opts.temporal === false ? Promise.resolve({ connected: false, latency_ms: null, error: 'not checked' }) : timed(() => pingTemporal(1500));
  const brokerCheck = collectBrokerStatus();
  if (!database.connected) {
    return emptySnapshot(database, await temporalCheck, await brokerCheck);
  }
  const [backlog, projected, attempts, deliveries, deliveryLatency, webhooks, relay, openDeliveries, temporal, broker] = await Promise.all([
    // The relay's backlog, each event of a row counted (platform_events): the partial index holds only unpublished rows.
    pool.query<{ type: string; pending: string; last_60s: string; oldest_pending: Date | null }>(
      `SELECT type, count(*) AS pending, count(*) FILTER (WHERE occurred_at > now() - interval '60 seconds') AS last_60s, min(occurred_at) AS oldest_pending
         FROM platform_events WHERE published_at IS NULL GROUP BY type`,
    ),
    // The projector's read model: the window's 10-second buckets (histograms added up below).
    pool.query<{ type: string; events: string; max: number; hist: number[] }>(
      `SELECT type, events, latency_ms_max AS max, latency_histogram AS hist FROM event_throughput WHERE bucket > now() - interval '${WINDOW_SECONDS} seconds'`,
    ),
    pool.query<{ domain: string; total: string; failed: string; in_flight: string }>(
      `SELECT split_part(d.event_type, '.', 1) AS domain, count(*) AS total,
              count(*) FILTER (WHERE a.succeeded = false) AS failed,
              count(*) FILTER (WHERE a.succeeded IS NULL) AS in_flight
       FROM webhook_delivery_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
       WHERE a.created_at > now() - interval '1 hour'
       GROUP BY 1`,
    ),
    pool.query<{ status: string; n: string }>(`SELECT status, count(*) AS n FROM webhook_deliveries GROUP BY status`),
    pool.query<{ n: string; p50: number | null; p99: number | null }>(
      `SELECT count(*) AS n,
              percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM completed_at - event_occurred_at) * 1000) AS p50,
              percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM completed_at - event_occurred_at) * 1000) AS p99
       FROM webhook_deliveries WHERE status = 'succeeded' AND completed_at > now() - interval '60 seconds'`,
    ),
    pool.query<{ active: string; disabled: string }>(
      `SELECT count(*) FILTER (WHERE active) AS active, count(*) FILTER (WHERE disabled_at IS NOT NULL) AS disabled FROM webhooks`,
    ),
    pool.query<{
      last_run_at: Date | null;
      last_success_at: Date | null;
      last_error: string | null;
      last_error_at: Date | null;
      runs: string;
      errors: string;
      events_processed: string;
      interval_ms: number | null;
      age_seconds: number | null;
    }>(`SELECT *, extract(epoch FROM now() - last_run_at) AS age_seconds FROM event_consumers WHERE name = $1`, [DISPATCHER_NAME]),
    pool.query<{ pending: string; retrying: string; oldest: Date | null; lag: number | null; completed: string }>(
      `SELECT count(*) FILTER (WHERE status = 'pending') AS pending,
              count(*) FILTER (WHERE status = 'retrying') AS retrying,
              min(created_at) FILTER (WHERE status = 'pending') AS oldest,
              extract(epoch FROM now() - min(created_at) FILTER (WHERE status = 'pending')) AS lag,
              (SELECT count(*) FROM webhook_deliveries WHERE status IN ('succeeded', 'failed', 'cancelled')) AS completed
       FROM webhook_deliveries WHERE status IN ('pending', 'retrying')`,
    ),
    temporalCheck,
    brokerCheck,
  ]);

  // Totals per type: what the stream holds (its own retention), by subject.
  const settings = streamSettings();
  const streamTotals = new Map<string, number>();
  for (const [subject, n] of Object.entries(broker.stream?.by_subject ?? {})) {
    const parsed = parseSubject(settings, subject);
    if (parsed) streamTotals.set(parsed.type, (streamTotals.get(parsed.type) ?? 0) + n);
  }
  const backlogBy = new Map(backlog.rows.map((r) => [r.type, r]));
  const projectedBy = new Map<string, { events: number; max: number; hist: number[] }>();
  for (const r of projected.rows) {
    const prev = projectedBy.get(r.type);
    const hist = (r.hist ?? []).map(Number);
    projectedBy.set(r.type, prev ? { events: prev.events + num(r.events), max: Math.max(prev.max, Number(r.max)), hist: addHist(prev.hist, hist) } : { events: num(r.events), max: Number(r.max), hist });
  }
  const types = [...new Set([...streamTotals.keys(), ...backlogBy.keys(), ...projectedBy.keys()])];
  const attemptsBy = new Map(attempts.rows.map((r) => [r.domain, r]));
  const domainNames = [...new Set([...EVENT_DOMAINS, ...types.map(eventDomain)])];
  const emptyHist = () => new Array<number>(LATENCY_BOUNDS_MS.length + 1).fill(0);
  let allHist = emptyHist();
  let allMax = 0;
  const domains: DomainStats[] = domainNames.map((domain) => {
    const mine = types.filter((t) => eventDomain(t) === domain);
    let pending = 0;
    let recentPending = 0;
    let published = 0;
    let max = 0;
    let hist = emptyHist();
    let oldest: Date | null = null;
    for (const t of mine) {
      const b = backlogBy.get(t);
      pending += num(b?.pending);
      recentPending += num(b?.last_60s);
      if (b?.oldest_pending && (!oldest || b.oldest_pending < oldest)) oldest = b.oldest_pending;
      const p = projectedBy.get(t);
      if (p) {
        published += p.events;
        max = Math.max(max, p.max);
        hist = addHist(hist, p.hist);
      }
    }
    allHist = addHist(allHist, hist);
    allMax = Math.max(allMax, max);
    const a = attemptsBy.get(domain);
    return {
      domain,
      events_total: mine.reduce((acc, t) => acc + (streamTotals.get(t) ?? 0) + num(backlogBy.get(t)?.pending), 0),
      events_pending: pending,
      events_last_60s: published + recentPending,
      published_last_60s: published,
      events_per_second: rate(published + recentPending),
      published_per_second: rate(published),
      processing_latency: percentiles(hist, max),
      oldest_pending_at: iso(oldest),
      delivery_attempts_last_hour: num(a?.total),
      delivery_errors_last_hour: num(a?.failed),
      by_type: Object.fromEntries(mine.map((t) => [t, (streamTotals.get(t) ?? 0) + num(backlogBy.get(t)?.pending)] as [string, number]).sort()),
    };
  });
  const total = (k: 'events_total' | 'events_pending' | 'events_last_60s' | 'published_last_60s') => domains.reduce((acc, d) => acc + d[k], 0);

  const byStatus: Record<string, number> = { pending: 0, retrying: 0, succeeded: 0, failed: 0, cancelled: 0 };
  for (const r of deliveries.rows) byStatus[r.status] = num(r.n);
  const attemptsTotal = attempts.rows.reduce((acc, r) => acc + num(r.total), 0);
  const attemptsFailed = attempts.rows.reduce((acc, r) => acc + num(r.failed), 0);
  const inFlight = attempts.rows.reduce((acc, r) => acc + num(r.in_flight), 0);
  const finished = byStatus.succeeded + byStatus.failed;

  const c = relay.rows[0];
  const intervalMs = c?.interval_ms ?? 500;
  const staleAfter = Math.max(10, (3 * intervalMs) / 1000);
  const outboxOldest = domains
    .map((d) => d.oldest_pending_at)
    .filter((x): x is string => x !== null)
    .sort()[0];
  const eventsPending = total('events_pending');
  const relayState: ConsumerState['state'] = !c?.last_run_at
    ? 'never_run'
    : num(c.age_seconds) <= staleAfter
      ? 'running'
      : eventsPending > 0
        ? 'stalled'
        : 'idle';
  const od = openDeliveries.rows[0];
  const consumers: ConsumerState[] = [
    {
      name: DISPATCHER_NAME,
      kind: 'outbox_relay',
      state: relayState,
      last_run_at: iso(c?.last_run_at),
      last_success_at: iso(c?.last_success_at),
      last_error: c?.last_error ?? null,
      last_error_at: iso(c?.last_error_at),
      runs: num(c?.runs),
      errors: num(c?.errors),
      processed_total: num(c?.events_processed),
      pending: eventsPending,
      lag_seconds: outboxOldest ? Math.max(0, (Date.now() - new Date(outboxOldest).getTime()) / 1000) : 0,
      oldest_pending_at: outboxOldest ?? null,
    },
    ...broker.consumers.map(
      (b): ConsumerState => ({
        name: b.name,
        kind: 'stream_consumer',
        state: b.state,
        last_run_at: b.last_active_at,
        last_success_at: null,
        last_error: null,
        last_error_at: null,
        runs: 0,
        errors: b.redelivered,
        processed_total: b.ack_floor_stream_seq,
        pending: b.pending,
        ack_pending: b.ack_pending,
        redelivered: b.redelivered,
        lag_messages: b.lag_messages,
        lag_seconds: b.lag_seconds,
        oldest_pending_at: b.oldest_pending_at,
      }),
    ),
    {
      name: 'webhook-deliveries',
      kind: 'webhook_deliveries',
      state: num(od.pending) + num(od.retrying) > 0 ? 'running' : 'idle',
      last_run_at: null,
      last_success_at: null,
      last_error: null,
      last_error_at: null,
      runs: attemptsTotal,
      errors: attemptsFailed,
      processed_total: num(od.completed),
      pending: num(od.pending) + num(od.retrying),
      lag_seconds: od.lag === null ? 0 : Math.max(0, Number(od.lag)),
      oldest_pending_at: iso(od.oldest),
    },
  ];

  return {
    generated_at: new Date().toISOString(),
    window_seconds: WINDOW_SECONDS,
    uptime_seconds: Math.round(process.uptime()),
    process_started_at: PROCESS_STARTED_AT.toISOString(),
    database,
    temporal,
    broker,
    totals: {
      events_total: total('events_total'),
      events_pending: eventsPending,
      events_last_60s: total('events_last_60s'),
      published_last_60s: total('published_last_60s'),
      events_per_second: rate(total('events_last_60s')),
      published_per_second: rate(total('published_last_60s')),
      processing_latency: percentiles(allHist, allMax),
    },
    domains,
    deliveries: {
      by_status: byStatus,
      attempts_last_hour: attemptsTotal,
      failed_attempts_last_hour: attemptsFailed,
      in_flight_attempts: inFlight,
      attempt_error_rate_last_hour: attemptsTotal - inFlight > 0 ? Math.round((attemptsFailed / (attemptsTotal - inFlight)) * 10000) / 10000 : null,
      delivery_failure_rate: finished > 0 ? Math.round((byStatus.failed / finished) * 10000) / 10000 : null,
      delivery_latency_last_60s: {
        count: num(deliveryLatency.rows[0].n),
        p50_ms: ms(deliveryLatency.rows[0].p50),
        p99_ms: ms(deliveryLatency.rows[0].p99),
      },
      webhooks_active: num(webhooks.rows[0].active),
      webhooks_disabled: num(webhooks.rows[0].disabled),
    },
    consumers,
    memory: process.memoryUsage(),
  };
}

/** With the database down only the process figures and the connectivity checks are known. */
function emptySnapshot(database: Snapshot['database'], temporal: Snapshot['temporal'], broker: BrokerStatus): Snapshot {
  const none: Latency = { count: 0, p50_ms: null, p99_ms: null };
  return {
    generated_at: new Date().toISOString(),
    window_seconds: WINDOW_SECONDS,
    uptime_seconds: Math.round(process.uptime()),
    process_started_at: PROCESS_STARTED_AT.toISOString(),
    database,
    temporal,
    broker,
    totals: { events_total: 0, events_pending: 0, events_last_60s: 0, published_last_60s: 0, events_per_second: 0, published_per_second: 0, processing_latency: none },
    domains: [],
    deliveries: {
      by_status: {},
      attempts_last_hour: 0,
      failed_attempts_last_hour: 0,
      in_flight_attempts: 0,
      attempt_error_rate_last_hour: null,
      delivery_failure_rate: null,
      delivery_latency_last_60s: none,
      webhooks_active: 0,
      webhooks_disabled: 0,
    },
    consumers: [],
    memory: process.memoryUsage(),
  };
}
