import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** Custom search attributes every money-moving workflow sets, so operators can find it in the UI. */
export const SA = {
  transferId: defineSearchAttributeKey('TransferId', SearchAttributeType.KEYWORD),
  accountIds: defineSearchAttributeKey('AccountIds', SearchAttributeType.KEYWORD_LIST),
  assetCode: defineSearchAttributeKey('AssetCode', SearchAttributeType.KEYWORD),
  // Keyword, not Double: amounts are decimal strings everywhere, including here.
  amount: defineSearchAttributeKey('Amount', SearchAttributeType.KEYWORD),
  businessStatus: defineSearchAttributeKey('BusinessStatus', SearchAttributeType.KEYWORD),
  environment: defineSearchAttributeKey('Environment', SearchAttributeType.KEYWORD),
  userId: defineSearchAttributeKey('UserId', SearchAttributeType.KEYWORD),
} as const;

export const ALL_SEARCH_ATTRIBUTES = Object.values(SA);
