import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** Custom search attributes every money-moving workflow sets, so operators can find it in the UI. */
export const SA = {
  transferId: defineSearchAttributeKey('TransferId', SearchAttributeType.KEYWORD),
  // Rail and Interledger payments: their own id key (not TransferId) and the rail they use ('interledger' for ILP).
  paymentId: defineSearchAttributeKey('PaymentId', SearchAttributeType.KEYWORD),
  rail: defineSearchAttributeKey('Rail', SearchAttributeType.KEYWORD),
  // DeFi operations (swaps, flash loans, cross-chain swaps): their id key, and the chain they run on.
  operationId: defineSearchAttributeKey('OperationId', SearchAttributeType.KEYWORD),
  chain: defineSearchAttributeKey('Chain', SearchAttributeType.KEYWORD),
  accountIds: defineSearchAttributeKey('AccountIds', SearchAttributeType.KEYWORD_LIST),
  assetCode: defineSearchAttributeKey('AssetCode', SearchAttributeType.KEYWORD),
  // Keyword, not Double: amounts are decimal strings everywhere, including here.
  amount: defineSearchAttributeKey('Amount', SearchAttributeType.KEYWORD),
  businessStatus: defineSearchAttributeKey('BusinessStatus', SearchAttributeType.KEYWORD),
  environment: defineSearchAttributeKey('Environment', SearchAttributeType.KEYWORD),
  userId: defineSearchAttributeKey('UserId', SearchAttributeType.KEYWORD),
} as const;

export const ALL_SEARCH_ATTRIBUTES = Object.values(SA);
