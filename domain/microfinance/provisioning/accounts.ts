/**
 * The two internal ledger accounts of provisioning, per environment and currency: the loan-loss
 * allowance (credit-normal, a contra-asset to the loan book) and the provision expense
 * (debit-normal, an income-statement charge). The daily run moves the difference between them.
 */
import { getPool, type Queryable } from '../../db/pool';
import { internalLedgerAccountId } from '../../ledger';
import type { Environment } from '../../platform/environment';

export const ALLOWANCE_ACCOUNT_CODE = 'mf_loan_loss_allowance';
export const PROVISION_EXPENSE_ACCOUNT_CODE = 'mf_provision_expense';

export function allowanceAccountId(environment: Environment, currency: string, client: Queryable = getPool()): Promise<string> {
  return internalLedgerAccountId(
    { environment, assetCode: currency, code: ALLOWANCE_ACCOUNT_CODE, name: `Microfinance loan-loss allowance ${currency}`, normalBalance: 'credit' },
    client,
  );
}

export function provisionExpenseAccountId(environment: Environment, currency: string, client: Queryable = getPool()): Promise<string> {
  return internalLedgerAccountId(
    { environment, assetCode: currency, code: PROVISION_EXPENSE_ACCOUNT_CODE, name: `Microfinance provision expense ${currency}`, normalBalance: 'debit' },
    client,
  );
}

/** Posted allowance balance (credits − debits) of an environment and currency at the currency's precision; 0 before the first run. */
export async function allowanceBalance(environment: Environment, currency: string, client: Queryable = getPool()): Promise<string> {
  const { rows } = await client.query<{ balance: string }>(
    `SELECT round(la.credits_posted - la.debits_posted, a.precision)::text AS balance
     FROM ledger_accounts la JOIN assets a ON a.code = la.asset_code
     WHERE la.environment = $1 AND la.asset_code = $2 AND la.code = $3`,
    [environment, currency, ALLOWANCE_ACCOUNT_CODE],
  );
  return rows[0]?.balance ?? '0';
}

/** Currencies of an environment that have active loans or an allowance account (which a run may need to release). */
export async function provisioningCurrencies(environment: Environment, client: Queryable = getPool()): Promise<string[]> {
  const { rows } = await client.query<{ currency: string }>(
    `SELECT currency FROM mf_loans WHERE environment = $1 AND status = 'active'
     UNION
     SELECT asset_code FROM ledger_accounts WHERE environment = $1 AND kind = 'internal' AND code = $2
     ORDER BY 1`,
    [environment, ALLOWANCE_ACCOUNT_CODE],
  );
  return rows.map((r) => r.currency);
}
