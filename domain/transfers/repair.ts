/**
 * Transfers recorded pending whose workflow never started: the API process died between the
 * commit of the row and the start (nothing was reserved: the workflow reserves). Found by the chaos
 * test. The workers' housekeeping starts them; the workflow id is the transfer's and money workflows
 * reject a second run of an id (domain/temporal/start.ts), so a transfer whose workflow is running
 * or finished is left as it is.
 */
import { getPool } from '../db/pool';
import { getTransfer } from './records';
import { startTransferWorkflow } from './workflow';

export async function startOrphanedTransferWorkflows(opts: { olderThanSeconds?: number; limit?: number } = {}): Promise<number> {
  const { rows } = await getPool().query<{ id: string }>(
    `SELECT id FROM transfers
      WHERE status = 'pending' AND workflow_id IS NOT NULL
        AND created_at < now() - make_interval(secs => $1) AND created_at > now() - interval '7 days'
      ORDER BY created_at LIMIT $2`,
    [opts.olderThanSeconds ?? 120, opts.limit ?? 100],
  );
  let ensured = 0;
  for (const r of rows) {
    const t = await getTransfer(r.id);
    if (!t || t.status !== 'pending') continue;
    // A refusal leaves it pending for the next round.
    await startTransferWorkflow(t, { failOnRefusal: false })
      .then(() => ensured++)
      .catch(() => undefined);
  }
  return ensured;
}
