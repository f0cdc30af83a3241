import type { Queryable } from '../db/pool';
import type { Environment } from '../platform/environment';
import { newId } from '../platform/ids';

export interface OutboxEventInput {
  type: string;
  environment: Environment;
  userId?: string | null;
  aggregateType: string;
  aggregateId: string;
  data: Record<string, unknown>;
}

/**
 * Appends an event to outbox_events. Pass the client of the transaction that makes the change
 * the event describes: the event then exists exactly when the change does (a publisher delivers
 * unpublished rows later). Returns the event id (evt_...).
 */
export async function writeOutboxEvent(client: Queryable, event: OutboxEventInput): Promise<string> {
  const id = newId('evt');
  await client.query(
    `INSERT INTO outbox_events (id, type, environment, user_id, aggregate_type, aggregate_id, data, occurred_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, clock_timestamp())`,
    [id, event.type, event.environment, event.userId ?? null, event.aggregateType, event.aggregateId, JSON.stringify(event.data)],
  );
  return id;
}

/** Appends several events with one statement (same transaction rules as writeOutboxEvent). */
export async function writeOutboxEvents(client: Queryable, events: OutboxEventInput[]): Promise<string[]> {
  if (events.length === 0) return [];
  const ids = events.map(() => newId('evt'));
  const values: unknown[] = [];
  const rows = events.map((e, i) => {
    values.push(ids[i], e.type, e.environment, e.userId ?? null, e.aggregateType, e.aggregateId, JSON.stringify(e.data));
    const b = i * 7;
    // occurred_at has millisecond precision: 1 ms per position keeps the events in order.
    return `($${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5}, $${b + 6}, $${b + 7}, clock_timestamp() + make_interval(secs => ${i} * 0.001))`;
  });
  await client.query(
    `INSERT INTO outbox_events (id, type, environment, user_id, aggregate_type, aggregate_id, data, occurred_at) VALUES ${rows.join(', ')}`,
    values,
  );
  return ids;
}
