import type { Principal } from '../../../domain/auth/principal';
import { DomainError } from '../../../domain/platform/errors';
import type { TransferBody } from './schemas';

/**
 * A transfer request (the REST body, or GraphQL's input checked against the same schema by
 * restInput) as the domain's transfer input: the caller is the sender, and the request's
 * Idempotency-Key is what the transfer records, so a request run again after a crash gets the
 * transfer it made.
 */
export function createInput(p: Principal, b: TransferBody, requestKey: string | undefined) {
  return {
    requestKey,
    userId: p.userId,
    environment: p.environment,
    fromAccountId: b.from_account,
    toAccountId: b.to_account,
    amount: b.amount,
    assetCode: b.asset_code,
    reference: b.reference,
    description: b.description,
    metadata: b.metadata,
  };
}

/** The longest a client may ask the API to wait for a workflow transfer's decision (`Prefer: wait`). */
export const MAX_DECISION_WAIT_SECONDS = 10;

/**
 * RFC 7240's `Prefer: wait=N` on a workflow transfer: the seconds the client will wait for the
 * workflow to decide (capped at MAX_DECISION_WAIT_SECONDS), or undefined (answer at once, pending).
 */
export function decisionWaitSeconds(prefer: string | string[] | undefined): number | undefined {
  const value = Array.isArray(prefer) ? prefer.join(',') : prefer;
  const m = value ? /(?:^|[,;\s])wait\s*=\s*"?(\d{1,6})"?/i.exec(value) : null;
  if (!m) return undefined;
  const seconds = Math.min(Number(m[1]), MAX_DECISION_WAIT_SECONDS);
  return seconds > 0 ? seconds : undefined;
}

/**
 * GraphQL's twin of `Prefer: wait=N`: createTransfer's `waitSeconds` argument. An argument is a
 * request, not a hint, so one outside 1..MAX_DECISION_WAIT_SECONDS is refused rather than capped.
 */
export function decisionWaitArgument(waitSeconds: number | null | undefined): number | undefined {
  if (waitSeconds === null || waitSeconds === undefined) return undefined;
  if (!Number.isInteger(waitSeconds) || waitSeconds < 1 || waitSeconds > MAX_DECISION_WAIT_SECONDS) {
    throw new DomainError('VALIDATION_ERROR', `waitSeconds must be a whole number of seconds from 1 to ${MAX_DECISION_WAIT_SECONDS}`, '/waitSeconds');
  }
  return waitSeconds;
}
