/** The settlement reconciliation's activity (workflows/x402-reconcile.ts; domain/x402/reconcile.ts). */
import type pg from 'pg';
import { getPool } from '../../domain/db/pool';
import { reconcileSettlingPayments, type ReconcileReport } from '../../domain/x402/reconcile';

export function createX402Activities(deps: { pool?: pg.Pool } = {}) {
  return {
    /** Idempotent: each payment is decided under its row lock while still 'settling', its entry keyed by its authorization. */
    async reconcileX402Settlements(input: { asOfMs: number }): Promise<ReconcileReport> {
      return reconcileSettlingPayments({ asOf: new Date(input.asOfMs) }, deps.pool ?? getPool());
    },
  };
}

export type X402Activities = ReturnType<typeof createX402Activities>;
