export type LedgerErrorCode =
  | 'UNBALANCED'
  | 'INSUFFICIENT_FUNDS'
  | 'ACCOUNT_NOT_FOUND'
  | 'ASSET_MISMATCH'
  | 'ASSET_NOT_FOUND'
  | 'AMOUNT_PRECISION'
  | 'INVALID_AMOUNT'
  | 'AMOUNT_NOT_POSITIVE'
  | 'ACCOUNT_FROZEN'
  | 'ACCOUNT_CLOSED'
  | 'ALREADY_POSTED'
  | 'ALREADY_VOIDED'
  | 'ALREADY_REVERSED'
  | 'NOT_PENDING'
  | 'NOT_POSTED'
  | 'PENDING_EXPIRED'
  | 'IDEMPOTENCY_CONFLICT'
  | 'ENVIRONMENT_MISMATCH'
  | 'ENTRY_NOT_FOUND'
  | 'INVALID_ENTRY'
  | 'IMMUTABLE'
  | 'AMOUNT_TOO_LARGE'
  | 'BALANCE_LIMIT_EXCEEDED'
  | 'AMOUNT_OUT_OF_RANGE';

const CODES = new Set<string>([
  'UNBALANCED', 'INSUFFICIENT_FUNDS', 'ACCOUNT_NOT_FOUND', 'ASSET_MISMATCH', 'ASSET_NOT_FOUND', 'AMOUNT_PRECISION',
  'INVALID_AMOUNT', 'AMOUNT_NOT_POSITIVE', 'ACCOUNT_FROZEN', 'ACCOUNT_CLOSED', 'ALREADY_POSTED', 'ALREADY_VOIDED',
  'ALREADY_REVERSED', 'NOT_PENDING', 'NOT_POSTED', 'PENDING_EXPIRED', 'IDEMPOTENCY_CONFLICT', 'ENVIRONMENT_MISMATCH',
  'ENTRY_NOT_FOUND', 'INVALID_ENTRY', 'IMMUTABLE', 'AMOUNT_TOO_LARGE', 'BALANCE_LIMIT_EXCEEDED', 'AMOUNT_OUT_OF_RANGE',
]);

/**
 * A refusal by the ledger: a code, a message and details (e.g. account_id). Like DomainError it
 * carries no HTTP status; the API decides that from the code (api/error-status.ts).
 */
export class LedgerError extends Error {
  constructor(
    public readonly code: LedgerErrorCode,
    message: string,
    public readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'LedgerError';
  }
}

interface PgError {
  code?: string;
  message?: string;
  detail?: string;
  constraint?: string;
  table?: string;
}

/** SQLSTATE numeric_value_out_of_range: a number too large for its column. */
export const NUMERIC_OUT_OF_RANGE = '22003';

/** The refusal for a number too large for its column, wherever it happened (a 422 for that request). */
export function amountOutOfRangeError(): LedgerError {
  return new LedgerError('AMOUNT_OUT_OF_RANGE', 'the amount would take a total beyond what the ledger can hold; nothing was posted');
}

/**
 * Turns errors raised by the ledger's SQL (SQLSTATE LGR01, message "CODE: text", JSON detail)
 * into LedgerError. A CHECK violation of the no-overdraft constraint (the database backstop) is
 * INSUFFICIENT_FUNDS too, and a numeric overflow (22003) is AMOUNT_OUT_OF_RANGE: totals are sized
 * so that it cannot happen under the amount limits, and if it does it is refused for the posting
 * that caused it (docs/ledger.md, "Amount limits"). Anything else is returned unchanged.
 */
export function toLedgerError(err: unknown): unknown {
  const e = err as PgError;
  if (e && e.code === 'LGR01' && typeof e.message === 'string') {
    const m = /^([A-Z_]+): ([\s\S]*)$/.exec(e.message);
    if (m && CODES.has(m[1])) {
      let details: Record<string, unknown> = {};
      if (e.detail) {
        try {
          details = JSON.parse(e.detail) as Record<string, unknown>;
        } catch {
          details = { detail: e.detail };
        }
      }
      return new LedgerError(m[1] as LedgerErrorCode, m[2], details);
    }
  }
  if (e && e.code === '23514' && e.constraint === 'ledger_accounts_no_overdraft') {
    return new LedgerError('INSUFFICIENT_FUNDS', 'insufficient funds', { constraint: e.constraint });
  }
  if (e && e.code === NUMERIC_OUT_OF_RANGE) return amountOutOfRangeError();
  return err;
}
