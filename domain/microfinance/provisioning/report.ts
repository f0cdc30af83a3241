/**
 * The portfolio report (GET /reports/portfolio, operators): per currency of the caller's
 * environment, the gross portfolio (outstanding principal of active loans), PAR30 and PAR90 as of
 * a date (live days past due, ecl.ts), and the booked allowance by stage and loans by stage from the
 * latest provisioning run (mf_loan_provisions), beside the allowance account's ledger balance.
 */
import { getPool, type Queryable } from '../../db/pool';
import { DecimalMoney } from '../../money/amount';
import type { Environment } from '../../platform/environment';
import { allowanceBalance, provisioningCurrencies } from './accounts';
import { daysPastDue, portfolioAtRisk, roundMinor, STAGE_2_DPD, STAGE_3_DPD, STAGES, type Stage } from './ecl';
import { activeLoanFacts } from './facts';

export interface CurrencyPortfolio {
  currency: string;
  activeLoans: number;
  grossPortfolio: string;
  par30: string;
  par90: string;
  par30Amount: string;
  par90Amount: string;
  /** Booked by the latest run (null before the first). */
  provisionedOn: string | null;
  allowanceBalance: string;
  allowanceByStage: Record<Stage, string>;
  loansByStage: Record<Stage, number>;
}

export async function portfolioReport(environment: Environment, asOf: string, client: Queryable = getPool()): Promise<CurrencyPortfolio[]> {
  const out: CurrencyPortfolio[] = [];
  for (const currency of await provisioningCurrencies(environment, client)) {
    const { rows: a } = await client.query<{ precision: number }>('SELECT precision FROM assets WHERE code = $1', [currency]);
    const precision = a[0].precision;
    const facts = await activeLoanFacts(environment, currency, asOf, client);
    let gross = new DecimalMoney(0);
    let at30 = new DecimalMoney(0);
    let at90 = new DecimalMoney(0);
    for (const f of facts) {
      const dpd = daysPastDue(asOf, f.oldestUnpaidDueDate);
      gross = gross.plus(f.principalOutstanding);
      if (dpd > STAGE_2_DPD) at30 = at30.plus(f.principalOutstanding);
      if (dpd > STAGE_3_DPD) at90 = at90.plus(f.principalOutstanding);
    }
    const { rows: stages } = await client.query<{ stage: number; loans: number; ecl: string; computed_on: string }>(
      `SELECT p.stage, count(*)::int AS loans, sum(p.ecl)::text AS ecl, max(p.computed_on)::text AS computed_on
       FROM mf_loan_provisions p JOIN mf_loans l ON l.id = p.loan_id
       WHERE l.environment = $1 AND l.currency = $2 AND l.status = 'active' GROUP BY p.stage`,
      [environment, currency],
    );
    const allowanceByStage = Object.fromEntries(STAGES.map((s) => [s, roundMinor('0', precision)])) as Record<Stage, string>;
    const loansByStage = Object.fromEntries(STAGES.map((s) => [s, 0])) as Record<Stage, number>;
    let provisionedOn: string | null = null;
    for (const r of stages) {
      allowanceByStage[r.stage as Stage] = roundMinor(r.ecl, precision);
      loansByStage[r.stage as Stage] = r.loans;
      if (!provisionedOn || r.computed_on > provisionedOn) provisionedOn = r.computed_on;
    }
    out.push({
      currency,
      activeLoans: facts.length,
      grossPortfolio: roundMinor(gross, precision),
      par30: portfolioAtRisk(at30.toFixed(), gross.toFixed()),
      par90: portfolioAtRisk(at90.toFixed(), gross.toFixed()),
      par30Amount: roundMinor(at30, precision),
      par90Amount: roundMinor(at90, precision),
      provisionedOn,
      allowanceBalance: roundMinor(await allowanceBalance(environment, currency, client), precision),
      allowanceByStage,
      loansByStage,
    });
  }
  return out;
}
