/** The lending watch's activity (workflows/defi-lending.ts; domain/defi/lending/liquidation.ts). */
import type pg from 'pg';
import { getPool } from '../../domain/db/pool';
import { watchLendingPositions, type WatchResult } from '../../domain/defi/lending/liquidation';

export function createLendingActivities(deps: { pool?: pg.Pool } = {}) {
  return {
    /** Idempotent per run: each position's liquidation is keyed by (position, runId). */
    async lendingWatch(input: { asOfMs: number; runId: string }): Promise<WatchResult> {
      return watchLendingPositions({ asOf: new Date(input.asOfMs), runId: input.runId }, deps.pool ?? getPool());
    },
  };
}

export type LendingActivities = ReturnType<typeof createLendingActivities>;
