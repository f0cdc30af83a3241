/** Reading stored Travel Rule checks: by id for their owner, and the latest passing one of a transfer. */
import type { Principal } from '../../auth/principal';
import { getPool, type Queryable } from '../../db/pool';
import { DecimalMoney as D } from '../../money/amount';
import type { Environment } from '../../platform/environment';
import { DomainError } from '../../platform/errors';
import type { TravelRuleCheck } from './check';

type Row = Record<string, any>;

function toCheck(r: Row): TravelRuleCheck {
  return {
    id: r.id,
    environment: r.environment,
    userId: r.user_id,
    transferId: r.transfer_id,
    jurisdiction: r.jurisdiction,
    amount: new D(r.amount).toFixed(),
    currency: r.currency,
    amountUsd: new D(r.amount_usd).toFixed(2),
    usdRate: new D(r.usd_rate).toFixed(),
    usdRateAsOf: r.usd_rate_as_of,
    threshold: r.threshold,
    exceedsThreshold: r.exceeds_threshold,
    fullIdentificationRequired: r.full_identification_required,
    isCompliant: r.is_compliant,
    riskLevel: r.risk_level,
    originatorVerified: r.originator_verified,
    beneficiaryVerified: r.beneficiary_verified,
    sanctions: r.sanctions,
    complianceIssues: r.compliance_issues,
    recommendations: r.recommendations,
    ivms101: r.ivms101,
    checkedAt: r.checked_at,
    validUntil: r.valid_until,
  };
}

/** The caller's check in the caller's environment, else CHECK_NOT_FOUND. */
export async function getOwnTravelRuleCheck(p: Principal, id: string): Promise<TravelRuleCheck> {
  const { rows } = await getPool().query<Row>('SELECT * FROM travel_rule_checks WHERE id = $1 AND user_id = $2 AND environment = $3', [id, p.userId, p.environment]);
  if (!rows[0]) throw new DomainError('CHECK_NOT_FOUND', 'Travel Rule check not found');
  return toCheck(rows[0]);
}

/** The newest compliant, still valid check of a transfer (what a workflow waits for), or null. */
export async function latestPassingCheck(transferId: string, environment: Environment, at: Date = new Date(), c: Queryable = getPool()): Promise<TravelRuleCheck | null> {
  const { rows } = await c.query<Row>(
    `SELECT * FROM travel_rule_checks WHERE transfer_id = $1 AND environment = $2 AND is_compliant AND valid_until > $3 ORDER BY checked_at DESC LIMIT 1`,
    [transferId, environment, at],
  );
  return rows[0] ? toCheck(rows[0]) : null;
}

/** The newest check of a transfer, passing or not (for a waiting workflow's failure reason), or null. */
export async function latestCheck(transferId: string, environment: Environment, c: Queryable = getPool()): Promise<TravelRuleCheck | null> {
  const { rows } = await c.query<Row>(`SELECT * FROM travel_rule_checks WHERE transfer_id = $1 AND environment = $2 ORDER BY checked_at DESC LIMIT 1`, [transferId, environment]);
  return rows[0] ? toCheck(rows[0]) : null;
}
