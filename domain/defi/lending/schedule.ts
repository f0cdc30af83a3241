/**
 * The lending watch's schedule (docs/defi.md "Lending"): lendingWatchWorkflow every minute, so a
 * position crossing a threshold is warned or liquidated within a minute of the price or interest
 * that moved it. Ensured by every worker at start (worker/main.ts, scripts/start.ts).
 */
import { ensureIntervalSchedule } from '../../temporal/interval-schedule';
import type { ScheduleResult } from '../../temporal/ensure-schedule';

export const LENDING_WATCH_SCHEDULE_ID = 'defi-lending-watch';
export const LENDING_WATCH_WORKFLOW = 'lendingWatchWorkflow';
export const LENDING_WATCH_EVERY_MS = 60_000;

export function ensureLendingWatchSchedule(): Promise<ScheduleResult> {
  return ensureIntervalSchedule({ id: LENDING_WATCH_SCHEDULE_ID, workflowType: LENDING_WATCH_WORKFLOW, everyMs: LENDING_WATCH_EVERY_MS });
}
