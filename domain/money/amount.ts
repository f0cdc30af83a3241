import Decimal from 'decimal.js';
import { DomainError } from '../platform/errors';

// 40 significant digits cover NUMERIC(38,18) exactly; decimal.js never rounds our sums.
const D = Decimal.clone({ precision: 60, rounding: Decimal.ROUND_HALF_EVEN, toExpNeg: -100, toExpPos: 100 });

export type AmountErrorCode = 'INVALID_AMOUNT' | 'AMOUNT_PRECISION' | 'AMOUNT_NOT_POSITIVE' | 'AMOUNT_TOO_LARGE';

export class AmountError extends Error {
  constructor(
    public readonly code: AmountErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'AmountError';
  }
}

/**
 * The one spelling of an amount: a plain decimal string, digits with an optional fraction, no sign,
 * exponent, blank or separator. The API schema's `decimalString` (api/schemas.ts) uses this
 * pattern, and the ledger's `ledger__rule_amount` (behind `ledger__amount`,
 * prisma/sql/functions/ledger__rule_amount.sql) mirrors it in SQL: tests/ledger/rules.test.ts checks
 * that parseAmount and the SQL rule agree on a table of spellings.
 */
export const AMOUNT_PATTERN = '^[0-9]+(\\.[0-9]+)?$';
const AMOUNT_RE = new RegExp(AMOUNT_PATTERN);
/** A negative amount gets AMOUNT_NOT_POSITIVE rather than INVALID_AMOUNT. */
const NEGATIVE_RE = new RegExp(`^-${AMOUNT_PATTERN.slice(1)}`);
/** What the ledger takes in one line (ledger__amount): at most 20 integer digits. */
export const MAX_INTEGER_DIGITS = 20;

/** What parseRequestAmount needs to know about the asset (domain/assets Asset has it all). */
export interface AmountAsset {
  code: string;
  precision: number;
  /** Largest amount one operation may move (assets.max_amount, ASSET_LIMITS). */
  maxAmount: string;
}

/**
 * Validates a client-supplied amount for an asset of `precision` decimals and returns it in
 * canonical form at that scale ("1.5" -> "1.50" for USD). Only plain decimal strings are money:
 * numbers, exponents, signs, blanks and separators are refused, so nothing passes through a float.
 * Same rules as ledger__rule_amount in SQL (AMOUNT_PATTERN). With `max` (an asset's maximum per
 * operation), anything larger is AMOUNT_TOO_LARGE, checked before precision and digit count so
 * a huge amount gets that answer whatever its spelling.
 */
export function parseAmount(value: unknown, precision: number, max?: { amount: string; assetCode: string }): string {
  if (typeof value !== 'string') throw new AmountError('INVALID_AMOUNT', 'amount must be a decimal string');
  if (NEGATIVE_RE.test(value)) throw new AmountError('AMOUNT_NOT_POSITIVE', 'amount must be positive');
  if (!AMOUNT_RE.test(value)) throw new AmountError('INVALID_AMOUNT', 'amount must be a decimal string such as "10.50"');
  const [int, frac = ''] = value.split('.');
  const digits = int.replace(/^0+/, '');
  // The digit count first: decimal.js is then never asked to read a thousand-digit string.
  if (max && (digits.length > MAX_INTEGER_DIGITS || new D(value).greaterThan(max.amount))) {
    throw new AmountError('AMOUNT_TOO_LARGE', `amount is larger than the maximum of ${max.amount} ${max.assetCode} per operation`);
  }
  if (digits.length > MAX_INTEGER_DIGITS) throw new AmountError('INVALID_AMOUNT', 'amount is too large');
  if (frac.length > precision) {
    throw new AmountError('AMOUNT_PRECISION', `amount has more than ${precision} decimal place${precision === 1 ? '' : 's'}`);
  }
  if (digits === '' && !NONZERO_DIGIT_RE.test(frac)) throw new AmountError('AMOUNT_NOT_POSITIVE', 'amount must be positive');
  // The canonical spelling at the asset's scale, as decimal.js's toFixed gives it, by string: every
  // ledger line and fee passes here, and decimal.js cost the API 5 % of its time (docs/operations.md).
  return precision > 0 ? `${digits || '0'}.${frac.padEnd(precision, '0')}` : digits;
}
const NONZERO_DIGIT_RE = /[1-9]/;

/** Syntax-only check (no asset known yet): a positive plain decimal string. */
export function assertAmountSyntax(value: unknown): string {
  return parseAmount(value, 18) && (value as string);
}

/** A non-negative decimal string with no leading zero (what the database and parseAmount give). */
const CANONICAL_RE = /^(0|[1-9][0-9]*)(\.[0-9]+)?$/;

/** Formats a decimal string (any scale, may be negative) at an asset's precision. */
export function formatAmount(value: string, precision: number): string {
  // Already at that scale (most amounts are, every response formats several): as it is.
  const dot = value.indexOf('.');
  if ((dot < 0 ? 0 : value.length - dot - 1) === precision && CANONICAL_RE.test(value)) return value;
  return new D(value).toDecimalPlaces(precision, Decimal.ROUND_HALF_EVEN).toFixed(precision);
}

export function addAmounts(...values: string[]): string {
  return values.reduce((acc, v) => acc.plus(v), new D(0)).toFixed();
}

export function subtractAmounts(a: string, b: string): string {
  return new D(a).minus(b).toFixed();
}

export function multiplyAmounts(a: string, b: string): string {
  return new D(a).times(b).toFixed();
}

export function compareAmounts(a: string, b: string): -1 | 0 | 1 {
  return new D(a).comparedTo(b) as -1 | 0 | 1;
}

export function isZeroAmount(a: string): boolean {
  return new D(a).isZero();
}

export { D as DecimalMoney };

/**
 * The one parser for amounts in requests: syntax, the asset's maximum per operation (422
 * AMOUNT_TOO_LARGE) and its precision (or a smaller one, e.g. a token's decimals). A refusal
 * becomes a 422 DomainError pointing at the body field, so every endpoint reports bad amounts the
 * same way. Every money-moving request passes its amount through here (docs/ledger.md).
 */
export function parseRequestAmount(value: unknown, asset: AmountAsset, pointer = '/amount', precision = asset.precision): string {
  try {
    return parseAmount(value, precision, { amount: asset.maxAmount, assetCode: asset.code });
  } catch (err) {
    if (err instanceof AmountError) throw new DomainError(err.code, err.message, pointer);
    throw err;
  }
}
