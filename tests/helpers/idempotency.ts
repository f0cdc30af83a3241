import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { getPool } from '../../domain/db/pool';

/** A fresh Idempotency-Key. */
export const newIdempotencyKey = () => `idem-${randomBytes(6).toString('hex')}`;

/**
 * What a process that died after the handler's commit and before storing the answer leaves behind,
 * 61 s ago: the key in flight past its 60 s lock, so the next request with it takes it over.
 */
export async function crashedAfterCommit(key: string): Promise<void> {
  const r = await getPool().query(
    `UPDATE idempotency_keys SET state = 'in_flight', response_status = NULL, response_body = NULL, response_headers = NULL,
            locked_at = now() - interval '61 seconds'
      WHERE key = $1`,
    [key],
  );
  expect(r.rowCount).toBe(1);
}
