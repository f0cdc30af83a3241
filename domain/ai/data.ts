/**
 * The transactions natural-language queries run over: the caller's customer ledger lines (every
 * area posts its money movements there, so the ledger is the one source). Each line is classified
 * once, when it is written, into ai_transaction_facts (a read model kept by ledger triggers in the
 * same transaction: its type, a bridge's chains and protocol, its USD value at the rate of that
 * moment); what can change later (a transfer held for review, a payment's sanctions hold, a failed
 * Travel Rule check) is joined when the question is asked.
 *
 * A TransactionFilter (domain/ai/filter.ts) becomes WHERE clauses over allow-listed columns with
 * bound parameters only: nothing the user typed is ever part of the SQL text.
 */
import Decimal from 'decimal.js';
import { homeChain, homeChains } from '../chains/registry';
import { getPool, type Queryable } from '../db/pool';
import type { Environment } from '../platform/environment';
import { riskScoreSql } from '../transfers/risk';
import type { TransactionFilter } from './filter';

export interface AiScope {
  userId: string;
  environment: Environment;
  /** Only this account's transactions (already checked to be the caller's), or all of the caller's. */
  accountId: string | null;
}

export interface AiTransaction {
  uuid: string;
  account_id: string;
  type: string;
  direction: 'in' | 'out';
  amount: string;
  currency: string;
  usd_value: string | null;
  status: string;
  source_chain: string | null;
  destination_chain: string | null;
  bridge_protocol: string | null;
  risk_score: number;
  compliance_flags: string[];
  description: string | null;
  created_at: string;
}

export interface AiAnalytics {
  /** The unit of the sums: the filter's currency, else USD (values at the latest rates). */
  currency: string;
  total_volume: string;
  avg_amount: string;
  median_amount: string;
  min_amount: string;
  max_amount: string;
  flagged_count: number;
  avg_risk_score: number;
  chains_involved: string[];
  bridges_used: string[];
}

/** The chain an asset's home book stands for, as SQL over the registry's table (static text, no input). */
const HOME_CHAIN_SQL = (asset: string) =>
  `(CASE ${asset} ${Object.entries(homeChains())
    .map(([a, c]) => `WHEN '${a}' THEN '${c}'`)
    .join(' ')} ELSE NULL END)`;

/**
 * A USD bound in dollars as a bound on cents, exactly: usd >= x is cents >= ceil(100x), usd > x is
 * cents > floor(100x), and the same mirrored for the upper bound.
 */
function centsBound(usd: string, side: 'min' | 'max', exclusive: boolean): string {
  const c = new Decimal(usd).times(100);
  return (side === 'min' ? (exclusive ? c.floor() : c.ceil()) : exclusive ? c.ceil() : c.floor()).toFixed(0);
}

/**
 * The caller's classified transactions matching the filter, as a (not materialized) CTE named `b`:
 * the facts (ai_transaction_facts, one per customer ledger line, classified when written) joined
 * with the few mutable marks a question must see now: transfers held for review, sanctions holds
 * of payments, failed Travel Rule checks. Every filter is a WHERE clause on allow-listed columns
 * with bound values, so the aggregate and the page each get a plan of their own (the page can
 * walk the date index and stop).
 */
function matchingSql(p: (v: unknown) => string, scope: AiScope, f: TransactionFilter): { sql: string; unit: 'usd' | 'currency' } {
  const u = p(scope.userId);
  const env = p(scope.environment);
  const where = [`t.user_id = ${u}`, `t.environment = ${env}`];
  if (scope.accountId) where.push(`t.account_id = ${p(scope.accountId)}`);
  if (f.dateFrom) where.push(`t.created_at >= ${p(f.dateFrom)}::timestamptz`);
  if (f.dateTo) where.push(`t.created_at < ${p(f.dateTo)}::timestamptz`);
  if (f.types.length) where.push(`t.type = ANY(${p(f.types)}::text[])`);
  if (f.direction) where.push(`t.incoming = ${f.direction === 'in' ? 'true' : 'false'}`);
  if (f.statuses.length) {
    // The line's own status is a necessary condition (and indexed apart from posted history).
    where.push(`t.status = ANY(${p([...new Set(f.statuses.map((x) => LINE_STATUS[x]))])}::text[])`);
    where.push(`${STATUS_SQL} = ANY(${p(f.statuses)}::text[])`);
  }
  if (f.chains.length) where.push(`(${SOURCE_CHAIN_SQL} = ANY(${p(f.chains)}::text[]) OR t.destination_chain = ANY(${p(f.chains)}::text[]))`);
  if (f.bridges.length) where.push(`t.bridge_protocol = ANY(${p(f.bridges)}::text[])`);
  if (f.hasComplianceFlags === true) where.push('fl.flags IS NOT NULL');
  if (f.hasComplianceFlags === false) where.push('fl.flags IS NULL');
  for (const c of f.counterparties) where.push(`t.description ILIKE ${p(`%${c.replace(/[\\%_]/g, (m) => `\\${m}`)}%`)}`);
  // Amounts in dollars compare the USD value of any asset; in another currency, that asset's own amount.
  const unit = !f.currency || f.currency === 'USD' ? 'usd' : 'currency';
  // "USD deposits" names the asset: only USD lines, as "EUR deposits" gives only EUR ones.
  if (f.currency && (unit === 'currency' || f.currencyIsAsset)) where.push(`t.asset_code = ${p(f.currency)}`);
  const bound = (side: 'min' | 'max', v: string, exclusive: boolean) => {
    const op = side === 'min' ? (exclusive ? '>' : '>=') : exclusive ? '<' : '<=';
    return unit === 'usd' ? `t.usd_cents ${op} ${p(centsBound(v, side, exclusive))}::bigint` : `t.amount ${op} ${p(v)}::numeric`;
  };
  if (f.amountMin !== null) where.push(bound('min', f.amountMin, f.amountMinExclusive));
  if (f.amountMax !== null) where.push(bound('max', f.amountMax, f.amountMaxExclusive));
  const sql = `
    -- Marks that can change after posting, by the transfer, bridge or payment they concern (few rows).
    fl AS (
      SELECT subject_id, array_agg(flag ORDER BY ord) AS flags, bool_or(review) AS review FROM (
        SELECT id AS subject_id, 1 AS ord, 'LARGE_TRANSFER_REVIEW' AS flag, true AS review FROM transfers WHERE status = 'pending_review' AND environment = ${env}
        UNION ALL
        SELECT subject_id, 2, reason_code, status = 'open' FROM compliance_holds
         WHERE user_id = ${u} AND environment = ${env} AND status IN ('open', 'rejected', 'expired')
        UNION ALL
        SELECT DISTINCT transfer_id, 3, 'TRAVEL_RULE_NON_COMPLIANT', false FROM travel_rule_checks WHERE user_id = ${u} AND environment = ${env} AND NOT is_compliant
      ) s GROUP BY subject_id),
    b AS NOT MATERIALIZED (
      SELECT t.line_id, t.chain AS book_chain, t.account_id, t.type, t.incoming, t.amount, t.asset_code, t.usd_cents, t.description, t.created_at,
             ${STATUS_SQL} AS status, ${SOURCE_CHAIN_SQL} AS source_chain, t.destination_chain, t.bridge_protocol,
             fl.flags IS NOT NULL AS flagged, coalesce(fl.flags, '{}') AS compliance_flags,
             ${riskScoreSql('t.usd_cents', 'fl.flags IS NOT NULL', p)} AS risk_score
        FROM ai_transaction_facts t LEFT JOIN fl ON fl.subject_id = t.subject_id
       WHERE ${where.join(' AND ')})`;
  return { sql, unit };
}

/** The ledger line status each product status comes from. */
const LINE_STATUS: Record<string, string> = { completed: 'posted', failed: 'voided', pending: 'pending', pending_review: 'pending' };
const STATUS_SQL = `(CASE WHEN t.status = 'posted' THEN 'completed' WHEN t.status = 'voided' THEN 'failed' WHEN fl.review THEN 'pending_review' ELSE 'pending' END)`;
const SOURCE_CHAIN_SQL = `coalesce(t.chain, ${HOME_CHAIN_SQL('t.asset_code')})`;

/** The page's order, on the matching rows' own columns (qualified: the page's output renames some of them to text). */
function sortSql(f: TransactionFilter, unit: 'usd' | 'currency'): string {
  const dir = f.sort?.order === 'asc' ? 'ASC' : 'DESC';
  const tail = `b.created_at ${dir}, b.line_id ${dir}`;
  if (f.sort?.field !== 'amount') return tail;
  return unit === 'usd' ? `b.usd_cents ${dir} NULLS LAST, b.amount ${dir}, ${tail}` : `b.amount ${dir}, ${tail}`;
}

function builder() {
  const params: unknown[] = [];
  return { params, p: (v: unknown) => `$${params.push(v)}` };
}

interface PageRow {
  id: string;
  account_id: string;
  type: string;
  direction: 'in' | 'out';
  amount: string;
  asset_code: string;
  usd_value: string | null;
  status: string;
  source_chain: string | null;
  destination_chain: string | null;
  bridge_protocol: string | null;
  risk_score: number;
  compliance_flags: string[];
  description: string | null;
  created_at: string;
}

interface Summary {
  n: number;
  total: string;
  avg: string;
  median: string;
  min: string;
  max: string;
  flagged: number;
  avg_risk: string;
  chains: string[] | null;
  destinations: string[] | null;
  home_assets: string[] | null;
  bridges: string[] | null;
  page: PageRow[];
}

/**
 * The matching transactions (sorted, at most `limit`) and the total and analytics over the whole
 * matching set, exact (numeric and integer cents in SQL, decimal strings out).
 */
export async function searchTransactions(
  scope: AiScope,
  f: TransactionFilter,
  opts: { limit: number },
  c: Queryable = getPool(),
): Promise<{ total: number; transactions: AiTransaction[]; analytics: AiAnalytics }> {
  const { sql, params, unit } = statement(scope, f, opts.limit);
  const { rows } = await c.query<Summary>(sql, params);
  return shape(rows[0], unit, f);
}

/** EXPLAIN ANALYZE of the statement (npm run bench with BENCH_EXPLAIN). */
export async function explainSearch(scope: AiScope, f: TransactionFilter, c: Queryable = getPool()): Promise<string> {
  const s = statement(scope, f, 50);
  return (await c.query(`EXPLAIN (ANALYZE, BUFFERS) ${s.sql}`, s.params)).rows.map((r) => r['QUERY PLAN']).join('\n');
}

/**
 * One statement: the aggregates over the whole matching set in one pass, and the page (sorted,
 * limited, values as text so no amount goes through floating point).
 */
function statement(scope: AiScope, f: TransactionFilter, limit: number) {
  const q = builder();
  const { sql: matching, unit } = matchingSql(q.p, scope, f);
  // USD analytics are over integer cents (exact and fast), shown in dollars; another currency's over its amounts.
  const [v, scale, dp] = unit === 'usd' ? ['usd_cents', '100', 2] : ['amount', '1', 8];
  const n = Math.max(0, Math.min(1000, Math.trunc(limit)));
  const columns = `b.line_id AS id, b.account_id, b.type, CASE WHEN b.incoming THEN 'in' ELSE 'out' END AS direction, b.amount::text AS amount, b.asset_code,
                   CASE WHEN b.usd_cents IS NOT NULL THEN round(b.usd_cents::numeric / 100, 2)::text END AS usd_value, b.status, b.source_chain,
                   b.destination_chain, b.bridge_protocol, b.risk_score, b.compliance_flags, b.description, b.created_at`;
  // Newest first walks the date index and stops; by amount, the page is the top of the matched set, then read by key.
  const page =
    f.sort?.field === 'amount'
      ? `SELECT ${columns} FROM (SELECT line_id FROM m b ORDER BY ${sortSql(f, unit)} LIMIT ${n}) top JOIN LATERAL (SELECT * FROM b WHERE b.line_id = top.line_id) b ON true ORDER BY ${sortSql(f, unit)}`
      : `SELECT ${columns} FROM b ORDER BY ${sortSql(f, unit)} LIMIT ${n}`;
  const sql = `WITH ${matching},
    -- The matched set, narrow: the groups, the median and an amount-ordered page read it. Kept once when the
    -- page is by amount (the page would otherwise scan and sort again); else each reads the scan itself,
    -- cheaper than writing every row down (the newest-first page walks the date index and stops).
    m AS ${f.sort?.field === 'amount' ? '' : 'NOT '}MATERIALIZED (SELECT line_id, created_at, amount, usd_cents, book_chain, asset_code, destination_chain, bridge_protocol, flagged, risk_score FROM b),
    -- Grouped by the few dimension values (a hash, not a sort of every row), then summed.
    g AS (SELECT book_chain, asset_code, destination_chain, bridge_protocol, count(*) AS n, count(${v}) AS valued, sum(${v}) AS total,
                 min(${v}) AS min, max(${v}) AS max, count(*) FILTER (WHERE flagged) AS flagged, sum(risk_score) AS risk
            FROM m GROUP BY 1, 2, 3, 4),
    -- The exact median: the mean of the lower and upper middle values, both from one sort (percentile_disc
    -- takes the value at position ceil(p * n); p a hair above 0.5 gives the upper middle for any n below 5e11).
    mid AS (SELECT percentile_disc(ARRAY[0.5, 0.500000000001]) WITHIN GROUP (ORDER BY ${v}) AS mid FROM m)
    SELECT coalesce(sum(g.n), 0)::int AS n, round(coalesce(sum(g.total), 0)::numeric / ${scale}, ${dp})::text AS total,
           round(coalesce(sum(g.total)::numeric / nullif(sum(g.valued), 0), 0) / ${scale}, ${dp})::text AS avg,
           round(coalesce((min(mid.mid[1]) + min(mid.mid[2]))::numeric / 2, 0) / ${scale}, ${dp})::text AS median,
           round(coalesce(min(g.min), 0)::numeric / ${scale}, ${dp})::text AS min, round(coalesce(max(g.max), 0)::numeric / ${scale}, ${dp})::text AS max,
           coalesce(sum(g.flagged), 0)::int AS flagged, coalesce(sum(g.risk) / nullif(sum(g.n), 0), 0)::text AS avg_risk,
           -- A home-chain line names its asset (book_chain NULL); shape() maps it to the chain.
           array_agg(DISTINCT g.book_chain) FILTER (WHERE g.book_chain IS NOT NULL) AS chains,
           array_agg(DISTINCT g.destination_chain) FILTER (WHERE g.destination_chain IS NOT NULL) AS destinations,
           array_agg(DISTINCT g.asset_code) FILTER (WHERE g.book_chain IS NULL) AS home_assets,
           array_agg(DISTINCT g.bridge_protocol) FILTER (WHERE g.bridge_protocol IS NOT NULL) AS bridges,
           (SELECT coalesce(json_agg(p), '[]') FROM (${page}) p) AS page
      FROM mid LEFT JOIN g ON true`;
  return { sql, params: q.params, unit };
}

function shape(s: Summary, unit: 'usd' | 'currency', f: TransactionFilter): { total: number; transactions: AiTransaction[]; analytics: AiAnalytics } {
  const dp = unit === 'usd' ? 2 : 8;
  const fix = (v: string) => trimDecimal(v, dp);
  return {
    total: s.n,
    transactions: s.page.map((r) => ({
      uuid: r.id,
      account_id: r.account_id,
      type: r.type,
      direction: r.direction,
      amount: trimDecimal(r.amount, 18),
      currency: r.asset_code,
      usd_value: r.usd_value,
      status: r.status,
      source_chain: r.source_chain,
      destination_chain: r.destination_chain,
      bridge_protocol: r.bridge_protocol,
      risk_score: Number(r.risk_score),
      compliance_flags: r.compliance_flags,
      description: r.description,
      created_at: new Date(r.created_at).toISOString(),
    })),
    analytics: {
      currency: unit === 'usd' ? 'USD' : f.currency!,
      total_volume: fix(s.total),
      avg_amount: fix(s.avg),
      median_amount: fix(s.median),
      min_amount: fix(s.min),
      max_amount: fix(s.max),
      flagged_count: s.flagged,
      avg_risk_score: Math.round(Number(s.avg_risk) * 10_000) / 10_000,
      chains_involved: [...new Set([...(s.chains ?? []), ...(s.destinations ?? []), ...(s.home_assets ?? []).map(homeChain).filter((c): c is string => c !== null)])].sort(),
      bridges_used: s.bridges ?? [],
    },
  };
}

/** A numeric's text without trailing zeros beyond `dp` places (USD keeps its two); values come rounded from SQL. */
function trimDecimal(v: string, dp: number): string {
  const [i, f = ''] = v.split('.');
  if (dp === 2) return `${i}.${(f + '00').slice(0, 2)}`;
  const frac = f.slice(0, dp).replace(/0+$/, '');
  return frac ? `${i}.${frac}` : i;
}
