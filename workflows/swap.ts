import { log, patched, proxyActivities, proxyLocalActivities, sleep, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { DefiActivities } from '../activities/defi';
import { failureOf } from '../domain/temporal/failures';
import { SA } from '../domain/temporal/search-attributes';

export interface SwapWorkflowInput {
  swapId: string;
}

export interface SwapWorkflowResult {
  swap_id: string;
  status: 'completed' | 'failed';
  failure?: { code: string; reason: string };
  compensated?: boolean;
}

const options = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '200 ms', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 20 },
} as const;
const acts = proxyActivities<DefiActivities>(options);
/**
 * The steps that only touch our database (check, reserve, compensate) run as local
 * activities since this patch: in the workflow task that reaches them, recorded as markers, with
 * no activity task through the server (docs/operations.md, "Workflow shape and throughput"). Each is
 * one idempotent transaction keyed by workflow id and step, so a rerun after a lost workflow task
 * moves nothing twice. Submitting, polling and settling (it reads the receipt) stay regular activities.
 */
const local = proxyLocalActivities<DefiActivities>(options);
export const SWAP_LOCAL_STEPS_PATCH = 'swap-local-steps';

class SwapFailure {
  constructor(
    readonly code: string,
    readonly reason: string,
  ) {}
}

/**
 * check quote and deadline -> reserve token_in (pending entry) -> submit (gas cap) -> wait for
 * inclusion (block by block, until the deadline) -> execute against the pools at their current
 * reserves, check the minimum output, settle in one entry -> completed. Quote expired, deadline
 * passed, gas above the cap, insufficient funds, reverted, dropped or slippage exceeded: the
 * reservation is voided with the reason (pools were never touched).
 */
export async function swapWorkflow(input: SwapWorkflowInput): Promise<SwapWorkflowResult> {
  const workflowId = workflowInfo().workflowId;
  const base = { swapId: input.swapId, workflowId };
  const setStatus = (status: string) => upsertSearchAttributes([{ key: SA.businessStatus, value: status }] as never);
  const db = patched(SWAP_LOCAL_STEPS_PATCH) ? local : acts;
  try {
    const plan = await db.checkSwap({ ...base, nowMs: Date.now() });
    await db.reserveSwap({ ...base, nowMs: Date.now() });
    setStatus('reserved');
    await acts.submitSwap({ ...base, nowMs: Date.now() });
    setStatus('submitted');
    for (;;) {
      const tx = await acts.pollSwapTx({ ...base, nowMs: Date.now() });
      if (tx.status === 'included' || tx.status === 'finalized') break;
      if (tx.status === 'reverted') throw new SwapFailure('TX_REVERTED', `the transaction reverted on chain (${tx.failureReason ?? 'execution reverted'})`);
      if (tx.status === 'dropped') throw new SwapFailure('TX_DROPPED', tx.failureReason ?? 'the transaction was dropped without being included');
      const left = plan.deadlineMs - Date.now();
      if (left <= 0) throw new SwapFailure('DEADLINE_PASSED', 'the transaction was not included before the deadline; the router would refuse it after that');
      await sleep(Math.min(plan.blockTimeMs, left));
    }
    setStatus('included');
    const r = await acts.settleSwap({ ...base, nowMs: Date.now() });
    if (!r.ok) throw new SwapFailure(r.code ?? 'SWAP_FAILED', r.reason ?? 'the swap failed');
    setStatus('completed');
    return { swap_id: input.swapId, status: 'completed' };
  } catch (err) {
    const f = err instanceof SwapFailure ? err : asFailure(err);
    log.warn('swap failed', { swapId: input.swapId, code: f.code });
    const { compensated } = await db.compensateSwap({ ...base, code: f.code, reason: f.reason });
    setStatus('failed');
    return { swap_id: input.swapId, status: 'failed', failure: { code: f.code, reason: f.reason }, compensated };
  }
}

function asFailure(err: unknown): SwapFailure {
  const f = failureOf(err, 'SWAP_FAILED');
  return new SwapFailure(f.code, f.reason);
}
