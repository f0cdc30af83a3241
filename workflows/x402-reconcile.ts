import { log, proxyActivities, upsertSearchAttributes } from '@temporalio/workflow';
import type { X402Activities } from '../activities/x402';
import type { ReconcileReport } from '../domain/x402/reconcile';
import { SA } from '../domain/temporal/search-attributes';
import { dueAt } from './scheduled';

const { reconcileX402Settlements } = proxyActivities<X402Activities>({
  startToCloseTimeout: '4 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 5 },
});


/**
 * Run every 5 minutes by the 'x402-settlement-reconcile' schedule (domain/x402/reconcile.ts):
 * production payments stuck 'settling' are settled or failed from the chain's state, as of the
 * instant the run was due (or started, for a manual run). Payments it had to leave (no JSON-RPC
 * URL for their network, a node that did not answer) are logged and show in BusinessStatus.
 */
export async function x402ReconcileWorkflow(): Promise<ReconcileReport> {
  const at = dueAt();
  const report = await reconcileX402Settlements({ asOfMs: at.getTime() });
  if (report.unconfigured > 0) log.warn('x402 settlements left unreconciled: no JSON-RPC URL (X402_RPC_URLS)', { networks: report.unconfigured_networks, payments: report.unconfigured });
  if (report.errors > 0) log.warn('x402 settlements left unreconciled: the node did not answer', { payments: report.errors });
  const status = report.unconfigured > 0 ? 'rpc_not_configured' : report.errors > 0 ? 'rpc_errors' : report.examined > 0 ? 'reconciled' : 'nothing_pending';
  upsertSearchAttributes([{ key: SA.businessStatus, value: status }] as never);
  return report;
}
