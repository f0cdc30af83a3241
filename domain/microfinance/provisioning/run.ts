/**
 * The daily provisioning run (workflows/microfinance-provisioning.ts → activities/microfinance/provisioning.ts,
 * or an operator's POST /provisioning/runs): per environment and currency, every active loan's ECL
 * set-wise, the current provisions replaced, and ONE balanced ledger entry for the change in
 * allowance, so that afterwards the allowance account's balance equals the sum of current ECLs.
 *
 * One transaction under a per-(environment, currency) advisory lock. Keyed by (environment,
 * currency, run date): a second run of the same day returns the first run's summary and posts
 * nothing; the entry's idempotency key carries the same triple as a backstop.
 */
import { getPool, withTransaction, type Queryable } from '../../db/pool';
import { postEntry, workflowIdempotencyKey } from '../../ledger';
import { DecimalMoney } from '../../money/amount';
import type { Environment } from '../../platform/environment';
import { DomainError } from '../../platform/errors';
import { newId } from '../../platform/ids';
import type pg from 'pg';
import { allowanceAccountId, allowanceBalance, provisionExpenseAccountId, provisioningCurrencies } from './accounts';
import { computeProvision, roundMinor } from './ecl';
import { activeLoanFacts } from './facts';
import { provisionPolicyOn } from './policies';

export interface ProvisionRun {
  id: string;
  environment: Environment;
  currency: string;
  runDate: string;
  policyVersion: number;
  loans: number;
  totalEcl: string;
  allowanceBefore: string;
  allowanceAfter: string;
  /** allowance_after − allowance_before (negative: a release). */
  change: string;
  entryId: string | null;
  createdAt: Date;
}

interface RunRow {
  id: string;
  environment: Environment;
  currency: string;
  run_date: string;
  policy_version: number;
  loans: number;
  total_ecl: string;
  allowance_before: string;
  allowance_after: string;
  change: string;
  entry_id: string | null;
  created_at: Date;
}

const RUN_COLUMNS = `r.id, r.environment, r.currency, r.run_date::text AS run_date, r.policy_version, r.loans,
  round(r.total_ecl, a.precision)::text AS total_ecl, round(r.allowance_before, a.precision)::text AS allowance_before,
  round(r.allowance_after, a.precision)::text AS allowance_after, round(r.change, a.precision)::text AS change, r.entry_id, r.created_at`;

function toRun(r: RunRow): ProvisionRun {
  return {
    id: r.id,
    environment: r.environment,
    currency: r.currency,
    runDate: r.run_date,
    policyVersion: r.policy_version,
    loans: r.loans,
    totalEcl: r.total_ecl,
    allowanceBefore: r.allowance_before,
    allowanceAfter: r.allowance_after,
    change: r.change,
    entryId: r.entry_id,
    createdAt: r.created_at,
  };
}

/** Today's date in UTC (YYYY-MM-DD): the run date of a run that names none. */
export function todayUtc(now = new Date()): string {
  return now.toISOString().slice(0, 10);
}

export function assertRunDate(value: string, pointer: string | null = '/run_date'): string {
  const ok = /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`)) && new Date(`${value}T00:00:00Z`).toISOString().slice(0, 10) === value;
  if (!ok) throw new DomainError('VALIDATION_ERROR', `${pointer ? 'run_date' : 'as_of'} must be a date (YYYY-MM-DD)`, pointer ?? undefined);
  return value;
}

/** A run date (or report date) as given, checked, else today (UTC): what the run and report routes take. */
export function runDateOrToday(value: string | undefined, pointer: string | null = '/run_date'): string {
  return value === undefined ? todayUtc() : assertRunDate(value, pointer);
}

/** The provisioning run of one environment and currency on a run date (idempotent per that triple). */
export async function runProvisioning(input: { environment: Environment; currency: string; runDate: string }, pool: pg.Pool = getPool()): Promise<ProvisionRun> {
  const { environment, currency } = input;
  const runDate = assertRunDate(input.runDate);
  return withTransaction(async (c) => {
    await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`mf-provisioning:${environment}:${currency}`]);
    const existing = await c.query<RunRow>(
      `SELECT ${RUN_COLUMNS} FROM mf_provision_runs r JOIN assets a ON a.code = r.currency
       WHERE r.environment = $1 AND r.currency = $2 AND r.run_date >= $3::date ORDER BY r.run_date DESC LIMIT 1`,
      [environment, currency, runDate],
    );
    if (existing.rows[0]) {
      if (existing.rows[0].run_date === runDate) return toRun(existing.rows[0]);
      throw new DomainError('PROVISION_RUN_DATE_STALE', `${environment} ${currency} was already provisioned on ${existing.rows[0].run_date}, after ${runDate}`, '/run_date');
    }
    const asset = await c.query<{ precision: number }>('SELECT precision FROM assets WHERE code = $1', [currency]);
    if (!asset.rows[0]) throw new DomainError('ASSET_NOT_FOUND', `unknown currency ${currency}`);
    const precision = asset.rows[0].precision;
    const policy = await provisionPolicyOn(runDate, c);

    const facts = await activeLoanFacts(environment, currency, runDate, c);
    const provisions = facts.map((f) => ({ loanId: f.loanId, ...computeProvision(f, runDate, policy, precision) }));
    await replaceProvisions(environment, currency, runDate, policy.version, provisions, c);
    const total = provisions.reduce((acc, p) => acc.plus(p.ecl), new DecimalMoney(0));
    const totalEcl = roundMinor(total, precision);

    const before = await allowanceBalance(environment, currency, c);
    const change = new DecimalMoney(totalEcl).minus(before);
    let entryId: string | null = null;
    if (!change.isZero()) {
      const allowance = await allowanceAccountId(environment, currency, c);
      const expense = await provisionExpenseAccountId(environment, currency, c);
      const amount = roundMinor(change.abs(), precision);
      const increase = change.greaterThan(0);
      const entry = await postEntry(
        {
          environment,
          idempotencyKey: workflowIdempotencyKey(`mf-provisioning:${environment}:${currency}:${runDate}`, 'allowance'),
          type: 'provision',
          description: `${increase ? 'Increase' : 'Release'} of the microfinance loan-loss allowance, ${currency} ${runDate}`,
          reference: `mf-provisioning:${runDate}`,
          metadata: { run_date: runDate, policy_version: policy.version, loans: provisions.length, total_ecl: totalEcl, allowance_before: before },
          lines: increase
            ? [
                { accountId: expense, direction: 'debit', amount },
                { accountId: allowance, direction: 'credit', amount },
              ]
            : [
                { accountId: allowance, direction: 'debit', amount },
                { accountId: expense, direction: 'credit', amount },
              ],
        },
        c,
      );
      entryId = entry.id;
    }
    const after = await allowanceBalance(environment, currency, c);
    if (new DecimalMoney(after).comparedTo(totalEcl) !== 0) {
      // The ledger is the authority: this can only mean a posting outside the run touched the account.
      throw new Error(`allowance ${after} differs from the sum of ECLs ${totalEcl} (${environment} ${currency})`);
    }
    const { rows } = await c.query<{ id: string }>(
      `INSERT INTO mf_provision_runs (id, environment, currency, run_date, policy_version, loans, total_ecl, allowance_before, allowance_after, change, entry_id)
       VALUES ($1, $2, $3, $4::date, $5, $6, $7::numeric, $8::numeric, $9::numeric, $10::numeric, $11) RETURNING id`,
      [newId('mfpr'), environment, currency, runDate, policy.version, provisions.length, totalEcl, before, after, change.toFixed(), entryId],
    );
    const run = await c.query<RunRow>(`SELECT ${RUN_COLUMNS} FROM mf_provision_runs r JOIN assets a ON a.code = r.currency WHERE r.id = $1`, [rows[0].id]);
    return toRun(run.rows[0]);
  }, pool);
}

/** Upserts the run's provisions (one statement) and drops those of loans no longer active in this environment and currency. */
async function replaceProvisions(
  environment: Environment,
  currency: string,
  runDate: string,
  policyVersion: number,
  ps: Array<{ loanId: string; stage: number; daysPastDue: number; ead: string; pd: string; lgd: string; ecl: string }>,
  c: Queryable,
): Promise<void> {
  await c.query(
    `DELETE FROM mf_loan_provisions p USING mf_loans l
     WHERE p.loan_id = l.id AND l.environment = $1 AND l.currency = $2 AND l.status <> 'active'`,
    [environment, currency],
  );
  if (ps.length === 0) return;
  await c.query(
    `INSERT INTO mf_loan_provisions (loan_id, stage, days_past_due, ead, pd, lgd, ecl, policy_version, computed_on)
     SELECT u.loan_id, u.stage, u.dpd, u.ead, u.pd, u.lgd, u.ecl, $8, $9::date
     FROM unnest($1::text[], $2::smallint[], $3::int[], $4::numeric[], $5::numeric[], $6::numeric[], $7::numeric[])
          AS u(loan_id, stage, dpd, ead, pd, lgd, ecl)
     ON CONFLICT (loan_id) DO UPDATE SET stage = EXCLUDED.stage, days_past_due = EXCLUDED.days_past_due, ead = EXCLUDED.ead,
       pd = EXCLUDED.pd, lgd = EXCLUDED.lgd, ecl = EXCLUDED.ecl, policy_version = EXCLUDED.policy_version, computed_on = EXCLUDED.computed_on`,
    [
      ps.map((p) => p.loanId),
      ps.map((p) => p.stage),
      ps.map((p) => p.daysPastDue),
      ps.map((p) => p.ead),
      ps.map((p) => p.pd),
      ps.map((p) => p.lgd),
      ps.map((p) => p.ecl),
      policyVersion,
      runDate,
    ],
  );
}

/** Runs every currency of an environment on a run date (each its own transaction, each idempotent). */
export async function runProvisioningForEnvironment(environment: Environment, runDate: string, pool: pg.Pool = getPool()): Promise<ProvisionRun[]> {
  assertRunDate(runDate);
  const runs: ProvisionRun[] = [];
  for (const currency of await provisioningCurrencies(environment, pool)) runs.push(await runProvisioning({ environment, currency, runDate }, pool));
  return runs;
}

/** Runs of an environment, newest first. */
export async function listProvisionRuns(
  environment: Environment,
  q: { currency?: string; limit: number; offset: number },
  client: Queryable = getPool(),
): Promise<{ items: ProvisionRun[]; total: number }> {
  const where = `r.environment = $1 AND ($2::text IS NULL OR r.currency = $2)`;
  const [items, count] = await Promise.all([
    client.query<RunRow>(
      `SELECT ${RUN_COLUMNS} FROM mf_provision_runs r JOIN assets a ON a.code = r.currency WHERE ${where}
       ORDER BY r.run_date DESC, r.currency, r.id LIMIT $3 OFFSET $4`,
      [environment, q.currency ?? null, q.limit, q.offset],
    ),
    client.query<{ n: string }>(`SELECT count(*)::text AS n FROM mf_provision_runs r WHERE ${where}`, [environment, q.currency ?? null]),
  ]);
  return { items: items.rows.map(toRun), total: Number(count.rows[0].n) };
}
