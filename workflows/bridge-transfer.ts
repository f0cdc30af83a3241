import { condition, defineQuery, defineSignal, log, patched, proxyActivities, setHandler, sleep, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { CrosschainActivities } from '../activities/crosschain';
import { awaitHoldDecision, DEFAULT_REVIEW_TIMEOUT_MS, holdFailureCode } from './compliance-hold';
import { failureOf } from '../domain/temporal/failures';
import { SA } from '../domain/temporal/search-attributes';

export interface BridgeTransferWorkflowInput {
  transferId: string;
}

export interface BridgeProgress {
  bridge_tx_id: string;
  step: string;
  status: 'running' | 'completed' | 'failed';
  source_tx_hash?: string;
  destination_tx_hash?: string;
  failure?: { code: string; reason: string };
}

export const bridgeProgressQuery = defineQuery<BridgeProgress>('progress');

const acts = proxyActivities<CrosschainActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '200 ms', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 20 },
});

class BridgeFailure {
  constructor(
    readonly code: string,
    readonly reason: string,
  ) {}
}

/** A Travel Rule check was stored for the transfer (domain/regtech/travel-rule sends it). */
export const travelRuleCheckSignal = defineSignal<[{ check_id: string }]>('travelRuleCheck');

/** While waiting for a Travel Rule check, how often the workflow looks for one besides the signal. */
const TRAVEL_RULE_POLL_MS = 5 * 60_000;

/** Attestation polling backs off up to this interval. */
const MAX_POLL_MS = 120_000;

/**
 * check quote + deadline -> reserve (pending entry on the source chain book) -> [sanctions: a
 * recipient outside the platform is screened against the list's digital-currency addresses; a hit
 * (or no list) holds the transfer, reserved, for an operator's release or rejection, no longer
 * than the review window and the deadline; release goes on, anything else compensates] ->
 * [Travel Rule: crypto leaving the platform at or above the threshold waits, reserved, for a
 * passing check; none before the wait ends fails it] -> lock/burn on the source chain -> wait
 * for the protocol's source confirmations -> wait for the attestation
 * (guardian VAA / DVN verification / validator votes, polled on timers) -> release/mint on the
 * destination -> wait for inclusion -> post (source book -> in-transit -> destination book, fee
 * -> fee revenue) -> complete. A failure, or the deadline passing before the destination leg is
 * sent, voids the reservation with the reason. Once the destination leg is sent the deadline no
 * longer applies (a refund could pay twice): the workflow waits for its outcome.
 */
export async function bridgeTransferWorkflow(input: BridgeTransferWorkflowInput): Promise<BridgeProgress> {
  const workflowId = workflowInfo().workflowId;
  const base = { transferId: input.transferId, workflowId };
  const progress: BridgeProgress = { bridge_tx_id: input.transferId, step: 'check', status: 'running' };
  setHandler(bridgeProgressQuery, () => progress);
  let checkRecorded = false;
  setHandler(travelRuleCheckSignal, () => {
    checkRecorded = true;
  });
  const setStatus = (status: string) => upsertSearchAttributes([{ key: SA.businessStatus, value: status }] as never);
  const step = (s: string) => {
    progress.step = s;
  };
  const now = () => Date.now();

  try {
    const plan = await acts.checkBridgeTransfer({ ...base, nowMs: now(), startMs: workflowInfo().startTime.getTime() });
    /** Sleeps until `untilMs` but not past the deadline; past the deadline the transfer fails. */
    const waitBefore = async (untilMs: number, what: string) => {
      const until = Math.min(untilMs, plan.deadlineMs);
      if (until > now()) await sleep(until - now());
      if (now() >= plan.deadlineMs) throw new BridgeFailure('DEADLINE_EXCEEDED', `the deadline passed while waiting for ${what}`);
    };

    step('reserve');
    await acts.reserveBridgeTransfer(base);
    setStatus('reserved');

    if (patched('bridge-sanctions-hold')) {
      step('screen');
      const screen = await acts.screenBridgeRecipient(base);
      if (screen.held) {
        step('compliance_review');
        setStatus('held_for_review');
        // The customer's deadline bounds the review: past it nothing may be sent.
        const window = Math.min(plan.reviewTimeoutMs ?? DEFAULT_REVIEW_TIMEOUT_MS, plan.deadlineMs - now());
        const outcome = await awaitHoldDecision(screen.holdId!, Math.max(1, window));
        if (outcome !== 'released') {
          throw new BridgeFailure(
            holdFailureCode(outcome),
            outcome === 'expired'
              ? `nothing was sent: no compliance decision on hold ${screen.holdId} within the review window (${screen.reasonCode})`
              : `nothing was sent: a compliance officer rejected the transfer held for ${screen.reasonCode}${screen.matchedName ? ` (recipient listed for ${screen.matchedName})` : ''}`,
          );
        }
        if (now() >= plan.deadlineMs) throw new BridgeFailure('DEADLINE_EXCEEDED', 'nothing was sent: the deadline passed during the compliance review');
        await acts.recordBridgeHoldReleased({ ...base, holdId: screen.holdId! });
        setStatus('reserved');
      }
    }

    if (patched('travel-rule-gate')) {
      step('travel_rule');
      let gate = await acts.travelRuleGate(base);
      if (!gate.passed) {
        setStatus('awaiting_travel_rule');
        const until = Math.min(plan.deadlineMs, now() + plan.travelRuleWaitMs);
        while (!gate.passed && now() < until) {
          await condition(() => checkRecorded, Math.max(1, Math.min(TRAVEL_RULE_POLL_MS, until - now())));
          checkRecorded = false;
          gate = await acts.travelRuleGate(base);
        }
        if (!gate.passed) throw new BridgeFailure(gate.checkId ? 'TRAVEL_RULE_CHECK_FAILED' : 'TRAVEL_RULE_CHECK_MISSING', `nothing was sent: ${gate.reason}`);
        setStatus('reserved');
      }
    }

    step('source');
    const src = await acts.submitBridgeSource({ ...base, nowMs: now() });
    progress.source_tx_hash = src.hash;
    setStatus('source_submitted');

    step('source_finality');
    for (;;) {
      const s = await acts.checkBridgeSource({ ...base, nowMs: now() });
      if (s.status === 'reverted') throw new BridgeFailure('SOURCE_REVERTED', `source transaction reverted: ${s.failureReason ?? 'execution reverted'}`);
      if (s.status === 'dropped') throw new BridgeFailure('SOURCE_DROPPED', `source transaction dropped: ${s.failureReason ?? 'not included'}`);
      if (s.ready) break;
      await waitBefore(Math.max(s.nextCheckMs, now() + plan.sourceBlockMs), `source confirmations (${s.confirmations}/${s.required})`);
    }
    setStatus('source_finalized');

    step('attestation');
    let poll = plan.pollMs;
    for (;;) {
      const a = await acts.checkBridgeAttestation({ ...base, nowMs: now() });
      if (a.attested) break;
      const next = a.expectedAtMs !== null && a.expectedAtMs > now() ? a.expectedAtMs : now() + poll;
      if (a.expectedAtMs === null) poll = Math.min(poll * 2, MAX_POLL_MS);
      await waitBefore(next, 'the bridge attestation');
    }
    setStatus('attested');

    step('destination');
    const dst = await acts.submitBridgeDestination({ ...base, nowMs: now() });
    progress.destination_tx_hash = dst.hash;
    setStatus('destination_submitted');

    step('destination_inclusion');
    let blockNumber: number | null = null;
    for (;;) {
      const d = await acts.checkBridgeDestination({ ...base, nowMs: now() });
      if (d.status === 'reverted') throw new BridgeFailure('DESTINATION_REVERTED', `destination transaction reverted: ${d.failureReason ?? 'execution reverted'}`);
      if (d.status === 'dropped') throw new BridgeFailure('DESTINATION_DROPPED', `destination transaction dropped: ${d.failureReason ?? 'not included'}`);
      if (d.included) {
        blockNumber = d.blockNumber;
        break;
      }
      await sleep(Math.max(1000, d.nextCheckMs - now()));
    }

    step('post');
    await acts.postBridgeTransfer({ ...base, blockNumber });
    setStatus('completed');
    step('complete');
    progress.status = 'completed';
    return progress;
  } catch (err) {
    const f = err instanceof BridgeFailure ? err : asFailure(err);
    log.warn('bridge transfer failed', { transferId: input.transferId, code: f.code });
    step('compensate');
    await acts.compensateBridgeTransfer({ ...base, code: f.code, reason: f.reason });
    progress.status = 'failed';
    progress.failure = { code: f.code, reason: f.reason };
    setStatus('failed');
    return progress;
  }
}

function asFailure(err: unknown): BridgeFailure {
  const f = failureOf(err, 'BRIDGE_FAILED');
  return new BridgeFailure(f.code, f.reason);
}
