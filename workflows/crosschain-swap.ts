import { executeChild, log, proxyActivities, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { DefiActivities } from '../activities/defi';
import type { ChildStart } from '../domain/defi/swaps/crosschain';
import type { SandboxOutcome } from '../domain/defi/swaps';
import { failureOf } from '../domain/temporal/failures';
import { SA } from '../domain/temporal/search-attributes';
import { bridgeTransferWorkflow } from './bridge-transfer';
import { swapWorkflow } from './swap';

export interface CrosschainSwapWorkflowInput {
  crosschainSwapId: string;
  /** Sandbox only: what the sandbox chain does with the swap leg's transaction. */
  sandboxOutcome?: SandboxOutcome | null;
}

export interface CrosschainSwapResult {
  crosschain_swap_id: string;
  status: 'completed' | 'failed';
  failure?: { code: string; reason: string };
  compensated?: boolean;
}

const acts = proxyActivities<DefiActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '200 ms', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 20 },
});

/** The platform's search attributes for a child, as startMoneyWorkflow sets them for top-level workflows. */
function childAttributes(c: ChildStart, idKey: typeof SA.transferId) {
  return [
    { key: idKey, value: c.recordId },
    { key: SA.accountIds, value: [c.accountId] },
    { key: SA.assetCode, value: c.assetCode },
    { key: SA.amount, value: c.amount },
    { key: SA.businessStatus, value: 'pending' },
    { key: SA.environment, value: c.environment },
    { key: SA.userId, value: c.userId },
    { key: SA.chain, value: c.chain },
  ] as never;
}

function reasonOf(err: unknown): { code: string; reason: string } {
  return failureOf(err, 'FAILED');
}

/**
 * bridge (child bridgeTransferWorkflow) -> swap on the destination chain (child swapWorkflow) ->
 * completed. The bridge failing refunds itself. The swap failing after the bridge completed is
 * compensated: a second bridge carries the tokens back and the two bridges' fees are refunded,
 * so the customer holds the original amount on the original chain.
 */
export async function crosschainSwapWorkflow(input: CrosschainSwapWorkflowInput): Promise<CrosschainSwapResult> {
  const id = input.crosschainSwapId;
  const base = { crosschainSwapId: id, workflowId: workflowInfo().workflowId };
  const setStatus = (status: string) => upsertSearchAttributes([{ key: SA.businessStatus, value: status }] as never);
  const fail = async (code: string, reason: string, compensated: boolean): Promise<CrosschainSwapResult> => {
    log.warn('cross-chain swap failed', { id, code });
    await acts.finishCrosschainSwap({ ...base, outcome: { status: 'failed', code, reason, compensated } });
    setStatus('failed');
    return { crosschain_swap_id: id, status: 'failed', failure: { code, reason }, compensated };
  };

  // Leg 1: bridge.
  let out: ChildStart;
  try {
    out = await acts.startOutboundBridge({ ...base, nowMs: Date.now() });
  } catch (err) {
    const f = reasonOf(err);
    return fail(f.code, `the bridge could not be started: ${f.reason}`, true);
  }
  setStatus('bridging');
  const b = await executeChild(bridgeTransferWorkflow, { workflowId: out.workflowId, args: [{ transferId: out.recordId }], typedSearchAttributes: childAttributes(out, SA.transferId) });
  if (b.status !== 'completed') {
    return fail(b.failure?.code ?? 'BRIDGE_FAILED', `the bridge failed and refunded itself: ${b.failure?.reason ?? 'unknown'}`, true);
  }

  // Leg 2: swap what arrived.
  setStatus('swapping');
  const leg = await acts.prepareCrosschainSwapLeg({ ...base, nowMs: Date.now(), sandboxOutcome: input.sandboxOutcome ?? null });
  let swapFailure: { code: string; reason: string };
  if (leg.ok) {
    const s = await executeChild(swapWorkflow, { workflowId: leg.child.workflowId, args: [{ swapId: leg.child.recordId }], typedSearchAttributes: childAttributes(leg.child, SA.operationId) });
    if (s.status === 'completed') {
      await acts.finishCrosschainSwap({ ...base, outcome: { status: 'completed' } });
      setStatus('completed');
      return { crosschain_swap_id: id, status: 'completed' };
    }
    swapFailure = s.failure ?? { code: 'SWAP_FAILED', reason: 'the swap failed' };
  } else {
    swapFailure = { code: leg.code, reason: leg.reason };
  }

  // Compensation: bridge back, then refund both bridges' fees.
  setStatus('returning');
  let back: ChildStart;
  try {
    back = await acts.startReturnBridge({ ...base, nowMs: Date.now() });
  } catch (err) {
    const f = reasonOf(err);
    return fail('COMPENSATION_FAILED', `the swap failed (${swapFailure.code}: ${swapFailure.reason}) and the return bridge could not be started (${f.code}: ${f.reason}); the bridged tokens stay on the destination chain book`, false);
  }
  const r = await executeChild(bridgeTransferWorkflow, { workflowId: back.workflowId, args: [{ transferId: back.recordId }], typedSearchAttributes: childAttributes(back, SA.transferId) });
  if (r.status !== 'completed') {
    return fail('COMPENSATION_FAILED', `the swap failed (${swapFailure.code}: ${swapFailure.reason}) and the return bridge failed (${r.failure?.code}: ${r.failure?.reason}); the bridged tokens stay on the destination chain book`, false);
  }
  const refunded = await acts.refundCrosschainBridgeFees(base);
  return fail(swapFailure.code, `the swap failed (${swapFailure.reason}); the bridged tokens were bridged back and the bridge fees (${refunded}) refunded`, true);
}
