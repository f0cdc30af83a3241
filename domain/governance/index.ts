/**
 * Basket governance: proposals (records.ts, proposals.ts), their life on the clock
 * (lifecycle.ts), votes weighted by the balance at the snapshot (votes.ts, power.ts), the
 * outcome rule (tally.ts), execution as one rebalance (execute.ts), events (events.ts) and the
 * monthly schedule (schedule.ts). docs/gcu.md explains the model.
 */
export * from './records';
export * from './power';
export * from './tally';
export * from './proposals';
export * from './lifecycle';
export * from './votes';
export * from './execute';
export * from './schedule';
export * from './search';
export { GOVERNANCE_EVENT_CATALOG } from './events';
