/** Shared pieces of the business rules (iso20022/rules.ts, iso20022/statement-rules.ts). */
import Decimal from 'decimal.js';
import { RULES, type RuleCode, type RuleLevel } from './rule-catalog';
import { child, pathOf, type XEl } from './xml';

export interface RuleIssue {
  rule: RuleCode;
  level: RuleLevel;
  source: string;
  message: string;
  /** Element the finding is about (or the parent of a missing one). */
  el: XEl;
  /** Overrides the element's path, e.g. for a missing child. */
  path?: string;
}

export interface EmitOptions {
  path?: string;
  /** Overrides the rule's catalog source where the message definition names the rule precisely. */
  source?: string;
}

export type Emit = (rule: RuleCode, el: XEl, message: string, opts?: EmitOptions) => void;

/** An Emit that collects into `issues`, taking level and source from the catalog. */
export function collector(issues: RuleIssue[]): Emit {
  return (rule, el, message, opts = {}) =>
    issues.push({ rule, level: RULES[rule].level, source: opts.source ?? RULES[rule].source, message, el, path: opts.path });
}

export function dec(s: string | undefined): Decimal | null {
  if (s === undefined) return null;
  try {
    return new Decimal(s);
  } catch {
    return null;
  }
}

/** Options of the count and sum checks: another rule id, the container named in the message, a trailing note. */
export interface TotalOptions {
  rule?: RuleCode;
  source?: string;
  container?: string;
  note?: string;
}

export function checkCount(parent: XEl | undefined, name: string, actual: number, what: string, emit: Emit, opts: TotalOptions = {}): void {
  const el = child(parent, name);
  if (!el || el.text === '') return;
  if (!/^\d+$/.test(el.text) || Number(el.text) !== actual) {
    emit(opts.rule ?? 'number-of-transactions', el, `${name} is ${el.text} but the ${opts.container ?? 'message'} contains ${actual} ${what}${opts.note ?? ''}`, {
      source: opts.source,
    });
  }
}

export function checkSum(parent: XEl | undefined, name: string, amounts: Array<XEl | undefined>, what: string, emit: Emit, opts: TotalOptions = {}): void {
  const el = child(parent, name);
  if (!el || el.text === '') return;
  const declared = dec(el.text);
  let total = new Decimal(0);
  for (const a of amounts) {
    const v = dec(a?.text);
    if (!v) return; // an unreadable amount is reported by the schema check
    total = total.plus(v);
  }
  if (!declared || !declared.equals(total)) {
    emit(opts.rule ?? 'control-sum', el, `${name} is ${el.text} but the ${what} add up to ${total.toFixed()}${opts.note ?? ''}`, { source: opts.source });
  }
}

export function required(parent: XEl | undefined, name: string, emit: Emit): void {
  if (!parent) return;
  const el = child(parent, name);
  if (!el || el.text.trim() === '') {
    emit('reference-required', el ?? parent, `${name} is required and must not be empty`, el ? undefined : { path: `${pathOf(parent)}/${name}` });
  }
}

/** Flags every repeated value; `except` lists conventional placeholders that may repeat. */
export function unique(
  els: Array<XEl | undefined>, label: string, emit: Emit, except: string[] = [], rule: RuleCode = 'reference-unique',
): void {
  const seen = new Map<string, XEl>();
  for (const el of els) {
    if (!el || el.text === '' || except.includes(el.text)) continue;
    const first = seen.get(el.text);
    if (first) emit(rule, el, `${label} "${el.text}" is not unique in the message (first used at ${pathOf(first)})`);
    else seen.set(el.text, el);
  }
}
