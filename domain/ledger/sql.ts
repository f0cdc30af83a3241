/** Helpers the ledger's modules share: one SQL function call per operation, and input refusals. */
import type { Queryable } from '../db/pool';
import { LedgerError, toLedgerError } from './errors';

/** Runs one ledger SQL function call (one round trip) and maps its errors. */
export async function call<T>(client: Queryable, sql: string, params: unknown[]): Promise<T> {
  try {
    const { rows } = await client.query<{ r: T }>(sql, params);
    return (rows[0]?.r ?? null) as T;
  } catch (err) {
    throw toLedgerError(err);
  }
}

export function invalid(message: string): never {
  throw new LedgerError('INVALID_ENTRY', message);
}

export function requireKey(key: unknown, what = 'idempotency key'): string {
  if (typeof key !== 'string' || key.trim() === '' || key.length > 255) invalid(`${what} must be a non-empty string of at most 255 characters`);
  return key;
}
