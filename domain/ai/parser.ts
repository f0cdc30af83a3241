/**
 * The deterministic parser of natural-language transaction queries (issue 20): the default way a
 * query becomes a TransactionFilter, and the fallback whenever a model is off or refused.
 *
 * One pass over the tokens (domain/ai/parser/tokens.ts); at each token the constructs of
 * domain/ai/parser/recognizers.ts are tried in order and the first that matches consumes its
 * tokens and applies itself to the filter. Nothing is evaluated, nothing from the text reaches
 * the filter except allow-listed values, parsed numbers and dates, and the counterparty strings
 * of "to X" / "from X" / "with X" (bound as parameters by the data layer). The grammar, the
 * confidence formula and the decisions are in docs/ai.md ("The query grammar").
 *
 * Never throws: any input (not a string, 10,000 characters, random Unicode) gives a result.
 * Only the first MAX_QUERY_CHARS characters are read; the words after them count as not
 * understood. The work is linear in the length read (no backtracking patterns over the text).
 */
import { emptyFilter, validateFilter, type TransactionFilter } from './filter';
import { FilterBuilder } from './parser/builder';
import type { DateContext } from './parser/dates';
import { recognize } from './parser/recognizers';
import { tokenize, type Token } from './parser/tokens';
import { MOVEMENT_PARTICIPLES, NEGATIONS, SPEND_VERBS, STOP_WORDS } from './parser/vocabulary';
import { offsetMinutes, resolveTimeZone, wallClock } from './parser/zone';

export interface ParseResult {
  filter: TransactionFilter;
  /** Share of the meaningful words understood, less 0.1 per word not understood, in [0, 1]. */
  confidence: number;
  /** The phrases that made the filter, as written. */
  recognized: string[];
  /** The words not understood and the constructs refused or negated, as written. */
  unrecognized: string[];
}

export interface ParseOptions {
  /** Reference instant for relative dates. */
  now: Date;
  /** IANA zone of the user ('Europe/Berlin'); an unknown zone is read as UTC. */
  timeZone: string;
}

/** The route caps queries at 500 characters; the parser reads no more either. */
export const MAX_QUERY_CHARS = 500;
/** Each word not understood costs this much confidence on top of lowering the share. */
export const UNKNOWN_WORD_PENALTY = 0.1;
/** Below this confidence the filter is EMPTY_FILTER: too little of the query was understood to act on it. */
export const MIN_CONFIDENCE_FOR_FILTER = 0.2;
const MAX_LISTED = 50;

type State = 'understood' | 'unknown' | 'refused' | 'stop' | 'ignored';

export function parseTransactionQuery(text: string, opts: ParseOptions): ParseResult {
  try {
    return parse(text, opts);
  } catch {
    return { filter: emptyFilter(), confidence: 0, recognized: [], unrecognized: [] };
  }
}

function countWords(s: string): number {
  let n = 0;
  let inWord = false;
  for (let i = 0; i < s.length; i++) {
    const space = /\s/.test(s[i]);
    if (!space && !inWord) n++;
    inWord = !space;
  }
  return n;
}

function parse(input: unknown, opts: ParseOptions): ParseResult {
  const raw = typeof input === 'string' ? input : '';
  const head = raw.length > MAX_QUERY_CHARS ? raw.slice(0, MAX_QUERY_CHARS) : raw;
  const overflowWords = raw.length > MAX_QUERY_CHARS ? countWords(raw.slice(MAX_QUERY_CHARS)) : 0;
  const text = head.normalize('NFKC');
  const tokens = tokenize(text);

  const nowMs = opts?.now instanceof Date && !Number.isNaN(opts.now.getTime()) ? opts.now.getTime() : Date.now();
  const timeZone = resolveTimeZone(opts?.timeZone);
  const w = wallClock(nowMs, timeZone);
  const ctx: DateContext = {
    tokens,
    text,
    now: nowMs,
    timeZone,
    today: { y: w.y, m: w.m, d: w.d },
    chronoReference: { instant: new Date(nowMs), timezone: offsetMinutes(nowMs, timeZone) },
  };

  const b = new FilterBuilder();
  const state: State[] = tokens.map((t) => (t.kind === 'dash' ? 'ignored' : 'unknown'));
  const recognized: string[] = [];
  const mark = (from: number, to: number, s: State) => {
    for (let k = from; k < to; k++) if (state[k] !== 'ignored') state[k] = s;
  };
  const phrase = (from: number, to: number) => text.slice(tokens[from].start, tokens[to - 1].end);
  // A construct read but not applied (contradicting, or negated) counts as one word not understood.
  const refused: string[] = [];
  const refuse = (from: number, to: number) => {
    mark(from, to, 'refused');
    refused.push(phrase(from, to));
  };

  let bonus = 0;
  let i = 0;
  while (i < tokens.length) {
    const t = tokens[i];
    if (t.kind === 'dash') {
      i++;
      continue;
    }
    const m = recognize(ctx, i);
    if (m) {
      if (m.apply(b)) {
        mark(i, m.end, 'understood');
        recognized.push(phrase(i, m.end));
        // A construct of stop words only ("since may", "how much") still counts as one word understood.
        if (tokens.slice(i, m.end).every((x) => x.kind === 'dash' || (x.kind === 'word' && STOP_WORDS.has(x.norm)))) bonus++;
      } else refuse(i, m.end);
      i = m.end;
      continue;
    }
    if (t.kind === 'word' && NEGATIONS.has(t.norm)) {
      // The filter has no "not": the negated construct is left out and counts as not understood.
      const next = i + 1 < tokens.length ? recognize(ctx, i + 1) : null;
      if (next) {
        refuse(i, next.end);
        i = next.end;
      } else i++;
      continue;
    }
    if (t.kind === 'word' && STOP_WORDS.has(t.norm)) state[i] = 'stop';
    i++;
  }

  // Stop words neither help nor hurt, even inside a construct ("in" of "in March").
  let understood = bonus;
  let unknown = overflowWords + refused.length;
  const unrecognized: string[] = refused.slice(0, MAX_LISTED - 1).map((r) => r.slice(0, 100));
  tokens.forEach((tok, k) => {
    if (state[k] === 'understood' && !(tok.kind === 'word' && STOP_WORDS.has(tok.norm))) understood++;
    if (state[k] === 'unknown' && !(tok.kind === 'word' && STOP_WORDS.has(tok.norm))) {
      unknown++;
      if (unrecognized.length < MAX_LISTED - 1) unrecognized.push(tok.text.slice(0, 100));
    }
  });
  if (overflowWords > 0) unrecognized.push(`(${overflowWords} more word${overflowWords === 1 ? '' : 's'} after ${MAX_QUERY_CHARS} characters not read)`);
  const recognizedOut = recognized.slice(0, MAX_LISTED).map((r) => r.slice(0, 100));

  if (understood === 0) return { filter: emptyFilter(), confidence: 0, recognized: recognizedOut, unrecognized };
  const share = understood / (understood + unknown);
  const confidence = Math.round(Math.min(1, Math.max(0, share - UNKNOWN_WORD_PENALTY * unknown)) * 100) / 100;
  // A query mostly not understood (an injection attempt, word salad) filters nothing at all.
  if (confidence < MIN_CONFIDENCE_FOR_FILTER) return { filter: emptyFilter(), confidence, recognized: recognizedOut, unrecognized };
  const checked = validateFilter(b.build({ balanceWithHave: balanceWithHave(tokens), whatSpend: b.spendVerb && tokens.some((x) => x.norm === 'what') }));
  if (!checked.ok) return { filter: emptyFilter(), confidence: 0, recognized: recognizedOut, unrecognized };
  return { filter: checked.filter, confidence, recognized: recognizedOut, unrecognized };
}

/** "how much EUR do I have": "have" not followed by a movement ("how much have I spent"). */
function balanceWithHave(tokens: readonly Token[]): boolean {
  const k = tokens.findIndex((t) => t.norm === 'have');
  if (k < 0 || tokens.some((t) => SPEND_VERBS.has(t.norm))) return false;
  for (let j = k + 1; j < tokens.length; j++) {
    if (STOP_WORDS.has(tokens[j].norm)) continue;
    return !MOVEMENT_PARTICIPLES.has(tokens[j].norm);
  }
  return true;
}
