/**
 * The Temporal schedule that records basket valuations every hour at minute 0 UTC
 * (workflows/basket-valuation.ts), an hourly schedule of domain/temporal/hourly-schedule.ts: call
 * ensureBasketValuationSchedule() at start-up. Catch-up window one hour: after an outage only the
 * last missed hour is recorded (each run values the hour it was scheduled for); older hours stay
 * absent rather than being valued with later rates.
 */
import { ensureHourlySchedule, type HourlyScheduleResult } from '../temporal/hourly-schedule';

export const BASKET_VALUATION_SCHEDULE_ID = 'basket-valuation-hourly';
export const BASKET_VALUATION_WORKFLOW = 'basketValuationWorkflow';

export type BasketValuationScheduleResult = HourlyScheduleResult;

/** Creates or corrects the hourly valuation schedule; safe to call from every worker at every start. */
export function ensureBasketValuationSchedule(): Promise<BasketValuationScheduleResult> {
  return ensureHourlySchedule({ id: BASKET_VALUATION_SCHEDULE_ID, workflowType: BASKET_VALUATION_WORKFLOW });
}
