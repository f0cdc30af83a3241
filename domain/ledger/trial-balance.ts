/** Trial balance: posted debits and credits per asset and per account, all time or over a range. */
import { getPool, type Queryable } from '../db/pool';
import type { Environment } from '../platform/environment';
import type { LedgerAccountKind } from './accounts';
import type { Direction } from './entries';

export interface TrialBalance {
  environment: Environment;
  from: Date | null;
  to: Date | null;
  /** true when every asset balances */
  balanced: boolean;
  assets: Array<{ assetCode: string; totalDebits: string; totalCredits: string; balanced: boolean }>;
  accounts: Array<{
    id: string;
    name: string;
    kind: LedgerAccountKind;
    code: string | null;
    assetCode: string;
    normalBalance: Direction;
    debits: string;
    credits: string;
    /** debits - credits for debit-normal, credits - debits for credit-normal */
    balance: string;
  }>;
}

/**
 * Posted debits and credits per asset and per account. Without a range it reads the stored
 * totals (all time); with from/to it sums lines posted in [from, to). Accounts without activity
 * are left out.
 */
export async function trialBalance(q: { environment: Environment; from?: Date; to?: Date }, client: Queryable = getPool()): Promise<TrialBalance> {
  const ranged = q.from !== undefined || q.to !== undefined;
  const source = ranged
    ? `SELECT l.ledger_account_id AS id,
              sum(CASE WHEN l.direction = 'debit' THEN l.amount ELSE 0 END) AS debits,
              sum(CASE WHEN l.direction = 'credit' THEN l.amount ELSE 0 END) AS credits
       FROM ledger_lines l
       WHERE l.environment = $1 AND l.status = 'posted'
         AND ($2::timestamptz IS NULL OR l.completed_at >= $2) AND ($3::timestamptz IS NULL OR l.completed_at < $3)
       GROUP BY l.ledger_account_id`
    : `SELECT id, debits_posted AS debits, credits_posted AS credits FROM ledger_accounts
       WHERE environment = $1 AND (debits_posted <> 0 OR credits_posted <> 0)`;
  const params = ranged ? [q.environment, q.from ?? null, q.to ?? null] : [q.environment];
  const { rows } = await client.query<{
    id: string;
    name: string;
    kind: LedgerAccountKind;
    code: string | null;
    asset_code: string;
    normal_balance: Direction;
    debits: string;
    credits: string;
    balance: string;
  }>(
    `WITH t AS (${source})
     SELECT la.id, la.name, la.kind, la.code, la.asset_code, la.normal_balance,
            round(t.debits, a.precision)::text AS debits, round(t.credits, a.precision)::text AS credits,
            round(CASE WHEN la.normal_balance = 'credit' THEN t.credits - t.debits ELSE t.debits - t.credits END, a.precision)::text AS balance
     FROM t JOIN ledger_accounts la ON la.id = t.id JOIN assets a ON a.code = la.asset_code
     ORDER BY la.asset_code, la.kind, la.code NULLS LAST, la.id`,
    params,
  );
  const totals = await client.query<{ asset_code: string; debits: string; credits: string; balanced: boolean }>(
    `WITH t AS (${source})
     SELECT la.asset_code, round(sum(t.debits), a.precision)::text AS debits, round(sum(t.credits), a.precision)::text AS credits,
            sum(t.debits) = sum(t.credits) AS balanced
     FROM t JOIN ledger_accounts la ON la.id = t.id JOIN assets a ON a.code = la.asset_code
     GROUP BY la.asset_code, a.precision ORDER BY la.asset_code`,
    params,
  );
  const assets = totals.rows.map((r) => ({ assetCode: r.asset_code, totalDebits: r.debits, totalCredits: r.credits, balanced: r.balanced }));
  return {
    environment: q.environment,
    from: q.from ?? null,
    to: q.to ?? null,
    balanced: assets.every((a) => a.balanced),
    assets,
    accounts: rows.map((r) => ({
      id: r.id,
      name: r.name,
      kind: r.kind,
      code: r.code,
      assetCode: r.asset_code,
      normalBalance: r.normal_balance,
      debits: r.debits,
      credits: r.credits,
      balance: r.balance,
    })),
  };
}
