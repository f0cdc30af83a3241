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
  if (compareAmounts(usd, limits.reviewThresholdUsd) >= 0) {
    return { decision: 'review', reason: `Amount of ${usd} USD is at or above the review threshold`, usd_equivalent: usd };
  }
  return { decision: 'approve', reason: 'Within limits', usd_equivalent: usd };
}
