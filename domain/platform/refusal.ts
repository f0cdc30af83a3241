/**
 * The one mapping from a thrown error to a refusal (issue 43): a business refusal, whichever layer
 * threw it (DomainError, the ledger's, accounts' and amounts' own classes, the ISO 20022 module's
 * coded errors, a number too large for its column), or the database's saturation, becomes a code,
 * a message and the field it concerns; anything else is undefined (an unexpected failure). Each
 * transport renders it its own way: REST as the envelope with the status of api/error-status.ts,
 * GraphQL as an error with extensions.code, MCP as a tool result with isError.
 */
import { Iso20022Error, type Iso20022Issue } from '../../iso20022/errors';
import { AccountError } from '../accounts';
import { saturationRefusalOf } from '../db/pool';
import { amountOutOfRangeError, LedgerError, NUMERIC_OUT_OF_RANGE } from '../ledger/errors';
import { AmountError } from '../money/amount';
import { DomainError } from './errors';

export interface Refusal {
  code: string;
  message: string;
  /** JSON pointer into the request's body (or a tool's arguments), when the refusal is about one field. */
  pointer?: string;
  /** When to come back (the database's saturation, a maintenance window). */
  retryAfterSeconds?: number;
  /** Further issues of the same refusal (each failed rule of a generated ISO 20022 message). */
  issues?: Iso20022Issue[];
}

export function refusalOf(err: unknown): Refusal | undefined {
  const saturated = saturationRefusalOf(err);
  if (saturated) return saturated;
  if (err instanceof DomainError) {
    // A refusal that says when to come back (the maintenance window's, domain/auth/gate.ts) carries it in its details.
    const retry = err.details?.retryAfterSeconds;
    return { code: err.code, message: err.message, ...(err.pointer ? { pointer: err.pointer } : {}), ...(typeof retry === 'number' ? { retryAfterSeconds: retry } : {}) };
  }
  // The ISO module names the whole body as '' (an XML body, a JSON body that is no object).
  if (err instanceof Iso20022Error) return { code: err.code, message: err.message, ...(err.pointer !== undefined ? { pointer: err.pointer } : {}), issues: err.issues };
  if (err instanceof LedgerError || err instanceof AccountError) return { code: err.code, message: err.message };
  if (err instanceof AmountError) return { code: err.code, message: err.message, pointer: '/amount' };
  // A number too large for its column (SQLSTATE 22003) anywhere: that request's 422, never a 500.
  if ((err as { code?: unknown })?.code === NUMERIC_OUT_OF_RANGE) return refusalOf(amountOutOfRangeError());
  return undefined;
}
