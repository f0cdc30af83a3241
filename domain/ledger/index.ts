/**
 * The ledger: journal entries (entries.ts), ledger accounts (accounts.ts), system and internal
 * accounts by id (system-accounts.ts, with the per-database LedgerService), the trial balance
 * (trial-balance.ts), idempotency keys (keys.ts), errors and customer transactions.
 */
export type { Queryable } from '../db/pool';
export { LedgerError, toLedgerError, type LedgerErrorCode } from './errors';
export {
  listTransactions,
  getTransaction,
  TRANSACTION_TYPES,
  type Transaction,
  type TransactionType,
  type TransactionStatus,
  type TransactionQuery,
  type TransactionSort,
} from './transactions';
export {
  entryPayload,
  postEntry,
  postGuaranteeFundEntry,
  postManualEntry,
  postPending,
  voidPending,
  reverseEntry,
  getEntry,
  getEntryByIdempotencyKey,
  voidExpiredPending,
  type Direction,
  type LineInput,
  type PostEntryInput,
  type EntryStatus,
  type EntryLine,
  type Entry,
} from './entries';
export {
  SYSTEM_ACCOUNT_SHARDS,
  SYSTEM_ACCOUNT_KINDS,
  getLedgerAccount,
  listLedgerAccounts,
  createInternalLedgerAccount,
  setLedgerAccountStatus,
  type SystemAccountKind,
  type LedgerAccountKind,
  type LedgerAccountStatus,
  type LedgerAccount,
} from './accounts';
export {
  shardFor,
  createLedgerService,
  ledgerServiceFor,
  systemAccount,
  internalLedgerAccountId,
  systemBalance,
  type LedgerService,
  type InternalLedgerAccountInput,
} from './system-accounts';
export { trialBalance, type TrialBalance } from './trial-balance';
export { workflowIdempotencyKey, clientIdempotencyKey } from './keys';
