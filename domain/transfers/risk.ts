import Decimal from 'decimal.js';
import type { Queryable } from '../db/pool';
import { usdEquivalent } from '../rates';
import { compareAmounts } from '../money/amount';
import type { Transfer } from './index';

export interface RiskDecision {
  decision: 'approve' | 'review' | 'reject';
  reason: string;
  usd_equivalent: string;
}

export interface RiskLimits {
  /** A transfer at or above this USD value waits for an operator's review. */
  reviewThresholdUsd: string;
  /** Outgoing transfers of one account over the last 24 hours may not exceed this USD value. */
  dailyLimitUsd: string;
}

export function riskLimits(): RiskLimits {
  return {
    reviewThresholdUsd: process.env.TRANSFER_REVIEW_THRESHOLD_USD ?? '10000',
    dailyLimitUsd: process.env.TRANSFER_DAILY_LIMIT_USD ?? '250000',
  };
}

/**
 * The risk score of a movement, in [0, 1]: its USD value as a share of the review threshold, capped
 * at 1; 1 when it carries a compliance flag. A transfer scoring 1 waits for review (assessRisk).
 * riskScoreSql is the same rule for a query over many rows (domain/ai): keep the two together.
 */
export function riskScore(usd: string, flagged: boolean, limits = riskLimits()): number {
  // The decision is exact (decimal comparison); below the threshold the score is a display ratio.
  if (flagged || compareAmounts(usd, limits.reviewThresholdUsd) >= 0) return 1;
  return Math.min(0.9999, Math.max(0, Math.round((Number(usd) / Number(limits.reviewThresholdUsd)) * 10_000) / 10_000));
}

/**
 * riskScore in SQL over a USD value in cents (a bigint expression) and a flag expression; `p` binds
 * the threshold. The boundary is exact (cents against the threshold's cents rounded up); below it
 * the display ratio is computed in float8, as riskScore does, which is fast over many rows.
 */
export function riskScoreSql(usdCents: string, flagged: string, p: (v: unknown) => string, limits = riskLimits()): string {
  const cents = new Decimal(limits.reviewThresholdUsd).times(100);
  const at = p(cents.ceil().toFixed(0));
  const ratio = p(cents.toNumber());
  return `(CASE WHEN ${flagged} OR ${usdCents} >= ${at}::bigint THEN 1::float8 WHEN ${usdCents} IS NULL THEN 0::float8
           ELSE least(0.9999, floor(${usdCents}::float8 / ${ratio}::float8 * 10000 + 0.5) / 10000) END)`;
}

/**
 * Limits and risk for a workflow transfer, after its funds are reserved: the account's rolling
 * 24-hour outgoing volume (completed and in-flight transfers, in USD) against the daily limit,
 * then the review threshold for large single transfers.
 */
export async function assessRisk(t: Transfer, client: Queryable, limits = riskLimits()): Promise<RiskDecision> {
  const usd = await usdEquivalent(t.assetCode, t.amount, client);
  const { rows } = await client.query<{ asset_code: string; total: string }>(
    `SELECT asset_code, sum(amount)::text AS total FROM transfers
      WHERE from_account_id = $1 AND id <> $2 AND status IN ('pending', 'pending_review', 'completed')
        AND created_at > now() - interval '24 hours'
      GROUP BY asset_code`,
    [t.fromAccountId, t.id],
  );
  let dayUsd = usd;
  for (const r of rows) {
    const v = await usdEquivalent(r.asset_code, r.total, client);
    dayUsd = (await client.query<{ s: string }>('SELECT ($1::numeric + $2::numeric)::text AS s', [dayUsd, v])).rows[0].s;
  }
  if (compareAmounts(dayUsd, limits.dailyLimitUsd) > 0) {
    return {
      decision: 'reject',
      reason: `Daily outgoing limit of ${limits.dailyLimitUsd} USD exceeded (24-hour total would be ${dayUsd} USD)`,
      usd_equivalent: usd,
    };
  }
  if (riskScore(usd, false, limits) >= 1) {
    return { decision: 'review', reason: `Amount of ${usd} USD is at or above the review threshold`, usd_equivalent: usd };
  }
  return { decision: 'approve', reason: 'Within limits', usd_equivalent: usd };
}
