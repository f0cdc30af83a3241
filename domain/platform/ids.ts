import { randomBytes, randomUUID } from 'node:crypto';

/** Public identifiers: a type prefix and a random UUID without dashes (e.g. acct_3f2a...). */
export function newId(prefix: string): string {
  return `${prefix}_${randomUUID().replaceAll('-', '')}`;
}

/** A URL-safe random secret of `bytes` bytes of entropy. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}
