import { ActivityFailure, ApplicationFailure, ChildWorkflowFailure, RetryState, TimeoutFailure, TimeoutType } from '@temporalio/common';
import { WorkflowFailedError } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { businessFailureOf, failureOf, innermostCause } from '../../domain/temporal/failures';

const refusal = (code: string | null, message: string) => new ApplicationFailure(message, code, true);
const activity = (cause: Error) => new ActivityFailure('Activity task failed', 'postTransfer', '1', RetryState.NON_RETRYABLE_FAILURE, 'worker', cause);
const child = (cause: Error) => new ChildWorkflowFailure('default', { workflowId: 'w', runId: 'r' }, 'swapWorkflow', RetryState.NON_RETRYABLE_FAILURE, cause);

describe('domain/temporal/failures: one way to unwrap what an activity or child workflow refused', () => {
  it('finds the refusal through activity, child-workflow and client wrappers', () => {
    expect(businessFailureOf(activity(refusal('INSUFFICIENT_FUNDS', 'insufficient funds')))).toEqual({ code: 'INSUFFICIENT_FUNDS', message: 'insufficient funds' });
    expect(businessFailureOf(child(activity(refusal('NO_POOL', 'no pool'))))).toEqual({ code: 'NO_POOL', message: 'no pool' });
    const atClient = new WorkflowFailedError('Workflow execution failed', activity(refusal('ACCOUNT_FROZEN', 'frozen')), RetryState.NON_RETRYABLE_FAILURE);
    expect(businessFailureOf(atClient)).toEqual({ code: 'ACCOUNT_FROZEN', message: 'frozen' });
    expect(businessFailureOf(refusal('RISK_REJECTED', 'risky'))).toEqual({ code: 'RISK_REJECTED', message: 'risky' });
  });

  it('stops at the first ApplicationFailure; none (a timeout, a plain error, nothing) is null', () => {
    expect(businessFailureOf(activity(refusal(null, 'untyped')))).toEqual({ code: null, message: 'untyped' });
    expect(businessFailureOf(activity(new TimeoutFailure('activity timed out', undefined, TimeoutType.START_TO_CLOSE)))).toBeNull();
    expect(businessFailureOf(new Error('boom'))).toBeNull();
    expect(businessFailureOf(undefined)).toBeNull();
  });

  it("failureOf: the refusal's code and message, else the fallback code and the error's own message", () => {
    expect(failureOf(activity(refusal('SAME_ACCOUNT', 'same')), 'TRANSFER_FAILED')).toEqual({ code: 'SAME_ACCOUNT', reason: 'same' });
    expect(failureOf(activity(refusal(null, 'untyped')), 'TRANSFER_FAILED')).toEqual({ code: 'TRANSFER_FAILED', reason: 'untyped' });
    const timedOut = activity(new TimeoutFailure('activity timed out', undefined, TimeoutType.START_TO_CLOSE));
    expect(failureOf(timedOut, 'SWAP_FAILED')).toEqual({ code: 'SWAP_FAILED', reason: 'Activity task failed' });
    expect(failureOf(undefined, 'SWAP_FAILED')).toEqual({ code: 'SWAP_FAILED', reason: 'unknown error' });
    expect((innermostCause(timedOut) as Error).message).toBe('activity timed out');
  });
});
