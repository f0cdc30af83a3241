/**
 * Shared mapping between ISO 20022 building blocks and snake_case JSON:
 * parties, postal addresses, identifiers, accounts, agents, amounts,
 * remittance information, status/cancellation reasons. Every message type
 * uses these, so a field has the same name in every type and version.
 * This file holds the JSON shapes and small utilities; readers.ts reads the
 * blocks from XML and builders.ts builds them.
 */
import { randomUUID } from 'node:crypto';
import Decimal from 'decimal.js';
import { Iso20022Error } from './errors';
import { isCurrency, minorUnits } from './currencies';
import type { XObj } from './build';
import { text, type XEl } from './xml';

// --- JSON shapes -------------------------------------------------------------

export interface PostalAddress {
  address_type?: string;
  department?: string;
  sub_department?: string;
  street_name?: string;
  building_number?: string;
  building_name?: string;
  floor?: string;
  post_box?: string;
  room?: string;
  post_code?: string;
  town_name?: string;
  town_location_name?: string;
  district_name?: string;
  country_subdivision?: string;
  country?: string;
  address_lines?: string[];
}

export interface GenericId {
  id: string;
  scheme_code?: string;
  scheme_proprietary?: string;
  issuer?: string;
}

export interface PartyIdentifiers {
  organisation?: { any_bic?: string; lei?: string; other?: GenericId[] };
  private?: {
    birth_date?: string;
    province_of_birth?: string;
    city_of_birth?: string;
    country_of_birth?: string;
    other?: GenericId[];
  };
}

export interface Contact {
  name?: string;
  phone?: string;
  mobile?: string;
  email?: string;
}

export interface Agent {
  bic?: string;
  clearing_system_code?: string;
  clearing_system_proprietary?: string;
  clearing_member_id?: string;
  lei?: string;
  name?: string;
  postal_address?: PostalAddress;
  other_id?: string;
  branch_id?: string;
}

export interface Party {
  name?: string;
  postal_address?: PostalAddress;
  identifiers?: PartyIdentifiers;
  country_of_residence?: string;
  contact?: Contact;
  /** Set instead of the fields above when the party is itself a financial institution (Party40Choice/Agt). */
  financial_institution?: Agent;
}

export interface Account {
  iban?: string;
  other?: GenericId;
  currency?: string;
  name?: string;
  type?: string;
}

/** A party together with its account and its agent (debtor + DbtrAcct + DbtrAgt). */
export interface PartyWithAccount extends Party {
  account?: Account;
  agent?: Agent;
}

export interface StructuredRemittance {
  creditor_reference?: string;
  creditor_reference_type?: string;
  referred_documents?: Array<{ number?: string; type?: string; date?: string }>;
  additional_information?: string[];
}

export interface Remittance {
  unstructured?: string[];
  structured?: StructuredRemittance[];
}

export interface Reason {
  code?: string;
  proprietary?: string;
  additional_information?: string[];
  originator?: Party;
}

export interface PaymentType {
  instruction_priority?: string;
  clearing_channel?: string;
  service_level?: string;
  local_instrument?: string;
  sequence_type?: string;
  category_purpose?: string;
}

export interface Money {
  amount: string;
  currency: string;
}

// --- small utilities -------------------------------------------------------------

/**
 * Drops undefined, empty strings and empty objects; returns undefined when nothing is left.
 * Arrays stay even when empty, so repeating blocks (transactions, entries) are always lists.
 */
export function compact<T extends object>(obj: T): T | undefined {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) {
    if (v === undefined || v === null || v === '') continue;
    if (typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0) continue;
    out[k] = v;
  }
  return Object.keys(out).length ? (out as T) : undefined;
}

/** Code-or-proprietary choice (`<Cd>`/`<Prtry>`), or plain text in older versions. */
export function code(el: XEl | undefined): string | undefined {
  if (!el) return undefined;
  return text(el, 'Cd') ?? text(el, 'Prtry') ?? text(el);
}

/** Date-or-datetime choice (`<Dt>`/`<DtTm>`), or a plain ISODate in older versions. */
export function dateChoice(el: XEl | undefined): string | undefined {
  if (!el) return undefined;
  return text(el, 'Dt') ?? text(el, 'DtTm') ?? text(el);
}

export function invalid(pointer: string, detail: string, code = 'VALIDATION_ERROR'): Iso20022Error {
  return new Iso20022Error(code, detail, { pointer });
}

/** 32 hex characters: unique, and fits every Max35Text reference. */
export function newReference(): string {
  return randomUUID().replace(/-/g, '');
}

export function newUetr(): string {
  return randomUUID();
}

export function nowDateTime(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function today(): string {
  return new Date().toISOString().slice(0, 10);
}

export function str(value: unknown, pointer: string, opts: { required?: boolean } = {}): string | undefined {
  if (value === undefined || value === null || value === '') {
    if (opts.required) throw invalid(pointer, `${pointer || 'value'} is required`);
    return undefined;
  }
  if (typeof value !== 'string') throw invalid(pointer, `${pointer} must be a string`);
  return value;
}

export function obj<T = Record<string, unknown>>(value: unknown, pointer: string, opts: { required?: boolean } = {}): T | undefined {
  if (value === undefined || value === null) {
    if (opts.required) throw invalid(pointer, `${pointer} is required`);
    return undefined;
  }
  if (typeof value !== 'object' || Array.isArray(value)) throw invalid(pointer, `${pointer} must be an object`);
  return value as T;
}

export function list<T = Record<string, unknown>>(value: unknown, pointer: string): T[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw invalid(pointer, `${pointer} must be an array`);
  return value as T[];
}

export function currencyCode(value: unknown, pointer: string): string {
  const ccy = str(value, pointer, { required: true })!;
  if (!isCurrency(ccy)) throw invalid(pointer, `"${ccy}" is not an ISO 4217 currency code`, 'INVALID_CURRENCY');
  return ccy;
}

/**
 * Formats a decimal-string amount with the currency's ISO 4217 decimals
 * ("5" USD → "5.00", "1000" JPY → "1000"); more significant decimals than the
 * currency has is an error rather than a silent rounding.
 */
export function formatAmount(value: unknown, currency: string, pointer: string): string {
  if (typeof value !== 'string') throw invalid(pointer, `${pointer} must be a decimal string such as "12.34"`, 'INVALID_AMOUNT');
  if (!/^\d{1,18}(\.\d{1,18})?$/.test(value)) {
    throw invalid(pointer, `"${value}" is not a non-negative decimal amount`, 'INVALID_AMOUNT');
  }
  const d = new Decimal(value);
  const units = minorUnits(currency);
  if (units === null || units === undefined) return d.toFixed();
  if (d.decimalPlaces() > units) {
    throw invalid(pointer, `${currency} amounts have ${units} decimal(s); "${value}" has more`, 'INVALID_AMOUNT');
  }
  return d.toFixed(units);
}

export function amountXml(value: unknown, currency: unknown, pointer: string, currencyPointer: string): XObj {
  const ccy = currencyCode(currency, currencyPointer);
  return { '#': formatAmount(value, ccy, pointer), '@Ccy': ccy };
}
