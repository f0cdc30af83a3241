import { randomBytes, randomUUID } from 'node:crypto';

/**
 * Public identifiers: a type prefix and a UUIDv7 (RFC 9562) without dashes (e.g. acct_019ac3f2...):
 * 48 bits of Unix milliseconds, then 74 random bits. Time-ordered ids land at the right edge of
 * their indexes instead of splitting pages all over them (ledger__new_id makes the same ids in SQL).
 * An id is not a secret; it tells when it was made, as a created_at would.
 */
export function newId(prefix: string): string {
  const random = randomUUID().replaceAll('-', '');
  return `${prefix}_${Date.now().toString(16).padStart(12, '0')}7${random.slice(13)}`;
}

/** A URL-safe random secret of `bytes` bytes of entropy. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}
