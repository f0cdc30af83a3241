import { condition, defineQuery, defineSignal, log, patched, proxyActivities, setHandler, sleep, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { RailActivities } from '../activities/rails';
import { awaitHoldDecision, DEFAULT_REVIEW_TIMEOUT_MS, holdFailureCode } from './compliance-hold';
import { failureOf } from '../domain/temporal/failures';
import { SA } from '../domain/temporal/search-attributes';

export interface RailPaymentWorkflowInput {
  paymentId: string;
  /** How long past the expected settlement the workflow waits for the rail before timing out (ms). */
  settlementGraceMs?: number;
  /** How long a payment held for compliance review waits for a decision (ms). */
  reviewTimeoutMs?: number;
}

export interface RailPaymentProgress {
  payment_id: string;
  step: string;
  status: 'running' | 'completed' | 'failed';
  failure?: { code: string; reason: string };
}

export interface RailSettlementSignal {
  status: 'ACSC' | 'RJCT';
  reasonCode?: string;
  reason?: string;
}
export interface AchReturnSignal {
  code: string;
  reason: string;
}

export const railProgressQuery = defineQuery<RailPaymentProgress>('progress');
/** The rail reports settlement (or a late rejection) for a scheduled rail. */
export const railSettlementSignal = defineSignal<[RailSettlementSignal]>('railSettlement');
/** An ACH return ingested from a return file. */
export const achReturnSignal = defineSignal<[AchReturnSignal]>('achReturn');

/** While past the expected settlement, how often the workflow asks the rail again. */
const SETTLEMENT_POLL_MS = 3600 * 1000;

const acts = proxyActivities<RailActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '200 ms', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 20 },
});

class RailFailure {
  constructor(
    readonly status: 'rejected' | 'failed' | 'returned',
    readonly code: string,
    readonly reason: string,
  ) {}
}

/**
 * validate → reserve (pending entry) → sanctions screen [→ held for compliance review] → build message (pacs.008 / NACHA) →
 * wait for the rail's window → submit → wait for settlement (instant answer, the rail's signal,
 * or the timetable) → post → [ACH: return window] → complete. A rejection, timeout or return
 * runs the compensation: void before posting, reversing entry after.
 */
export async function railPaymentWorkflow(input: RailPaymentWorkflowInput): Promise<RailPaymentProgress> {
  const workflowId = workflowInfo().workflowId;
  const base = { paymentId: input.paymentId, workflowId };
  const progress: RailPaymentProgress = { payment_id: input.paymentId, step: 'validate', status: 'running' };
  let settlement: RailSettlementSignal | undefined;
  let achReturn: AchReturnSignal | undefined;
  setHandler(railProgressQuery, () => progress);
  setHandler(railSettlementSignal, (s) => {
    settlement ??= s;
  });
  setHandler(achReturnSignal, (r) => {
    achReturn ??= r;
  });
  const setStatus = (status: string) => upsertSearchAttributes([{ key: SA.businessStatus, value: status }] as never);
  const step = (s: string) => {
    progress.step = s;
  };

  try {
    await acts.validateRailPayment(base);
    step('reserve');
    await acts.reserveRailPayment(base);
    setStatus('reserved');

    step('screen');
    const screen = await acts.screenRailPayment(base);
    if (!patched('compliance-holds')) {
      // Histories from before holds: a hit failed the payment at once.
      const legacy = screen as unknown as { hit?: boolean; term?: string };
      if (legacy.hit) throw new RailFailure('failed', 'SANCTIONS_HIT', `creditor name matches the sanctions list term "${legacy.term}"`);
    } else if (screen.held) {
      step('compliance_review');
      setStatus('held_for_review');
      const outcome = await awaitHoldDecision(screen.holdId!, input.reviewTimeoutMs ?? DEFAULT_REVIEW_TIMEOUT_MS);
      if (outcome !== 'released') {
        throw new RailFailure(
          'failed',
          holdFailureCode(outcome),
          outcome === 'expired'
            ? `no compliance decision on hold ${screen.holdId} within the review window (${screen.reasonCode})`
            : `a compliance officer rejected the payment held for ${screen.reasonCode}${screen.matchedName ? ` (creditor matches ${screen.matchedName})` : ''}`,
        );
      }
      await acts.recordRailHoldReleased({ ...base, holdId: screen.holdId! });
      setStatus('reserved');
    }

    step('build_message');
    const plan = await acts.prepareRailPayment({ ...base, nowMs: Date.now() });
    if (plan.submitAtMs > Date.now()) {
      step('await_window');
      await sleep(plan.submitAtMs - Date.now());
    }

    step('submit');
    const sub = await acts.submitRailPayment({ ...base, nowMs: Date.now() });
    if (!sub.accepted) throw new RailFailure('rejected', sub.reasonCode ?? 'RJCT', sub.reason ?? 'rejected by the rail');
    setStatus('submitted');

    if (!sub.settled) {
      step('await_settlement');
      const grace = input.settlementGraceMs ?? 24 * 3600 * 1000;
      await condition(() => settlement !== undefined, Math.max(1, plan.settleAtMs - Date.now()));
      let outcome = settlement
        ? { status: settlement.status === 'ACSC' ? 'settled' : 'rejected', reasonCode: settlement.reasonCode ?? null }
        : await acts.checkRailSettlement({ ...base, nowMs: Date.now() });
      if (outcome.status === 'pending') {
        const fromSignal = (s: RailSettlementSignal) => ({ status: s.status === 'ACSC' ? 'settled' : 'rejected', reasonCode: s.reasonCode ?? null });
        if (patched('rail-settlement-hourly-poll')) {
          // Late settlement (e.g. an ACH entry that only made the next file) is seen within the hour, not at the end of the grace.
          const deadline = Date.now() + grace;
          while (outcome.status === 'pending' && Date.now() < deadline) {
            await condition(() => settlement !== undefined, Math.max(1, Math.min(SETTLEMENT_POLL_MS, deadline - Date.now())));
            outcome = settlement ? fromSignal(settlement) : await acts.checkRailSettlement({ ...base, nowMs: Date.now() });
          }
        } else {
          await condition(() => settlement !== undefined, grace);
          outcome = settlement ? fromSignal(settlement) : await acts.checkRailSettlement({ ...base, nowMs: Date.now() });
        }
      }
      if (outcome.status === 'rejected') throw new RailFailure('rejected', outcome.reasonCode ?? 'RJCT', settlement?.reason ?? 'rejected by the rail at settlement');
      if (outcome.status !== 'settled') throw new RailFailure('failed', 'SETTLEMENT_TIMEOUT', 'the rail did not confirm settlement in time');
    }

    step('post');
    await acts.postRailPayment({ ...base, final: !plan.ach });
    setStatus(plan.ach ? 'settled' : 'completed');

    if (plan.ach && plan.returnWindowEndMs) {
      step('return_window');
      // Poll the operator once a day (and take a return file's signal at any time) until the window closes.
      while (!achReturn && Date.now() < plan.returnWindowEndMs) {
        await condition(() => achReturn !== undefined, Math.min(24 * 3600 * 1000, Math.max(1, plan.returnWindowEndMs - Date.now())));
        if (!achReturn) achReturn = (await acts.pollAchReturns({ ...base, nowMs: Date.now() })) ?? undefined;
      }
      if (achReturn) throw new RailFailure('returned', achReturn.code, achReturn.reason);
      await acts.completeRailPayment(base);
      setStatus('completed');
    }
    step('complete');
    progress.status = 'completed';
    return progress;
  } catch (err) {
    const f = err instanceof RailFailure ? err : asFailure(err);
    log.warn('rail payment failed', { paymentId: input.paymentId, code: f.code });
    step('compensate');
    await acts.compensateRailPayment({ ...base, status: f.status, code: f.code, reason: f.reason });
    progress.status = 'failed';
    progress.failure = { code: f.code, reason: f.reason };
    setStatus(f.status);
    return progress;
  }
}

function asFailure(err: unknown): RailFailure {
  const f = failureOf(err, 'RAIL_PAYMENT_FAILED');
  return new RailFailure('failed', f.code, f.reason);
}
