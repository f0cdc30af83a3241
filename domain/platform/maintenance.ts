import { listAssets } from '../assets';
import { voidExpiredPending } from '../ledger';
import { pruneOutbox } from '../events/relay';
import { startOrphanedTransferWorkflows } from '../transfers/repair';
import { startOrphanedRailPaymentWorkflows } from '../rails/repair';

/**
 * Housekeeping every worker process runs: pending ledger entries past their timeout void
 * themselves (releasing reserved funds), transfers and rail payments whose workflow never started
 * get it started,
 * and published outbox rows and consumer receipts past
 * their retention are pruned. Returns a stop function.
 */
export function startMaintenance(intervalMs = 60_000): () => void {
  let running = false;
  const tick = async () => {
    if (running) return;
    running = true;
    try {
      await voidExpiredPending({ limit: 500 });
      await startOrphanedTransferWorkflows();
      await startOrphanedRailPaymentWorkflows();
      await pruneOutbox();
    } catch {
      // The next tick retries; a database outage must not kill the worker.
    } finally {
      running = false;
    }
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  void tick();
  return () => clearInterval(timer);
}

/**
 * Loads caches that code inside a database transaction would otherwise fill through a second
 * pool connection — which, with the embedded single-connection database, would wait forever.
 */
export async function warmCaches(): Promise<void> {
  await listAssets();
}
