/** Loan products (Fineract "loan products"): operators define them; customers see the active ones. */
import type { Principal } from '../auth/principal';
import { getAsset } from '../assets';
import { getPool, type Queryable } from '../db/pool';
import { compareAmounts, parseRequestAmount } from '../money/amount';
import type { Environment } from '../platform/environment';
import { DomainError } from '../platform/errors';
import { newId } from '../platform/ids';
import type { InterestMethod, RepaymentFrequency } from './schedule';

export interface LoanProduct {
  id: string;
  environment: Environment;
  name: string;
  currency: string;
  principalMin: string;
  principalMax: string;
  annualInterestRate: string;
  interestMethod: InterestMethod;
  termInstalments: number;
  repaymentFrequency: RepaymentFrequency;
  graceInstalments: number;
  arrearsToleranceDays: number;
  disbursementFee: string;
  status: 'active' | 'retired';
  createdAt: Date;
}

export interface LoanProductInput {
  name: string;
  currency: string;
  principalMin: string;
  principalMax: string;
  annualInterestRate: string;
  interestMethod: InterestMethod;
  termInstalments: number;
  repaymentFrequency: RepaymentFrequency;
  graceInstalments?: number;
  arrearsToleranceDays?: number;
  disbursementFee?: string;
}

const COLUMNS = `p.id, p.environment, p.name, p.currency, round(p.principal_min, a.precision)::text AS principal_min,
  round(p.principal_max, a.precision)::text AS principal_max, trim_scale(p.annual_interest_rate)::text AS annual_interest_rate,
  p.interest_method, p.term_instalments, p.repayment_frequency, p.grace_instalments, p.arrears_tolerance_days,
  round(p.disbursement_fee, a.precision)::text AS disbursement_fee, p.status, p.created_at`;
const FROM = 'mf_loan_products p JOIN assets a ON a.code = p.currency';

type Row = {
  id: string; environment: Environment; name: string; currency: string; principal_min: string; principal_max: string; annual_interest_rate: string;
  interest_method: InterestMethod; term_instalments: number; repayment_frequency: RepaymentFrequency; grace_instalments: number;
  arrears_tolerance_days: number; disbursement_fee: string; status: 'active' | 'retired'; created_at: Date;
};
const toProduct = (r: Row): LoanProduct => ({
  id: r.id, environment: r.environment, name: r.name, currency: r.currency, principalMin: r.principal_min, principalMax: r.principal_max,
  annualInterestRate: r.annual_interest_rate, interestMethod: r.interest_method, termInstalments: r.term_instalments,
  repaymentFrequency: r.repayment_frequency, graceInstalments: r.grace_instalments, arrearsToleranceDays: r.arrears_tolerance_days,
  disbursementFee: r.disbursement_fee, status: r.status, createdAt: r.created_at,
});

/** Operator: defines a product in the credential's environment. */
export async function createLoanProduct(p: Principal, input: LoanProductInput): Promise<LoanProduct> {
  const asset = await getAsset(input.currency.toUpperCase());
  if (!asset) throw new DomainError('UNKNOWN_ASSET', `Asset ${input.currency} is not supported`, '/currency');
  const min = parseRequestAmount(input.principalMin, asset, '/principal_min');
  const max = parseRequestAmount(input.principalMax, asset, '/principal_max');
  if (compareAmounts(max, min) < 0) throw new DomainError('VALIDATION_ERROR', 'principal_max must be at least principal_min', '/principal_max');
  const fee = input.disbursementFee === undefined || input.disbursementFee === '0' ? '0' : parseRequestAmount(input.disbursementFee, asset, '/disbursement_fee');
  const rate = input.annualInterestRate;
  if (!/^[0-9]+(\.[0-9]{1,8})?$/.test(rate) || compareAmounts(rate, '10') > 0) {
    throw new DomainError('VALIDATION_ERROR', 'annual_interest_rate is a decimal string between 0 and 10 (0.12 = 12 %), at most 8 decimals', '/annual_interest_rate');
  }
  const grace = input.graceInstalments ?? 0;
  if (grace >= input.termInstalments) throw new DomainError('VALIDATION_ERROR', 'grace_instalments must be below term_instalments', '/grace_instalments');
  const id = newId('mflp');
  await getPool().query(
    `INSERT INTO mf_loan_products (id, environment, name, currency, principal_min, principal_max, annual_interest_rate, interest_method,
       term_instalments, repayment_frequency, grace_instalments, arrears_tolerance_days, disbursement_fee)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
    [id, p.environment, input.name.trim(), asset.code, min, max, rate, input.interestMethod, input.termInstalments, input.repaymentFrequency,
      grace, input.arrearsToleranceDays ?? 0, fee],
  );
  return (await getLoanProduct(p, id))!;
}

/** A product of the environment; customers see only active ones (a retired one is 404 to them). */
export async function getLoanProduct(p: Principal, id: string, client: Queryable = getPool()): Promise<LoanProduct> {
  const { rows } = await client.query<Row>(
    `SELECT ${COLUMNS} FROM ${FROM} WHERE p.id = $1 AND p.environment = $2 AND ($3 OR p.status = 'active')`,
    [id, p.environment, p.isAdmin],
  );
  if (!rows[0]) throw new DomainError('MF_LOAN_PRODUCT_NOT_FOUND', `Loan product ${id} not found`, '/product_id');
  return toProduct(rows[0]);
}

export async function listLoanProducts(p: Principal, page: { limit: number; offset: number }): Promise<{ items: LoanProduct[]; total: number }> {
  const pool = getPool();
  const where = `p.environment = $1 AND ($2 OR p.status = 'active')`;
  const { rows } = await pool.query<Row>(`SELECT ${COLUMNS} FROM ${FROM} WHERE ${where} ORDER BY p.created_at DESC, p.id DESC LIMIT $3 OFFSET $4`, [p.environment, p.isAdmin, page.limit, page.offset]);
  const { rows: n } = await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM mf_loan_products p WHERE ${where}`, [p.environment, p.isAdmin]);
  return { items: rows.map(toProduct), total: n[0].n };
}
