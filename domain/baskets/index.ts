/**
 * Baskets: definitions (definitions.ts), IMF-method valuation (valuation.ts), composing and
 * decomposing units against the reserve (reserve.ts), and their events (events.ts).
 * docs/gcu.md explains the model.
 */
export * from './definitions';
export * from './valuation';
export * from './reserve';
export * from './views';
