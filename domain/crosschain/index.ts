/**
 * Cross-chain bridging: protocols and routes (./bridges), quotes (./quotes), transfers and their
 * history (./transfers), initiating a transfer (./initiate), the operations every transport
 * calls (./operations) and the cross-chain portfolio (./portfolio). Money moves only in the
 * workflow's activities (activities/crosschain), through the ledger. States: ./transfers.ts.
 */
export * from './bridges';
export * from './quotes';
export * from './transfers';
export * from './initiate';
export * from './operations';
export * from './portfolio';
