import { expect } from 'vitest';
import { getBasket, reserveTarget } from '../../domain/baskets';
import { getPool } from '../../domain/db/pool';
import type { Environment } from '../../domain/platform/environment';
import { DecimalMoney as D } from '../../domain/money/amount';
import type { TestApp } from '../helpers/app';

/** Deposits into an account every component of GCU, enough for `units` GCU (sandbox deposits settle at once). */
export async function fundComponents(t: TestApp, headers: Record<string, string>, accountId: string, amounts: Record<string, string>): Promise<void> {
  for (const [asset_code, amount] of Object.entries(amounts)) {
    const r = await t.app.inject({ method: 'POST', url: `/api/v2/accounts/${accountId}/deposit`, headers, payload: { amount, asset_code } });
    expect(r.statusCode, r.body).toBe(201);
  }
}

/** Generous funding for about `units` GCU (USD 0.385, EUR 0.25463, GBP 0.086614, CHF 0.097345, JPY 16.418, XAU 0.000041509 per unit). */
export function gcuFunding(units: number): Record<string, string> {
  const per = { USD: 0.39, EUR: 0.26, GBP: 0.09, CHF: 0.1, JPY: 17, XAU: 0.00005 } as const;
  const prec = { USD: 2, EUR: 2, GBP: 2, CHF: 2, JPY: 0, XAU: 4 } as const;
  return Object.fromEntries(
    Object.entries(per).map(([k, v]) => [k, new D(v).times(units).toDecimalPlaces(prec[k as keyof typeof prec], D.ROUND_UP).plus(new D(1).div(new D(10).pow(prec[k as keyof typeof prec]))).toFixed(prec[k as keyof typeof prec])]),
  );
}

/** Posted balance of an internal ledger account by code and asset ('0' when not opened yet). */
export async function internalBalance(environment: Environment, code: string, assetCode: string): Promise<string> {
  const { rows } = await getPool().query<{ b: string }>(
    `SELECT (CASE WHEN normal_balance = 'credit' THEN credits_posted - debits_posted ELSE debits_posted - credits_posted END)::text AS b
       FROM ledger_accounts WHERE environment = $1 AND code = $2 AND asset_code = $3`,
    [environment, code, assetCode],
  );
  return rows[0] ? new D(rows[0].b).toFixed() : '0';
}

/**
 * The reserve rule: every component's reserve holds exactly ceil(outstanding × amount) at the
 * component's precision, and the issuance account holds the outstanding units, which equal the
 * basket units held outside it (customer accounts, and fees paid in the basket asset).
 */
export async function expectReserveInvariant(environment: Environment, code = 'GCU'): Promise<void> {
  const basket = await getBasket(code, environment);
  const { rows: precs } = await getPool().query<{ code: string; precision: number }>('SELECT code, precision FROM assets');
  const precision = new Map(precs.map((r) => [r.code, r.precision]));
  for (const c of basket.components) {
    const held = await internalBalance(environment, `basket_reserve:${code}`, c.assetCode);
    expect(new D(held).eq(reserveTarget(basket.outstanding, c.amount, precision.get(c.assetCode)!)), `${c.assetCode} reserve ${held} for ${basket.outstanding} units`).toBe(true);
  }
  expect(new D(await internalBalance(environment, `basket_issuance:${code}`, code)).eq(basket.outstanding)).toBe(true);
  // Units outside the issuance account (customers', and fees a GCU transfer paid) are the outstanding ones.
  const { rows } = await getPool().query<{ s: string | null }>(
    `SELECT sum(credits_posted - debits_posted)::text AS s FROM ledger_accounts
      WHERE environment = $1 AND asset_code = $2 AND code IS DISTINCT FROM $3`,
    [environment, code, `basket_issuance:${code}`],
  );
  expect(new D(rows[0].s ?? '0').eq(basket.outstanding)).toBe(true);
}
