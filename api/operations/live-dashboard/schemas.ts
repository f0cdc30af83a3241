/** Wire schemas of the live dashboard (operators' view of the event stream). */
export const TAGS = ['Live dashboard'];

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
  ack_pending: { type: 'integer' },
  redelivered: { type: 'integer' },
  lag_messages: { type: 'integer' },
});

export const metricsData = open({
  uptime_seconds: { type: 'integer' },
  process_started_at: { type: 'string' },
  events: open({ total: { type: 'integer' }, pending: { type: 'integer' }, last_60s: { type: 'integer' }, by_domain: anyObject, by_type: anyObject }),
  processing: open({ events_per_second: { type: 'number' }, published_per_second: { type: 'number' }, latency: latency }),
  errors: anyObject,
  deliveries: anyObject,
});

export const domainHealthData = open({ domains: { type: 'array', items: anyObject } });

export const eventThroughputData = open({ window_seconds: { type: 'integer' }, total: anyObject, domains: { type: 'array', items: anyObject } });

export const streamStatusData = open({
  connectivity: open({ database: connectivity, temporal: connectivity, broker: connectivity }),
  broker: open({ server: anyObject, stream: { type: ['object', 'null'], additionalProperties: true }, jetstream: { type: ['object', 'null'], additionalProperties: true } }),
  consumer_groups: { type: 'array', items: consumer },
  pending: anyObject,
  memory: anyObject,
});

export const projectorLagData = open({ projectors: { type: 'array', items: consumer } });
