import type { Snapshot } from './index';

/** Prometheus text exposition (format 0.0.4) of a snapshot: the same figures as the dashboard. */
export function toPrometheus(s: Snapshot): string {
  const out: string[] = [];
  const esc = (v: string) => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
  const metric = (name: string, type: 'gauge' | 'counter', help: string, samples: Array<[Record<string, string>, number | null]>) => {
    out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    for (const [labels, value] of samples) {
      if (value === null || !Number.isFinite(value)) continue;
      const l = Object.entries(labels);
      out.push(`${name}${l.length ? `{${l.map(([k, v]) => `${k}="${esc(v)}"`).join(',')}}` : ''} ${value}`);
    }
  };
  const q = (v: number | null) => (v === null ? null : v / 1000);

  metric('banking_up', 'gauge', 'Connectivity of a dependency (1 up, 0 down).', [
    [{ component: 'database' }, s.database.connected ? 1 : 0],
    [{ component: 'temporal' }, s.temporal.connected ? 1 : 0],
  ]);
  metric('banking_process_uptime_seconds', 'gauge', 'Seconds since this process started.', [[{}, s.uptime_seconds]]);
  metric('banking_events_total', 'counter', 'Events written to the outbox, by domain and type.', s.domains.flatMap((d) => Object.entries(d.by_type).map(([type, n]) => [{ domain: d.domain, type }, n] as [Record<string, string>, number])));
  metric('banking_events_pending', 'gauge', 'Unpublished outbox events, by domain.', s.domains.map((d) => [{ domain: d.domain }, d.events_pending]));
  metric('banking_events_per_second', 'gauge', 'Events written per second over the last 60 s, by domain.', [
    ...s.domains.map((d): [Record<string, string>, number] => [{ domain: d.domain }, d.events_per_second]),
    [{ domain: 'all' }, s.totals.events_per_second],
  ]);
  metric('banking_events_published_per_second', 'gauge', 'Events published per second over the last 60 s, by domain.', [
    ...s.domains.map((d): [Record<string, string>, number] => [{ domain: d.domain }, d.published_per_second]),
    [{ domain: 'all' }, s.totals.published_per_second],
  ]);
  metric('banking_event_processing_latency_seconds', 'gauge', 'occurred_at to published_at of events published in the last 60 s.', [
    ...s.domains.flatMap((d): Array<[Record<string, string>, number | null]> => [
      [{ domain: d.domain, quantile: '0.5' }, q(d.processing_latency.p50_ms)],
      [{ domain: d.domain, quantile: '0.99' }, q(d.processing_latency.p99_ms)],
    ]),
    [{ domain: 'all', quantile: '0.5' }, q(s.totals.processing_latency.p50_ms)],
    [{ domain: 'all', quantile: '0.99' }, q(s.totals.processing_latency.p99_ms)],
  ]);
  metric('banking_webhook_deliveries', 'gauge', 'Webhook deliveries by status.', Object.entries(s.deliveries.by_status).map(([status, n]) => [{ status }, n]));
  metric('banking_webhook_delivery_attempts_last_hour', 'gauge', 'Delivery attempts in the last hour, by result.', [
    [{ result: 'failed' }, s.deliveries.failed_attempts_last_hour],
    [{ result: 'in_flight' }, s.deliveries.in_flight_attempts],
    [{ result: 'succeeded' }, s.deliveries.attempts_last_hour - s.deliveries.failed_attempts_last_hour - s.deliveries.in_flight_attempts],
  ]);
  metric('banking_webhook_delivery_attempt_error_rate', 'gauge', 'Failed share of finished attempts in the last hour.', [[{}, s.deliveries.attempt_error_rate_last_hour]]);
  metric('banking_webhook_delivery_latency_seconds', 'gauge', 'Event occurred_at to successful delivery, last 60 s.', [
    [{ quantile: '0.5' }, q(s.deliveries.delivery_latency_last_60s.p50_ms)],
    [{ quantile: '0.99' }, q(s.deliveries.delivery_latency_last_60s.p99_ms)],
  ]);
  metric('banking_webhooks', 'gauge', 'Webhook endpoints by state.', [
    [{ state: 'active' }, s.deliveries.webhooks_active],
    [{ state: 'disabled' }, s.deliveries.webhooks_disabled],
  ]);
  metric('banking_consumer_up', 'gauge', 'Consumer running (1) or not (0).', s.consumers.map((c) => [{ consumer: c.name }, c.state === 'running' || c.state === 'idle' ? 1 : 0]));
  metric('banking_consumer_pending', 'gauge', 'Items waiting for a consumer.', s.consumers.map((c) => [{ consumer: c.name }, c.pending]));
  metric('banking_consumer_lag_seconds', 'gauge', 'Age of the oldest item waiting for a consumer.', s.consumers.map((c) => [{ consumer: c.name }, c.lag_seconds]));
  metric('banking_consumer_errors_total', 'counter', 'Errors of a consumer (dispatcher runs; failed delivery attempts in the last hour).', s.consumers.map((c) => [{ consumer: c.name }, c.errors]));
  metric('banking_process_memory_bytes', 'gauge', 'Memory of this process.', [
    [{ kind: 'rss' }, s.memory.rss],
    [{ kind: 'heap_used' }, s.memory.heapUsed],
    [{ kind: 'heap_total' }, s.memory.heapTotal],
    [{ kind: 'external' }, s.memory.external],
  ]);
  return `${out.join('\n')}\n`;
}
