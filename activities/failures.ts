/**
 * How an activity hands a refusal to its workflow: a domain or ledger refusal becomes a
 * non-retryable ApplicationFailure carrying the refusal's code (workflows read it back with
 * businessFailureOf, domain/temporal/failures.ts); anything else is rethrown for Temporal to retry.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { LedgerError } from '../domain/ledger';
import { DomainError } from '../domain/platform/errors';

/** Refusals of an area beyond DomainError and LedgerError (e.g. an adapter's) that also carry a code. */
type CodedError = abstract new (...args: never[]) => Error & { code: string };

export function businessFailure(err: unknown, also: readonly CodedError[] = []): never {
  if (err instanceof LedgerError || err instanceof DomainError || also.some((k) => err instanceof k)) {
    const e = err as Error & { code: string };
    throw ApplicationFailure.nonRetryable(e.message, e.code);
  }
  throw err;
}
