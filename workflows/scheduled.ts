import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { workflowInfo } from '@temporalio/workflow';

/** Set by Temporal on every run a schedule starts: the instant it was due. */
const SCHEDULED_START = defineSearchAttributeKey('TemporalScheduledStartTime', SearchAttributeType.DATETIME);

/**
 * The instant a scheduled run is for: the one it was due at (so a late or caught-up run does the
 * right instant's work, and the time-skipping test server can move it), else when it started (a
 * manual run). Deterministic: both come from the workflow's own info.
 */
export function dueAt(): Date {
  const info = workflowInfo();
  return info.typedSearchAttributes.get(SCHEDULED_START) ?? info.startTime;
}
