/**
 * Unwrapping Temporal failures, for workflows and for callers waiting on a workflow's result.
 *
 * Workflow-safe: this file is bundled into workflows (workflows/*.ts import it), so it imports
 * only @temporalio/common (which @temporalio/workflow re-exports) and no Node module, activity or
 * other domain code; it is deterministic (no clock, no randomness, no I/O).
 */
import { ApplicationFailure } from '@temporalio/common';

/** What a business refusal carried across Temporal: the ApplicationFailure's type and message. */
export interface BusinessFailure {
  /** The ApplicationFailure's type: the domain error code the activity threw (null if it gave none). */
  code: string | null;
  message: string;
}

/**
 * The business refusal inside a Temporal failure, or null when there is none. An activity turns a
 * domain error into ApplicationFailure(message, code) (`businessFailure` in activities/*); on the
 * way back it arrives wrapped, e.g. ActivityFailure → ApplicationFailure in a workflow, or
 * WorkflowFailedError → ChildWorkflowFailure → ActivityFailure → ApplicationFailure at a client.
 * This walks `cause` to the first ApplicationFailure.
 */
export function businessFailureOf(err: unknown): BusinessFailure | null {
  let e = err as { cause?: unknown } | null | undefined;
  while (e && !(e instanceof ApplicationFailure) && e.cause) e = e.cause as typeof e;
  return e instanceof ApplicationFailure ? { code: e.type ?? null, message: e.message } : null;
}

/**
 * The code and reason a workflow records when a step fails: the business refusal's, else
 * `fallbackCode` with the message of the error itself (e.g. an activity that timed out).
 */
export function failureOf(err: unknown, fallbackCode: string): { code: string; reason: string } {
  const f = businessFailureOf(err);
  if (f) return { code: f.code ?? fallbackCode, reason: f.message };
  return { code: fallbackCode, reason: (err as Error | undefined)?.message ?? 'unknown error' };
}

/** The innermost `cause` of an error (the error itself when it has none). */
export function innermostCause(err: unknown): unknown {
  let e = err as { cause?: unknown } | null | undefined;
  while (e && e.cause) e = e.cause as typeof e;
  return e;
}
