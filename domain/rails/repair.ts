/**
 * Rail payments recorded pending whose workflow never started: the API process died between the
 * payment's commit and the start, and no retry of the request took its key over (a retry starts it:
 * domain/rails/start.ts). Nothing was reserved (the workflow reserves). The workers' housekeeping
 * starts them, as it does transfers (domain/transfers/repair.ts); money workflows reject a second run
 * of an id (domain/temporal/start.ts), so a payment whose workflow is running or finished is left as it is.
 */
import { getPool } from '../db/pool';
import { getRailPayment } from './index';
import { startRailPaymentWorkflow } from './workflow';

export async function startOrphanedRailPaymentWorkflows(opts: { olderThanSeconds?: number; limit?: number } = {}): Promise<number> {
  const { rows } = await getPool().query<{ id: string }>(
    // An open-banking payment's rail payment is its workflow's child (same workflow id): that
    // workflow starts it, so the sweep leaves those alone.
    `SELECT r.id FROM rail_payments r
      WHERE r.status = 'pending'
        AND r.created_at < now() - make_interval(secs => $1) AND r.created_at > now() - interval '7 days'
        AND NOT EXISTS (SELECT 1 FROM ob_payments o WHERE o.rail_payment_id = r.id)
      ORDER BY r.created_at LIMIT $2`,
    [opts.olderThanSeconds ?? 120, opts.limit ?? 100],
  );
  let ensured = 0;
  for (const r of rows) {
    const p = await getRailPayment(r.id);
    if (!p || p.status !== 'pending') continue;
    // A refusal leaves it pending for the next round.
    await startRailPaymentWorkflow(p, { failOnRefusal: false })
      .then(() => ensured++)
      .catch(() => undefined);
  }
  return ensured;
}
