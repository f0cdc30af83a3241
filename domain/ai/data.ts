/**
 * The transactions natural-language queries run over: the caller's customer ledger lines (every
 * area posts its money movements there, so the ledger is the one source), each classified and
 * enriched in SQL with what its area knows (a bridge's chains and protocol, a held transfer or
 * payment, failed Travel Rule checks) and valued in USD at the platform's latest rates.
 *
 * A TransactionFilter (domain/ai/filter.ts) becomes WHERE clauses over allow-listed columns with
 * bound parameters only: nothing the user typed is ever part of the SQL text.
 */
import { homeChains } from '../chains/registry';
import { getPool, type Queryable } from '../db/pool';
import type { Environment } from '../platform/environment';
import { riskLimits, riskScoreSql } from '../transfers/risk';
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

/** The chain an asset's home ('') book stands for, as SQL over the registry's table (static text, no input). */
const HOME_CHAIN_SQL = (asset: string) =>
  `(CASE ${asset} ${Object.entries(homeChains())
    .map(([a, c]) => `WHEN '${a}' THEN '${c}'`)
    .join(' ')} ELSE NULL END)`;

/** The ledger transaction types a classified type can come from (the others depend on the entry: any line type). */
const LINE_TYPES: Partial<Record<string, string[]>> = {
  deposit: ['deposit'],
  withdrawal: ['withdrawal'],
  transfer: ['transfer_in', 'transfer_out'],
  fee: ['fee'],
  reversal: ['reversal'],
};

/**
 * The classified rows: one per customer ledger line of the scope. Built once per query; the date
 * range is applied here so the (user_id, environment, created_at) index bounds the scan.
 */
function baseSql(p: (v: unknown) => string, scope: AiScope, f: TransactionFilter): string {
  const threshold = p(riskLimits().reviewThresholdUsd);
  const where = [`l.user_id = ${p(scope.userId)}`, `l.environment = ${p(scope.environment)}`, 'l.account_id IS NOT NULL'];
  if (scope.accountId) where.push(`l.account_id = ${p(scope.accountId)}`);
  if (f.dateFrom) where.push(`l.created_at >= ${p(f.dateFrom)}::timestamptz`);
  if (f.dateTo) where.push(`l.created_at < ${p(f.dateTo)}::timestamptz`);
  // Necessary conditions of the later filters, on the line itself, so selective questions classify fewer lines.
  const lineTypes = f.types.length > 0 && f.types.every((t) => t in LINE_TYPES) ? f.types.flatMap((t) => LINE_TYPES[t]) : null;
  if (lineTypes) where.push(`l.txn_type = ANY(${p(lineTypes)}::text[])`);
  if (f.direction) where.push(`l.direction = ${p(f.direction === 'in' ? 'credit' : 'debit')}`);
  if (f.currency && f.currency !== 'USD') where.push(`l.asset_code = ${p(f.currency)}`);
  return `
    -- The latest USD rate of each asset: one index probe per asset, however long the rate history.
    rate AS (SELECT a.code AS base_asset, (SELECT x.rate FROM exchange_rates x WHERE x.base_asset = a.code AND x.quote_asset = 'USD' ORDER BY x.as_of DESC, x.id DESC LIMIT 1) AS rate FROM assets a),
    -- The caller's transfers with a failed Travel Rule check (joined by hash, not probed per line).
    trf AS (SELECT DISTINCT transfer_id FROM travel_rule_checks WHERE user_id = ${p(scope.userId)} AND environment = ${p(scope.environment)} AND NOT is_compliant),
    raw AS (
      SELECT l.id, l.account_id, l.amount, l.asset_code, l.created_at, l.txn_type, l.status AS line_status, l.direction,
             e.type AS entry_type, e.description, e.metadata, e.reference, la.chain AS book,
             b.source_chain AS b_source, b.destination_chain AS b_destination, b.protocol AS b_protocol,
             tr.status AS transfer_status,
             h.reason_code AS hold_code, h.status AS hold_status,
             trf.transfer_id IS NOT NULL AS travel_rule_failed,
             round(l.amount * r.rate, 2) AS usd_value
        FROM ledger_lines l
        JOIN journal_entries e ON e.id = l.entry_id
        JOIN ledger_accounts la ON la.id = l.ledger_account_id
        LEFT JOIN bridge_transfers b ON e.type = 'bridge' AND b.id = e.reference
        LEFT JOIN transfers tr ON tr.entry_id = e.id
        -- A payment's sanctions hold, by its unique (subject_kind, subject_id) key.
        LEFT JOIN compliance_holds h
               ON (e.metadata ? 'rail_payment_id' AND h.subject_kind = 'rail_payment' AND h.subject_id = e.metadata->>'rail_payment_id')
               OR (e.metadata ? 'ilp_payment_id' AND h.subject_kind = 'ilp_payment' AND h.subject_id = e.metadata->>'ilp_payment_id')
        LEFT JOIN rate r ON r.base_asset = l.asset_code
        LEFT JOIN trf ON trf.transfer_id = coalesce(b.id, tr.id)
       WHERE ${where.join(' AND ')}),
    tx AS (
      SELECT id, account_id, amount, asset_code, created_at, description, usd_value,
             CASE WHEN entry_type = 'bridge' THEN 'cross_chain_transfer'
                  WHEN entry_type IN ('swap', 'flash_loan') THEN 'swap'
                  WHEN entry_type LIKE 'basket%' THEN 'basket_buy'
                  WHEN metadata ? 'rail_payment_id' THEN 'rail_payment'
                  WHEN metadata ? 'ilp_payment_id' THEN 'interledger_payment'
                  WHEN txn_type IN ('transfer_in', 'transfer_out') THEN 'transfer'
                  ELSE txn_type END AS type,
             CASE WHEN direction = 'credit' THEN 'in' ELSE 'out' END AS direction,
             CASE WHEN line_status = 'posted' THEN 'completed' WHEN line_status = 'voided' THEN 'failed'
                  WHEN transfer_status = 'pending_review' OR hold_status = 'open' THEN 'pending_review' ELSE 'pending' END AS status,
             coalesce(b_source, CASE WHEN book = '' THEN ${HOME_CHAIN_SQL('asset_code')} ELSE book END) AS source_chain,
             b_destination AS destination_chain,
             b_protocol AS bridge_protocol,
             array_remove(ARRAY[
               CASE WHEN transfer_status = 'pending_review' THEN 'LARGE_TRANSFER_REVIEW' END,
               CASE WHEN hold_status IN ('open', 'rejected', 'expired') THEN hold_code END,
               CASE WHEN travel_rule_failed THEN 'TRAVEL_RULE_NON_COMPLIANT' END]::text[], NULL) AS compliance_flags
        FROM raw),
    scored AS (
      SELECT tx.*, ${riskScoreSql('usd_value', 'cardinality(compliance_flags) > 0', threshold)} AS risk_score FROM tx)`;
}

/** Filters after classification: only allow-listed columns, values always bound. */
function filterSql(p: (v: unknown) => string, f: TransactionFilter): { where: string; unit: 'currency' | 'usd' } {
  const where: string[] = ['true'];
  if (f.types.length) where.push(`type = ANY(${p(f.types)}::text[])`);
  if (f.direction) where.push(`direction = ${p(f.direction)}`);
  if (f.statuses.length) where.push(`status = ANY(${p(f.statuses)}::text[])`);
  if (f.chains.length) where.push(`(source_chain = ANY(${p(f.chains)}::text[]) OR destination_chain = ANY(${p(f.chains)}::text[]))`);
  if (f.bridges.length) where.push(`bridge_protocol = ANY(${p(f.bridges)}::text[])`);
  if (f.hasComplianceFlags === true) where.push('cardinality(compliance_flags) > 0');
  if (f.hasComplianceFlags === false) where.push('cardinality(compliance_flags) = 0');
  for (const c of f.counterparties) where.push(`description ILIKE ${p(`%${c.replace(/[\\%_]/g, (m) => `\\${m}`)}%`)}`);
  // Amounts in dollars compare the USD value of any asset; in another currency, that asset's own amount.
  const unit = !f.currency || f.currency === 'USD' ? 'usd' : 'currency';
  if (f.currency && f.currency !== 'USD') where.push(`asset_code = ${p(f.currency)}`);
  const amount = unit === 'usd' ? 'usd_value' : 'amount';
  if (f.amountMin !== null) where.push(`${amount} ${f.amountMinExclusive ? '>' : '>='} ${p(f.amountMin)}::numeric`);
  if (f.amountMax !== null) where.push(`${amount} ${f.amountMaxExclusive ? '<' : '<='} ${p(f.amountMax)}::numeric`);
  return { where: where.join(' AND '), unit };
}

const SORTS: Record<string, string> = {
  'amount:asc': 'coalesce(usd_value, amount) ASC, created_at ASC, id',
  'amount:desc': 'coalesce(usd_value, amount) DESC, created_at DESC, id',
  'created_at:asc': 'created_at ASC, id',
  'created_at:desc': 'created_at DESC, id DESC',
};

function builder() {
  const params: unknown[] = [];
  return { params, p: (v: unknown) => `$${params.push(v)}` };
}

interface Row {
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
  risk_score: string;
  compliance_flags: string[];
  description: string | null;
  created_at: Date;
}

/**
 * The matching transactions (sorted, at most `limit`) and the total and analytics over the whole
 * matching set, exact (numeric in SQL, decimal strings out).
 */
export async function searchTransactions(
  scope: AiScope,
  f: TransactionFilter,
  opts: { limit: number },
  c: Queryable = getPool(),
): Promise<{ total: number; transactions: AiTransaction[]; analytics: AiAnalytics }> {
  const { sql, params, unit } = statement(scope, f, opts.limit);
  const { rows } = await c.query(sql, params);
  const s = rows[0] as Record<string, string & number & string[]> & { page: Array<Omit<Row, 'created_at'> & { created_at: string }> };
  return shape(s.page.map((r) => ({ ...r, created_at: new Date(r.created_at) })), s, unit, f);
}

/** EXPLAIN ANALYZE of both statements (npm run bench with BENCH_EXPLAIN). */
export async function explainSearch(scope: AiScope, f: TransactionFilter, c: Queryable = getPool()): Promise<string> {
  const s = statement(scope, f, 50);
  return (await c.query(`EXPLAIN (ANALYZE, BUFFERS) ${s.sql}`, s.params)).rows.map((r) => r['QUERY PLAN']).join('\n');
}

/**
 * One statement: the matching set is computed once (materialized), then the aggregates over all of
 * it and the page (sorted, limited, values as text so no number goes through floating point).
 */
function statement(scope: AiScope, f: TransactionFilter, limit: number) {
  const q = builder();
  const base = baseSql(q.p, scope, f);
  const { where, unit } = filterSql(q.p, f);
  const order = SORTS[f.sort ? `${f.sort.field}:${f.sort.order}` : 'created_at:desc'];
  const value = unit === 'usd' ? 'usd_value' : 'amount';
  const dp = unit === 'usd' ? 2 : 8;
  const sql = `WITH ${base}, m AS MATERIALIZED (SELECT id, account_id, type, direction, amount, asset_code, usd_value, status, source_chain, destination_chain, bridge_protocol, risk_score, compliance_flags, description, created_at FROM scored WHERE ${where})
    SELECT count(*)::int AS n, coalesce(sum(${value}), 0)::text AS total, round(coalesce(avg(${value}), 0), ${dp})::text AS avg,
           -- The exact median (percentile_cont would go through floating point): the mean of the lower and upper middle values.
           round(coalesce((percentile_disc(0.5) WITHIN GROUP (ORDER BY ${value}) + percentile_disc(0.5) WITHIN GROUP (ORDER BY ${value} DESC)) / 2, 0), ${dp})::text AS median,
           coalesce(min(${value}), 0)::text AS min, coalesce(max(${value}), 0)::text AS max,
           count(*) FILTER (WHERE cardinality(compliance_flags) > 0)::int AS flagged, coalesce(avg(risk_score), 0)::text AS avg_risk,
           coalesce(array_agg(DISTINCT source_chain) FILTER (WHERE source_chain IS NOT NULL), '{}') AS sources,
           coalesce(array_agg(DISTINCT destination_chain) FILTER (WHERE destination_chain IS NOT NULL), '{}') AS destinations,
           coalesce(array_agg(DISTINCT bridge_protocol) FILTER (WHERE bridge_protocol IS NOT NULL), '{}') AS bridges,
           (SELECT coalesce(json_agg(p), '[]') FROM (
              SELECT id, account_id, type, direction, amount::text AS amount, asset_code, usd_value::text AS usd_value, status, source_chain, destination_chain,
                     bridge_protocol, risk_score::text AS risk_score, compliance_flags, description, created_at
                FROM m ORDER BY ${order} LIMIT ${Math.max(0, Math.min(1000, Math.trunc(limit)))}) p) AS page
      FROM m`;
  return { sql, params: q.params, unit };
}

function shape(rows: Row[], s: Record<string, string & number & string[]>, unit: 'usd' | 'currency', f: TransactionFilter): { total: number; transactions: AiTransaction[]; analytics: AiAnalytics } {
  const dp = unit === 'usd' ? 2 : 8;
  const fix = (v: string) => trimDecimal(v, dp);
  return {
    total: s.n,
    transactions: rows.map((r) => ({
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
      created_at: r.created_at.toISOString(),
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
      chains_involved: [...new Set([...s.sources, ...s.destinations])].sort(),
      bridges_used: s.bridges,
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
