/**
 * The constructs, tried in this order at each token: dates, amounts, transaction types, sorting
 * and limits, aggregate words, compliance, statuses, direction, bridge protocols, chains and
 * currencies, counterparties, general nouns. Each returns where it ends and how it applies to
 * the filter, or null; nothing here reads text into the filter except counterparties.
 */
import { findChain } from '../../chains/registry';
import { AI_MAX_COUNTERPARTY_LENGTH, AI_MAX_LIMIT } from '../filter';
import { matchAmount } from './amounts';
import type { FilterBuilder } from './builder';
import { matchDate, type DateContext } from './dates';
import type { Token } from './tokens';
import {
  BRIDGE_PHRASES, CHAIN_CONTEXT_AFTER, CHAIN_CONTEXT_BEFORE, COMPARATORS, COMPLIANCE_PHRASES, CURRENCY_PHRASES, DIRECTION_WORDS, GENERIC_NOUNS,
  INTENT_PHRASES, MONTHS, NEGATIONS, NUMBER_WORDS, SORT_BY, SORT_FIELDS, SORT_ORDERS, SORT_PHRASES, SPEND_VERBS, STATUS_PHRASES, STOP_WORDS, TYPE_PHRASES,
  UNITS, WEEKDAYS,
} from './vocabulary';

export interface Match {
  end: number;
  apply(b: FilterBuilder): boolean;
}

type Recognizer = (ctx: DateContext, i: number) => Match | null;

const date: Recognizer = (ctx, i) => {
  const m = matchDate(ctx, i);
  return m && { end: m.end, apply: (b) => b.setDates(m.from, m.to) };
};

const amount: Recognizer = (ctx, i) => {
  const m = matchAmount(ctx.tokens, i);
  return m && { end: m.end, apply: (b) => !m.conflict && b.setAmount(m.min, m.max, m.currency) };
};

const type: Recognizer = (ctx, i) => {
  const m = TYPE_PHRASES.match(ctx.tokens, i);
  if (!m) return null;
  const sent = ctx.tokens.slice(i, m.end).some((t) => t.norm === 'sent');
  return {
    end: m.end,
    apply: (b) => {
      b.types.add(m.value.value);
      return sent ? b.setDirection('out') : true;
    },
  };
};

/** A count for "top 5", "last three": 1 to the limit cap. */
function countAt(t: Token | undefined): number | null {
  if (!t) return null;
  const n = t.kind === 'number' && !t.magnitude && /^\d+$/.test(t.value ?? '') ? Number(t.value) : (NUMBER_WORDS[t.norm] ?? null);
  return n !== null && n >= 1 ? Math.min(n, AI_MAX_LIMIT) : null;
}

/** Whether the first noun within the next few words is plural ("largest deposits" vs "largest deposit"). */
function pluralAhead(tokens: readonly Token[], j: number): boolean {
  for (let k = j; k < Math.min(tokens.length, j + 5); k++) {
    const m = TYPE_PHRASES.match(tokens, k) ?? GENERIC_NOUNS.match(tokens, k);
    if (m) return m.value.plural;
  }
  return false;
}

const sort: Recognizer = (ctx, i) => {
  const t = ctx.tokens;
  const by = SORT_BY.match(t, i);
  if (by) {
    const field = SORT_FIELDS.match(t, by.end);
    if (!field) return null;
    const order = SORT_ORDERS.match(t, field.end);
    return { end: order?.end ?? field.end, apply: (b) => b.setSort(field.value, order?.value ?? 'desc') };
  }
  const m = SORT_PHRASES.match(t, i);
  if (!m) return null;
  const { field, order, superlative } = m.value;
  const n = countAt(t[m.end]);
  const adverb = t[i].norm === 'recent' || t[i].norm === 'recently';
  const limit = n ?? (adverb || pluralAhead(t, m.end) ? null : 1);
  return {
    end: n !== null ? m.end + 1 : m.end,
    apply: (b) => {
      if (!b.setSort(field, order)) return false;
      if (limit !== null && !b.setLimit(limit)) return false;
      if (superlative && limit === 1 && n === null) b.superlative = order === 'desc' ? 'max' : 'min';
      return true;
    },
  };
};

const intent: Recognizer = (ctx, i) => {
  const m = INTENT_PHRASES.match(ctx.tokens, i);
  if (!m) return null;
  return {
    end: m.end,
    apply: (b) => {
      if (m.value === 'how_much') return (b.howMuch = true);
      return b.setAggregate(m.value);
    },
  };
};

const compliance: Recognizer = (ctx, i) => {
  const m = COMPLIANCE_PHRASES.match(ctx.tokens, i);
  return m && { end: m.end, apply: (b) => b.setCompliance(m.value) };
};

const status: Recognizer = (ctx, i) => {
  const m = STATUS_PHRASES.match(ctx.tokens, i);
  return m && { end: m.end, apply: (b) => (b.statuses.add(m.value), true) };
};

const direction: Recognizer = (ctx, i) => {
  const m = DIRECTION_WORDS.match(ctx.tokens, i);
  if (!m) return null;
  const spend = SPEND_VERBS.has(ctx.tokens[i].norm);
  return {
    end: m.end,
    apply: (b) => {
      if (spend) b.spendVerb = true;
      return b.setDirection(m.value);
    },
  };
};

const bridge: Recognizer = (ctx, i) => {
  const m = BRIDGE_PHRASES.match(ctx.tokens, i);
  return m && { end: m.end, apply: (b) => (b.bridges.add(m.value), true) };
};

/** The chain named by the 1 to 3 words at i (the registry's own names and aliases), longest first. */
function chainAt(tokens: readonly Token[], i: number): { id: string; end: number } | null {
  for (let len = 3; len >= 1; len--) {
    const words = tokens.slice(i, i + len);
    if (words.length < len || words.some((w) => w.kind !== 'word')) continue;
    const norms = words.map((w) => w.norm);
    const c = findChain(norms.join(' ')) ?? (len > 1 ? findChain(norms.join('-')) : null);
    if (c) return { id: c.id, end: i + len };
  }
  return null;
}

const chainOrCurrency: Recognizer = (ctx, i) => {
  const t = ctx.tokens;
  const cur = t[i].kind === 'word' ? CURRENCY_PHRASES.match(t, i) : null;
  const chain = chainAt(t, i);
  if (!cur && !chain) return null;
  // A name that is both (eth, btc, sol, bitcoin) is a chain after on/via/across or before "chain".
  const chainContext = (i > 0 && CHAIN_CONTEXT_BEFORE.has(t[i - 1].norm)) || (chain !== null && t[chain.end] !== undefined && CHAIN_CONTEXT_AFTER.has(t[chain.end].norm));
  if (chain && (!cur || chainContext || chain.end > cur.end)) {
    const end = t[chain.end] && CHAIN_CONTEXT_AFTER.has(t[chain.end].norm) ? chain.end + 1 : chain.end;
    return { end, apply: (b) => (b.chains.add(chain.id), true) };
  }
  return { end: cur!.end, apply: (b) => b.setCurrency(cur!.value) };
};

/** Words that are never part of a name after to/from/with. */
function reserved(t: Token): boolean {
  const w = t.norm;
  return (
    STOP_WORDS.has(w) || NEGATIONS.has(w) || MONTHS[w] !== undefined || WEEKDAYS[w] !== undefined || UNITS[w] !== undefined || TYPE_PHRASES.has(w) || GENERIC_NOUNS.has(w) ||
    STATUS_PHRASES.has(w) || COMPLIANCE_PHRASES.has(w) || DIRECTION_WORDS.has(w) || INTENT_PHRASES.has(w) || SORT_PHRASES.has(w) || COMPARATORS.has(w) ||
    CURRENCY_PHRASES.has(w) || BRIDGE_PHRASES.has(w) || findChain(w) !== null || ['last', 'this', 'next', 'past', 'today', 'yesterday', 'previous'].includes(w)
  );
}
/** Bob, Smith, O'Brien, Jean-Luc: a capital, then at least one lower-case letter. */
const NAME_WORD = /^\p{Lu}[\p{L}\p{M}'’.-]*$/u;
const nameWord = (t: Token | undefined): t is Token => !!t && t.kind === 'word' && t.text.length <= 40 && NAME_WORD.test(t.text) && /\p{Ll}/u.test(t.text) && !reserved(t);

/** An email, an @handle or a capitalised name of up to four words at j. */
function partyAt(t: readonly Token[], j: number): { value: string; end: number } | null {
  const first = t[j];
  if (first && (first.kind === 'email' || first.kind === 'handle')) return { value: first.text, end: j + 1 };
  let end = j;
  while (end < t.length && end - j < 4 && nameWord(t[end])) end++;
  if (end === j) return null;
  return { value: t.slice(j, end).map((w) => w.text).join(' '), end };
}

/** to / from / with + parties, joined by "and" / "or" ("to Bob and Alice"): at most five. */
const counterparty: Recognizer = (ctx, i) => {
  const t = ctx.tokens;
  if (!['to', 'from', 'with'].includes(t[i].norm)) return null;
  const parties: string[] = [];
  let p = partyAt(t, i + 1);
  let end = i + 1;
  while (p && parties.length < 5) {
    const cp = p.value.trim().slice(0, AI_MAX_COUNTERPARTY_LENGTH).trim();
    if (cp.length > 0) parties.push(cp);
    end = p.end;
    p = t[end] && (t[end].norm === 'and' || t[end].norm === 'or') ? partyAt(t, end + 1) : null;
  }
  if (parties.length === 0) return null;
  return { end, apply: (b) => parties.every((cp) => b.addCounterparty(cp)) };
};

const generic: Recognizer = (ctx, i) => {
  const m = GENERIC_NOUNS.match(ctx.tokens, i);
  return m && { end: m.end, apply: (b) => ((b.paymentNoun ||= m.value.value === 'payment'), true) };
};

const RECOGNIZERS: readonly Recognizer[] = [date, amount, type, sort, intent, compliance, status, direction, bridge, chainOrCurrency, counterparty, generic];

export function recognize(ctx: DateContext, i: number): Match | null {
  for (const r of RECOGNIZERS) {
    const m = r(ctx, i);
    if (m && m.end > i) return m;
  }
  return null;
}

