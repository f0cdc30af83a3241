/** Idempotency keys of ledger postings: per workflow step, or per client header. */
import { createHash } from 'node:crypto';

/** Deterministic idempotency key for a workflow step (workflow id + step name). */
export function workflowIdempotencyKey(workflowId: string, step: string): string {
  return `wf:${workflowId}:${step}`;
}

/** Idempotency key scoped to a client's Idempotency-Key header (per user, hashed to bound length). */
export function clientIdempotencyKey(userId: string, operation: string, headerValue: string): string {
  return `client:${createHash('sha256').update(`${userId}\u0000${operation}\u0000${headerValue}`).digest('hex')}`;
}
