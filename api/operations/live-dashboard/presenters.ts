/** Wire shapes of the live dashboard: one view of the observability snapshot per route. */
import type { Snapshot } from '../../../domain/observability';
import { domainHealth } from '../../../domain/observability/health';

function memory(s: Snapshot) {
  return { rss_bytes: s.memory.rss, heap_used_bytes: s.memory.heapUsed, heap_total_bytes: s.memory.heapTotal, external_bytes: s.memory.external };
}

const dispatcherOf = (s: Snapshot) => s.consumers.find((c) => c.kind === 'outbox_relay');

export function presentMetrics(s: Snapshot) {
  return {
    uptime_seconds: s.uptime_seconds,
    process_started_at: s.process_started_at,
    events: {
      total: s.totals.events_total,
      pending: s.totals.events_pending,
      last_60s: s.totals.events_last_60s,
      by_domain: Object.fromEntries(s.domains.map((d) => [d.domain, d.events_total])),
      by_type: Object.fromEntries(s.domains.flatMap((d) => Object.entries(d.by_type))),
    },
    processing: { events_per_second: s.totals.events_per_second, published_per_second: s.totals.published_per_second, latency: s.totals.processing_latency },
    errors: {
      delivery_attempt_error_rate_last_hour: s.deliveries.attempt_error_rate_last_hour,
      delivery_failure_rate: s.deliveries.delivery_failure_rate,
      failed_attempts_last_hour: s.deliveries.failed_attempts_last_hour,
      dispatcher_errors: dispatcherOf(s)?.errors ?? 0,
    },
    deliveries: {
      by_status: s.deliveries.by_status,
      attempts_last_hour: s.deliveries.attempts_last_hour,
      // Started and not yet answered: counted in attempts, not yet in the error figures.
      in_flight_attempts: s.deliveries.in_flight_attempts,
      latency_last_60s: s.deliveries.delivery_latency_last_60s,
      webhooks_active: s.deliveries.webhooks_active,
      webhooks_disabled: s.deliveries.webhooks_disabled,
    },
  };
}

export function presentDomainHealth(s: Snapshot) {
  const dispatcher = dispatcherOf(s);
  return {
    domains: s.domains.map((d) => ({
      domain: d.domain,
      status: domainHealth(s, d),
      event_store: s.database,
      projector: { name: dispatcher?.name ?? 'outbox-relay', state: dispatcher?.state ?? 'never_run', last_run_at: dispatcher?.last_run_at ?? null, last_error: dispatcher?.last_error ?? null },
      events_pending: d.events_pending,
      oldest_pending_at: d.oldest_pending_at,
      recent_errors: { delivery_errors_last_hour: d.delivery_errors_last_hour, delivery_attempts_last_hour: d.delivery_attempts_last_hour, dispatcher_errors: dispatcher?.errors ?? 0 },
    })),
  };
}

export function presentEventThroughput(s: Snapshot) {
  return {
    window_seconds: s.window_seconds,
    total: {
      events_last_60s: s.totals.events_last_60s,
      published_last_60s: s.totals.published_last_60s,
      events_per_second: s.totals.events_per_second,
      published_per_second: s.totals.published_per_second,
      processing_latency: s.totals.processing_latency,
    },
    domains: s.domains.map((d) => ({
      domain: d.domain,
      events_last_60s: d.events_last_60s,
      published_last_60s: d.published_last_60s,
      events_per_second: d.events_per_second,
      published_per_second: d.published_per_second,
      processing_latency: d.processing_latency,
    })),
  };
}

export function presentStreamStatus(s: Snapshot) {
  const b = s.broker;
  const streamConsumers = b.consumers;
  return {
    connectivity: { database: s.database, temporal: s.temporal, broker: { connected: b.connected, latency_ms: b.latency_ms, error: b.error } },
    broker: { server: b.server, stream: b.stream && { ...b.stream, by_subject: undefined }, jetstream: b.jetstream },
    consumer_groups: s.consumers,
    pending: {
      outbox_events: s.totals.events_pending,
      stream_messages: streamConsumers.reduce((acc, c) => acc + c.pending, 0),
      stream_ack_pending: streamConsumers.reduce((acc, c) => acc + c.ack_pending, 0),
      webhook_deliveries: s.consumers.find((c) => c.kind === 'webhook_deliveries')?.pending ?? 0,
    },
    memory: { ...memory(s), broker_server_bytes: b.server_memory_bytes, jetstream_memory_bytes: b.jetstream?.memory_bytes ?? null, jetstream_storage_bytes: b.jetstream?.storage_bytes ?? null },
  };
}

/** The read-model projectors: the stream's durable consumers (pending, ack pending, lag from the broker) and the relay that feeds them. */
export const presentProjectorLag = (s: Snapshot) => ({ projectors: s.consumers.filter((c) => c.kind !== 'webhook_deliveries') });
