/**
 * Natural-language queries over the caller's transactions (docs/ai.md): understand the
 * question (the model when one is configured and its answer validates, else the deterministic
 * parser), run the typed filter (domain/ai/data.ts), answer, and keep the query with its answer in
 * the caller's private history. A question that is not understood is still answered (an empty
 * filter, low confidence), never refused.
 */
import Decimal from 'decimal.js';
import { getAccount } from '../accounts';
import { chainBalances } from '../chains/books';
import { getPool } from '../db/pool';
import { loadConfig } from '../platform/config';
import type { Environment } from '../platform/environment';
import { DomainError } from '../platform/errors';
import { newId } from '../platform/ids';
import { searchTransactions, type AiAnalytics, type AiScope, type AiTransaction } from './data';
import type { TransactionFilter } from './filter';
import { modelConfigured, modelInterpret } from './model';
import { parseTransactionQuery } from './parser';

export const MAX_QUERY_CHARS = 500;

export interface Caller {
  userId: string;
  environment: Environment;
}

export interface Interpretation {
  filter: TransactionFilter;
  confidence: number;
  interpreter: 'parser' | 'model';
  /** Why the model's proposal was not used, when a model is configured. */
  fallbackReason: string | null;
}

function checkQuery(query: unknown): string {
  if (typeof query !== 'string' || query.trim().length === 0) throw new DomainError('VALIDATION_ERROR', 'query is required', '/query');
  if (query.length > MAX_QUERY_CHARS) throw new DomainError('VALIDATION_ERROR', `query is at most ${MAX_QUERY_CHARS} characters`, '/query');
  return query;
}

function checkTimeZone(tz: unknown, pointer: string): string {
  const zone = tz === undefined || tz === null ? loadConfig().aiDefaultTimeZone : tz;
  try {
    if (typeof zone !== 'string') throw new Error('not a string');
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return zone;
  } catch {
    throw new DomainError('VALIDATION_ERROR', `${String(tz)} is not an IANA time zone (e.g. Europe/Berlin)`, pointer);
  }
}

async function scopeOf(caller: Caller, accountId: unknown, pointer: string): Promise<AiScope> {
  if (accountId === undefined || accountId === null) return { ...caller, accountId: null };
  if (typeof accountId !== 'string' || !(await getAccount(caller.userId, caller.environment, accountId))) {
    throw new DomainError('ACCOUNT_NOT_FOUND', `Account ${String(accountId)} not found`, pointer);
  }
  return { ...caller, accountId };
}

export async function interpret(query: string, opts: { now: Date; timeZone: string }): Promise<Interpretation> {
  let fallbackReason: string | null = null;
  if (modelConfigured()) {
    const m = await modelInterpret(query, opts);
    if (m.ok) return { filter: m.filter, confidence: m.confidence, interpreter: 'model', fallbackReason: null };
    fallbackReason = m.reason;
  }
  const p = parseTransactionQuery(query, opts);
  return { filter: p.filter, confidence: p.confidence, interpreter: 'parser', fallbackReason };
}

/**
 * The spec's interpreted_query, with the further fields the filter carries. The spec types
 * amount_min as a number and has_compliance_flags as a boolean: the bounds are JSON numbers (at most
 * MAX_BOUND_DIGITS significant digits, so exact), and has_compliance_flags is true only when the
 * query asks for flagged transactions; compliance_flags_filter keeps the three states (flagged,
 * unflagged, any).
 */
function presentInterpretation(f: TransactionFilter) {
  return {
    type: f.types,
    direction: f.direction,
    amount_min: f.amountMin === null ? null : Number(f.amountMin),
    amount_min_exclusive: f.amountMinExclusive,
    amount_max: f.amountMax === null ? null : Number(f.amountMax),
    amount_max_exclusive: f.amountMaxExclusive,
    currency: f.currency,
    currency_is_asset: f.currencyIsAsset,
    date_range: { from: f.dateFrom, to: f.dateTo },
    has_compliance_flags: f.hasComplianceFlags === true,
    compliance_flags_filter: f.hasComplianceFlags === null ? 'any' : f.hasComplianceFlags ? 'flagged' : 'unflagged',
    statuses: f.statuses,
    chains: f.chains,
    bridges: f.bridges,
    counterparties: f.counterparties,
    sort: f.sort,
    limit: f.limit,
    intent: f.intent,
  };
}

async function remember(caller: Caller, kind: 'transactions' | 'question', query: string, scope: AiScope, i: Interpretation, total: number, result: Record<string, unknown>): Promise<void> {
  await getPool().query(
    `INSERT INTO ai_queries (id, environment, user_id, kind, query, account_id, interpreter, confidence, interpreted, total_results, result)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
    [result.query_id, caller.environment, caller.userId, kind, query, scope.accountId, i.interpreter, i.confidence, JSON.stringify(i.filter), total, JSON.stringify(result)],
  );
}

export interface TransactionQueryInput {
  query: unknown;
  account_id?: unknown;
  time_zone?: unknown;
  options?: { include_analytics?: boolean; include_risk_scores?: boolean; max_results?: number; format?: string };
}

/** POST /api/v1/ai/transactions: the spec's AI transaction query result. */
export async function queryTransactions(caller: Caller, input: TransactionQueryInput, now = new Date()) {
  const query = checkQuery(input.query);
  const timeZone = checkTimeZone(input.time_zone, '/time_zone');
  const scope = await scopeOf(caller, input.account_id, '/account_id');
  const o = input.options ?? {};
  const i = await interpret(query, { now, timeZone });
  const limit = Math.min(o.max_results ?? 50, i.filter.limit ?? Number.MAX_SAFE_INTEGER);
  const found = await searchTransactions(scope, i.filter, { limit });
  const result = {
    query_id: newId('aiq'),
    original_query: query,
    interpreted_query: presentInterpretation(i.filter),
    interpretation_confidence: i.confidence,
    interpreter: i.interpreter,
    ...(i.fallbackReason ? { interpreter_fallback_reason: i.fallbackReason } : {}),
    total_results: found.total,
    transactions: found.transactions.map((t) => (o.include_risk_scores === false ? { ...t, risk_score: null } : t)),
    ...(o.include_analytics === false ? {} : { analytics: found.analytics }),
    ...(o.format === 'summary' ? { summary: summarize(found.total, found.analytics) } : {}),
    reference_time: now.toISOString(),
    time_zone: timeZone,
  };
  await remember(caller, 'transactions', query, scope, i, found.total, result);
  return result;
}

function summarize(total: number, a: AiAnalytics): string {
  if (total === 0) return 'No transactions match.';
  return `${total} transaction${total === 1 ? '' : 's'}, ${a.total_volume} ${a.currency} in all (average ${a.avg_amount}, median ${a.median_amount})${a.flagged_count ? `, ${a.flagged_count} flagged` : ''}.`;
}

export interface QuestionInput {
  query: unknown;
  context?: { account_id?: unknown; time_zone?: unknown };
}

/** POST /api/v2/ai/query: a broader question answered with a structured answer plus the matching records. */
export async function askQuestion(caller: Caller, input: QuestionInput, now = new Date()) {
  const query = checkQuery(input.query);
  const timeZone = checkTimeZone(input.context?.time_zone, '/context/time_zone');
  const scope = await scopeOf(caller, input.context?.account_id, '/context/account_id');
  const i = await interpret(query, { now, timeZone });
  const f = i.filter;
  let answer: Record<string, unknown>;
  let records: AiTransaction[] | Array<Record<string, unknown>>;
  let total: number;
  if (f.intent === 'balance') {
    const holdings = await holdingsOf(scope, f.currency, f.chains);
    answer = holdings.answer;
    records = holdings.records;
    total = holdings.records.length;
  } else {
    const single = f.intent === 'max' || f.intent === 'min';
    const sorted: TransactionFilter = single ? { ...f, sort: { field: 'amount', order: f.intent === 'max' ? 'desc' : 'asc' }, limit: f.limit ?? 1 } : f;
    const found = await searchTransactions(scope, sorted, { limit: Math.min(sorted.limit ?? 20, 100) });
    total = found.total;
    records = found.transactions;
    answer = answerOf(f, found.total, found.analytics, found.transactions);
  }
  const result = {
    query_id: newId('aiq'),
    original_query: query,
    interpreted_query: presentInterpretation(f),
    interpretation_confidence: i.confidence,
    interpreter: i.interpreter,
    ...(i.fallbackReason ? { interpreter_fallback_reason: i.fallbackReason } : {}),
    answer,
    total_results: total,
    records,
    reference_time: now.toISOString(),
    time_zone: timeZone,
  };
  await remember(caller, 'question', query, scope, i, total, result);
  return result;
}

function answerOf(f: TransactionFilter, total: number, a: AiAnalytics, rows: AiTransaction[]): Record<string, unknown> {
  switch (f.intent) {
    case 'sum':
      return { intent: 'sum', value: a.total_volume, currency: a.currency, count: total, text: `${a.total_volume} ${a.currency} over ${total} transaction${total === 1 ? '' : 's'}` };
    case 'count':
      return { intent: 'count', value: total, text: `${total} transaction${total === 1 ? '' : 's'}` };
    case 'average':
      return { intent: 'average', value: a.avg_amount, currency: a.currency, count: total, text: `${a.avg_amount} ${a.currency} on average over ${total} transaction${total === 1 ? '' : 's'}` };
    case 'max':
    case 'min': {
      const r = rows[0];
      return r
        ? { intent: f.intent, value: r.amount, currency: r.currency, transaction_id: r.uuid, text: `${f.intent === 'max' ? 'Largest' : 'Smallest'}: ${r.amount} ${r.currency} (${r.type}, ${r.created_at})` }
        : { intent: f.intent, value: null, text: 'No transactions match.' };
    }
    default:
      return { intent: 'list', count: total, text: summarize(total, a) };
  }
}

/** "How much X do I hold": the caller's books per chain (the ledger's balances), summed. */
async function holdingsOf(scope: AiScope, currency: string | null, chains: string[]) {
  const { rows } = await getPool().query<{ id: string }>(
    `SELECT id FROM accounts WHERE user_id = $1 AND environment = $2 AND ($3::text IS NULL OR id = $3) ORDER BY created_at, id`,
    [scope.userId, scope.environment, scope.accountId],
  );
  const perChain = new Map<string, { asset: string; chain: string | null; total: string }>();
  for (const a of rows) {
    for (const b of await chainBalances(a.id, { includeOffChain: true })) {
      if (currency && b.assetCode !== currency) continue;
      if (chains.length && (!b.chain || !chains.includes(b.chain))) continue;
      const key = `${b.assetCode}|${b.chain ?? ''}`;
      const prev = perChain.get(key);
      perChain.set(key, { asset: b.assetCode, chain: b.chain, total: new Decimal(prev?.total ?? 0).plus(b.totalBalance).toFixed() });
    }
  }
  const records = [...perChain.values()].map((h) => ({ asset: h.asset, chain: h.chain, balance: h.total }));
  const totals = new Map<string, Decimal>();
  for (const r of records) totals.set(r.asset, (totals.get(r.asset) ?? new Decimal(0)).plus(r.balance));
  const byAsset = [...totals.entries()].map(([asset, t]) => ({ asset, balance: t.toFixed() }));
  const text = byAsset.length
    ? byAsset.map((t) => `${t.balance} ${t.asset}${records.filter((r) => r.asset === t.asset && r.chain).length ? ` across ${records.filter((r) => r.asset === t.asset && r.chain).map((r) => `${r.chain} (${r.balance})`).join(', ')}` : ''}`).join('; ')
    : 'No holdings match.';
  return { answer: { intent: 'balance', value: byAsset.length === 1 ? byAsset[0].balance : null, currency: byAsset.length === 1 ? byAsset[0].asset : null, totals: byAsset, text }, records };
}

/** GET /api/v2/ai/queries: the caller's past queries, newest first, with their cached answers. */
export async function listQueries(caller: Caller, page: { limit: number; offset: number }) {
  const [{ rows }, count] = await Promise.all([
    getPool().query<{ id: string; kind: string; query: string; account_id: string | null; interpreter: string; confidence: string; total_results: number; result: unknown; created_at: Date }>(
      `SELECT id, kind, query, account_id, interpreter, confidence::text, total_results, result, created_at FROM ai_queries
        WHERE user_id = $1 AND environment = $2 ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4`,
      [caller.userId, caller.environment, page.limit, page.offset],
    ),
    getPool().query<{ n: number }>('SELECT count(*)::int AS n FROM ai_queries WHERE user_id = $1 AND environment = $2', [caller.userId, caller.environment]),
  ]);
  return {
    total: count.rows[0].n,
    items: rows.map((r) => ({
      query_id: r.id,
      kind: r.kind,
      original_query: r.query,
      account_id: r.account_id,
      interpreter: r.interpreter,
      interpretation_confidence: Number(r.confidence),
      total_results: r.total_results,
      result: r.result,
      created_at: r.created_at.toISOString(),
    })),
  };
}
