/**
 * Activities of the bridge-transfer workflow (workflows/bridge-transfer.ts). Each is idempotent:
 * chain legs are keyed by workflow id + step (the adapter returns the same transaction for the
 * same key) and ledger postings by workflow idempotency keys; a retried step finds its earlier
 * result on the transfer row. Times come from the workflow's clock (nowMs), so the sandbox chain
 * and attesters follow workflow time.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { chainAdapterFor } from '../../domain/chains/adapter';
import { ensureChainLedgerAccount } from '../../domain/chains/books';
import { getChain, homeChain, tokenForAsset } from '../../domain/chains/registry';
import { attesterFor } from '../../domain/crosschain/attestation';
import {
  bridgeEventsSeen,
  deliversOutsidePlatform,
  getBridgeQuote,
  lockBridgeTransfer,
  PROTOCOLS,
  recordBridgeEvent,
  updateBridgeTransfer,
  type BridgeTransfer,
} from '../../domain/crosschain';
import { withTransaction, type Queryable } from '../../domain/db/pool';
import { getEntry, internalLedgerAccountId, LedgerError, postEntry, postPending, systemAccount, voidPending, workflowIdempotencyKey, type LineInput } from '../../domain/ledger';
import { DecimalMoney } from '../../domain/money/amount';
import { loadConfig } from '../../domain/platform/config';
import type { Environment } from '../../domain/platform/environment';
import { latestCheck, latestPassingCheck, travelRuleRequirement } from '../../domain/regtech/travel-rule';
import { businessFailure } from '../failures';
import { createBridgeScreeningActivities } from './screening';

export interface BridgeStepInput {
  transferId: string;
  workflowId: string;
}
type Timed = BridgeStepInput & { nowMs: number };

const fail = (code: string, message: string): never => {
  throw ApplicationFailure.nonRetryable(message, code);
};

/**
 * Sandbox magic amounts (docs/crosschain.md): the fractional part of the amount picks a failure.
 * .0401 source leg reverts, .0402 source leg is dropped, .0403 the relay never attests (stuck),
 * .0404 the destination leg reverts.
 */
export function bridgeMagic(environment: Environment, amount: string): { source?: 'revert' | 'drop' | 'stuck_relay'; destination?: 'revert' } {
  if (environment !== 'sandbox') return {};
  const frac = (amount.split('.')[1] ?? '').replace(/0+$/, '');
  return ({ '0401': { source: 'revert' }, '0402': { source: 'drop' }, '0403': { source: 'stuck_relay' }, '0404': { destination: 'revert' } } as const)[frac] ?? {};
}

/** The protocol's in-transit account for an asset: credit-normal, holds value between the two books. */
export function bridgeInTransitAccount(environment: Environment, protocol: string, assetCode: string, c: Queryable): Promise<string> {
  return internalLedgerAccountId(
    { environment, assetCode, code: `bridge_in_transit:${protocol}`, name: `Bridge in transit ${assetCode} (${protocol})`, normalBalance: 'credit' },
    c,
  );
}

// Longer than any deadline (at most 7 days), so only a stuck workflow lets a reservation expire.
const RESERVATION_TIMEOUT_SECONDS = 8 * 24 * 3600;

export interface TravelRuleGate {
  required: boolean;
  passed: boolean;
  checkId: string | null;
  reason: string | null;
}

export interface BridgePlan {
  /** How long the transfer waits for a passing Travel Rule check (never past the deadline). */
  travelRuleWaitMs: number;
  /** How long a transfer held for sanctions review waits for a decision (never past the deadline). Absent in plans recorded before holds. */
  reviewTimeoutMs?: number;
  deadlineMs: number;
  pollMs: number;
  sourceBlockMs: number;
  destinationBlockMs: number;
}

export function createCrosschainActivities() {
  const load = (id: string) => withTransaction((c) => lockBridgeTransfer(c, id));

  return {
    ...createBridgeScreeningActivities(),

    /** The quote is the transfer's, spent by it and still valid at workflow time; the deadline has not passed. */
    async checkBridgeTransfer({ transferId, nowMs, startMs }: Timed & { startMs: number }): Promise<BridgePlan> {
      return withTransaction(async (c) => {
        const t = await lockBridgeTransfer(c, transferId);
        // Durations, not instants: the deadline and the quote's remaining life were fixed at
        // initiation (API clock) and are measured from the workflow's start on its own clock.
        const plan = {
          travelRuleWaitMs: loadConfig().travelRuleWaitMinutes * 60_000,
          reviewTimeoutMs: loadConfig().complianceReviewTimeoutHours * 3_600_000,
          deadlineMs: startMs + (t.deadlineAt.getTime() - t.createdAt.getTime()),
          pollMs: PROTOCOLS[t.protocol].attestation.pollSeconds * 1000,
          sourceBlockMs: getChain(t.sourceChain).blockTimeMs,
          destinationBlockMs: getChain(t.destinationChain).blockTimeMs,
        };
        if (t.status !== 'pending') return plan;
        const q = await getBridgeQuote(t.quoteId, c);
        if (!q || q.userId !== t.userId || q.environment !== t.environment) fail('QUOTE_NOT_FOUND', `quote ${t.quoteId} is not the caller's`);
        if (!q!.usedAt) fail('QUOTE_NOT_SPENT', `quote ${t.quoteId} was not spent by this transfer`);
        const remaining = q!.expiresAt.getTime() - t.createdAt.getTime();
        if (nowMs - startMs >= remaining) {
          fail('QUOTE_EXPIRED', `quote ${q!.id} had ${Math.round(remaining / 1000)} s left when the transfer was initiated; the workflow ran ${Math.round((nowMs - startMs) / 1000)} s later`);
        }
        if (plan.deadlineMs <= nowMs) fail('DEADLINE_EXCEEDED', 'the deadline passed before the transfer started');
        await recordBridgeEvent(c, t, 'validated', { quote_expires_at: q!.expiresAt.toISOString() });
        return plan;
      });
    },

    /**
     * The Travel Rule gate: crypto leaving the platform (a recipient other than the account's own
     * custody address on the destination chain) at or above the threshold of the platform's
     * jurisdiction (TRAVEL_RULE_JURISDICTION) needs a passing, still valid check of this transfer.
     * Records travel_rule_required and travel_rule_passed in the history once each.
     */
    async travelRuleGate({ transferId }: BridgeStepInput): Promise<TravelRuleGate> {
      const t = await load(transferId);
      const external = deliversOutsidePlatform(t);
      const cfg = loadConfig();
      const req = external ? await travelRuleRequirement(t.amount, t.assetCode, cfg.travelRuleJurisdiction).catch(businessFailure) : null;
      if (!req?.required) return { required: false, passed: true, checkId: null, reason: null };
      const passing = await latestPassingCheck(t.id, t.environment);
      const latest = passing ? null : await latestCheck(t.id, t.environment);
      await withTransaction(async (c) => {
        const locked = await lockBridgeTransfer(c, t.id);
        const seen = await bridgeEventsSeen(c, t.id, ['travel_rule_required', 'travel_rule_passed']);
        if (!seen.has('travel_rule_required')) {
          await recordBridgeEvent(c, locked, 'travel_rule_required', {
            jurisdiction: req.row.jurisdiction,
            amount_usd: req.amountUsd,
            threshold_usd: req.thresholdUsd,
            usd_rate: req.usdRate,
            recipient_address: t.recipientAddress,
          });
        }
        if (passing && !seen.has('travel_rule_passed')) await recordBridgeEvent(c, locked, 'travel_rule_passed', { check_id: passing.id, valid_until: passing.validUntil.toISOString() });
      });
      if (passing) return { required: true, passed: true, checkId: passing.id, reason: null };
      return {
        required: true,
        passed: false,
        checkId: latest?.id ?? null,
        reason: latest
          ? `the latest Travel Rule check (${latest.id}) did not pass: ${latest.complianceIssues.map((i) => i.code).join(', ') || 'expired'}`
          : `no Travel Rule check was recorded for ${t.amount} ${t.assetCode} (${req.amountUsd} USD, threshold ${req.thresholdUsd} USD in ${req.row.jurisdiction}) to ${t.recipientAddress}`,
      };
    },

    /** Pending entry: the source chain book is debited into the protocol's in-transit account. */
    async reserveBridgeTransfer({ transferId, workflowId }: BridgeStepInput): Promise<void> {
      await withTransaction(async (c) => {
        const t = await lockBridgeTransfer(c, transferId);
        if (t.reservationEntryId) return;
        const book = await ensureChainLedgerAccount(c, t.accountId, t.assetCode, t.sourceChain);
        const transit = await bridgeInTransitAccount(t.environment, t.protocol, t.assetCode, c);
        const entry = await postEntry(
          {
            environment: t.environment,
            idempotencyKey: workflowIdempotencyKey(workflowId, 'reserve'),
            type: 'bridge',
            description: `Bridge ${t.amount} ${t.token} ${t.sourceChain} -> ${t.destinationChain} (${t.protocol})`,
            reference: t.id,
            lines: [
              { accountId: book, direction: 'debit', amount: t.amount, transactionType: 'transfer_out' },
              { accountId: transit, direction: 'credit', amount: t.amount },
            ],
            pending: true,
            pendingTimeoutSeconds: RESERVATION_TIMEOUT_SECONDS,
            userId: t.userId,
            metadata: { bridge_tx_id: t.id, workflow_id: workflowId, protocol: t.protocol, source_chain: t.sourceChain, destination_chain: t.destinationChain },
          },
          c,
        ).catch(businessFailure);
        const u = await updateBridgeTransfer(c, t.id, { status: 'reserved', reservation_entry_id: entry.id });
        await recordBridgeEvent(c, u, 'reserved', { entry_id: entry.id });
      });
    },

    /** Lock or burn on the source chain; source_tx_hash appears. */
    async submitBridgeSource({ transferId, workflowId, nowMs }: Timed): Promise<{ hash: string; status: string }> {
      const t = await load(transferId);
      const chain = chainAdapterFor(t.environment);
      const p = PROTOCOLS[t.protocol];
      const sourceToken = tokenForAsset(t.sourceChain, t.assetCode)!;
      const kind = p.sourceMechanism(sourceToken, homeChain(t.assetCode));
      const magic = bridgeMagic(t.environment, t.amount);
      const tx = await chain
        .sendTransaction(
          {
            chain: t.sourceChain,
            from: t.senderAddress,
            to: p.contract(t.sourceChain),
            kind,
            token: t.token,
            amount: t.amount,
            data: { protocol: t.protocol, bridge_tx_id: t.id, destination_chain: t.destinationChain, recipient: t.recipientAddress, ...(magic.source ? { sandbox: magic.source } : {}) },
            idempotencyKey: workflowIdempotencyKey(workflowId, 'source'),
          },
          new Date(nowMs),
        )
        .catch(businessFailure);
      if (!t.sourceTxHash) {
        await withTransaction(async (c) => {
          const u = await updateBridgeTransfer(c, t.id, { status: 'source_submitted', source_tx_hash: tx.hash, source_tx_kind: kind });
          await recordBridgeEvent(c, u, 'source_submitted', { tx_hash: tx.hash, kind, chain: t.sourceChain, gas_price_gwei: tx.gasPriceGwei });
        });
      }
      return { hash: tx.hash, status: tx.status };
    },

    /** The source leg's progress towards the confirmations the protocol waits for. */
    async checkBridgeSource({ transferId, nowMs }: Timed): Promise<{ status: string; ready: boolean; confirmations: number; required: number; nextCheckMs: number; failureReason: string | null }> {
      const t = await load(transferId);
      const source = getChain(t.sourceChain);
      const required = PROTOCOLS[t.protocol].sourceConfirmations(source);
      const tx = await chainAdapterFor(t.environment).getTransaction(t.sourceChain, t.sourceTxHash!, new Date(nowMs));
      if (!tx) return { status: 'pending', ready: false, confirmations: 0, required, nextCheckMs: nowMs + source.blockTimeMs, failureReason: null };
      const ready = (tx.status === 'included' || tx.status === 'finalized') && tx.confirmations >= required;
      if (ready && t.status === 'source_submitted') {
        await withTransaction(async (c) => {
          const u = await updateBridgeTransfer(c, t.id, { status: 'source_finalized', source_block: tx.blockNumber! });
          await recordBridgeEvent(c, u, 'source_finalized', { block_number: tx.blockNumber, confirmations: tx.confirmations, required_confirmations: required });
        });
      }
      const missing = Math.max(1, required - tx.confirmations);
      return { status: tx.status, ready, confirmations: tx.confirmations, required, nextCheckMs: nowMs + missing * source.blockTimeMs, failureReason: tx.failureReason };
    },

    /** Asks the protocol's attesters (guardians / DVNs / validators) about the source leg. */
    async checkBridgeAttestation({ transferId, nowMs }: Timed): Promise<{ attested: boolean; id: string | null; expectedAtMs: number | null }> {
      const t = await load(transferId);
      const a = await attesterFor(t.environment).attestation(
        { protocol: t.protocol, sourceChain: t.sourceChain, destinationChain: t.destinationChain, sourceTxHash: t.sourceTxHash!, sender: t.senderAddress, recipient: t.recipientAddress },
        new Date(nowMs),
      );
      if (a.status === 'attested' && t.status === 'source_finalized') {
        await withTransaction(async (c) => {
          const attestation = { kind: PROTOCOLS[t.protocol].attestation.kind, id: a.id, attested_at: a.attestedAt, ...a.detail };
          const u = await updateBridgeTransfer(c, t.id, { status: 'attested', attestation: JSON.stringify(attestation) });
          await recordBridgeEvent(c, u, 'attested', attestation);
        });
      }
      const expected = typeof a.detail.expected_at === 'string' ? Date.parse(a.detail.expected_at) : null;
      return { attested: a.status === 'attested', id: a.id, expectedAtMs: expected };
    },

    /** Release or mint on the destination chain; destination_tx_hash appears. */
    async submitBridgeDestination({ transferId, workflowId, nowMs }: Timed): Promise<{ hash: string }> {
      const t = await load(transferId);
      if (new DecimalMoney(t.receiveAmount).lessThan(t.minReceiveAmount)) {
        fail('SLIPPAGE_EXCEEDED', `would deliver ${t.receiveAmount}, below the minimum ${t.minReceiveAmount}`);
      }
      const p = PROTOCOLS[t.protocol];
      const destToken = tokenForAsset(t.destinationChain, t.assetCode)!;
      const kind = p.destinationMechanism(destToken, homeChain(t.assetCode));
      const magic = bridgeMagic(t.environment, t.amount);
      const tx = await chainAdapterFor(t.environment)
        .sendTransaction(
          {
            chain: t.destinationChain,
            from: p.contract(t.destinationChain),
            to: t.recipientAddress,
            kind,
            token: t.destinationToken,
            amount: t.receiveAmount,
            data: { protocol: t.protocol, bridge_tx_id: t.id, source_chain: t.sourceChain, source_tx_hash: t.sourceTxHash, attestation_id: t.attestation?.id ?? null, ...(magic.destination ? { sandbox: magic.destination } : {}) },
            idempotencyKey: workflowIdempotencyKey(workflowId, 'destination'),
          },
          new Date(nowMs),
        )
        .catch(businessFailure);
      if (!t.destinationTxHash) {
        await withTransaction(async (c) => {
          const u = await updateBridgeTransfer(c, t.id, { status: 'destination_submitted', destination_tx_hash: tx.hash, destination_tx_kind: kind });
          await recordBridgeEvent(c, u, 'destination_submitted', { tx_hash: tx.hash, kind, chain: t.destinationChain, amount: t.receiveAmount });
        });
      }
      return { hash: tx.hash };
    },

    async checkBridgeDestination({ transferId, nowMs }: Timed): Promise<{ status: string; included: boolean; blockNumber: number | null; nextCheckMs: number; failureReason: string | null }> {
      const t = await load(transferId);
      const dest = getChain(t.destinationChain);
      const tx = await chainAdapterFor(t.environment).getTransaction(t.destinationChain, t.destinationTxHash!, new Date(nowMs));
      const status = tx?.status ?? 'pending';
      return {
        status,
        included: status === 'included' || status === 'finalized',
        blockNumber: tx?.blockNumber ?? null,
        nextCheckMs: nowMs + dest.blockTimeMs,
        failureReason: tx?.failureReason ?? null,
      };
    },

    /**
     * Posts in one transaction: the reservation (source book -> in-transit) and the settlement
     * (in-transit -> the destination-chain book, or settlement when it left the platform; fee -> fee revenue). The transfer completes.
     */
    async postBridgeTransfer({ transferId, workflowId, blockNumber }: BridgeStepInput & { blockNumber: number | null }): Promise<void> {
      await withTransaction(async (c) => {
        const t = await lockBridgeTransfer(c, transferId);
        if (t.status === 'completed') return;
        await postPending(t.reservationEntryId!, { idempotencyKey: workflowIdempotencyKey(workflowId, 'post') }, c).catch(businessFailure);
        // Delivered to the customer's own custody address: their destination-chain book holds it.
        // Delivered anywhere else: it left the platform, so it leaves their books (settlement).
        const outside = deliversOutsidePlatform(t);
        const destination = outside
          ? await systemAccount(t.environment, t.assetCode, 'settlement', t.id, c)
          : await ensureChainLedgerAccount(c, t.accountId, t.assetCode, t.destinationChain);
        const transit = await bridgeInTransitAccount(t.environment, t.protocol, t.assetCode, c);
        const fees = await systemAccount(t.environment, t.assetCode, 'fee_revenue', t.id, c);
        const lines: LineInput[] = [
          { accountId: transit, direction: 'debit', amount: t.amount },
          outside
            ? { accountId: destination, direction: 'credit', amount: t.receiveAmount }
            : { accountId: destination, direction: 'credit', amount: t.receiveAmount, transactionType: 'transfer_in' },
        ];
        if (new DecimalMoney(t.feeAmount).greaterThan(0)) lines.push({ accountId: fees, direction: 'credit', amount: t.feeAmount });
        const entry = await postEntry(
          {
            environment: t.environment,
            idempotencyKey: workflowIdempotencyKey(workflowId, 'settle'),
            type: 'bridge',
            description: `Bridge ${t.id} delivered ${t.receiveAmount} ${t.destinationToken} on ${t.destinationChain} ${outside ? `to ${t.recipientAddress}, outside the platform` : 'to the account\'s custody address'} (fee ${t.feeAmount})`,
            reference: t.id,
            lines,
            userId: t.userId,
            metadata: { bridge_tx_id: t.id, workflow_id: workflowId, protocol: t.protocol, destination_tx_hash: t.destinationTxHash, delivered_outside_platform: outside },
          },
          c,
        ).catch(businessFailure);
        const u = await updateBridgeTransfer(c, t.id, {
          status: 'completed',
          settlement_entry_id: entry.id,
          completed_at: 'now',
          ...(blockNumber !== null ? { destination_block: blockNumber } : {}),
        });
        await recordBridgeEvent(c, u, 'completed', { settlement_entry_id: entry.id, reservation_entry_id: t.reservationEntryId, received: t.receiveAmount, fee: t.feeAmount, delivered_outside_platform: outside });
      });
    },

    /**
     * Compensation: voids the reservation (the customer's source book gets the amount back) and
     * records why. When the source leg had executed on chain, recovery_required tells operations
     * to reclaim the locked tokens from the bridge.
     */
    async compensateBridgeTransfer(input: BridgeStepInput & { code: string; reason: string }): Promise<{ compensation: 'voided' | 'reversed' | null }> {
      return withTransaction(async (c) => {
        const t = await lockBridgeTransfer(c, input.transferId);
        if (t.status === 'failed' || t.status === 'completed') return { compensation: t.compensation };
        let compensation: 'voided' | null = null;
        if (t.reservationEntryId) {
          const entry = await getEntry(t.reservationEntryId, c);
          if (entry?.status === 'pending') {
            await voidPending(t.reservationEntryId, { idempotencyKey: workflowIdempotencyKey(input.workflowId, 'void'), reason: `${input.code}: ${input.reason}` }, c).catch((err) => {
              if (!(err instanceof LedgerError && err.code === 'ALREADY_VOIDED')) throw err;
            });
          }
          compensation = 'voided';
        }
        const recovery = t.sourceTxHash !== null && !['SOURCE_REVERTED', 'SOURCE_DROPPED'].includes(input.code);
        const u = await updateBridgeTransfer(c, t.id, {
          status: 'failed',
          failure_code: input.code,
          failure_reason: input.reason,
          failed_at: 'now',
          recovery_required: recovery,
          ...(compensation ? { compensation } : {}),
        });
        if (compensation) await recordBridgeEvent(c, u, 'compensation_executed', { action: 'void', entry_id: t.reservationEntryId });
        await recordBridgeEvent(c, u, 'failed', { code: input.code, reason: input.reason, compensation, recovery_required: recovery, failed_in: t.status });
        return { compensation };
      });
    },
  };
}

export type CrosschainActivities = ReturnType<typeof createCrosschainActivities>;
export type { BridgeTransfer };
