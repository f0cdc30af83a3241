import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { expect } from 'vitest';
import { getPool } from '../../domain/db/pool';
import { EVENT_CATALOG } from '../../domain/events/catalog';

const ajv = new Ajv({ allErrors: true, strict: false });
addFormats(ajv);
const validators = new Map(EVENT_CATALOG.map((e) => [e.type, ajv.compile(e.data_schema)]));

export interface EventRow {
  id: string;
  type: string;
  environment: string;
  user_id: string | null;
  aggregate_id: string;
  data: Record<string, unknown>;
}

/** Outbox rows of a type (optionally filtered), each checked against its catalog schema and marked produced. */
export async function outbox(type: string, where: { userId?: string; aggregateId?: string } = {}): Promise<EventRow[]> {
  const { rows } = await getPool().query<EventRow>(
    `SELECT id, type, environment, user_id, aggregate_id, data FROM platform_events
      WHERE type = $1 AND ($2::text IS NULL OR user_id = $2) AND ($3::text IS NULL OR aggregate_id = $3) ORDER BY occurred_at, id`,
    [type, where.userId ?? null, where.aggregateId ?? null],
  );
  const info = EVENT_CATALOG.find((e) => e.type === type)!;
  expect(info.produced, type).toBe(true);
  const v = validators.get(type)!;
  for (const r of rows) expect(v(r.data), `${type}: ${ajv.errorsText(v.errors)}`).toBe(true);
  return rows;
}
