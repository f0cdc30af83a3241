import { withTransaction } from '../db/pool';
import { DomainError } from '../platform/errors';
import { getTemporalClient } from '../temporal/client';
import { businessFailureOf } from '../temporal/failures';
import { SA } from '../temporal/search-attributes';
import { startMoneyWorkflow } from '../temporal/start';
import { flashLoanWorkflowId, type FlashLoanRequest, type FlashLoanResult } from './flash-loans';
import { lockSwap, updateSwap, type SandboxOutcome, type Swap } from './swaps/index';
import { finishCrosschainSwap, type CrosschainSwap } from './swaps/crosschain';

/**
 * Starts the swap's workflow (id swap-<id>); if Temporal refuses, the swap fails with nothing moved,
 * unless `failOnRefusal` is false (a replayed request, whose workflow may already be running).
 */
export async function startSwapWorkflow(s: Swap, opts: { failOnRefusal?: boolean } = {}): Promise<void> {
  const failOnRefusal = opts.failOnRefusal ?? true;
  await startMoneyWorkflow({
    workflowType: 'swapWorkflow',
    workflowId: s.workflowId,
    args: [{ swapId: s.id }],
    subject: { id: s.id, accountIds: [s.accountId], assetCode: s.assetIn, amount: s.amountIn, environment: s.environment, userId: s.userId },
    idKey: SA.operationId,
    extraSearchAttributes: [{ key: SA.chain, value: s.chain }],
    onStartFailed: async () => {
      if (!failOnRefusal) return;
      await withTransaction(async (c) => {
        const locked = await lockSwap(c, s.id);
        if (locked.status !== 'pending') return;
        await updateSwap(c, s.id, { status: 'failed', failure_code: 'WORKFLOW_START_FAILED', failure_reason: 'the swap could not be started; nothing was moved', failed_at: 'now' });
      });
    },
  });
}

/**
 * Runs a flash loan's workflow and waits for its result (the loan is one short transaction). A
 * business refusal raised inside the workflow comes back as a DomainError with its code; anything
 * else (Temporal unreachable, the start refused) is rethrown as it is.
 */
export async function runFlashLoanWorkflow(req: FlashLoanRequest): Promise<FlashLoanResult> {
  try {
    const workflowId = flashLoanWorkflowId(req.loanId);
    await startMoneyWorkflow({
      workflowType: 'flashLoanWorkflow',
      workflowId,
      args: [req],
      subject: { id: req.loanId, accountIds: [req.accountId], assetCode: req.token, amount: req.amount, environment: req.environment, userId: req.userId },
      idKey: SA.operationId,
      extraSearchAttributes: [{ key: SA.chain, value: req.chain }],
      onStartFailed: async () => undefined,
    });
    const client = await getTemporalClient();
    return (await client.workflow.getHandle(workflowId).result()) as FlashLoanResult;
  } catch (err) {
    const refusal = businessFailureOf(err);
    if (refusal?.code) throw new DomainError(refusal.code, refusal.message ?? 'the flash loan failed; nothing happened');
    throw err;
  }
}

/** Starts a cross-chain swap's workflow (id crosschain-swap-<id>); if Temporal refuses, it fails with nothing moved. */
export async function startCrosschainSwapWorkflow(x: CrosschainSwap, sandboxOutcome: SandboxOutcome | null): Promise<void> {
  await startMoneyWorkflow({
    workflowType: 'crosschainSwapWorkflow',
    workflowId: x.workflowId,
    args: [{ crosschainSwapId: x.id, sandboxOutcome }],
    subject: { id: x.id, accountIds: [x.accountId], assetCode: x.fromToken, amount: x.amount, environment: x.environment, userId: x.userId },
    idKey: SA.operationId,
    extraSearchAttributes: [{ key: SA.chain, value: x.sourceChain }],
    onStartFailed: () => finishCrosschainSwap(x.id, { status: 'failed', code: 'WORKFLOW_START_FAILED', reason: 'the operation could not be started; nothing was moved', compensated: false }),
  });
}
