/**
 * system.rate_limit_warning: written when a request takes a credential across 80 % of one of its
 * rate-limit windows (domain/platform/rate-limiter.ts reports the crossing), at most once per
 * credential, window size and window (rate_limit_warnings is the once-only guard, shared by every
 * API process). Only the crossing request pays for the insert; others never reach this module.
 */
import { withTransaction } from '../db/pool';
import { writeOutboxEvent } from '../events/outbox';
import type { Environment } from './environment';
import type { LimitResult } from './rate-limiter';

export interface WarnedCredential {
  credentialId: string;
  kind: 'api_key' | 'session' | 'oauth';
  userId: string;
  environment: Environment;
}

export async function warnRateLimitCrossings(cred: WarnedCredential, crossed: NonNullable<LimitResult['crossed']>): Promise<void> {
  await withTransaction(async (c) => {
    for (const w of crossed) {
      const start = new Date(w.windowStart * 1000);
      const ins = await c.query(
        `INSERT INTO rate_limit_warnings (credential_id, window_seconds, window_start) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING 1`,
        [cred.credentialId, w.windowSeconds, start],
      );
      if (ins.rowCount !== 1) continue;
      await writeOutboxEvent(c, {
        type: 'system.rate_limit_warning',
        environment: cred.environment,
        userId: cred.userId,
        aggregateType: cred.kind,
        aggregateId: cred.credentialId,
        data: {
          credential_id: cred.credentialId,
          credential_type: cred.kind,
          window_seconds: w.windowSeconds,
          limit: w.limit,
          used: w.used,
          threshold_percent: 80,
          window_start: start.toISOString(),
          window_reset_at: new Date((w.windowStart + w.windowSeconds) * 1000).toISOString(),
        },
      });
    }
  });
}
