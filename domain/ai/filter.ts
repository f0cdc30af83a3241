/**
 * The typed filter a natural-language transaction query becomes (issue 20). The deterministic
 * parser (domain/ai/parser.ts) produces it; a model's proposal must pass validateFilter before
 * it is used. Every field maps onto an allow-listed column or value, and the data layer binds
 * each value as a parameter: no text from a query ever becomes SQL. Only `counterparties` carries
 * raw text (trimmed, at most 5 of at most 100 characters), and only as bound parameters.
 */
import Ajv from 'ajv';
import Decimal from 'decimal.js';
import { CHAINS } from '../chains/registry';
import { BRIDGE_PROTOCOLS } from '../crosschain/bridges';

export const AI_TRANSACTION_TYPES = ['deposit', 'withdrawal', 'transfer', 'cross_chain_transfer', 'swap', 'rail_payment', 'interledger_payment', 'basket_buy', 'fee', 'reversal'] as const;
export type AiTransactionType = (typeof AI_TRANSACTION_TYPES)[number];
export const AI_STATUSES = ['pending', 'completed', 'failed', 'pending_review'] as const;
export type AiStatus = (typeof AI_STATUSES)[number];
export const AI_INTENTS = ['list', 'sum', 'count', 'max', 'min', 'average', 'balance'] as const;
export type AiIntent = (typeof AI_INTENTS)[number];

/** Asset codes a filter may name: the platform's ledger assets, plus SOL (a chain's coin people ask about). */
export const AI_CURRENCIES = ['USD', 'EUR', 'GBP', 'CHF', 'JPY', 'XAU', 'BTC', 'ETH', 'USDC', 'USDT', 'DAI', 'WETH', 'WBTC', 'SOL', 'GCU'] as const;
export type AiCurrency = (typeof AI_CURRENCIES)[number];
/** Chain ids of domain/chains/registry.ts. */
export const AI_CHAINS: readonly string[] = CHAINS.map((c) => c.id);
/** Bridge protocol ids of domain/crosschain/bridges.ts. */
export const AI_BRIDGES: readonly string[] = [...BRIDGE_PROTOCOLS];

export const AI_MAX_LIMIT = 1000;
export const AI_MAX_COUNTERPARTIES = 5;
export const AI_MAX_COUNTERPARTY_LENGTH = 100;

export interface TransactionFilter {
  /** [] = any. */
  types: AiTransactionType[];
  /** received / incoming = in; sent / outgoing / spent = out. */
  direction: 'in' | 'out' | null;
  /** Decimal string. over / above / more than: exclusive; at least / minimum: inclusive. */
  amountMin: string | null;
  amountMinExclusive: boolean;
  /** under / below / less than: exclusive; at most / up to / maximum: inclusive; between a and b: [a, b]. */
  amountMax: string | null;
  amountMaxExclusive: boolean;
  /** Asset code, upper case ($ USD, € EUR, £ GBP). */
  currency: string | null;
  /**
   * The currency was named as the transactions' asset ("USD deposits", "in EUR"), not only as an
   * amount's unit ("over $100", which compares the USD value of any asset). Another currency than
   * USD selects its asset either way.
   */
  currencyIsAsset: boolean;
  /** ISO 8601 UTC instant, inclusive. */
  dateFrom: string | null;
  /** ISO 8601 UTC instant, exclusive: the range is [dateFrom, dateTo). */
  dateTo: string | null;
  statuses: AiStatus[];
  /** Chain ids of the registry. */
  chains: string[];
  /** Bridge protocol ids. */
  bridges: string[];
  /** Raw strings from "to X" / "from X" / "with X" (trimmed, at most 100 characters, at most 5). */
  counterparties: string[];
  /** flagged / suspicious / needs review: true; not flagged / clean: false. */
  hasComplianceFlags: boolean | null;
  sort: { field: 'amount' | 'created_at'; order: 'asc' | 'desc' } | null;
  limit: number | null;
  intent: AiIntent;
}

export const EMPTY_FILTER: TransactionFilter = Object.freeze({
  types: [],
  direction: null,
  amountMin: null,
  amountMinExclusive: false,
  amountMax: null,
  amountMaxExclusive: false,
  currency: null,
  currencyIsAsset: false,
  dateFrom: null,
  dateTo: null,
  statuses: [],
  chains: [],
  bridges: [],
  counterparties: [],
  hasComplianceFlags: null,
  sort: null,
  limit: null,
  intent: 'list',
}) as TransactionFilter;

/** A fresh, mutable copy of EMPTY_FILTER. */
export function emptyFilter(): TransactionFilter {
  return { ...EMPTY_FILTER, types: [], statuses: [], chains: [], bridges: [], counterparties: [] };
}

export const DECIMAL_PATTERN = '^\\d{1,20}(\\.\\d{1,18})?$';
/**
 * Amount bounds are shown as JSON numbers (the spec's interpreted_query.amount_min is a number), so
 * a bound has at most 15 significant digits: every such decimal survives binary64 exactly (what
 * prints is what was meant). Money itself stays a decimal string everywhere else.
 */
export const MAX_BOUND_DIGITS = 15;

export function significantDigits(decimal: string): number {
  const digits = decimal.replace('.', '').replace(/^0+/, '');
  return digits.replace(/0+$/, '').length || 1;
}
export const ISO_INSTANT_PATTERN = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,3})?Z$';

const decimalOrNull = { type: ['string', 'null'], pattern: DECIMAL_PATTERN };
const instantOrNull = { type: ['string', 'null'], pattern: ISO_INSTANT_PATTERN };
const setOf = (values: readonly string[]) => ({ type: 'array', items: { type: 'string', enum: [...values] }, uniqueItems: true, maxItems: values.length });

export const TRANSACTION_FILTER_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'TransactionFilter',
  type: 'object',
  additionalProperties: false,
  required: ['types', 'direction', 'amountMin', 'amountMinExclusive', 'amountMax', 'amountMaxExclusive', 'currency', 'currencyIsAsset', 'dateFrom', 'dateTo', 'statuses', 'chains', 'bridges', 'counterparties', 'hasComplianceFlags', 'sort', 'limit', 'intent'],
  properties: {
    types: setOf(AI_TRANSACTION_TYPES),
    direction: { type: ['string', 'null'], enum: ['in', 'out', null] },
    amountMin: decimalOrNull,
    amountMinExclusive: { type: 'boolean' },
    amountMax: decimalOrNull,
    amountMaxExclusive: { type: 'boolean' },
    currency: { type: ['string', 'null'], enum: [...AI_CURRENCIES, null] },
    currencyIsAsset: { type: 'boolean' },
    dateFrom: instantOrNull,
    dateTo: instantOrNull,
    statuses: setOf(AI_STATUSES),
    chains: setOf(AI_CHAINS),
    bridges: setOf(AI_BRIDGES),
    counterparties: {
      type: 'array',
      maxItems: AI_MAX_COUNTERPARTIES,
      uniqueItems: true,
      // No control characters; not blank; no surrounding whitespace.
      items: { type: 'string', minLength: 1, maxLength: AI_MAX_COUNTERPARTY_LENGTH, pattern: '^[^\\u0000-\\u001F\\u007F\\s](?:[^\\u0000-\\u001F\\u007F]*[^\\u0000-\\u001F\\u007F\\s])?$' },
    },
    hasComplianceFlags: { type: ['boolean', 'null'] },
    sort: {
      anyOf: [
        { type: 'null' },
        {
          type: 'object',
          additionalProperties: false,
          required: ['field', 'order'],
          properties: { field: { type: 'string', enum: ['amount', 'created_at'] }, order: { type: 'string', enum: ['asc', 'desc'] } },
        },
      ],
    },
    limit: { type: ['integer', 'null'], minimum: 1, maximum: AI_MAX_LIMIT },
    intent: { type: 'string', enum: [...AI_INTENTS] },
  },
} as const;

let compiled: ReturnType<Ajv['compile']> | undefined;
function validator() {
  compiled ??= new Ajv({ allErrors: true, strict: false }).compile(TRANSACTION_FILTER_SCHEMA);
  return compiled;
}

/** The instant, when the text (already matching ISO_INSTANT_PATTERN) names a real one: 2026-02-30 does not. */
function instant(s: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,3}))?Z$/.exec(s);
  if (!m) return null;
  const [y, mo, d, hh, mi, ss] = m.slice(1, 7).map(Number);
  const ms = Date.UTC(y, mo - 1, d, hh, mi, ss, Number((m[7] ?? '0').padEnd(3, '0')));
  const t = new Date(ms);
  const real = t.getUTCFullYear() === y && t.getUTCMonth() === mo - 1 && t.getUTCDate() === d && t.getUTCHours() === hh && t.getUTCMinutes() === mi && t.getUTCSeconds() === ss;
  return real ? ms : null;
}

/**
 * Checks a value (a model's proposal, or anything else) against TRANSACTION_FILTER_SCHEMA and the
 * rules a schema cannot say: amountMin <= amountMax (strictly below when either end is
 * exclusive), dateFrom < dateTo, real calendar instants.
 */
export function validateFilter(value: unknown): { ok: true; filter: TransactionFilter } | { ok: false; errors: string[] } {
  const validate = validator();
  if (!validate(value)) {
    return { ok: false, errors: (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}${e.params && 'allowedValues' in e.params ? ` (${(e.params.allowedValues as unknown[]).join(', ')})` : ''}`) };
  }
  const f = value as TransactionFilter;
  const errors: string[] = [];
  for (const [name, v] of [['amountMin', f.amountMin], ['amountMax', f.amountMax]] as const) {
    if (v !== null && significantDigits(v) > MAX_BOUND_DIGITS) errors.push(`/${name} has more than ${MAX_BOUND_DIGITS} significant digits`);
  }
  if (f.amountMin !== null && f.amountMax !== null) {
    const c = new Decimal(f.amountMin).comparedTo(new Decimal(f.amountMax));
    if (c > 0) errors.push('/amountMin must not be greater than amountMax');
    else if (c === 0 && (f.amountMinExclusive || f.amountMaxExclusive)) errors.push('/amountMin equals amountMax with an exclusive end: no amount matches');
  }
  const from = f.dateFrom === null ? null : instant(f.dateFrom);
  const to = f.dateTo === null ? null : instant(f.dateTo);
  if (f.dateFrom !== null && from === null) errors.push('/dateFrom is not a real instant');
  if (f.dateTo !== null && to === null) errors.push('/dateTo is not a real instant');
  if (from !== null && to !== null && from >= to) errors.push('/dateFrom must be before dateTo');
  if (errors.length > 0) return { ok: false, errors };
  return {
    ok: true,
    filter: {
      ...f,
      types: [...f.types],
      statuses: [...f.statuses],
      chains: [...f.chains],
      bridges: [...f.bridges],
      counterparties: [...f.counterparties],
      sort: f.sort === null ? null : { field: f.sort.field, order: f.sort.order },
    },
  };
}
