import { ApplicationFailure } from '@temporalio/activity';
import { chainAdapterFor, type ChainTxStatus } from '../../domain/chains/adapter';
import { getChain } from '../../domain/chains/registry';
import { withTransaction } from '../../domain/db/pool';
import { dexSettlementAccount, ensureChainLedgerAccount } from '../../domain/defi/accounts';
import { getSwapQuote } from '../../domain/defi/swaps/quotes';
import { settleSwap } from '../../domain/defi/swaps/settle';
import { lockSwap, swapTxRequest, updateSwap } from '../../domain/defi/swaps';
import { executeFlashLoan, type FlashLoanRequest, type FlashLoanResult } from '../../domain/defi/flash-loans';
import {
  finishCrosschainSwap,
  prepareSwapLeg,
  refundBridgeFees,
  startOutboundBridge,
  startReturnBridge,
  type ChildStart,
  type CrosschainOutcome,
} from '../../domain/defi/swaps/crosschain';
import type { SandboxOutcome } from '../../domain/defi/swaps';
import { getEntry, LedgerError, postEntry, voidPending, workflowIdempotencyKey } from '../../domain/ledger';
import { businessFailure } from '../failures';

export interface CrosschainStepInput {
  crosschainSwapId: string;
  workflowId: string;
}

export interface SwapStepInput {
  swapId: string;
  workflowId: string;
}

// A reservation outlives the swap's deadline by an hour, so only a stuck workflow lets it expire.
const RESERVATION_MARGIN_SECONDS = 3600;

export function createDefiActivities() {
  return {
    /** The quote must still be valid and the deadline not passed at the workflow's clock. */
    async checkSwap({ swapId, nowMs }: SwapStepInput & { nowMs: number }): Promise<{ deadlineMs: number; blockTimeMs: number }> {
      const s = await withTransaction((c) => lockSwap(c, swapId));
      const q = (await getSwapQuote(s.quoteId))!;
      if (s.status === 'pending') {
        if (q.expiresAt.getTime() <= nowMs) throw ApplicationFailure.nonRetryable(`the quote expired at ${q.expiresAt.toISOString()} before the swap could start`, 'QUOTE_EXPIRED');
        if (s.deadlineAt.getTime() <= nowMs) throw ApplicationFailure.nonRetryable(`the deadline ${s.deadlineAt.toISOString()} passed before the swap could start`, 'DEADLINE_PASSED');
      }
      return { deadlineMs: s.deadlineAt.getTime(), blockTimeMs: getChain(s.chain).blockTimeMs };
    },

    /** Pending entry: token_in leaves the customer's chain book towards the DEX. */
    async reserveSwap({ swapId, workflowId, nowMs }: SwapStepInput & { nowMs: number }): Promise<void> {
      await withTransaction(async (c) => {
        const s = await lockSwap(c, swapId);
        if (s.reservationEntryId) return;
        const [book, dex] = await Promise.all([
          ensureChainLedgerAccount(c, s.accountId, s.assetIn, s.chain),
          dexSettlementAccount(s.environment, s.chain, s.dex, s.assetIn, c),
        ]);
        const entry = await postEntry(
          {
            environment: s.environment,
            idempotencyKey: workflowIdempotencyKey(workflowId, 'reserve'),
            type: 'swap',
            description: `Reserved for swap ${s.id}: ${s.amountIn} ${s.tokenIn} -> ${s.tokenOut} on ${s.chain}`,
            lines: [
              { accountId: book, direction: 'debit', amount: s.amountIn },
              { accountId: dex, direction: 'credit', amount: s.amountIn },
            ],
            pending: true,
            pendingTimeoutSeconds: Math.max(60, Math.ceil((s.deadlineAt.getTime() - nowMs) / 1000)) + RESERVATION_MARGIN_SECONDS,
            userId: s.userId,
            metadata: { swap_id: s.id, quote_id: s.quoteId, workflow_id: workflowId },
          },
          c,
        ).catch(businessFailure);
        await updateSwap(c, s.id, { reservation_entry_id: entry.id });
      });
    },

    /** Sends the swap transaction (refused before submission when gas is above the cap). */
    async submitSwap({ swapId, workflowId, nowMs }: SwapStepInput & { nowMs: number }): Promise<{ hash: string }> {
      const s = await withTransaction((c) => lockSwap(c, swapId));
      if (s.txHash) return { hash: s.txHash };
      const tx = await chainAdapterFor(s.environment).sendTransaction(swapTxRequest(s, workflowId), new Date(nowMs)).catch(businessFailure);
      await withTransaction((c) => updateSwap(c, s.id, { status: 'submitted', tx_hash: tx.hash, gas_price_gwei: tx.gasPriceGwei }));
      return { hash: tx.hash };
    },

    async pollSwapTx({ swapId, nowMs }: SwapStepInput & { nowMs: number }): Promise<{ status: ChainTxStatus; failureReason: string | null }> {
      const s = await withTransaction((c) => lockSwap(c, swapId));
      const tx = await chainAdapterFor(s.environment).getTransaction(s.chain, s.txHash!, new Date(nowMs));
      if (!tx) return { status: 'pending', failureReason: null };
      if ((tx.status === 'included' || tx.status === 'finalized') && s.status === 'submitted') {
        await withTransaction((c) => updateSwap(c, s.id, { status: 'included', block_number: tx.blockNumber === null ? undefined : String(tx.blockNumber), gas_used: tx.gasUsed }));
      }
      return { status: tx.status, failureReason: tx.failureReason };
    },

    /** Executes against the pools at their current reserves and settles (domain/defi/settle settleSwap). */
    async settleSwap({ swapId, workflowId, nowMs }: SwapStepInput & { nowMs: number }): Promise<{ ok: boolean; code?: string; reason?: string }> {
      const s = await withTransaction((c) => lockSwap(c, swapId));
      const tx = await chainAdapterFor(s.environment).getTransaction(s.chain, s.txHash!, new Date(nowMs));
      if (!tx || (tx.status !== 'included' && tx.status !== 'finalized')) throw new Error(`transaction ${s.txHash} is not included`);
      const r = await settleSwap(swapId, workflowId, tx).catch(businessFailure);
      return r.ok ? { ok: true } : { ok: false, code: r.code, reason: r.reason };
    },

    /** Compensation: void the reservation (if any) and record why. */
    async compensateSwap({ swapId, workflowId, code, reason }: SwapStepInput & { code: string; reason: string }): Promise<{ compensated: boolean }> {
      return withTransaction(async (c) => {
        const s = await lockSwap(c, swapId);
        if (s.status === 'failed' || s.status === 'completed') return { compensated: s.compensationExecuted };
        let compensated = false;
        if (s.reservationEntryId) {
          const e = await getEntry(s.reservationEntryId, c);
          if (e?.status === 'pending') {
            await voidPending(s.reservationEntryId, { idempotencyKey: workflowIdempotencyKey(workflowId, 'void'), reason: `${code}: ${reason}` }, c).catch((err) => {
              if (!(err instanceof LedgerError && err.code === 'ALREADY_VOIDED')) throw err;
            });
            compensated = true;
          } else if (e?.status === 'voided') compensated = true;
        }
        await updateSwap(c, s.id, { status: 'failed', failure_code: code, failure_reason: reason, compensation_executed: compensated, failed_at: 'now' });
        return { compensated };
      });
    },

    // Cross-chain swap steps (domain/defi/crosschain-swaps); the legs run as child workflows.
    async startOutboundBridge({ crosschainSwapId, nowMs }: CrosschainStepInput & { nowMs: number }): Promise<ChildStart> {
      return startOutboundBridge(crosschainSwapId, nowMs).catch(businessFailure);
    },

    async prepareCrosschainSwapLeg(
      { crosschainSwapId, nowMs, sandboxOutcome }: CrosschainStepInput & { nowMs: number; sandboxOutcome: SandboxOutcome | null },
    ): Promise<{ ok: true; child: ChildStart } | { ok: false; code: string; reason: string }> {
      return prepareSwapLeg(crosschainSwapId, nowMs, sandboxOutcome).catch(businessFailure);
    },

    async startReturnBridge({ crosschainSwapId, nowMs }: CrosschainStepInput & { nowMs: number }): Promise<ChildStart> {
      return startReturnBridge(crosschainSwapId, nowMs).catch(businessFailure);
    },

    async refundCrosschainBridgeFees({ crosschainSwapId, workflowId }: CrosschainStepInput): Promise<string> {
      return refundBridgeFees(crosschainSwapId, workflowId).catch(businessFailure);
    },

    async finishCrosschainSwap({ crosschainSwapId, outcome }: CrosschainStepInput & { outcome: CrosschainOutcome }): Promise<void> {
      await finishCrosschainSwap(crosschainSwapId, outcome);
    },

    /** The whole flash loan in one database transaction (domain/defi/flash-loans). */
    async executeFlashLoan(req: FlashLoanRequest & { workflowId: string; nowMs: number }): Promise<FlashLoanResult> {
      return executeFlashLoan(req).catch(businessFailure);
    },
  };
}

export type DefiActivities = ReturnType<typeof createDefiActivities>;
