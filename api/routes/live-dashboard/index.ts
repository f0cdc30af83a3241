import type { FastifyInstance } from 'fastify';
import { collectSnapshot, type Snapshot } from '../../../domain/observability';
import { envelope, errorResponses } from '../../schemas';

const TAGS = ['Live dashboard'];
const open = (properties: Record<string, unknown>) => ({ type: 'object', properties, additionalProperties: true });
const anyObject = { type: 'object', additionalProperties: true };
const latency = open({ count: { type: 'integer' }, p50_ms: { type: ['number', 'null'] }, p99_ms: { type: ['number', 'null'] } });
const connectivity = open({ connected: { type: 'boolean' }, latency_ms: { type: ['number', 'null'] }, error: { type: ['string', 'null'] } });
const consumer = open({
  name: { type: 'string' },
  kind: { type: 'string' },
  state: { type: 'string', enum: ['running', 'stalled', 'never_run', 'idle'] },
  pending: { type: 'integer' },
  lag_seconds: { type: 'number' },
  oldest_pending_at: { type: ['string', 'null'] },
  last_run_at: { type: ['string', 'null'] },
  last_success_at: { type: ['string', 'null'] },
  last_error: { type: ['string', 'null'] },
  last_error_at: { type: ['string', 'null'] },
  runs: { type: 'integer' },
  errors: { type: 'integer' },
  processed_total: { type: 'integer' },
});

function memory(s: Snapshot) {
  return { rss_bytes: s.memory.rss, heap_used_bytes: s.memory.heapUsed, heap_total_bytes: s.memory.heapTotal, external_bytes: s.memory.external };
}

function domainStatus(s: Snapshot, d: Snapshot['domains'][number]): 'healthy' | 'degraded' | 'down' {
  if (!s.database.connected) return 'down';
  const dispatcher = s.consumers.find((c) => c.kind === 'outbox_dispatcher');
  if (d.events_pending > 0 && dispatcher?.state !== 'running') return 'degraded';
  if (d.delivery_errors_last_hour > 0 && d.delivery_errors_last_hour >= d.delivery_attempts_last_hour / 2) return 'degraded';
  return 'healthy';
}

/**
 * The event-stream dashboard: measured figures of the outbox, its dispatcher and webhook
 * deliveries, across all tenants, so operators only (config admin).
 */
export default async function liveDashboardRoutes(app: FastifyInstance) {
  const route = (path: string, summary: string, description: string, data: Record<string, unknown>, build: (s: Snapshot) => unknown) =>
    app.get(
      `/api/v1/live-dashboard/${path}`,
      { config: { admin: true }, schema: { tags: TAGS, summary, description, response: { 200: envelope(data), ...errorResponses } } },
      async () => {
        const s = await collectSnapshot({ temporal: path === 'stream-status' || path === 'domain-health' });
        return { data: build(s), meta: { generated_at: s.generated_at, window_seconds: s.window_seconds } };
      },
    );

  route(
    'metrics',
    'Event counts, processing and error rates, uptime (platform operators only)',
    'Counts per domain (the event type prefix) and type from the outbox; rates over the last 60 s; webhook delivery error rates over the last hour.',
    open({
      uptime_seconds: { type: 'integer' },
      process_started_at: { type: 'string' },
      events: open({ total: { type: 'integer' }, pending: { type: 'integer' }, last_60s: { type: 'integer' }, by_domain: anyObject, by_type: anyObject }),
      processing: open({ events_per_second: { type: 'number' }, published_per_second: { type: 'number' }, latency: latency }),
      errors: anyObject,
      deliveries: anyObject,
    }),
    (s) => ({
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
        dispatcher_errors: s.consumers.find((c) => c.kind === 'outbox_dispatcher')?.errors ?? 0,
      },
      deliveries: {
        by_status: s.deliveries.by_status,
        attempts_last_hour: s.deliveries.attempts_last_hour,
        latency_last_60s: s.deliveries.delivery_latency_last_60s,
        webhooks_active: s.deliveries.webhooks_active,
        webhooks_disabled: s.deliveries.webhooks_disabled,
      },
    }),
  );

  route(
    'domain-health',
    'Per-domain event store connectivity, projector status, recent error counts (platform operators only)',
    'The event store is the outbox table (a real query measures it); the projector of every domain is the outbox dispatcher; errors are failed delivery attempts of the last hour.',
    open({ domains: { type: 'array', items: anyObject } }),
    (s) => {
      const dispatcher = s.consumers.find((c) => c.kind === 'outbox_dispatcher');
      return {
        domains: s.domains.map((d) => ({
          domain: d.domain,
          status: domainStatus(s, d),
          event_store: s.database,
          projector: { name: dispatcher?.name ?? 'outbox-dispatcher', state: dispatcher?.state ?? 'never_run', last_run_at: dispatcher?.last_run_at ?? null, last_error: dispatcher?.last_error ?? null },
          events_pending: d.events_pending,
          oldest_pending_at: d.oldest_pending_at,
          recent_errors: { delivery_errors_last_hour: d.delivery_errors_last_hour, delivery_attempts_last_hour: d.delivery_attempts_last_hour, dispatcher_errors: dispatcher?.errors ?? 0 },
        })),
      };
    },
  );

  route(
    'event-throughput',
    'Events per second and processing latency per domain and in total (platform operators only)',
    'events_per_second counts events written in the last 60 s; published_per_second those the dispatcher published; latency is occurred_at to published_at (p50/p99) of events published in the last 60 s.',
    open({ window_seconds: { type: 'integer' }, total: anyObject, domains: { type: 'array', items: anyObject } }),
    (s) => ({
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
    }),
  );

  route(
    'stream-status',
    'Stream connectivity, consumer groups, pending counts, memory usage (platform operators only)',
    'Connectivity of the database (the stream) and Temporal (the delivery engine); per consumer its state, pending count and lag; memory of this process.',
    open({ connectivity: open({ database: connectivity, temporal: connectivity }), consumer_groups: { type: 'array', items: consumer }, pending: anyObject, memory: anyObject }),
    (s) => ({
      connectivity: { database: s.database, temporal: s.temporal },
      consumer_groups: s.consumers,
      pending: { outbox_events: s.totals.events_pending, webhook_deliveries: s.consumers.find((c) => c.kind === 'webhook_deliveries')?.pending ?? 0 },
      memory: memory(s),
    }),
  );

  route(
    'projector-lag',
    'Lag of each read-model projector (platform operators only)',
    'Per consumer: age of the oldest item it has not processed (0 when caught up) and how many wait.',
    open({ projectors: { type: 'array', items: consumer } }),
    (s) => ({ projectors: s.consumers }),
  );
}
