/**
 * Bridges from GraphQL to the REST routes' own definitions, so an area module restates no rule and
 * no wire shape:
 *  - `restBody` / `restInput` check a mutation's input against the REST route's JSON schema (lengths,
 *    patterns, enums and bounds such as slippage or deadline live there, not in the domain) with the
 *    validator settings of api/plugins/validation.ts, refusing with the same 422 VALIDATION_ERROR,
 *    message and field pointer (in the REST body's snake_case terms).
 *  - `camelize` turns a REST presenter's snake_case answer into the GraphQL object, for areas whose
 *    presenter derives fields (rounded USD values, rates, totals, who sees which field): computed
 *    once, by the presenter, for both transports.
 */
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { ApiError } from '../errors';
import { validationErrors } from '../plugins/errors';

const ajv = new Ajv({ allErrors: true, useDefaults: true, removeAdditional: false, strict: false, coerceTypes: false });
addFormats(ajv);
ajv.addKeyword({ keyword: 'example' });
const compiled = new WeakMap<object, ValidateFunction>();

/** Drops undefined members (absent GraphQL arguments); null stays null, as a JSON body would carry it. */
function defined(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(defined);
  if (v !== null && typeof v === 'object' && !(v instanceof Date)) {
    return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== undefined).map(([k, x]) => [k, defined(x)]));
  }
  return v;
}

/** The body as the REST route would accept it (defaults filled in), else the REST route's 422. */
export function restBody<T>(schema: object, body: unknown, context: 'body' | 'querystring' = 'body'): T {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  const value = defined(body);
  if (!validate(value)) {
    const [first, ...extra] = validationErrors(validate.errors ?? [], context);
    throw new ApiError(422, first.code, first.detail, { source: first.source, extra });
  }
  return value as T;
}

const toSnake = (k: string) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** A GraphQL input (camelCase keys, nulls dropped) as the REST body, validated by restBody. */
export function restInput<T = Record<string, unknown>>(schema: object, input: Record<string, unknown>, context: 'body' | 'querystring' = 'body'): T {
  const body: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input)) if (v !== null && v !== undefined) body[toSnake(k)] = v;
  return restBody<T>(schema, body, context);
}

/** "fee_amount" → "feeAmount"; "address_line_1" → "addressLine1"; "24h_change_usd" → "change24hUsd" (names cannot start with a digit). */
function camelKey(k: string): string {
  const parts = k.split('_');
  if (/^\d/.test(parts[0]) && parts.length > 1) parts.splice(0, 2, parts[1], parts[0]);
  return parts.map((p, i) => (i === 0 ? p : p.charAt(0).toUpperCase() + p.slice(1))).join('');
}

/** A presenter's answer with camelCase keys, recursively; values under `keep` keys (JSON fields) stay as REST shows them. */
export function camelize<T = any>(value: unknown, keep: readonly string[] | ReadonlySet<string> = []): T {
  const kept = keep instanceof Set ? keep : new Set(keep as readonly string[]);
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (v === null || typeof v !== 'object' || v instanceof Date) return v;
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [camelKey(k), kept.has(k) ? x : walk(x)]));
  };
  return walk(value) as T;
}
