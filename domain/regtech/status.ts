/**
 * GET /regtech/status: per framework whether it is active on this platform and what it has done
 * in the caller's environment. MiFID II: the caller's transaction reports by status and how many
 * were flagged past their T+1 deadline (domain/regtech/mifid).
 */
import type { Principal } from '../auth/principal';
import { getPool } from '../db/pool';
import { mifidStatus, type MifidStatus } from './mifid/records';
import { sanctionsListStatus } from './sanctions';

export interface RegtechStatus {
  frameworks: {
    travel_rule: { active: boolean; checks: number; compliant: number; non_compliant: number; last_check_at: string | null };
    sanctions: { active: boolean; list: string | null; version: string | null; loaded_at: string | null; age_hours: number | null; entries: number; names: number; hits_last_30_days: number };
    mifid_ii: MifidStatus;
    mica: { active: boolean; checks: number; compliant: number; non_compliant: number; register_issuers: number; register_whitepapers: number };
  };
  checked_at: string;
}

export async function regtechStatus(p: Principal): Promise<RegtechStatus> {
  const pool = getPool();
  const [{ rows: tr }, list, { rows: hits }, { rows: mica }, mifid] = await Promise.all([
    pool.query<{ checks: number; compliant: number; last: Date | null }>(
      `SELECT count(*)::int AS checks, count(*) FILTER (WHERE is_compliant)::int AS compliant, max(checked_at) AS last
         FROM travel_rule_checks WHERE environment = $1 AND user_id = $2`,
      [p.environment, p.userId],
    ),
    sanctionsListStatus(),
    pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM outbox_events WHERE type = 'compliance.violation.detected' AND environment = $1 AND user_id = $2
          AND occurred_at > now() - interval '30 days' AND data->>'framework' IS DISTINCT FROM 'mifid_ii'`,
      [p.environment, p.userId],
    ),
    pool.query<{ checks: number; compliant: number; issuers: number; papers: number }>(
      `SELECT (SELECT count(*)::int FROM mica_checks WHERE environment = $1 AND user_id = $2) AS checks,
              (SELECT count(*)::int FROM mica_checks WHERE environment = $1 AND user_id = $2 AND is_compliant) AS compliant,
              (SELECT count(*)::int FROM mica_issuers) AS issuers, (SELECT count(*)::int FROM mica_whitepapers) AS papers`,
      [p.environment, p.userId],
    ),
    mifidStatus(p),
  ]);
  const t = tr[0];
  return {
    frameworks: {
      travel_rule: { active: true, checks: t.checks, compliant: t.compliant, non_compliant: t.checks - t.compliant, last_check_at: t.last?.toISOString() ?? null },
      sanctions: {
        active: list !== null,
        list: list?.source ?? null,
        version: list?.version ?? null,
        loaded_at: list?.loadedAt.toISOString() ?? null,
        age_hours: list ? Math.round(((Date.now() - list.loadedAt.getTime()) / 3_600_000) * 100) / 100 : null,
        entries: list?.entryCount ?? 0,
        names: list?.nameCount ?? 0,
        hits_last_30_days: hits[0].n,
      },
      mifid_ii: mifid,
      mica: { active: true, checks: mica[0].checks, compliant: mica[0].compliant, non_compliant: mica[0].checks - mica[0].compliant, register_issuers: mica[0].issuers, register_whitepapers: mica[0].papers },
    },
    checked_at: new Date().toISOString(),
  };
}
