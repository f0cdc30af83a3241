/**
 * The dashboard projector: a stream consumer that keeps the live dashboard's throughput read
 * model (event_throughput: events per 10-second bucket and type, with the commit-to-stream latency
 * as a sum, a maximum and a histogram). Its lag is the consumer's, read from the broker.
 */
import type { PoolClient } from 'pg';
import type { ConsumerSpec, StreamEvent } from './consumer';

export const PROJECTOR_NAME = 'dashboard-projector';
export const BUCKET_SECONDS = 10;
/** Upper bounds (ms) of the latency histogram's buckets; the last one is open. */
export const LATENCY_BOUNDS_MS = [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000] as const;

export function latencyBucket(ms: number): number {
  const i = LATENCY_BOUNDS_MS.findIndex((b) => ms <= b);
  return i < 0 ? LATENCY_BOUNDS_MS.length : i;
}

async function project(c: PoolClient, events: StreamEvent[]): Promise<void> {
  const groups = new Map<string, { bucket: Date; type: string; n: number; sum: number; max: number; hist: number[] }>();
  for (const e of events) {
    const bucket = new Date(Math.floor(e.occurred_at.getTime() / (BUCKET_SECONDS * 1000)) * BUCKET_SECONDS * 1000);
    const key = `${bucket.getTime()}|${e.type}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { bucket, type: e.type, n: 0, sum: 0, max: 0, hist: new Array(LATENCY_BOUNDS_MS.length + 1).fill(0) }));
    const latency = Math.max(0, e.publishedAt.getTime() - e.occurred_at.getTime());
    g.n++;
    g.sum += latency;
    g.max = Math.max(g.max, latency);
    g.hist[latencyBucket(latency)]++;
  }
  const rows = [...groups.values()];
  await c.query(
    `INSERT INTO event_throughput (bucket, type, events, latency_ms_sum, latency_ms_max, latency_histogram)
     SELECT u.bucket, u.type, u.n, u.sum, u.max, ARRAY(SELECT jsonb_array_elements_text(u.hist)::int)
       FROM unnest($1::timestamptz[], $2::text[], $3::int[], $4::float8[], $5::float8[], $6::jsonb[]) AS u(bucket, type, n, sum, max, hist)
     ON CONFLICT (bucket, type) DO UPDATE SET
       events = event_throughput.events + excluded.events,
       latency_ms_sum = event_throughput.latency_ms_sum + excluded.latency_ms_sum,
       latency_ms_max = greatest(event_throughput.latency_ms_max, excluded.latency_ms_max),
       latency_histogram = ARRAY(SELECT a + b FROM unnest(event_throughput.latency_histogram, excluded.latency_histogram) AS x(a, b))`,
    [
      rows.map((r) => r.bucket),
      rows.map((r) => r.type),
      rows.map((r) => r.n),
      rows.map((r) => r.sum),
      rows.map((r) => r.max),
      rows.map((r) => JSON.stringify(r.hist)),
    ],
  );
}

export const dashboardProjector: ConsumerSpec<void> = {
  name: PROJECTOR_NAME,
  description: 'Live dashboard throughput and latency read model (domain/events/projector.ts)',
  handle: project,
};
