import type { FastifyInstance } from 'fastify';
import { collectSnapshot, type Snapshot } from '../../../domain/observability';
import { envelope, errorResponses } from '../../schemas';
import { presentDomainHealth, presentEventThroughput, presentMetrics, presentProjectorLag, presentStreamStatus } from '../../operations/live-dashboard/presenters';
import { domainHealthData, eventThroughputData, metricsData, projectorLagData, streamStatusData, TAGS } from '../../operations/live-dashboard/schemas';

/**
 * The event-stream dashboard: measured figures of the outbox, its dispatcher and webhook
 * deliveries, across all tenants, so operators only (config admin).
 */
export default async function liveDashboardRoutes(app: FastifyInstance) {
  const route = (path: string, summary: string, description: string, data: Record<string, unknown>, present: (s: Snapshot) => unknown) =>
    app.get(
      `/api/v1/live-dashboard/${path}`,
      { config: { admin: true }, schema: { tags: TAGS, summary, description, response: { 200: envelope(data), ...errorResponses } } },
      async () => {
        const s = await collectSnapshot({ temporal: path === 'stream-status' || path === 'domain-health' });
        return { data: present(s), meta: { generated_at: s.generated_at, window_seconds: s.window_seconds } };
      },
    );

  route(
    'metrics',
    'Event counts, processing and error rates, uptime (platform operators only)',
    'Counts per domain (the event type prefix) and type from the outbox; rates over the last 60 s; webhook delivery error rates over the last hour.',
    metricsData,
    presentMetrics,
  );

  route(
    'domain-health',
    'Per-domain event store connectivity, projector status, recent error counts (platform operators only)',
    'The event store is the outbox table (a real query measures it); the projector of every domain is the outbox dispatcher; errors are failed delivery attempts of the last hour.',
    domainHealthData,
    presentDomainHealth,
  );

  route(
    'event-throughput',
    'Events per second and processing latency per domain and in total (platform operators only)',
    'events_per_second counts events written in the last 60 s; published_per_second those the dispatcher published; latency is occurred_at to published_at (p50/p99) of events published in the last 60 s.',
    eventThroughputData,
    presentEventThroughput,
  );

  route(
    'stream-status',
    'Stream connectivity, consumer groups, pending counts, memory usage (platform operators only)',
    'Connectivity of the database (the stream) and Temporal (the delivery engine); per consumer its state, pending count and lag; memory of this process.',
    streamStatusData,
    presentStreamStatus,
  );

  route(
    'projector-lag',
    'Lag of each read-model projector (platform operators only)',
    'Per consumer: age of the oldest item it has not processed (0 when caught up) and how many wait.',
    projectorLagData,
    presentProjectorLag,
  );
}
