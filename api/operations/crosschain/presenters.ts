/**
 * The cross-chain routes' wire shapes (snake_case): the domain returns records, these present them.
 * The cross-chain swap embeds a swap as the DeFi routes present it.
 */
import type { BridgeFees, BridgeHistoryItem, BridgeQuote, BridgeTransfer, CrosschainPortfolio } from '../../../domain/crosschain';
import type { CrosschainSwapView } from '../../../domain/defi/operations';
import { presentSwap } from '../defi/presenters';

/** The record the API shows (spec: Bridge transfer) plus what the platform adds. */
export function presentBridgeTransfer(t: BridgeTransfer) {
  return {
    bridge_tx_id: t.id,
    quote_id: t.quoteId,
    status: t.status,
    source_chain: t.sourceChain,
    destination_chain: t.destinationChain,
    token: t.token,
    bridge_protocol: t.protocol,
    source_tx_hash: t.sourceTxHash,
    destination_tx_hash: t.destinationTxHash,
    sender_address: t.senderAddress,
    recipient_address: t.recipientAddress,
    amount: t.amount,
    created_at: t.createdAt.toISOString(),
    estimated_completion_at: t.estimatedCompletionAt.toISOString(),
    account_id: t.accountId,
    asset_code: t.assetCode,
    destination_token: t.destinationToken,
    fee_amount: t.feeAmount,
    fee_currency: t.token,
    estimated_receive_amount: t.receiveAmount,
    min_receive_amount: t.minReceiveAmount,
    slippage_tolerance: t.slippageTolerance,
    deadline_at: t.deadlineAt.toISOString(),
    workflow_id: t.workflowId,
    source_tx_kind: t.sourceTxKind,
    destination_tx_kind: t.destinationTxKind,
    attestation: t.attestation,
    failure: t.failureCode ? { code: t.failureCode, reason: t.failureReason ?? '' } : null,
    compensation: t.compensation,
    recovery_required: t.recoveryRequired,
    completed_at: t.completedAt?.toISOString() ?? null,
    failed_at: t.failedAt?.toISOString() ?? null,
  };
}

export function presentBridgeQuote(q: BridgeQuote) {
  return {
    quote_id: q.id,
    bridge_protocol: q.protocol,
    source_chain: q.sourceChain,
    destination_chain: q.destinationChain,
    token: q.token,
    destination_token: q.destinationToken,
    asset_code: q.assetCode,
    input_amount: q.amount,
    estimated_receive_amount: q.receiveAmount,
    fee_amount: q.feeAmount,
    fee_currency: q.token,
    fee_breakdown: q.feeBreakdown,
    exchange_rate: q.exchangeRate,
    estimated_duration_seconds: q.estimatedDurationSeconds,
    quote_expires_at: q.expiresAt.toISOString(),
    alternative_quotes: q.alternatives,
    created_at: q.createdAt.toISOString(),
  };
}

/** A bridge transfer with its status history (GET /api/v{1,2}/crosschain/bridge/:id). */
export function presentBridgeWithHistory({ transfer, history }: { transfer: BridgeTransfer; history: BridgeHistoryItem[] }) {
  return { ...presentBridgeTransfer(transfer), history: history.map((h) => ({ status: h.status, detail: h.detail, occurred_at: h.occurredAt.toISOString() })) };
}

export function presentBridgeFees(f: BridgeFees) {
  const { route } = f;
  return {
    source_chain: route.source.id,
    destination_chain: route.destination.id,
    token: route.sourceToken.symbol,
    asset_code: route.assetCode,
    amount: f.amount,
    recommended: f.recommended,
    protocols: f.rows.map((r) => ({
      protocol: r.protocol,
      supported: r.supported,
      reason: r.reason,
      fee_amount: r.offer?.feeAmount ?? null,
      fee_currency: route.sourceToken.symbol,
      fee_breakdown: r.offer?.feeBreakdown ?? null,
      estimated_receive_amount: r.offer?.receiveAmount ?? null,
      estimated_duration_seconds: r.offer?.estimatedDurationSeconds ?? null,
      min_amount: r.offer?.minAmount ?? null,
      max_amount: r.offer?.maxAmount ?? null,
      source_mechanism: r.offer?.sourceMechanism ?? null,
      destination_mechanism: r.offer?.destinationMechanism ?? null,
      attestation: r.offer?.attestation ?? null,
    })),
  };
}

export function presentCrosschainPortfolio(p: CrosschainPortfolio) {
  return {
    total_usd: p.totalUsd,
    chains: p.chains.map((c) => ({
      chain: c.chain,
      name: c.name,
      caip2: c.caip2,
      total_usd: c.totalUsd,
      holdings: c.holdings.map((h) => ({
        account_id: h.accountId,
        asset_code: h.assetCode,
        token: h.token,
        token_address: h.tokenAddress,
        address: h.address,
        available_balance: h.availableBalance,
        reserved_balance: h.reservedBalance,
        total_balance: h.totalBalance,
        usd_value: h.usdValue,
      })),
    })),
    assets: p.assets.map((a) => ({ asset_code: a.assetCode, total_balance: a.totalBalance, usd_value: a.usdValue, chains: a.chains })),
    in_flight: p.inFlight.map(presentBridgeTransfer),
  };
}

/** A cross-chain swap with its legs as they are now. */
export function presentCrosschainSwap({ record: x, legs }: CrosschainSwapView) {
  const { bridge: out, swap, returnBridge: back } = legs;
  return {
    crosschain_swap_id: x.id,
    status: x.status,
    source_chain: x.sourceChain,
    destination_chain: x.destinationChain,
    from_token: x.fromToken,
    to_token: x.toToken,
    amount: x.amount,
    slippage_bps: x.slippageBps,
    account_id: x.accountId,
    workflow_id: x.workflowId,
    bridged_amount: x.bridgedAmount,
    output_amount: x.outputAmount,
    returned_amount: x.returnedAmount,
    bridge: out ? presentBridgeTransfer(out) : null,
    swap: swap ? presentSwap(swap) : null,
    return_bridge: back ? presentBridgeTransfer(back) : null,
    failure: x.failureCode ? { code: x.failureCode, reason: x.failureReason ?? '' } : null,
    compensation_executed: x.compensationExecuted,
    created_at: x.createdAt.toISOString(),
    completed_at: x.completedAt?.toISOString() ?? null,
    failed_at: x.failedAt?.toISOString() ?? null,
  };
}
